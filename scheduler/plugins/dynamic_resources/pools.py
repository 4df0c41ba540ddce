"""Gathering the resource pools visible from one node (upstream ``GatherPools``).

The steps and their order are upstream's, because they decide which devices exist for a node:
candidate slices (this node's plus node-independent ones) → relevance → highest generation per
pool → completeness (with a scan of the whole pool when the node's own view is short) → pool
validation (duplicate device names, counter sets, counter references) → deterministic order
(driver, pool; pools with binding conditions last).

The result for a node only changes when slices change or the node's labels do, so the inventory
caches it per node; a warm allocation never repeats this work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from fakeapi.scheduler.plugins.dynamic_resources.entries import DeviceEntry, SliceEntry
from fakeapi.scheduler.plugins.dynamic_resources.errors import AllocationError
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node, node_selector_matches

__all__ = ["Pool", "device_matches_node", "gather_pools"]


class Pool:
    """A pool as seen from one node."""

    __slots__ = (
        "counter_sets",
        "device_names",
        "devices",
        "driver",
        "has_binding_conditions",
        "has_multi",
        "id",
        "incomplete",
        "invalid",
        "invalid_reason",
        "key",
        "name",
        "not_targeting",
        "slices",
    )

    def __init__(self, driver: str, name: str) -> None:
        self.driver = driver
        self.name = name
        self.key = (driver, name)
        self.id = f"{driver}/{name}"
        self.incomplete = False
        self.invalid = False
        self.invalid_reason = ""
        self.slices: list[SliceEntry] = []
        self.devices: tuple[DeviceEntry, ...] = ()
        self.device_names: frozenset[str] = frozenset()
        self.not_targeting: list[SliceEntry] = []
        self.counter_sets: dict[str, dict[str, Fraction]] = {}
        self.has_binding_conditions = False
        self.has_multi = False

    @property
    def usable(self) -> bool:
        return not (self.incomplete or self.invalid)

    def __repr__(self) -> str:
        state = (
            "incomplete"
            if self.incomplete
            else "invalid"
            if self.invalid
            else f"{len(self.devices)} devices"
        )
        return f"Pool({self.id}, {state})"


def node_matches(
    node: Node, node_name: str | None, all_nodes: bool, selector: Mapping[str, object] | None
) -> bool:
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node_selector_matches(selector, node)
    return False


def device_matches_node(device: DeviceEntry, node: Node) -> bool:
    """Per-device node selection (slices with ``perDeviceNodeSelection``)."""
    return node_matches(node, device.node_name, device.all_nodes, device.node_selector)


def _relevant(slice_entry: SliceEntry, node: Node) -> bool | None:
    """True/False for relevance; None for a slice using an unknown node-selection field."""
    if slice_entry.node_name or slice_entry.all_nodes or slice_entry.node_selector is not None:
        try:
            return node_matches(
                node, slice_entry.node_name, slice_entry.all_nodes, slice_entry.node_selector
            )
        except AllocationError as exc:
            raise AllocationError(
                "gather pool information: failed to perform node selection "
                f"for slice {slice_entry.name}: {exc}"
            ) from None
    if slice_entry.per_device:
        return any(device_matches_node(d, node) for d in slice_entry.devices)
    return None


def gather_pools(
    *,
    node: Node,
    candidates: Iterable[SliceEntry],
    pool_slices: Mapping[tuple[str, str], Mapping[str, SliceEntry]],
    features: AllocatorFeatures,
) -> list[Pool]:
    """Pools for ``node``; ``candidates`` are this node's slices plus those without nodeName,
    ``pool_slices`` every known slice by pool, by name (for the completeness scan)."""
    by_pool: dict[tuple[str, str], list[SliceEntry]] = {}
    for entry in candidates:
        if not features.partitionable_devices and (entry.per_device_set or entry.counter_sets):
            continue
        if not _relevant(entry, node):
            continue
        current = by_pool.get(entry.pool_key)
        if current is None or entry.generation > current[0].generation:
            by_pool[entry.pool_key] = [entry]
        elif entry.generation == current[0].generation:
            current.append(entry)

    plain: list[Pool] = []
    with_binding: list[Pool] = []
    for key, entries in by_pool.items():
        generation = entries[0].generation
        expected = entries[0].slice_count
        all_for_pool: list[SliceEntry] | None = None
        if len(entries) != expected:
            obsolete = False
            all_for_pool = []
            for other in pool_slices.get(key, {}).values():
                if other.generation > generation:
                    obsolete = True
                    break
                if other.generation == generation:
                    all_for_pool.append(other)
            if obsolete:
                continue
            if len(all_for_pool) != expected:
                pool = Pool(*key)
                pool.incomplete = True
                plain.append(pool)
                continue
        pool = _build_pool(key, entries, all_for_pool, features)
        (with_binding if pool.has_binding_conditions else plain).append(pool)
    plain.sort(key=lambda p: p.key)
    with_binding.sort(key=lambda p: p.key)
    return plain + with_binding


def _build_pool(
    key: tuple[str, str],
    entries: list[SliceEntry],
    all_for_pool: list[SliceEntry] | None,
    features: AllocatorFeatures,
) -> Pool:
    pool = Pool(*key)
    entries = sorted(entries, key=lambda s: s.name)
    counter_slices: list[SliceEntry] = []
    device_slices: list[SliceEntry] = []
    for entry in entries:
        (
            counter_slices
            if features.partitionable_devices and entry.counter_sets
            else device_slices
        ).append(entry)
    if all_for_pool is not None and len(entries) < len(all_for_pool):
        seen = {id(e) for e in entries}
        for other in sorted(all_for_pool, key=lambda s: s.name):
            if id(other) in seen:
                continue
            if features.partitionable_devices and other.counter_sets:
                counter_slices.append(other)
            else:
                pool.not_targeting.append(other)

    pool.slices = device_slices
    pool.devices = tuple(d for s in device_slices for d in s.devices)
    pool.device_names = frozenset(d.name for d in pool.devices)
    pool.has_binding_conditions = any(d.has_binding_conditions for d in pool.devices)
    pool.has_multi = any(d.allow_multiple for d in pool.devices)

    names: set[str] = set()
    for device in pool.devices:
        if device.name in names:
            return _invalid(pool, f"duplicate device name {device.name}")
        names.add(device.name)
    if not features.partitionable_devices:
        pool.not_targeting = []
        return pool

    for counter_slice in counter_slices:
        for set_name, counters in counter_slice.counter_sets:
            if set_name in pool.counter_sets:
                return _invalid(pool, f"duplicate counter set name {set_name}")
            pool.counter_sets[set_name] = counters
    for device in (*pool.devices, *(d for s in pool.not_targeting for d in s.devices)):
        for set_name, counters in device.consumes:
            counter_set = pool.counter_sets.get(set_name)
            if counter_set is None:
                return _invalid(pool, f"counter set {set_name} not found")
            for counter in counters:
                if counter not in counter_set:
                    return _invalid(pool, f"counter {counter} not found in counter set {set_name}")
    return pool


def _invalid(pool: Pool, reason: str) -> Pool:
    pool.invalid = True
    pool.invalid_reason = reason
    pool.slices, pool.devices, pool.not_targeting = [], (), []
    pool.device_names = frozenset()
    pool.counter_sets = {}
    pool.has_binding_conditions = pool.has_multi = False
    return pool
