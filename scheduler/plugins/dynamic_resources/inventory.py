"""The long-lived device inventory the allocator works against.

The scheduler checks many nodes per pod and many pods per second, so nothing that can be kept
between calls is rebuilt per call. The inventory is updated incrementally by informer events:

* slices (parsed once; an unchanged upsert keeps the old entries and their CEL memo), indexed by
  node name, by pool, and "node-independent" (no ``nodeName``);
* device classes (selectors compiled once);
* DeviceTaintRules (applied virtually to matching devices, recomputed lazily per rules version);
* the allocated state of existing and in-flight claims: dedicated device IDs, shared allocations
  with their consumed capacity, and per pool the names of allocated devices, recorded per claim so
  that freeing a claim is exact.

Per node it caches the gathered pools (invalidated when slices change or the node's labels do).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fakeapi.cel import SelectorCompiler, get_compiler
from fakeapi.models.device_taint_rule import rule_selects
from fakeapi.objects import Obj
from fakeapi.quantity import Quantity, QuantityError, parse_quantity
from fakeapi.scheduler.plugins.dynamic_resources.entries import DeviceEntry, SliceEntry
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node
from fakeapi.scheduler.plugins.dynamic_resources.pools import Pool, gather_pools
from fakeapi.scheduler.plugins.dynamic_resources.requests import ClassEntry, prepare_class

__all__ = ["DeviceInventory", "NodeView"]



class NodeView:
    """The pools of one node plus what the search needs from them, precomputed."""

    __slots__ = (
        "any_invalid",
        "candidates",
        "has_multi",
        "labels",
        "pools",
        "pools_by_key",
        "usable",
        "version",
    )

    def __init__(self, pools: list[Pool], labels: Mapping[str, str], version: int) -> None:
        self.pools = pools
        self.labels = labels
        self.version = version
        self.usable = [p for p in pools if p.usable]
        self.pools_by_key = {p.key: p for p in pools}
        self.candidates: tuple[DeviceEntry, ...] = tuple(d for p in self.usable for d in p.devices)
        self.any_invalid = any(p.invalid for p in pools)
        self.has_multi = any(p.has_multi for p in self.usable)


class _ClaimRecord:
    __slots__ = ("capacity", "dedicated", "shared")

    def __init__(self) -> None:
        self.dedicated: list[str] = []
        self.shared: list[str] = []
        self.capacity: list[tuple[str, dict[str, Quantity]]] = []


def _pool_of(device_id: str) -> tuple[tuple[str, str], str]:
    driver, _, rest = device_id.partition("/")
    pool, _, device = rest.rpartition("/")
    return (driver, pool), device


class DeviceInventory:
    """Slices, classes, taint rules and allocated state, indexed for the allocator."""

    def __init__(
        self,
        *,
        features: AllocatorFeatures | Mapping[str, bool] | None = None,
        compiler: SelectorCompiler | None = None,
    ) -> None:
        if not isinstance(features, AllocatorFeatures):
            features = AllocatorFeatures.from_gates(features)
        self.features = features
        self.compiler: SelectorCompiler = compiler or get_compiler(features.cel)
        self._slices: dict[str, SliceEntry] = {}
        self._by_node: dict[str, dict[str, SliceEntry]] = {}
        self._shared: dict[str, SliceEntry] = {}
        self._by_pool: dict[tuple[str, str], dict[str, SliceEntry]] = {}
        self.slice_version = 0
        self._node_views: dict[str, NodeView] = {}
        self.classes: dict[str, ClassEntry] = {}
        self._taint_rules: dict[str, Obj] = {}
        self.taint_rule_version = 1
        # Allocated state (upstream AllocatedState), reference-counted per device.
        self.allocated_devices: set[str] = set()
        self._dedicated_refs: dict[str, int] = {}
        self.shared_ids: set[str] = set()
        self._shared_refs: dict[str, int] = {}
        self.aggregated_capacity: dict[str, dict[str, Quantity]] = {}
        self.allocated_by_pool: dict[tuple[str, str], set[str]] = {}
        self._claims: dict[str, _ClaimRecord] = {}
        self.allocation_version = 0

    # -- slices -------------------------------------------------------------------------------
    def upsert_slice(self, resource_slice: Obj, *, key: str | None = None) -> None:
        """Add or replace a ResourceSlice (``key`` defaults to its name)."""
        entry = SliceEntry(resource_slice)
        key = key if key is not None else entry.name
        old = self._slices.get(key)
        if old is not None:
            if old.same_content(entry):
                return
            self._unindex(key, old)
        self._slices[key] = entry
        if entry.node_name:
            self._by_node.setdefault(entry.node_name, {})[key] = entry
        else:
            self._shared[key] = entry
        self._by_pool.setdefault(entry.pool_key, {})[key] = entry
        self.slice_version += 1

    def remove_slice(self, *, key: str) -> None:
        old = self._slices.pop(key, None)
        if old is not None:
            self._unindex(key, old)
            self.slice_version += 1

    def _unindex(self, key: str, entry: SliceEntry) -> None:
        if entry.node_name:
            node_slices = self._by_node.get(entry.node_name, {})
            node_slices.pop(key, None)
            if not node_slices:
                self._by_node.pop(entry.node_name, None)
        else:
            self._shared.pop(key, None)
        pool = self._by_pool.get(entry.pool_key, {})
        pool.pop(key, None)
        if not pool:
            self._by_pool.pop(entry.pool_key, None)

    @property
    def slices(self) -> Mapping[str, SliceEntry]:
        return self._slices

    def node_view(self, node: Node) -> NodeView:
        """Pools visible from ``node`` (cached until slices or the node's labels change)."""
        view = self._node_views.get(node.name)
        if (
            view is not None
            and view.version == self.slice_version
            and (view.labels is node.labels or view.labels == node.labels)
        ):
            return view
        candidates: list[SliceEntry] = [
            *self._by_node.get(node.name, {}).values(),
            *self._shared.values(),
        ]
        pools = gather_pools(
            node=node,
            candidates=candidates,
            pool_slices=self._by_pool,
            features=self.features,
        )
        view = NodeView(pools, node.labels, self.slice_version)
        self._node_views[node.name] = view
        return view

    # -- classes --------------------------------------------------------------------------------
    def upsert_class(self, device_class: Obj) -> None:
        entry = prepare_class(device_class, self.compiler)
        self.classes[entry.name] = entry

    def remove_class(self, *, name: str) -> None:
        self.classes.pop(name, None)

    # -- taint rules ----------------------------------------------------------------------------
    def upsert_taint_rule(self, rule: Obj) -> None:
        name = str((rule.get("metadata") or {}).get("name", ""))
        self._taint_rules[name] = rule
        self.taint_rule_version += 1

    def remove_taint_rule(self, *, name: str) -> None:
        if self._taint_rules.pop(name, None) is not None:
            self.taint_rule_version += 1

    def device_taints(self, device: DeviceEntry) -> tuple[Mapping[str, Any], ...]:
        """The device's own taints plus those of matching DeviceTaintRules."""
        if device.rule_version == self.taint_rule_version:
            return device.rule_taints
        taints = list(device.taints)
        for rule in self._taint_rules.values():
            taint = (rule.get("spec") or {}).get("taint")
            if taint and rule_selects(
                rule, driver=device.driver, pool=device.pool, device=device.name
            ):
                taints.append(taint)
        device.rule_taints = tuple(taints)
        device.rule_version = self.taint_rule_version
        return device.rule_taints

    # -- allocated state ------------------------------------------------------------------------
    def mark_allocated(self, *, claim_key: str, allocation: Obj) -> None:
        """Record a claim's ``status.allocation`` (allocated, assumed or in flight).

        Results with ``shareID`` count as shared allocations with their consumed capacity,
        ``adminAccess`` results do not count at all, the rest are dedicated devices.
        """
        dedicated: list[str] = []
        shared: list[tuple[str, str, dict[str, str]]] = []
        for result in (allocation.get("devices") or {}).get("results") or ():
            if result.get("adminAccess"):
                continue
            did = f"{result.get('driver', '')}/{result.get('pool', '')}/{result.get('device', '')}"
            if result.get("shareID"):
                shared.append(
                    (did, str(result["shareID"]), dict(result.get("consumedCapacity") or {}))
                )
            else:
                dedicated.append(did)
        self._record(claim_key, dedicated, shared)

    def mark_devices_allocated(
        self,
        *,
        claim_key: str,
        device_ids: Iterable[str] = (),
        consumed_capacity: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """Record raw state: dedicated device IDs, capacity consumed on shared devices."""
        shared = [
            (did, f"{claim_key}-{i}", dict(caps))
            for i, (did, caps) in enumerate((consumed_capacity or {}).items())
        ]
        self._record(claim_key, list(device_ids), shared)

    def _record(
        self,
        claim_key: str,
        dedicated: Sequence[str],
        shared: Sequence[tuple[str, str, dict[str, str]]],
    ) -> None:
        self.mark_freed(claim_key=claim_key)
        record = _ClaimRecord()
        for did in dedicated:
            record.dedicated.append(did)
            count = self._dedicated_refs.get(did, 0)
            self._dedicated_refs[did] = count + 1
            if not count:
                self.allocated_devices.add(did)
                self._track_pool(did, add=True)
        for did, share_id, capacity in shared:
            sid = f"{did}/{share_id}"
            record.shared.append(sid)
            self.shared_ids.add(sid)
            self._shared_refs[did] = self._shared_refs.get(did, 0) + 1
            parsed: dict[str, Quantity] = {}
            for name, value in capacity.items():
                try:
                    parsed[name] = parse_quantity(str(value))
                except QuantityError:
                    continue
            record.capacity.append((did, parsed))
            totals = self.aggregated_capacity.setdefault(did, {})
            for name, qty in parsed.items():
                totals[name] = totals[name] + qty if name in totals else qty
        self._claims[claim_key] = record
        self.allocation_version += 1

    def mark_freed(self, *, claim_key: str) -> None:
        """Forget everything recorded for ``claim_key`` (deallocated or in-flight dropped)."""
        record = self._claims.pop(claim_key, None)
        if record is None:
            return
        for did in record.dedicated:
            count = self._dedicated_refs[did] - 1
            if count:
                self._dedicated_refs[did] = count
            else:
                del self._dedicated_refs[did]
                self.allocated_devices.discard(did)
                self._track_pool(did, add=False)
        for sid in record.shared:
            self.shared_ids.discard(sid)
        for did, parsed in record.capacity:
            count = self._shared_refs[did] - 1
            if count:
                self._shared_refs[did] = count
            else:
                del self._shared_refs[did]
            totals = self.aggregated_capacity.get(did)
            if totals is not None:
                for name, qty in parsed.items():
                    if name in totals:
                        totals[name] = totals[name] - qty
                if did not in self._shared_refs:
                    del self.aggregated_capacity[did]
        self.allocation_version += 1

    def _track_pool(self, did: str, *, add: bool) -> None:
        pool_key, name = _pool_of(did)
        names = self.allocated_by_pool.setdefault(pool_key, set())
        if add:
            names.add(name)
        else:
            names.discard(name)
            if not names:
                del self.allocated_by_pool[pool_key]

    def is_device_allocated(self, did: str) -> bool:
        """Upstream ``IsDeviceAllocated``: dedicated, shared, or with consumed capacity."""
        return (
            did in self.allocated_devices
            or did in self._shared_refs
            or did in self.aggregated_capacity
        )

    @property
    def claim_keys(self) -> Iterable[str]:
        return self._claims.keys()
