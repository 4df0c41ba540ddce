"""Consumable capacity (DRAConsumableCapacity): how much of a device a request consumes.

Upstream rules, kept exactly because they decide whether two claims can share a device: a
requested amount is rounded up by the capacity's request policy (the smallest valid value at or
above it, or ``min + n·step`` for a range); no request means the policy default, or the whole
capacity without a policy. The rounded amount must satisfy the policy and fit beside what is
already consumed (allocated claims plus this call's tentative choices).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from fakeapi.quantity import Quantity, QuantityFormat
from fakeapi.scheduler.plugins.dynamic_resources.entries import CapacitySpec, DeviceEntry

__all__ = ["consumed_capacity", "fits_capacity"]


def _round_up_range(requested: Quantity, spec: CapacitySpec) -> Quantity:
    assert spec.range_min is not None
    if requested.value < spec.range_min.value:
        return spec.range_min
    if spec.range_step is None:
        return requested
    step = spec.range_step.value
    added = requested.value - spec.range_min.value
    steps = math.ceil(added / step) if step else 0
    return Quantity(spec.range_min.value + step * steps, QuantityFormat.BINARY_SI)


def _consumed(requested: Quantity | None, spec: CapacitySpec) -> Quantity:
    if requested is None:
        return spec.default if spec.default is not None else spec.value
    if not spec.has_policy:
        return requested
    if spec.has_range and spec.range_min is not None:
        return _round_up_range(requested, spec)
    if spec.valid_values is not None:
        for valid in spec.valid_values:
            if requested.value <= valid.value:
                return valid
    return requested


def _violates_policy(amount: Quantity, spec: CapacitySpec) -> bool:
    if not spec.has_policy:
        return False
    if spec.default is not None and amount.value == spec.default.value:
        return False
    if spec.has_range:
        if spec.range_max is not None and amount.value > spec.range_max.value:
            return True
        if spec.range_step is not None and spec.range_min is not None and spec.range_step.value:
            return (amount.value - spec.range_min.value) % spec.range_step.value != 0
        return False
    if spec.valid_values:
        return all(amount.value != valid.value for valid in spec.valid_values)
    return False


def consumed_capacity(
    requests: Mapping[str, Quantity] | None, device: DeviceEntry
) -> dict[str, Quantity]:
    """What allocating ``device`` for a request consumes, for every capacity of the device."""
    return {
        name: _consumed(requests.get(name) if requests else None, spec)
        for name, spec in device.capacity.items()
    }


def fits_capacity(
    requests: Mapping[str, Quantity] | None,
    device: DeviceEntry,
    allocated: Mapping[str, Quantity] | None,
    allocating: Mapping[str, Quantity] | None,
) -> bool:
    """Upstream ``CmpRequestOverCapacity``: requested names exist, policy holds, total fits."""
    if requests:
        for name in requests:
            if name not in device.capacity:
                return False
    for name, spec in device.capacity.items():
        amount = _consumed(requests.get(name) if requests else None, spec)
        if _violates_policy(amount, spec):
            return False
        total = amount.value
        if allocated and name in allocated:
            total += allocated[name].value
        if allocating and name in allocating:
            total += allocating[name].value
        if total > spec.value.value:
            return False
    return True
