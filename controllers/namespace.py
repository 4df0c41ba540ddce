"""The namespace controller: empty a deleted namespace, then let the apiserver remove it.

A namespace being deleted is ``Terminating`` (the registry sets the phase) and stays while its
``spec.finalizers`` hold ``kubernetes``. For such a namespace this controller, as upstream's
``pkg/controller/namespace/deletion`` does, deletes every namespaced kind in it with one
deletecollection per kind, counts what is left (and which finalizers hold it), reports that in
upstream's five deletion conditions, and — once nothing is left — removes ``kubernetes`` through
the ``namespaces/<name>/finalize`` subresource, after which the namespace disappears.

Objects that linger (a pod's grace period, a claim's finalizer) are waited for: the deletion
events of objects in a terminating namespace queue the namespace again, and a timed requeue
covers whatever those events miss.

Custom resources are kinds of the moment: upstream finds them through discovery at each pass;
here each pass lists the CustomResourceDefinitions and empties the namespaced kinds of the
established ones too (at a served version: the storage one when served). They have no
informers here, so their lingering objects are waited for by the timed requeue alone.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    ALL_RESOURCES,
    CUSTOM_RESOURCE_DEFINITIONS,
    EVENTS,
    NAMESPACES,
    Client,
    Informer,
    InformerFactory,
    Resource,
)
from fakeapi.clock import Clock
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, is_deleting, meta, text
from fakeapi.rules.conditions import set_status_condition
from fakeapi.rules.definitions import served_kind

__all__ = ["KUBERNETES_FINALIZER", "NamespaceController"]

KUBERNETES_FINALIZER = "kubernetes"
#: how long to wait before looking again at content that is still going away
RECHECK_SECONDS = 5.0


def _gr(resource: Resource) -> str:
    """``pods.`` / ``resourceclaims.resource.k8s.io``, as upstream's messages print a resource."""
    return f"{resource.plural}.{resource.group}"


def _problem_condition(
    type_: str, problems: list[str], *, true: tuple[str, str], false: tuple[str, str]
) -> tuple[str, str, str, str]:
    """``(type, status, reason, message)`` of a condition that is True while there are
    ``problems`` (``true``'s reason, its message followed by the problems) and False with
    ``false``'s reason and message once there are none."""
    if problems:
        reason, message = true
        return (type_, "True", reason, message + ", ".join(problems))
    return (type_, "False", *false)


class NamespaceController(ControllerComponent):
    """Deletes the content of terminating namespaces and finalizes them."""

    name = "namespace-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        resources: Sequence[Resource] = ALL_RESOURCES,
        workers: int = 2,
    ) -> None:
        self.client = client
        self.clock = clock
        self.namespaced = [r for r in resources if r.namespaced]
        self.custom_resources = CUSTOM_RESOURCE_DEFINITIONS in resources
        self.controller = Controller(
            name="namespace",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self.namespaces = informers.informer(NAMESPACES)
        self.namespaces.add_handler(
            on_add=self._namespace_changed, on_update=lambda _o, new: self._namespace_changed(new)
        )
        self.informers: list[Informer] = [self.namespaces]
        for resource in self.namespaced:
            if resource is EVENTS:
                continue  # no informer on events: they are many and only ever deleted here
            informer = informers.informer(resource)
            informer.add_handler(on_delete=self._content_deleted)
            self.informers.append(informer)

    def _namespace_changed(self, ns: Obj) -> None:
        if is_deleting(ns):
            self.controller.enqueue(text(meta(ns).get("name")))

    def _content_deleted(self, obj: Obj) -> None:
        ns_name = text(meta(obj).get("namespace"))
        ns = self.namespaces.get(ns_name)
        if ns is not None and is_deleting(ns):
            self.controller.enqueue(ns_name)

    async def reconcile(self, key: str) -> Result | None:
        ns = self.namespaces.get(key)
        if ns is None or not is_deleting(ns):
            return None
        spec_finalizers = [text(f) for f in as_list(as_dict(ns.get("spec")).get("finalizers"))]
        if KUBERNETES_FINALIZER not in spec_finalizers:
            return None
        failures: list[str] = []
        remaining: dict[str, int] = {}
        holding: Counter[str] = Counter()
        resources = list(self.namespaced)
        if self.custom_resources:
            try:
                resources += await self._custom_resources()
            except StatusError as exc:
                failures.append(exc.message)
        for resource in resources:
            try:
                left = await self._delete_content(resource, key)
            except StatusError as exc:
                failures.append(exc.message)
                continue
            if left:
                remaining[_gr(resource)] = len(left)
                for obj in left:
                    holding.update(text(f) for f in as_list(meta(obj).get("finalizers")))
        await self._report(ns, failures=failures, remaining=remaining, holding=holding)
        if failures or remaining:
            return Result(requeue_after=RECHECK_SECONDS)
        body = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": key},
            "spec": {"finalizers": [f for f in spec_finalizers if f != KUBERNETES_FINALIZER]},
        }
        await self.client.create_subresource(
            NAMESPACES, name=key, subresource="finalize", body=body
        )
        return None

    async def _custom_resources(self) -> list[Resource]:
        """The namespaced kinds the established CustomResourceDefinitions serve now."""
        found: list[Resource] = []
        for crd in (await self.client.list(CUSTOM_RESOURCE_DEFINITIONS)).items:
            kind = served_kind(crd)
            if kind is not None and kind.namespaced:
                found.append(Resource(*kind))
        return found

    async def _delete_content(self, resource: Resource, namespace: str) -> list[Obj]:
        """Delete everything of ``resource`` in ``namespace``; what is still there afterwards."""
        listed = await self.client.list(resource, namespace=namespace)
        if not listed.items:
            return []
        if any(not is_deleting(obj) for obj in listed.items):
            await self.client.delete_collection(resource, namespace=namespace)
            listed = await self.client.list(resource, namespace=namespace)
        return listed.items

    async def _report(
        self,
        ns: Obj,
        *,
        failures: list[str],
        remaining: dict[str, int],
        holding: Counter[str],
    ) -> None:
        now = self.clock.now()
        conditions: list[dict[str, Any]] = [
            as_dict(c) for c in as_list(as_dict(ns.get("status")).get("conditions"))
        ]
        wanted = [
            (
                "NamespaceDeletionDiscoveryFailure",
                "False",
                "ResourcesDiscovered",
                "All resources successfully discovered",
            ),
            (
                "NamespaceDeletionGroupVersionParsingFailure",
                "False",
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed",
            ),
            _problem_condition(
                "NamespaceDeletionContentFailure",
                failures,
                true=(
                    "ContentDeletionFailed",
                    f"Failed to delete all resource types, {len(failures)} remaining: ",
                ),
                false=(
                    "ContentDeleted",
                    "All content successfully deleted, may be waiting on finalization",
                ),
            ),
            _problem_condition(
                "NamespaceContentRemaining",
                [f"{gr} has {n} resource instances" for gr, n in sorted(remaining.items())],
                true=("SomeResourcesRemain", "Some resources are remaining: "),
                false=("ContentRemoved", "All content successfully removed"),
            ),
            _problem_condition(
                "NamespaceFinalizersRemaining",
                [f"{f} in {n} resource instances" for f, n in sorted(holding.items())],
                true=(
                    "SomeFinalizersRemain",
                    "Some content in the namespace has finalizers remaining: ",
                ),
                false=("ContentHasNoFinalizers", "All content-preserving finalizers finished"),
            ),
        ]
        updated_conditions = conditions
        for type_, status, reason, message in wanted:
            updated_conditions = set_status_condition(
                updated_conditions,
                type=type_,
                status=status,
                reason=reason,
                message=message,
                now=now,
            )
        if updated_conditions == conditions:
            return
        updated = deep_copy(ns)
        status_obj = as_dict(updated.get("status"))
        status_obj["conditions"] = updated_conditions
        updated["status"] = status_obj
        await self.client.update_status(NAMESPACES, body=updated)
