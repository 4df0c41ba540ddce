"""Validation of device capacity and its request policy (consumable capacity, KEP-5075).

A capacity's ``requestPolicy`` is only allowed on devices with ``allowMultipleAllocations``. Range
arithmetic follows upstream: whole numbers (``Quantity.Value()``, rounded up) unless the
DRAFractionalCapacityRange gate is on and a bound is fractional, in which case milli-units are used;
the integer path refuses negative bounds and bounds above int64 before doing any arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from fakeapi.quantity import INT64_MAX, Quantity
from fakeapi.validation.dra_common import as_dict, as_list, parse_quantity_value, validate_quantity
from fakeapi.validation.dra_names import validate_qualified_name
from fakeapi.validation.field import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    required,
    too_many,
)

__all__ = ["validate_capacity", "VALID_VALUES_MAX"]

VALID_VALUES_MAX = 10


# --- capacity and request policies ------------------------------------------------------------


def _q(value: Any) -> Quantity | None:
    parsed = parse_quantity_value(value)
    return parsed if isinstance(parsed, Quantity) else None


def _int64_errors(q: Quantity, path: Path) -> list[FieldError]:
    if q.sign() < 0:
        return [invalid(path, str(q), "must be greater than or equal to 0")]
    if q.value > INT64_MAX:
        return [invalid(path, str(q), "must not be larger than 9223372036854775807")]
    return []


def _milli_errors(q: Quantity, path: Path) -> list[FieldError]:
    scaled = q.value * 1000
    if scaled.denominator != 1:
        return [invalid(path, str(q), "value cannot be represented as a milli value")]
    return []


def _step_errors(
    value: Quantity, low: Quantity, step: Quantity, *, milli: bool, path: Path
) -> list[FieldError]:
    if milli:
        diff = (value.value - low.value) * 1000
        unit = step.value * 1000
    else:
        diff = Fraction(value.ceil_int() - low.ceil_int())
        unit = Fraction(step.ceil_int())
    if unit == 0 or diff % unit != 0:
        return [
            invalid(
                path, str(value), f"value is not a multiple of a given step ({step}) from ({low})"
            )
        ]
    return []


def _validate_range(
    default: Quantity,
    capacity: Quantity,
    valid_range: Mapping[str, Any],
    path: Path,
    gates: Mapping[str, bool],
) -> list[FieldError]:
    from fakeapi.features import enabled

    low = _q(valid_range.get("min")) if valid_range.get("min") is not None else None
    if low is None:
        return [required(path.child("min"), "required when validRange is defined")]
    high = _q(valid_range.get("max")) if valid_range.get("max") is not None else None
    step = _q(valid_range.get("step")) if valid_range.get("step") is not None else None
    errs: list[FieldError] = []
    if low > capacity:
        errs.append(
            invalid(path.child("min"), str(low), f"min is larger than capacity value: {capacity}")
        )
    if default < low:
        errs.append(
            invalid(path.child("default"), str(default), f"default is less than min: {low}")
        )
    if high is not None:
        if low > high:
            errs.append(invalid(path.child("max"), str(low), f"min is larger than max: {high}"))
        if high > capacity:
            errs.append(
                invalid(
                    path.child("max"), str(high), f"max is larger than capacity value: {capacity}"
                )
            )
        if default > high:
            errs.append(
                invalid(path.child("default"), str(default), f"default is more than max: {high}")
            )
    named = [("default", default), ("min", low), ("max", high), ("step", step)]
    milli = False
    if enabled(gates, "DRAFractionalCapacityRange"):
        milli = any(q is not None and q.value.denominator != 1 for _, q in named)
        if milli:
            unsafe = [
                e for name, q in named if q is not None for e in _milli_errors(q, path.child(name))
            ]
            if unsafe:
                return errs + unsafe
    if step is None:
        return errs
    if step.sign() <= 0:
        return [*errs, invalid(path.child("step"), str(step), "must be greater than zero")]
    one_step = low + step
    if one_step > capacity:
        errs.append(
            invalid(
                path.child("step"),
                str(step),
                f"one step {one_step} is larger than capacity value: {capacity}",
            )
        )
    if not milli:
        unsafe = [
            e for name, q in named if q is not None for e in _int64_errors(q, path.child(name))
        ]
        if unsafe:
            return errs + unsafe
    errs += _step_errors(default, low, step, milli=milli, path=path.child("step"))
    if high is not None:
        errs += _step_errors(high, low, step, milli=milli, path=path.child("step"))
    return errs


def _validate_valid_values(
    default: Quantity, capacity: Quantity, values: list[Any], path: Path, gates: Mapping[str, bool]
) -> list[FieldError]:
    from fakeapi.features import enabled

    parsed = [_q(v) for v in values]
    errs: list[FieldError] = []
    for i in range(len(parsed) - 1):
        a, b = parsed[i], parsed[i + 1]
        if a is not None and b is not None and a > b:
            errs.append(
                invalid(path.index(i + 1), str(b), "values must be sorted in ascending order")
            )
    if len(values) > VALID_VALUES_MAX:
        return [*errs, too_many(path, len(values), VALID_VALUES_MAX)]
    fractional = enabled(gates, "DRAFractionalCapacityRange")
    seen: set[Fraction | int] = set()
    found_default = False
    for i, q in enumerate(parsed):
        if q is None:
            errs += validate_quantity(values[i], path.index(i))
            continue
        if q > capacity:
            errs.append(
                invalid(path.index(i), str(q), f"option is larger than capacity value: {capacity}")
            )
        if q == default:
            found_default = True
        key: Fraction | int = q.value if fractional else q.ceil_int()
        if key in seen:
            errs.append(_duplicate(path.index(i), key))
        seen.add(key)
    if not found_default:
        errs.append(
            invalid(path, str(default), "default value is not valid according to the requestPolicy")
        )
    return errs


def _duplicate(path: Path, key: Fraction | int) -> FieldError:
    return duplicate(path, str(key) if isinstance(key, Fraction) else key)


def _validate_request_policy(
    capacity: Quantity, policy: Mapping[str, Any], path: Path, gates: Mapping[str, bool]
) -> list[FieldError]:
    values = as_list(policy.get("validValues"))
    valid_range = policy.get("validRange")
    if values and valid_range is not None:
        return [
            forbidden(
                path,
                'exactly one policy can be specified, cannot specify "validValues" '
                'and "validRange" at the same time',
            )
        ]
    default_raw = policy.get("default")
    if policy.get("default") is not None:
        bad = validate_quantity(default_raw, path.child("default"))
        if bad:
            return bad
    default = _q(default_raw) if default_raw is not None else None
    if values:
        if default is None:
            return [required(path.child("default"), "required when validValues is defined")]
        return _validate_valid_values(default, capacity, values, path.child("validValues"), gates)
    if valid_range is not None:
        if default is None:
            return [required(path.child("default"), "required when validRange is defined")]
        return _validate_range(
            default, capacity, as_dict(valid_range), path.child("validRange"), gates
        )
    return []


def validate_capacity(
    capacity: Mapping[str, Any], shared: bool, path: Path, gates: Mapping[str, bool]
) -> list[FieldError]:
    errs: list[FieldError] = []
    for name, entry in capacity.items():
        errs += validate_qualified_name(name, path)
        entry = as_dict(entry)
        entry_path = path.key(name)
        bad_value = validate_quantity(entry.get("value"), entry_path.child("value"))
        errs += bad_value
        policy = entry.get("requestPolicy")
        if policy is None:
            continue
        if not shared:
            errs.append(
                forbidden(
                    entry_path.child("requestPolicy"), "allowMultipleAllocations must be true"
                )
            )
            continue
        value = _q(entry.get("value"))
        if value is not None:
            errs += _validate_request_policy(
                value, as_dict(policy), entry_path.child("requestPolicy"), gates
            )
    return errs
