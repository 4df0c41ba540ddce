"""Validation of ResourceSlice specs, on create and on update.

On update the old spec is passed in: driver, pool name and node name are immutable, and a device's
capacity and taints are only re-validated when they changed relative to the old device of the same
name (so tightened rules never reject objects that were valid when stored).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_capacity import validate_capacity
from fakeapi.validation.dra_common import (
    as_dict,
    as_list,
    as_str,
    validate_binding_parameters,
    validate_list,
    validate_node_selector,
    validate_quantity,
    validate_set,
    validate_taint,
)
from fakeapi.validation.dra_names import (
    validate_device_name,
    validate_driver_name,
    validate_node_name,
    validate_pool_name,
    validate_qualified_name,
)
from fakeapi.validation.field import (
    FieldError,
    Path,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)

__all__ = [
    "validate_slice_spec",
    "DEVICES_MAX",
    "DEVICES_MAX_ADVANCED",
]

DEVICES_MAX = 128
DEVICES_MAX_ADVANCED = 64
ATTRIBUTES_AND_CAPACITIES_MAX = 32
ATTRIBUTE_VALUES_MAX = 48
ATTRIBUTE_VALUE_MAX_LENGTH = 64
TAINTS_MAX = 16
COUNTER_SETS_MAX = 8
COUNTERS_MAX = 32
CONSUMES_COUNTERS_MAX = 2
_LIST_ATTRIBUTES = ("bools", "ints", "strings", "versions")

_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER_PATTERN = rf"^{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?$"


_SEMVER_RE = re.compile(_SEMVER_PATTERN)


def _is_semver(value: str) -> bool:
    return _SEMVER_RE.match(value) is not None


# --- attributes ---------------------------------------------------------------------------------


def _validate_string_value(value: Any, path: Path) -> list[FieldError]:
    return (
        [too_long(path, ATTRIBUTE_VALUE_MAX_LENGTH)]
        if len(as_str(value)) > ATTRIBUTE_VALUE_MAX_LENGTH
        else []
    )


def _validate_version_value(value: Any, path: Path) -> list[FieldError]:
    text = as_str(value)
    errs: list[FieldError] = []
    if not _is_semver(text):
        errs.append(invalid(path, text, "must be a string compatible with semver.org spec 2.0.0"))
    return errs + _validate_string_value(text, path)


def _validate_attribute(attribute: Any, path: Path) -> list[FieldError]:
    attr = as_dict(attribute)
    errs: list[FieldError] = []
    set_fields = 0
    for name in ("bool", "int"):
        if attr.get(name) is not None:
            set_fields += 1
    if attr.get("string") is not None:
        set_fields += 1
        errs += _validate_string_value(attr["string"], path.child("string"))
    if attr.get("version") is not None:
        set_fields += 1
        errs += _validate_version_value(attr["version"], path.child("version"))
    for name in _LIST_ATTRIBUTES:
        values = attr.get(name)
        if values is None:
            continue
        set_fields += 1
        items = as_list(values)
        if not items:
            errs.append(invalid(path.child(name), items, "must not be empty if specified"))
        for i, item in enumerate(items):
            if name == "strings":
                errs += _validate_string_value(item, path.child(name).index(i))
            elif name == "versions":
                errs += _validate_version_value(item, path.child(name).index(i))
    if set_fields == 0:
        errs.append(invalid(path, "", "exactly one value must be specified"))
    elif set_fields > 1:
        errs.append(invalid(path, attr, "exactly one value must be specified"))
    return errs


def _attribute_value_count(attributes: Mapping[str, Any]) -> int:
    total = 0
    for attribute in attributes.values():
        attr = as_dict(attribute)
        items = sum(len(as_list(attr.get(name))) for name in _LIST_ATTRIBUTES)
        total += items if items else 1
    return total


# --- counters ----------------------------------------------------------------------------------


def _validate_counters(counters: Any, path: Path) -> list[FieldError]:
    counters = as_dict(counters)
    if not counters:
        return [required(path)]
    if len(counters) > COUNTERS_MAX:
        return [too_many(path, len(counters), COUNTERS_MAX)]
    errs: list[FieldError] = []
    for name, counter in counters.items():
        errs += validate_device_name(name, path)
        errs += validate_quantity(as_dict(counter).get("value"), path.key(name).child("value"))
    return errs


def _validate_counter_set(counter_set: Any, path: Path) -> list[FieldError]:
    counter_set = as_dict(counter_set)
    name = as_str(counter_set.get("name"))
    errs = (
        [required(path.child("name"))]
        if not name
        else validate_device_name(name, path.child("name"))
    )
    return errs + _validate_counters(counter_set.get("counters"), path.child("counters"))


def _validate_consumption(consumption: Any, path: Path) -> list[FieldError]:
    consumption = as_dict(consumption)
    name = as_str(consumption.get("counterSet"))
    errs = (
        [required(path.child("counterSet"))]
        if not name
        else validate_device_name(name, path.child("counterSet"))
    )
    return errs + _validate_counters(consumption.get("counters"), path.child("counters"))


# --- devices -----------------------------------------------------------------------------------

_PER_DEVICE_DETAIL = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)


def _validate_device_node_selection(
    device: Mapping[str, Any], per_device: bool, path: Path
) -> list[FieldError]:
    node_name = device.get("nodeName")
    node_selector = device.get("nodeSelector")
    all_nodes = device.get("allNodes")
    if not per_device:
        if node_name is not None or node_selector is not None or all_nodes is not None:
            return [
                invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                )
            ]
        return []
    errs: list[FieldError] = []
    set_fields: list[str] = []
    if node_name is not None:
        if node_name:
            set_fields.append("`nodeName`")
            errs += validate_node_name(as_str(node_name), path.child("nodeName"))
        else:
            errs.append(invalid(path.child("nodeName"), node_name, "must not be empty"))
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        errs += validate_node_selector(node_selector, path.child("nodeSelector"))
    if all_nodes is not None:
        if all_nodes is True:
            set_fields.append("`allNodes`")
        else:
            errs.append(
                invalid(path.child("allNodes"), all_nodes, "must be either unset or set to true")
            )
    if not set_fields:
        errs.append(required(path, _PER_DEVICE_DETAIL))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", _PER_DEVICE_DETAIL))
    return errs


def _validate_device(
    device: Any,
    old: Mapping[str, Any] | None,
    per_device: bool,
    path: Path,
    gates: Mapping[str, bool],
) -> list[FieldError]:
    device = as_dict(device)
    errs = validate_device_name(as_str(device.get("name")), path.child("name"))
    attributes = as_dict(device.get("attributes"))
    capacity = as_dict(device.get("capacity"))
    total = len(attributes) + len(capacity)
    if total > ATTRIBUTES_AND_CAPACITIES_MAX:
        errs.append(
            invalid(
                path,
                total,
                "the total number of attributes and capacities must not "
                f"exceed {ATTRIBUTES_AND_CAPACITIES_MAX}",
            )
        )
    values = _attribute_value_count(attributes)
    if values > ATTRIBUTE_VALUES_MAX:
        errs.append(
            invalid(
                path,
                values,
                f"the total number of attribute values must not exceed {ATTRIBUTE_VALUES_MAX}",
            )
        )
    for name, attribute in attributes.items():
        errs += validate_qualified_name(name, path.child("attributes"))
        errs += _validate_attribute(attribute, path.child("attributes").key(name))
    if old is None or as_dict(old.get("capacity")) != capacity:
        errs += validate_capacity(
            capacity, device.get("allowMultipleAllocations") is True, path.child("capacity"), gates
        )
    taints = as_list(device.get("taints"))
    old_taints = as_list(old.get("taints")) if old is not None else None
    if old_taints is None or old_taints != taints:
        errs += validate_list(
            taints, TAINTS_MAX, path.child("taints"), lambda t, p: validate_taint(t, None, p)
        )
    errs += validate_set(
        as_list(device.get("consumesCounters")),
        CONSUMES_COUNTERS_MAX,
        path.child("consumesCounters"),
        _validate_consumption,
        lambda c: as_str(as_dict(c).get("counterSet")),
    )
    errs += _validate_device_node_selection(device, per_device, path)
    errs += validate_binding_parameters(device, path)
    return errs


def _advanced(devices: list[Any]) -> bool:
    for device in devices:
        device = as_dict(device)
        if as_list(device.get("taints")) or as_list(device.get("consumesCounters")):
            return True
        for attribute in as_dict(device.get("attributes")).values():
            if any(as_dict(attribute).get(name) is not None for name in _LIST_ATTRIBUTES):
                return True
    return False


# --- the spec --------------------------------------------------------------------------------

_NODE_SELECTION = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)


def _validate_node_selection(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    set_fields: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name:
            set_fields.append("`nodeName`")
            errs += validate_node_name(as_str(node_name), path.child("nodeName"))
        else:
            errs.append(
                invalid(
                    path.child("nodeName"),
                    node_name,
                    "must be either unset or set to a non-empty string",
                )
            )
    selector = spec.get("nodeSelector")
    if selector is not None:
        set_fields.append("`nodeSelector`")
        errs += validate_node_selector(selector, path.child("nodeSelector"))
        terms = as_list(as_dict(selector).get("nodeSelectorTerms"))
        if len(terms) != 1:
            errs.append(
                invalid(
                    path.child("nodeSelector", "nodeSelectorTerms"),
                    terms,
                    "must have exactly one node selector term",
                )
            )
    for name in ("allNodes", "perDeviceNodeSelection"):
        value = spec.get(name)
        if value is None:
            continue
        if value is True:
            set_fields.append(f"`{name}`")
        else:
            errs.append(invalid(path.child(name), value, "must be either unset or set to true"))
    if not set_fields:
        errs.append(required(path, _NODE_SELECTION))
    elif len(set_fields) > 1:
        errs.append(
            invalid(
                path,
                "{" + ", ".join(set_fields) + "}",
                _NODE_SELECTION + ", but multiple fields are set",
            )
        )
    return errs


def _validate_pool(pool: Any, path: Path) -> list[FieldError]:
    pool = as_dict(pool)
    errs = validate_pool_name(as_str(pool.get("name")), path.child("name"))
    count = pool.get("resourceSliceCount")
    count = count if isinstance(count, int) else 0
    if count <= 0:
        errs.append(invalid(path.child("resourceSliceCount"), count, "must be greater than zero"))
    generation = pool.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(
            invalid(path.child("generation"), generation, "must be greater than or equal to zero")
        )
    return errs


def _validate_partition_type(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    from fakeapi.validation.dra_names import validate_fully_qualified_name

    name = as_str(spec.get("partitionTypeAttribute"))
    devices = [as_dict(d) for d in as_list(spec.get("devices"))]
    consuming = [d for d in devices if as_list(d.get("consumesCounters"))]
    if not consuming:
        return [
            invalid(
                path.child("partitionTypeAttribute"),
                name,
                "may only be set on a slice which declares devices that consume counters",
            )
        ]
    errs = validate_fully_qualified_name(name, path.child("partitionTypeAttribute"))
    if errs:
        return errs
    driver = as_str(spec.get("driver"))
    bare = name[len(driver) + 1 :] if name.startswith(driver + "/") else ""
    for i, device in enumerate(devices):
        if not as_list(device.get("consumesCounters")):
            continue
        attributes = as_dict(device.get("attributes"))
        attr_path = path.child("devices").index(i).child("attributes").key(name)
        attribute = attributes.get(name, attributes.get(bare) if bare else None)
        if attribute is None:
            errs.append(
                required(
                    attr_path,
                    "device consumes counters and `partitionTypeAttribute` "
                    "names this attribute, so it must be set",
                )
            )
        elif as_dict(attribute).get("string") is None:
            errs.append(
                invalid(
                    attr_path,
                    attribute,
                    "must be a string value because `partitionTypeAttribute` names this attribute",
                )
            )
    return errs


def validate_slice_spec(
    spec: Any, old_spec: Any | None, *, gates: Mapping[str, bool]
) -> list[FieldError]:
    """A ResourceSlice spec; ``old_spec`` on update (immutability, changed-only checks)."""
    from fakeapi.validation.dra_claim_status import SKIP_NODE_OPERATIONS

    spec = as_dict(spec)
    path = Path("spec")
    errs = validate_driver_name(as_str(spec.get("driver")), path.child("driver"))
    errs += _validate_pool(spec.get("pool"), path.child("pool"))
    if old_spec is not None:
        old = as_dict(old_spec)
        for field_path, new_value, old_value in (
            (
                path.child("pool", "name"),
                as_dict(spec.get("pool")).get("name"),
                as_dict(old.get("pool")).get("name"),
            ),
            (path.child("driver"), spec.get("driver"), old.get("driver")),
            (path.child("nodeName"), spec.get("nodeName"), old.get("nodeName")),
        ):
            if new_value != old_value:
                errs.append(invalid(field_path, new_value, "field is immutable"))
    errs += _validate_node_selection(spec, path)
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    devices = as_list(spec.get("devices"))
    old_devices = (
        {
            as_str(as_dict(d).get("name")): as_dict(d)
            for d in as_list(as_dict(old_spec).get("devices"))
        }
        if old_spec is not None
        else {}
    )
    per_device = spec.get("perDeviceNodeSelection") is True
    limit = DEVICES_MAX_ADVANCED if _advanced(devices) else DEVICES_MAX
    errs += validate_set(
        devices,
        limit,
        path.child("devices"),
        lambda d, p: _validate_device(
            d,
            old_devices.get(as_str(as_dict(d).get("name"))) if old_spec is not None else None,
            per_device,
            p,
            gates,
        ),
        lambda d: as_str(as_dict(d).get("name")),
    )
    errs += validate_set(
        as_list(spec.get("sharedCounters")),
        COUNTER_SETS_MAX,
        path.child("sharedCounters"),
        _validate_counter_set,
        lambda c: as_str(as_dict(c).get("name")),
    )
    if spec.get("partitionTypeAttribute") is not None:
        errs += _validate_partition_type(spec, path)
    ops = [as_str(o) for o in as_list(spec.get("skipNodeOperations"))]
    ops_path = path.child("skipNodeOperations")
    errs += [
        not_supported(ops_path.index(i), o, SKIP_NODE_OPERATIONS)
        for i, o in enumerate(ops)
        if o not in SKIP_NODE_OPERATIONS
    ]
    if "NodePrepareResources" in ops and "NodeUnprepareResources" not in ops and "*" not in ops:
        errs.append(
            invalid(
                ops_path,
                ops,
                "NodePrepareResources cannot be skipped unless "
                "NodeUnprepareResources is also skipped",
            )
        )
    return errs
