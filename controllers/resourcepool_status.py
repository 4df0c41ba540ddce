"""What a ResourcePool's status says about one (driver, pool): pure functions, no I/O.

Given the pool's ResourceSlices and the allocation results that point into it, compute the
summary counts, the cross-slice validation errors and the two conditions the KEP-5677 seed
defines. Kept apart from the controller so the arithmetic is tested on plain data.

Counting rules:

- Only slices of the newest ``pool.generation`` describe the pool (older ones are leftovers of
  a rollout, as the allocator treats them); a device name listed twice counts once.
- A device with at least one allocation is *allocated*; a multi-allocatable device
  (``allowMultipleAllocations``) whose allocations leave some of some capacity unconsumed is
  also *partially allocated*.
- An unallocated device is *unavailable* when one of its ``consumesCounters`` asks for more than
  its counter set has left after the allocated devices took theirs, or when it is tainted with a
  ``NoSchedule`` or ``NoExecute`` effect, by its slice or by a DeviceTaintRule whose selector
  matches it (no allocation lands on it without a toleration); *available* otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fakeapi.controllers.devicetaints import rule_matches
from fakeapi.controllers.objects import set_condition
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["MAX_VALIDATION_ERRORS", "PoolView", "compute_status"]

MAX_VALIDATION_ERRORS = 10


_BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


def _blocks(taint: Any) -> bool:
    return as_dict(taint).get("effect") in _BLOCKING_EFFECTS


def _blocked_by_taint(device: dict[str, Any], view: PoolView) -> bool:
    if any(_blocks(t) for t in as_list(device.get("taints"))):
        return True
    name = text(device.get("name"))
    return any(
        _blocks(as_dict(rule.get("spec")).get("taint"))
        and rule_matches(rule, view.driver, view.pool, name)
        for rule in view.taint_rules
    )


def _quantity(value: Any) -> Quantity | None:
    try:
        return parse_quantity(str(value))
    except (QuantityError, ValueError):
        return None


@dataclass
class PoolView:
    """The inputs for one pool: its slices and the allocation results naming its devices."""

    driver: str
    pool: str
    slices: list[Obj] = field(default_factory=list)
    #: (device name, consumedCapacity) for every allocation result in this pool
    allocations: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: DeviceTaintRules that may taint devices of this pool (each device is matched here)
    taint_rules: list[Obj] = field(default_factory=list)


def _generation(slice_obj: Obj) -> int:
    value = as_dict(as_dict(slice_obj.get("spec")).get("pool")).get("generation")
    return value if isinstance(value, int) else 0


def _consumed_counters(device: dict[str, Any]) -> Iterable[tuple[str, str, Quantity]]:
    for consumption in as_list(device.get("consumesCounters")):
        counter_set = text(as_dict(consumption).get("counterSet"))
        for counter, amount in as_dict(as_dict(consumption).get("counters")).items():
            value = _quantity(as_dict(amount).get("value"))
            if value is not None:
                yield counter_set, counter, value


def compute_status(view: PoolView, *, old: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The status for ``view``: condition transition times (``now`` for a changed condition)
    and ``lastUpdateTime`` are carried over from ``old``, so the caller can compare the result
    with ``old`` and stamp ``lastUpdateTime`` only when it writes."""
    newest = max((_generation(s) for s in view.slices), default=0)
    current = sorted(
        (s for s in view.slices if _generation(s) == newest),
        key=lambda s: text(meta(s).get("name")),
    )
    errors: list[str] = []
    if len({_generation(s) for s in view.slices}) > 1:
        errors.append("ResourceSlices have inconsistent pool generations")
    devices: dict[str, dict[str, Any]] = {}
    listed_in: dict[str, str] = {}
    counters: dict[tuple[str, str], Quantity] = {}
    for slice_obj in current:
        spec = as_dict(slice_obj.get("spec"))
        slice_name = text(meta(slice_obj).get("name"))
        for counter_set in as_list(spec.get("sharedCounters")):
            for counter, amount in as_dict(as_dict(counter_set).get("counters")).items():
                value = _quantity(as_dict(amount).get("value"))
                if value is not None:
                    counters[(text(as_dict(counter_set).get("name")), counter)] = value
        for device in (as_dict(d) for d in as_list(spec.get("devices"))):
            name = text(device.get("name"))
            if name in listed_in:
                errors.append(f'device "{name}" appears in both {listed_in[name]} and {slice_name}')
                continue
            listed_in[name] = slice_name
            devices[name] = device
    consumed: dict[str, dict[str, Quantity]] = {}
    allocated: set[str] = set()
    for device_name, capacity in view.allocations:
        if device_name not in devices:
            continue
        allocated.add(device_name)
        per_device = consumed.setdefault(device_name, {})
        for cap, amount in capacity.items():
            value = _quantity(amount)
            if value is not None:
                per_device[cap] = per_device[cap] + value if cap in per_device else value
    for device_name in allocated:
        for key in ((s, c, v) for s, c, v in _consumed_counters(devices[device_name])):
            counter_key = (key[0], key[1])
            if counter_key in counters:
                counters[counter_key] = counters[counter_key] - key[2]
    partial = 0
    for device_name in allocated:
        device = devices[device_name]
        if device.get("allowMultipleAllocations") is not True:
            continue
        for cap, spec_value in as_dict(device.get("capacity")).items():
            total = _quantity(as_dict(spec_value).get("value"))
            used = consumed.get(device_name, {}).get(cap)
            if total is not None and (used is None or used < total):
                partial += 1
                break
    unavailable = 0
    for device_name, device in devices.items():
        if device_name in allocated:
            continue
        if _blocked_by_taint(device, view) or any(
            (s, c) in counters and counters[(s, c)] < v for s, c, v in _consumed_counters(device)
        ):
            unavailable += 1
    summary: dict[str, Any] = {
        "totalDevices": len(devices),
        "allocatedDevices": len(allocated),
        "availableDevices": len(devices) - len(allocated) - unavailable,
    }
    if unavailable:
        summary["unavailableDevices"] = unavailable
    if partial:
        summary["partiallyAllocatedDevices"] = partial
    expected = max(
        (
            count
            for s in current
            if isinstance(
                count := as_dict(as_dict(s.get("spec")).get("pool")).get("resourceSliceCount"), int
            )
        ),
        default=0,
    )
    observed = len(current)
    conditions = [as_dict(c) for c in as_list(old.get("conditions"))]
    if observed == expected:
        conditions = set_condition(
            conditions,
            type="Complete",
            status="True",
            reason="AllSlicesPresent",
            message=f"All {expected} ResourceSlices of the pool are present",
            now=now,
        )
    else:
        conditions = set_condition(
            conditions,
            type="Complete",
            status="False",
            reason="SlicesMissing",
            message=f"{observed} of {expected} ResourceSlices present",
            now=now,
        )
    if errors:
        conditions = set_condition(
            conditions,
            type="Valid",
            status="False",
            reason="ValidationFailed",
            message=f"{len(errors)} validation errors",
            now=now,
        )
    else:
        conditions = set_condition(
            conditions,
            type="Valid",
            status="True",
            reason="ValidationPassed",
            message="The pool's ResourceSlices are consistent",
            now=now,
        )
    status: dict[str, Any] = {
        "summary": summary,
        "conditions": conditions,
        "observedSliceCount": observed,
        "expectedSliceCount": expected,
        "observedGeneration": newest,
        "truncatedErrorCount": len(errors) if len(errors) > MAX_VALIDATION_ERRORS else 0,
    }
    if errors:
        status["validationErrors"] = errors[:MAX_VALIDATION_ERRORS]
    status["lastUpdateTime"] = old.get("lastUpdateTime")
    return status
