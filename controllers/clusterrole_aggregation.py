"""The clusterrole-aggregation controller: an aggregated ClusterRole's rules, gathered.

As upstream's ``pkg/controller/clusterroleaggregation``: a ClusterRole with an
``aggregationRule`` gets as ``rules`` the rules of every other ClusterRole that one of its
``clusterRoleSelectors`` selects, in the order of the selectors and, per selector, of the
roles' names, each rule once. Any ClusterRole change queues every aggregated role (a role may
start or stop matching a selector), and a role whose gathered rules already equal its own is
left alone.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import CLUSTER_ROLES, Client, InformerFactory
from fakeapi.clock import Clock
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, text
from fakeapi.selectors import SelectorError, label_selector_from_api

__all__ = ["ClusterRoleAggregationController", "aggregate_rules"]


def aggregate_rules(role: Obj, roles: list[Obj]) -> list[dict[str, Any]]:
    """The rules ``role``'s aggregation rule gathers from ``roles``."""
    name = text(meta(role).get("name"))
    rules: list[dict[str, Any]] = []
    selectors = as_list(as_dict(role.get("aggregationRule")).get("clusterRoleSelectors"))
    for raw in selectors:
        try:
            selector = label_selector_from_api(as_dict(raw))
        except (SelectorError, ValueError):
            continue
        matched = sorted(
            (r for r in roles if text(meta(r).get("name")) != name
             and selector.matches({k: text(v) for k, v in
                                   as_dict(meta(r).get("labels")).items()})),
            key=lambda r: text(meta(r).get("name")),
        )
        for other in matched:
            for rule in as_list(other.get("rules")):
                if rule not in rules:
                    rules.append(rule)
    return rules


class ClusterRoleAggregationController(ControllerComponent):
    """Fills in the rules of aggregated ClusterRoles."""

    name = "clusterrole-aggregation-controller"

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
            name="ClusterRoleAggregator", reconcile=self.reconcile, clock=clock, workers=1,
            metrics=metrics,
        )
        self.roles = informers.informer(CLUSTER_ROLES)
        self.informers = [self.roles]
        self.roles.add_handler(
            on_add=self._changed,
            on_update=lambda _old, new: self._changed(new),
            on_delete=self._changed,
        )

    def _changed(self, _role: Obj) -> None:
        for role in self.roles.list():
            if role.get("aggregationRule") is not None:
                self.controller.enqueue(text(meta(role).get("name")))

    async def reconcile(self, key: str) -> Result | None:
        role = self.roles.get(key)
        if role is None or role.get("aggregationRule") is None:
            return None
        rules = aggregate_rules(role, self.roles.list())
        if rules == as_list(role.get("rules")):
            return None
        body = deep_copy(role)
        body["rules"] = rules
        await self.client.update(CLUSTER_ROLES, body=body)
        return None
