"""The serviceaccounts controller: every namespace has its ``default`` ServiceAccount.

As upstream's ``pkg/controller/serviceaccount`` (``serviceaccount-controller``): when a
namespace appears (or the account is deleted), an account named ``default`` is created in it,
unless the namespace is being deleted. Clients' e2e suites wait for this account before they
create pods; nothing mints tokens for it (fakeapi authenticates nobody).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    NAMESPACES,
    SERVICE_ACCOUNTS,
    Client,
    InformerFactory,
    is_already_exists,
)
from fakeapi.clock import Clock
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import Obj, is_deleting, meta, text

__all__ = ["DEFAULT_SERVICE_ACCOUNT", "ServiceAccountsController"]

DEFAULT_SERVICE_ACCOUNT = "default"


class ServiceAccountsController(ControllerComponent):
    """Creates the ``default`` ServiceAccount of every active namespace."""

    name = "serviceaccount-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
    ) -> None:
        self.client = client
        self.controller = Controller(
            name="serviceaccount", reconcile=self.reconcile, clock=clock, workers=1,
            metrics=metrics,
        )
        self.namespaces = informers.informer(NAMESPACES)
        self.accounts = informers.informer(SERVICE_ACCOUNTS)
        self.informers = [self.namespaces, self.accounts]
        self.controller.watch(
            self.namespaces, key=lambda ns: text(meta(ns).get("name")), on_delete=False
        )
        self.accounts.add_handler(on_delete=self._account_deleted)

    def _account_deleted(self, account: Obj) -> None:
        if meta(account).get("name") == DEFAULT_SERVICE_ACCOUNT:
            self.controller.enqueue(text(meta(account).get("namespace")))

    async def reconcile(self, key: str) -> Result | None:
        namespace = self.namespaces.get(key)
        if namespace is None or is_deleting(namespace):
            return None
        if self.accounts.get(f"{key}/{DEFAULT_SERVICE_ACCOUNT}") is not None:
            return None
        try:
            await self.client.create(
                SERVICE_ACCOUNTS, namespace=key,
                body={"apiVersion": "v1", "kind": "ServiceAccount",
                      "metadata": {"name": DEFAULT_SERVICE_ACCOUNT, "namespace": key}},
            )
        except StatusError as exc:
            if is_already_exists(exc):
                return None
            causes = (exc.details or {}).get("causes") or []
            if any(c.get("reason") == "NamespaceTerminating" for c in causes):
                return None
            raise
        return None
