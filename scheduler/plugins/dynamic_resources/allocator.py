"""The structured allocator's entry points.

Two levels, one implementation:

* :class:`Allocator` for the scheduler: bound to a long-lived :class:`DeviceInventory`;
  :meth:`Allocator.prepare` does the per-pod work once (PreFilter), :meth:`Allocator.allocate`
  the per-node work (Filter). A node whose pools have no free device at all is rejected before
  any selector is evaluated.
* :func:`allocate` for one-shot use (tests, tools): builds a throwaway inventory and calls the
  same code.

Results are all-or-nothing: one ``status.allocation`` dict per claim, ``None`` when the claims do
not fit on the node, or :class:`AllocationError` with upstream's message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi.objects import Obj
from fakeapi.scheduler.plugins.dynamic_resources.errors import (
    AllocationError,
    AllocationTimeoutError,
    FailedAllocationOnNodeError,
)
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory, NodeView
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node
from fakeapi.scheduler.plugins.dynamic_resources.requests import PreparedClaim, prepare_claim
from fakeapi.scheduler.plugins.dynamic_resources.results import build_allocation
from fakeapi.scheduler.plugins.dynamic_resources.search import MAX_RESULTS, RequestData, Search

__all__ = ["AllocationStats", "Allocator", "PreparedClaims", "allocate", "as_node"]



@dataclass(frozen=True, slots=True)
class PreparedClaims:
    """Claims of one pod, prepared against the inventory's classes and selector compiler."""

    claims: tuple[PreparedClaim, ...]
    needs_free_device: bool
    static_data: list[list[list[RequestData]]] | None


@dataclass(slots=True)
class AllocationStats:
    """Search effort of the last call (upstream ``NumAllocateOneInvocations``)."""

    allocate_one_calls: int = 0
    early_rejected: bool = False


def as_node(node: Node | Obj | str) -> Node:
    """Accept a :class:`Node`, a core/v1 Node object, or a bare node name."""
    if isinstance(node, Node):
        return node
    if isinstance(node, str):
        return Node(node)
    meta = node.get("metadata") or {}
    return Node(
        str(meta.get("name") or node.get("name") or ""),
        dict(meta.get("labels") or node.get("labels") or {}),
    )


class Allocator:
    """Allocates devices for a pod's claims on one node at a time."""

    def __init__(self, *, inventory: DeviceInventory) -> None:
        self.inventory = inventory
        self.stats = AllocationStats()

    @property
    def features(self) -> AllocatorFeatures:
        return self.inventory.features

    def prepare(self, *, claims: Sequence[Obj]) -> PreparedClaims:
        """Node-independent work; errors are deferred to :meth:`allocate` (upstream order)."""
        prepared = tuple(
            prepare_claim(
                c,
                classes=self.inventory.classes,
                compiler=self.inventory.compiler,
                features=self.features,
            )
            for c in claims
        )
        return PreparedClaims(prepared, _needs_free_device(prepared), Search.static_data(prepared))

    def allocate(
        self,
        *,
        claims: PreparedClaims | Sequence[Obj],
        node: Node | Obj | str,
        deadline: float | None = None,
        now: Callable[[], float] | None = None,
    ) -> list[dict[str, Any]] | None:
        """Allocation results per claim, None when they do not fit, or raise AllocationError
        (:class:`AllocationTimeoutError` once ``now()`` passes ``deadline``)."""
        if not isinstance(claims, PreparedClaims):
            claims = self.prepare(claims=claims)
        target = node if isinstance(node, Node) else as_node(node)
        view = self.inventory.node_view(target)
        stats = self.stats
        stats.allocate_one_calls = 0
        stats.early_rejected = False
        if (
            claims.needs_free_device
            and not view.has_multi
            and not view.any_invalid
            and self._all_in_use(view)
        ):
            stats.early_rejected = True
            return None
        search = Search(
            inventory=self.inventory,
            node=target,
            view=view,
            claims=claims.claims,
            features=self.features,
            deadline=deadline,
            now=now,
        )
        search.prepare(claims.static_data)
        found = search.run()
        stats.allocate_one_calls = search.calls
        if not found:
            if view.any_invalid:
                raise FailedAllocationOnNodeError("invalid resource pools were encountered")
            return None
        return [
            build_allocation(
                claim=claim,
                results=search.results[ci],
                selected=search.selected[ci],
                node=target,
                features=self.features,
            )
            for ci, claim in enumerate(claims.claims)
        ]

    def _all_in_use(self, view: NodeView) -> bool:
        """True when every device of every usable pool is allocated (no selector can help)."""
        by_pool = self.inventory.allocated_by_pool
        empty: frozenset[str] = frozenset()
        for pool in view.usable:
            if pool.devices and not by_pool.get(pool.key, empty) >= pool.device_names:
                return False
        return True


def _needs_free_device(claims: Iterable[PreparedClaim]) -> bool:
    """Early rejection is exact only when every request needs a device nobody else holds and
    no request can fail with a deferred error before the search starts (a claim over the
    result limit is such an error, even on a node without any device)."""
    any_request = False
    for claim in claims:
        if claim.constraint_error is not None:
            return False
        min_devices = 0
        for request in claim.requests:
            if request.error is not None:
                return False
            for spec in request.specs:
                if spec.error is not None or spec.mode != "ExactCount" or spec.admin:
                    return False
            min_devices += min((spec.count for spec in request.specs), default=0)
            any_request = True
        if min_devices > MAX_RESULTS:
            return False
    return any_request


def allocate(
    *,
    claims: Sequence[Obj],
    node: Node | Obj | str,
    classes: Iterable[Obj] = (),
    slices: Iterable[Obj] = (),
    allocated: Iterable[str] = (),
    allocated_capacity: Mapping[str, Mapping[str, str]] | None = None,
    allocated_claims: Iterable[Obj] = (),
    taint_rules: Iterable[Obj] = (),
    features: AllocatorFeatures | Mapping[str, bool] | None = None,
) -> list[dict[str, Any]] | None:
    """One-shot allocation on a fresh inventory.

    ``allocated`` are device IDs (``driver/pool/device``) held by other claims,
    ``allocated_capacity`` capacity already consumed on shared devices (device ID → name →
    quantity), ``allocated_claims`` ResourceClaims whose ``status.allocation`` counts as taken.
    """
    inventory = DeviceInventory(features=features)
    for i, resource_slice in enumerate(slices):
        inventory.upsert_slice(
            resource_slice, key=f"{i}:{(resource_slice.get('metadata') or {}).get('name', '')}"
        )
    for device_class in classes:
        inventory.upsert_class(device_class)
    for rule in taint_rules:
        inventory.upsert_taint_rule(rule)
    inventory.mark_devices_allocated(
        claim_key="", device_ids=allocated, consumed_capacity=allocated_capacity
    )
    for claim in allocated_claims:
        meta = claim.get("metadata") or {}
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation:
            inventory.mark_allocated(
                claim_key=str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}"),
                allocation=allocation,
            )
    return Allocator(inventory=inventory).allocate(claims=claims, node=node)


__all__ += ["AllocationError", "AllocationTimeoutError", "FailedAllocationOnNodeError"]
