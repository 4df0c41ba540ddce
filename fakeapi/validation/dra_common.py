"""Building blocks shared by the DRA validators: lists, selectors, CEL, quantities, taints.

Validators work on JSON-shaped dicts (camelCase keys, as stored). The registry has already checked
value types against the models, but validators are also called directly (tests, controllers), so
every accessor tolerates a missing or mistyped value instead of raising: a validator reports
errors, it never crashes.

Size checks short-circuit the way upstream's ``validateSlice``/``validateSet`` do: a list over its
limit yields a single ``Too many`` error and its items are not examined (protection against huge
inputs).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import orjson

from fakeapi.objects import as_dict, as_list
from fakeapi.objects import text as as_str
from fakeapi.quantity import FORMAT_ERROR, Quantity, QuantityError, parse_quantity
from fakeapi.validation.dra_names import (
    qualified_name_errors,
    validate_label_name,
    validate_label_value,
    validate_node_name,
)
from fakeapi.validation.field import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from fakeapi.validation.remembered import ValidByContent

__all__ = [
    "as_dict",
    "as_list",
    "as_str",
    "validate_items",
    "validate_list",
    "validate_set",
    "parse_quantity_value",
    "validate_quantity",
    "validate_node_selector",
    "validate_cel_expression",
    "validate_raw_object",
    "validate_toleration",
    "validate_taint",
    "validate_binding_parameters",
    "validate_conditions",
    "validate_interface_address",
    "CEL_SELECTOR_MAX_COST",
    "CEL_SELECTOR_MAX_LENGTH",
    "TAINT_EFFECTS",
]

CEL_SELECTOR_MAX_COST = 1_000_000
CEL_SELECTOR_MAX_LENGTH = 10 * 1024
BINDING_CONDITIONS_MAX = 4
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
TOLERATION_OPERATORS = ("Equal", "Exists")

T = TypeVar("T")


def validate_items(
    items: Sequence[T], path: Path, check: Callable[[T, Path], list[FieldError]]
) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, item in enumerate(items):
        errs.extend(check(item, path.index(i)))
    return errs


def validate_list(
    items: Sequence[T], limit: int, path: Path, check: Callable[[T, Path], list[FieldError]]
) -> list[FieldError]:
    """Items checked one by one; over ``limit`` (if ≥ 0) only ``Too many`` is reported."""
    if 0 <= limit < len(items):
        return [too_many(path, len(items), limit)]
    return validate_items(items, path, check)


def validate_set(
    items: Sequence[T],
    limit: int,
    path: Path,
    check: Callable[[T, Path], list[FieldError]],
    key: Callable[[T], Hashable],
    *,
    show: Callable[[T], Any] | None = None,
) -> list[FieldError]:
    """Like :func:`validate_list`, plus ``Duplicate value`` at each repeated key."""
    if 0 <= limit < len(items):
        return [too_many(path, len(items), limit)]
    errs = validate_items(items, path, check)
    seen: set[Hashable] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errs.append(duplicate(path.index(i), show(item) if show else k))
        else:
            seen.add(k)
    return errs


# --- quantities -------------------------------------------------------------------------------


def parse_quantity_value(value: Any) -> Quantity | str:
    """The parsed quantity, or apimachinery's parse error message."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return FORMAT_ERROR
    text = value if isinstance(value, str) else repr(value)
    try:
        return parse_quantity(text)
    except QuantityError as exc:
        return str(exc)


def validate_quantity(value: Any, path: Path) -> list[FieldError]:
    parsed = parse_quantity_value(value)
    return [invalid(path, value, parsed)] if isinstance(parsed, str) else []


# --- node selectors ---------------------------------------------------------------------------


def _validate_label_requirement(req: dict[str, Any], path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    op = req.get("operator")
    values = as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if not values:
            errs.append(
                required(
                    path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"
                )
            )
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(
                    path.child("values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required(
                    path.child("values"),
                    "must be specified single value when `operator` is 'Lt' or 'Gt'",
                )
            )
    else:
        errs.append(invalid(path.child("operator"), op, "not a valid selector operator"))
    errs.extend(validate_label_name(as_str(req.get("key")), path.child("key")))
    for i, value in enumerate(values):
        errs.extend(validate_label_value(as_str(value), path.child("values").index(i)))
    return errs


def _validate_field_requirement(req: dict[str, Any], path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    op = req.get("operator")
    values = as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    path.child("values"),
                    "must be only one value when `operator` is "
                    "'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(invalid(path.child("operator"), op, "not a valid selector operator"))
    key = req.get("key")
    if key != "metadata.name":
        errs.append(invalid(path.child("key"), key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            errs.extend(validate_node_name(as_str(value), path.child("values").index(i)))
    return errs


#: node selectors found valid: allocations and slices of one node repeat theirs
_valid_node_selectors = ValidByContent(4096)


def validate_node_selector(selector: Any, path: Path) -> list[FieldError]:
    """core ``ValidateNodeSelector``: at least one term; label and field requirements checked.

    The verdict depends on the selector alone (the path only names where errors are), so a
    selector once found valid is not walked again.
    """
    return _valid_node_selectors.errors(selector, lambda s: _node_selector_errors(s, path))


def _node_selector_errors(selector: Any, path: Path) -> list[FieldError]:
    terms = as_list(as_dict(selector).get("nodeSelectorTerms"))
    terms_path = path.child("nodeSelectorTerms")
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        term = as_dict(term)
        term_path = terms_path.index(i)
        for j, req in enumerate(as_list(term.get("matchExpressions"))):
            errs.extend(
                _validate_label_requirement(
                    as_dict(req), term_path.child("matchExpressions").index(j)
                )
            )
        for j, req in enumerate(as_list(term.get("matchFields"))):
            errs.extend(
                _validate_field_requirement(as_dict(req), term_path.child("matchFields").index(j))
            )
    return errs


# --- CEL ----------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _compile(
    expression: str, consumable_capacity: bool, list_type_attributes: bool
) -> tuple[str | None, int]:
    """(error detail or None, estimated cost) from the selector environment the allocator uses."""
    # loaded on first use, for start-up time: the CEL engine takes ~60 ms a bare server skips
    from fakeapi import cel

    features = cel.Features(
        consumable_capacity=consumable_capacity, list_type_attributes=list_type_attributes
    )
    detail = cel.compile_selector(expression, features=features)
    if detail is not None:
        return detail, 0
    return None, cel.selector_cost(expression, features=features)


def validate_cel_expression(
    expression: str, path: Path, *, stored: bool, gates: Mapping[str, bool]
) -> list[FieldError]:
    """Length, compilation and cost of a selector; unchanged stored expressions are trusted."""
    if stored:
        return []
    if len(expression) > CEL_SELECTOR_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_MAX_LENGTH)]
    from fakeapi.features import enabled

    detail, cost = _compile(
        expression, enabled(gates, "DRAConsumableCapacity"), enabled(gates, "DRAListTypeAttributes")
    )
    if detail is not None:
        return [invalid(path, expression, detail)]
    if cost > CEL_SELECTOR_MAX_COST:
        return [forbidden(path, "too complex, exceeds cost limit")]
    return []


# --- raw JSON -----------------------------------------------------------------------------------


def validate_raw_object(
    value: Any, path: Path, *, limit: int, check_size: bool = True
) -> list[FieldError]:
    """A RawExtension that must hold a JSON object: Required, TooLong, or not an object."""
    if value is None:
        return [required(path)]
    if check_size and len(orjson.dumps(value)) > limit:
        return [too_long(path, limit)]
    if not isinstance(value, dict):
        return [invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


# --- taints, tolerations, binding conditions --------------------------------------------------


def validate_toleration(toleration: Any, path: Path) -> list[FieldError]:
    tol = as_dict(toleration)
    errs: list[FieldError] = []
    key = as_str(tol.get("key"))
    if key:
        errs.extend(validate_label_name(key, path.child("key")))
    op = tol.get("operator") or ""
    value = as_str(tol.get("value"))
    if op == "Exists":
        if value:
            errs.append(invalid(path.child("value"), value, "must be empty for operator `Exists`"))
    elif op == "Equal":
        errs.extend(validate_label_value(value, path.child("value")))
    elif op == "":
        errs.append(required(path.child("operator")))
    else:
        errs.append(not_supported(path.child("operator"), op, TOLERATION_OPERATORS))
    effect = tol.get("effect") or ""
    if effect and effect not in TAINT_EFFECTS:
        errs.append(not_supported(path.child("effect"), effect, TAINT_EFFECTS))
    return errs


def validate_taint(taint: Any, old: Any, path: Path) -> list[FieldError]:
    """A device taint; the effect is only re-checked when it changed relative to ``old``."""
    t = as_dict(taint)
    errs = validate_label_name(as_str(t.get("key")), path.child("key"))
    value = as_str(t.get("value"))
    if value:
        errs.extend(validate_label_value(value, path.child("value")))
    effect = t.get("effect") or ""
    if old is None or as_dict(old).get("effect") != t.get("effect"):
        if effect == "":
            errs.append(required(path.child("effect")))
        elif effect not in TAINT_EFFECTS:
            errs.append(not_supported(path.child("effect"), effect, TAINT_EFFECTS))
    return errs


def validate_binding_parameters(owner: Mapping[str, Any], path: Path) -> list[FieldError]:
    """bindingConditions / bindingFailureConditions of a device or an allocation result."""
    if not owner.get("bindingConditions") and not owner.get("bindingFailureConditions"):
        return []  # the usual case: neither is set, so none of the rules below can fail
    conditions = [as_str(c) for c in as_list(owner.get("bindingConditions"))]
    failures = [as_str(c) for c in as_list(owner.get("bindingFailureConditions"))]
    cond_path = path.child("bindingConditions")
    fail_path = path.child("bindingFailureConditions")
    errs = validate_list(conditions, BINDING_CONDITIONS_MAX, cond_path, validate_label_name)
    errs += validate_list(failures, BINDING_CONDITIONS_MAX, fail_path, validate_label_name)
    seen: set[str] = set()
    for i, c in enumerate(conditions):
        if c in seen:
            errs.append(duplicate(cond_path.index(i), c))
        seen.add(c)
    seen_fail: set[str] = set()
    for i, c in enumerate(failures):
        if c in seen_fail:
            errs.append(duplicate(fail_path.index(i), c))
        seen_fail.add(c)
        if c in seen:
            errs.append(
                invalid(
                    fail_path.index(i),
                    c,
                    "bindingFailureConditions must not overlap with bindingConditions",
                )
            )
    if not conditions and failures:
        errs.append(
            invalid(
                cond_path,
                conditions,
                "bindingConditions are required to use bindingFailureConditions",
            )
        )
    if not failures and conditions:
        errs.append(
            invalid(
                fail_path,
                failures,
                "bindingFailureConditions are required to use bindingConditions",
            )
        )
    return errs


# --- metav1 conditions ------------------------------------------------------------------------

_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON_RE = re.compile(f"^{_REASON_FMT}$")
_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
    "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex "
    f"used for validation is '{_REASON_FMT}')"
)
_CONDITION_STATUSES = ("False", "True", "Unknown")


def validate_conditions(conditions: Sequence[Any], path: Path) -> list[FieldError]:
    """metav1 ``ValidateConditions``: unique types and well-formed fields."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, raw in enumerate(conditions):
        cond = as_dict(raw)
        p = path.index(i)
        ctype = as_str(cond.get("type"))
        if ctype in seen:
            errs.append(duplicate(p.child("type"), ctype))
        seen.add(ctype)
        errs.extend(invalid(p.child("type"), ctype, m) for m in qualified_name_errors(ctype))
        status = cond.get("status")
        if status not in _CONDITION_STATUSES:
            errs.append(not_supported(p.child("status"), status, _CONDITION_STATUSES))
        generation = cond.get("observedGeneration")
        if isinstance(generation, int) and generation < 0:
            errs.append(
                invalid(
                    p.child("observedGeneration"),
                    generation,
                    "must be greater than or equal to zero",
                )
            )
        if not cond.get("lastTransitionTime"):
            errs.append(required(p.child("lastTransitionTime"), "must be set"))
        reason = as_str(cond.get("reason"))
        if not reason:
            errs.append(required(p.child("reason"), "must be set"))
        else:
            if not _REASON_RE.match(reason):
                errs.append(invalid(p.child("reason"), reason, _REASON_MSG))
            if len(reason) > 1024:
                errs.append(too_long(p.child("reason"), 1024))
        if len(as_str(cond.get("message"))) > 32 * 1024:
            errs.append(too_long(p.child("message"), 32 * 1024))
    return errs


def validate_interface_address(value: str, path: Path) -> list[FieldError]:
    """An IP address with prefix length (``10.9.8.7/24``), in canonical form."""
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        return [
            invalid(
                path,
                value,
                "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)",
            )
        ]
    if "/" not in value:
        return [
            invalid(
                path,
                value,
                "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)",
            )
        ]
    canonical = f"{iface.ip}/{iface.network.prefixlen}"
    if value != canonical:
        return [invalid(path, value, f'must be in canonical form ("{canonical}")')]
    return []
