"""What a DRA pool holds and how much of it is in use (KEP-5677), counted once for every reader.

The ResourcePool controller (the counts in a ResourcePool's status), ``kubectl dra`` and its
library form (which claim holds which device) and a ResourcePoolStatusRequest controller all
answer the same question, so they call :func:`gather_pool` and :func:`count_pool` (or
:func:`pool_usage`, both together over whole lists) and differ only in what they print. Upstream's
``pkg/controller/resourcepoolstatusrequest`` is the model for the arithmetic:

- Only slices of the newest ``pool.generation`` describe the pool (older ones are leftovers of
  a rollout, as the allocator treats them). Slices are read in name order; a device name listed
  twice counts once, where it is listed first.
- A device named by an allocation result is **Allocated**; results with ``adminAccess`` are
  observers, not consumers, and do not count. Shared counters are debited once per allocated
  device, not per claim, as the scheduler debits them.
- An allocated device that may be allocated many times (``allowMultipleAllocations``) is
  **PartiallyAllocated** (upstream's ``partiallyAvailableDevices``) — and still counts as
  allocated — unless it declares capacity and every capacity is consumed in full. Upstream's
  controller counts every shareable device in use as partially available, with or without
  capacity; its API documents the field as "some but not all capacity consumed", so a device
  whose capacity is used up is Allocated here.
- A device no allocation holds is **Unavailable** when it cannot take one: a ``NoSchedule`` or
  ``NoExecute`` taint (in its slice, or from a DeviceTaintRule whose selector matches its driver,
  pool and name), or a shared counter it consumes that the allocated devices have used up
  (partitionable devices). Otherwise it is **Available**.

So ``total = allocated + available + unavailable`` for every pool. Readers that cannot see every
claim (:func:`pool_usage` with ``resource_pools``) mark the difference between a ResourcePool's
status and the readable claims as *allocated without a reference*, and turn the devices they
cannot tell apart **Unknown**.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fakeapi.models.device_taint_rule import rule_selects
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.quantity import QuantityError, parse_quantity

__all__ = [
    "ALLOCATED",
    "AVAILABLE",
    "PARTIALLY_ALLOCATED",
    "UNAVAILABLE",
    "UNKNOWN",
    "DeviceUsage",
    "PoolContents",
    "PoolUsage",
    "count_pool",
    "gather_pool",
    "pool_usage",
    "resource_pool_name",
]

AVAILABLE = "Available"
ALLOCATED = "Allocated"
PARTIALLY_ALLOCATED = "PartiallyAllocated"
UNAVAILABLE = "Unavailable"
UNKNOWN = "Unknown"

_BLOCKING_TAINT_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
_MAX_NAME = 253


def resource_pool_name(*, driver: str, pool: str) -> str:
    """The name of the ResourcePool object of a pool: ``<driver>.<pool>``, ``/`` replaced by
    ``-`` in both parts (a pool name may hold slashes too), lowercased (a driver name may be
    written in capitals, an object name may not) and cut to the 253 characters of a DNS
    subdomain. ``example.com/gpu`` and ``node-1`` → ``example.com-gpu.node-1``."""
    name = f"{driver.replace('/', '-')}.{pool.replace('/', '-')}".lower()
    return name[:_MAX_NAME].rstrip(".-")


def _amount(value: Any) -> Fraction | None:
    """The value of a ``{value: <quantity>}`` entry (or a bare quantity), None if unreadable."""
    raw = value.get("value") if isinstance(value, Mapping) else value
    if raw is None:
        return None
    try:
        return parse_quantity(str(raw)).value
    except (QuantityError, ValueError):
        return None


def _generation(slice_obj: Obj) -> int:
    value = as_dict(as_dict(slice_obj.get("spec")).get("pool")).get("generation")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass(slots=True)
class PoolContents:
    """One pool as its newest slices describe it."""

    driver: str
    pool: str
    #: the newest ``pool.generation``
    generation: int = 0
    #: the slices of that generation, in name order
    slices: list[Obj] = field(default_factory=list)
    #: devices by name, where each is listed first
    devices: dict[str, Obj] = field(default_factory=dict)
    #: the shared counters of the pool's counter sets: (set, counter) → amount
    counters: dict[tuple[str, str], Fraction] = field(default_factory=dict)
    #: the ``nodeName`` of the first slice that has one
    node: str = ""
    #: ``device "x" appears in both a and b`` for every device listed twice
    duplicates: list[str] = field(default_factory=list)
    #: the slices were not all of one generation
    mixed_generations: bool = False


def gather_pool(*, driver: str, pool: str, slices: Iterable[Obj]) -> PoolContents:
    """What the newest of ``slices`` (all of this pool) say the pool holds."""
    every = list(slices)
    contents = PoolContents(driver=driver, pool=pool)
    generations = {_generation(s) for s in every}
    contents.mixed_generations = len(generations) > 1
    contents.generation = max(generations, default=0)
    contents.slices = sorted(
        (s for s in every if _generation(s) == contents.generation),
        key=lambda s: text(meta(s).get("name")),
    )
    listed_in: dict[str, str] = {}
    for slice_obj in contents.slices:
        spec = as_dict(slice_obj.get("spec"))
        slice_name = text(meta(slice_obj).get("name"))
        contents.node = contents.node or text(spec.get("nodeName"))
        for counter_set in (as_dict(c) for c in as_list(spec.get("sharedCounters"))):
            for counter, value in as_dict(counter_set.get("counters")).items():
                amount = _amount(value)
                if amount is not None:
                    contents.counters[(text(counter_set.get("name")), counter)] = amount
        for device in (as_dict(d) for d in as_list(spec.get("devices"))):
            name = text(device.get("name"))
            if name in listed_in:
                contents.duplicates.append(
                    f'device "{name}" appears in both {listed_in[name]} and {slice_name}'
                )
                continue
            listed_in[name] = slice_name
            contents.devices[name] = device
    return contents


@dataclass(slots=True)
class DeviceUsage:
    """One device of a pool: its state, the claims holding it (``namespace/name``), why, and
    the taints in force on it (``key=value:Effect``, from its slice and DeviceTaintRules)."""

    name: str
    state: str
    claims: list[str] = field(default_factory=list)
    reason: str = ""
    taints: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "state": self.state, "claims": self.claims}
        if self.reason:
            out["reason"] = self.reason
        if self.taints:
            out["taints"] = self.taints
        return out


@dataclass(slots=True)
class PoolUsage:
    """One pool (driver + pool name) with its per-device states and their counts."""

    driver: str
    pool: str
    node: str
    devices: list[DeviceUsage]
    allocated_without_reference: int = 0

    @property
    def name(self) -> str:
        """The name of the pool's ResourcePool object."""
        return resource_pool_name(driver=self.driver, pool=self.pool)

    @property
    def total(self) -> int:
        return len(self.devices)

    def _count(self, *states: str) -> int:
        return sum(1 for device in self.devices if device.state in states)

    @property
    def allocated(self) -> int:
        """Allocated devices, partially allocated ones and those without a readable reference."""
        return self._count(ALLOCATED, PARTIALLY_ALLOCATED) + self.allocated_without_reference

    @property
    def partially_allocated(self) -> int:
        return self._count(PARTIALLY_ALLOCATED)

    @property
    def available(self) -> int:
        return self._count(AVAILABLE, UNKNOWN) - self.allocated_without_reference

    @property
    def unavailable(self) -> int:
        return self._count(UNAVAILABLE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "driver": self.driver,
            "pool": self.pool,
            "node": self.node,
            "totalDevices": self.total,
            "allocatedDevices": self.allocated,
            "availableDevices": self.available,
            "unavailableDevices": self.unavailable,
            "partiallyAllocatedDevices": self.partially_allocated,
            "allocatedWithoutReference": self.allocated_without_reference,
            "devices": [device.to_dict() for device in self.devices],
        }


def _consumes(device: Obj) -> dict[tuple[str, str], Fraction]:
    used: dict[tuple[str, str], Fraction] = {}
    for consumption in (as_dict(c) for c in as_list(device.get("consumesCounters"))):
        for counter, value in as_dict(consumption.get("counters")).items():
            amount = _amount(value)
            if amount is not None:
                key = (text(consumption.get("counterSet")), counter)
                used[key] = used.get(key, Fraction(0)) + amount
    return used


def _partially_allocated(device: Obj, results: Sequence[Obj]) -> bool:
    """A multi-allocatable device in use is partially allocated unless it declares capacity
    and every capacity is consumed in full."""
    if device.get("allowMultipleAllocations") is not True:
        return False
    capacity = as_dict(device.get("capacity"))
    if not capacity:
        return True
    for name, value in capacity.items():
        total = _amount(value)
        if total is None:
            continue
        consumed = sum(
            (_amount(as_dict(r.get("consumedCapacity")).get(name)) or Fraction(0)
             for r in results),
            Fraction(0),
        )
        if consumed < total:
            return True
    return False


def _taints_of(
    device: Obj, contents: PoolContents, taint_rules: Sequence[Obj]
) -> list[tuple[Obj, str]]:
    """The taints on a device, each with where it comes from (" (DeviceTaintRule x)", or ""
    for the slice's own)."""
    name = text(device.get("name"))
    taints: list[tuple[Obj, str]] = [(as_dict(t), "") for t in as_list(device.get("taints"))]
    for rule in taint_rules:
        if rule_selects(rule, driver=contents.driver, pool=contents.pool, device=name):
            source = f" (DeviceTaintRule {meta(rule).get('name')})"
            taints.append((as_dict(as_dict(rule.get("spec")).get("taint")), source))
    return taints


def _taint_text(taint: Obj) -> str:
    """``key=value:Effect`` (``key:Effect`` without a value), as kubectl prints node taints."""
    value = taint.get("value")
    return f"{taint.get('key')}{'=' + str(value) if value else ''}:{taint.get('effect')}"


def _blocking_taint(taints: Sequence[tuple[Obj, str]]) -> str:
    """Why a taint keeps allocations off the device ("" when none does)."""
    for taint, source in taints:
        if taint.get("effect") in _BLOCKING_TAINT_EFFECTS:
            return (
                f"taint {taint.get('key')}={taint.get('value', '')}:{taint.get('effect')}{source}"
            )
    return ""


def _results(claims: Iterable[Obj], contents: PoolContents) -> dict[str, list[tuple[str, Obj]]]:
    """device → [(claim ``ns/name``, result)] for the consuming results that name this pool."""
    held: dict[str, list[tuple[str, Obj]]] = {}
    for claim in claims:
        m = meta(claim)
        ref = f"{m.get('namespace', '')}/{m.get('name', '')}"
        allocation = as_dict(as_dict(claim.get("status")).get("allocation"))
        for result in (as_dict(r) for r in as_list(as_dict(allocation.get("devices")).get(
                "results"))):
            if result.get("adminAccess") is True:
                continue  # an observer, not a consumer
            if result.get("driver") != contents.driver or result.get("pool") != contents.pool:
                continue
            held.setdefault(text(result.get("device")), []).append((ref, result))
    return held


def count_pool(
    contents: PoolContents, *, claims: Iterable[Obj], taint_rules: Iterable[Obj] = ()
) -> PoolUsage:
    """The state of every device of the pool, given the claims whose allocations may point into
    it and the DeviceTaintRules in force."""
    held = _results(claims, contents)
    rules = list(taint_rules)
    counters_left = dict(contents.counters)
    devices: list[DeviceUsage] = []
    free: list[tuple[str, Obj]] = []
    for name in sorted(contents.devices):
        device = contents.devices[name]
        holders = held.get(name)
        if not holders:
            free.append((name, device))
            continue
        for key, amount in _consumes(device).items():
            if key in counters_left:
                counters_left[key] -= amount
        partial = _partially_allocated(device, [result for _, result in holders])
        claims_holding = sorted({ref for ref, _ in holders})
        taints = [_taint_text(t) for t, _ in _taints_of(device, contents, rules)]
        devices.append(
            DeviceUsage(name, PARTIALLY_ALLOCATED if partial else ALLOCATED, claims_holding,
                        taints=taints)
        )
    for name, device in free:
        on_device = _taints_of(device, contents, rules)
        reason = _blocking_taint(on_device)
        if not reason:
            short = [
                f"counter {counter_set}/{counter}"
                for (counter_set, counter), amount in sorted(_consumes(device).items())
                if (counter_set, counter) in counters_left
                and counters_left[(counter_set, counter)] < amount
            ]
            reason = f"{', '.join(short)} used up" if short else ""
        devices.append(DeviceUsage(name, UNAVAILABLE if reason else AVAILABLE, [], reason,
                                   taints=[_taint_text(t) for t, _ in on_device]))
    devices.sort(key=lambda d: d.name)
    return PoolUsage(
        driver=contents.driver, pool=contents.pool, node=contents.node, devices=devices
    )


def _reported_allocated(resource_pool: Obj) -> int | None:
    summary = as_dict(as_dict(resource_pool.get("status")).get("summary"))
    value = summary.get("allocatedDevices")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pool_usage(
    *,
    slices: Iterable[Obj],
    claims: Iterable[Obj],
    resource_pools: Iterable[Obj] = (),
    taint_rules: Iterable[Obj] = (),
) -> list[PoolUsage]:
    """The usage of every pool the slices describe, sorted by driver then pool name.

    ``claims`` are the ResourceClaims the reader could list (all namespaces, or fewer).
    ``taint_rules`` are the DeviceTaintRules in force: their taints count as the slices' do.
    ``resource_pools`` are ResourcePool objects, to pass when ``claims`` are not all of them: a
    pool whose status reports more allocated devices than the readable claims explain gets
    ``allocated_without_reference`` set, and its otherwise available devices turn Unknown. (With
    every claim at hand, leave them out: their counts trail the claims by a controller's delay.)
    """
    by_pool: dict[tuple[str, str], list[Obj]] = {}
    for slice_obj in slices:
        spec = as_dict(slice_obj.get("spec"))
        key = (text(spec.get("driver")), text(as_dict(spec.get("pool")).get("name")))
        by_pool.setdefault(key, []).append(slice_obj)
    readable = list(claims)
    rules = list(taint_rules)
    reported = {
        (text(spec.get("driver")), text(spec.get("poolName"))): count
        for rp in resource_pools
        for spec in [as_dict(rp.get("spec"))]
        if (count := _reported_allocated(rp)) is not None
    }
    usages: list[PoolUsage] = []
    for key in sorted(by_pool):
        contents = gather_pool(driver=key[0], pool=key[1], slices=by_pool[key])
        usage = count_pool(contents, claims=readable, taint_rules=rules)
        status_count = reported.get(key)
        if status_count is not None:
            free = [d for d in usage.devices if d.state == AVAILABLE]
            hidden = min(max(0, status_count - usage.allocated), len(free))
            if hidden:
                usage.allocated_without_reference = hidden
                for device in free:
                    device.state = UNKNOWN
                    device.reason = (
                        f"allocated without a reference: {hidden} of these are held by "
                        "claims that are not readable"
                    )
        usages.append(usage)
    return usages
