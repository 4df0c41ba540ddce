"""KEP-5677's usage view of DRA pools, computed client-side from what the reader can see.

The ResourcePool objects the control plane maintains hold counts only (no claim references, so
their size and their RBAC stay simple). Someone who wants to know *which* claim holds a device
combines the ResourceSlices (every device of a pool) with the ResourceClaims they may read (which
device each allocation took). That join is what this module does, as a pure function so that the
``kubectl dra`` plugin, tests and users' own tools all compute the same thing:

- A device named by an allocation result of a readable claim is **Allocated** to that claim;
  a device that may be allocated many times (``allowMultipleAllocations``, consumable capacity)
  is **PartiallyAllocated** while some of its capacity is left (and still counts as allocated).
- A device no readable claim holds is **Unavailable** when it cannot take an allocation: it carries
  a ``NoSchedule`` or ``NoExecute`` taint (in its slice, or from a DeviceTaintRule whose selector
  matches its driver, pool and name), or the shared counters it consumes are used up by
  allocated devices of the same pool (partitionable devices). Otherwise it is **Available**.
- When the reader cannot see every claim (claims listed in one namespace only), a pool's
  ResourcePool status may report more allocated devices than the readable claims explain. The
  difference is reported as *allocated without a reference*: the pool's counts follow the status,
  and the devices that are free as far as the reader can tell are shown as **Unknown** (one of
  them may be taken), never as Available.

So ``total = allocated + available + unavailable (+ unknown)`` for every pool, as the summary
in a ResourcePool's status.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fakeapi.models.device_taint_rule import rule_selects
from fakeapi.objects import Obj
from fakeapi.quantity import QuantityError, parse_quantity
from fakeapi.resourcepools import resource_pool_name

__all__ = [
    "ALLOCATED",
    "AVAILABLE",
    "DeviceUsage",
    "PARTIALLY_ALLOCATED",
    "PoolUsage",
    "UNAVAILABLE",
    "UNKNOWN",
    "pool_usage",
    "resource_pool_name",
]


AVAILABLE = "Available"
ALLOCATED = "Allocated"
PARTIALLY_ALLOCATED = "PartiallyAllocated"
UNAVAILABLE = "Unavailable"
UNKNOWN = "Unknown"
_BLOCKING_TAINT_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


@dataclass(slots=True)
class DeviceUsage:
    """One device of a pool: its state, the claims holding it (``namespace/name``) and why."""

    name: str
    state: str
    claims: list[str] = field(default_factory=list)
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "state": self.state, "claims": self.claims}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(slots=True)
class PoolUsage:
    """One pool (driver + pool name) with its device counts and per-device states."""

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


def _meta(obj: Obj) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _amount(value: Any) -> Fraction | None:
    """The value of a ``{value: <quantity>}`` entry (or a bare quantity), None if unreadable."""
    text = value.get("value") if isinstance(value, Mapping) else value
    if text is None:
        return None
    try:
        return parse_quantity(str(text)).value
    except QuantityError:
        return None


@dataclass(slots=True)
class _Pool:
    driver: str
    pool: str
    node: str = ""
    generation: int = -1
    devices: dict[str, Obj] = field(default_factory=dict)
    counters: dict[tuple[str, str], Fraction] = field(default_factory=dict)


def _gather(slices: Iterable[Obj]) -> dict[tuple[str, str], _Pool]:
    """Pools by (driver, pool) from their slices; only the newest pool generation counts."""
    pools: dict[tuple[str, str], _Pool] = {}
    for slice_ in slices:
        spec = slice_.get("spec") or {}
        pool_ref = spec.get("pool") or {}
        key = (str(spec.get("driver") or ""), str(pool_ref.get("name") or ""))
        generation = int(pool_ref.get("generation") or 0)
        pool = pools.setdefault(key, _Pool(driver=key[0], pool=key[1]))
        if generation < pool.generation:
            continue
        if generation > pool.generation:
            pool.generation = generation
            pool.devices.clear()
            pool.counters.clear()
        pool.node = pool.node or str(spec.get("nodeName") or "")
        for device in spec.get("devices") or []:
            pool.devices.setdefault(str(device.get("name") or ""), device)
        for counter_set in spec.get("sharedCounters") or []:
            for counter, value in (counter_set.get("counters") or {}).items():
                amount = _amount(value)
                if amount is not None:
                    pool.counters[(str(counter_set.get("name") or ""), counter)] = amount
    return pools


def _allocations(claims: Iterable[Obj]) -> dict[tuple[str, str, str], list[tuple[str, Obj]]]:
    """(driver, pool, device) -> [(claim ns/name, allocation result)] over the readable claims."""
    held: dict[tuple[str, str, str], list[tuple[str, Obj]]] = {}
    for claim in claims:
        meta = _meta(claim)
        ref = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        allocation = (claim.get("status") or {}).get("allocation") or {}
        for result in (allocation.get("devices") or {}).get("results") or []:
            key = (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))
            held.setdefault(key, []).append((ref, result))
    return held


def _consumes(device: Obj) -> dict[tuple[str, str], Fraction]:
    used: dict[tuple[str, str], Fraction] = {}
    for consumption in device.get("consumesCounters") or []:
        for counter, value in (consumption.get("counters") or {}).items():
            amount = _amount(value)
            if amount is not None:
                key = (str(consumption.get("counterSet") or ""), counter)
                used[key] = used.get(key, Fraction(0)) + amount
    return used


def _capacity_left(device: Obj, results: Sequence[Obj]) -> bool:
    """Whether a multi-allocatable device has capacity left after ``results`` consumed theirs."""
    capacity = device.get("capacity") or {}
    if not capacity:
        return True
    for name, value in capacity.items():
        total = _amount(value)
        if total is None:
            continue
        consumed = sum(
            (_amount((r.get("consumedCapacity") or {}).get(name)) or Fraction(0) for r in results),
            Fraction(0),
        )
        if consumed < total:
            return True
    return False


def _blocking_taint(device: Obj, pool: _Pool, taint_rules: Sequence[Obj]) -> str:
    name = str(device.get("name") or "")
    taints = [(taint, "") for taint in device.get("taints") or []]
    for rule in taint_rules:
        if rule_selects(rule, driver=pool.driver, pool=pool.pool, device=name):
            source = f" (DeviceTaintRule {_meta(rule).get('name')})"
            taints.append(((rule.get("spec") or {}).get("taint") or {}, source))
    for taint, source in taints:
        if taint.get("effect") in _BLOCKING_TAINT_EFFECTS:
            return (
                f"taint {taint.get('key')}={taint.get('value', '')}:{taint.get('effect')}{source}"
            )
    return ""


def _pool_usage(
    pool: _Pool,
    held: Mapping[tuple[str, str, str], list[tuple[str, Obj]]],
    taint_rules: Sequence[Obj],
) -> PoolUsage:
    devices: list[DeviceUsage] = []
    counters_left = dict(pool.counters)
    free: list[tuple[str, Obj]] = []
    for name in sorted(pool.devices):
        device = pool.devices[name]
        holders = held.get((pool.driver, pool.pool, name), [])
        if not holders:
            free.append((name, device))
            continue
        for key, amount in _consumes(device).items():
            if key in counters_left:
                counters_left[key] -= amount
        claims = sorted({ref for ref, _ in holders})
        partial = bool(device.get("allowMultipleAllocations")) and _capacity_left(
            device, [result for _, result in holders]
        )
        devices.append(DeviceUsage(name, PARTIALLY_ALLOCATED if partial else ALLOCATED, claims))
    for name, device in free:
        reason = _blocking_taint(device, pool, taint_rules)
        if not reason:
            short = [
                f"counter {counter_set}/{counter}"
                for (counter_set, counter), amount in sorted(_consumes(device).items())
                if (counter_set, counter) in counters_left
                and counters_left[(counter_set, counter)] < amount
            ]
            reason = f"{', '.join(short)} used up" if short else ""
        devices.append(DeviceUsage(name, UNAVAILABLE if reason else AVAILABLE, [], reason))
    devices.sort(key=lambda d: d.name)
    return PoolUsage(driver=pool.driver, pool=pool.pool, node=pool.node, devices=devices)


def _reported_allocated(resource_pool: Obj) -> int | None:
    summary = (resource_pool.get("status") or {}).get("summary") or {}
    value = summary.get("allocatedDevices")
    return int(value) if isinstance(value, int) else None


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
    held = _allocations(claims)
    reported = {
        (str(spec.get("driver") or ""), str(spec.get("poolName") or "")): count
        for rp in resource_pools
        for spec in [rp.get("spec") or {}]
        if (count := _reported_allocated(rp)) is not None
    }
    rules = list(taint_rules)
    usages: list[PoolUsage] = []
    for key in sorted(pools := _gather(slices)):
        usage = _pool_usage(pools[key], held, rules)
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
