"""Validation of ResourceClaim specs (also inside templates) and of claim status updates.

Follows ``pkg/apis/resource/validation`` rule by rule (dra-api.md §6.3–§6.5). Request references in
constraints, config and allocation results are checked against the names of the claim's requests
and subrequests, so a claim is validated as a whole, never field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_common import (
    as_dict,
    as_list,
    as_str,
    validate_binding_parameters,
    validate_cel_expression,
    validate_conditions,
    validate_interface_address,
    validate_items,
    validate_list,
    validate_node_selector,
    validate_quantity,
    validate_raw_object,
    validate_set,
    validate_toleration,
)
from fakeapi.validation.dra_names import (
    dns1123_label_errors,
    validate_device_name,
    validate_dns_subdomain,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_label_name,
    validate_label_value,
    validate_pool_name,
    validate_uid,
)
from fakeapi.validation.field import (
    FieldError,
    Path,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)

__all__ = [
    "RequestNames",
    "request_names",
    "validate_claim_spec",
    "validate_selectors",
    "validate_opaque_config",
    "validate_template_metadata",
    "validate_consumer_reference",
    "validate_claim_status_update",
    "validate_allocation_result",
    "REQUESTS_MAX",
    "RESERVED_FOR_MAX",
]

REQUESTS_MAX = 32
CONSTRAINTS_MAX = 32
CONFIG_MAX = 32
SELECTORS_MAX = 32
SUBREQUESTS_MAX = 8
TOLERATIONS_MAX = 16
RESULTS_MAX = 32
RESERVED_FOR_MAX = 256
OPAQUE_PARAMETERS_MAX = 10 * 1024
DEVICE_STATUS_CONDITIONS_MAX = 8
DEVICE_STATUS_DATA_MAX = 10 * 1024
NETWORK_IPS_MAX = 16
INTERFACE_NAME_MAX = 256
HARDWARE_ADDRESS_MAX = 128
ALLOCATION_MODES = ("All", "ExactCount")
CONFIG_SOURCES = ("FromClaim", "FromClass")
SKIP_NODE_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")

_REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a "
    "subrequest separated by '/'"
)

#: request name -> subrequest names (None for an ``exactly`` request)
RequestNames = dict[str, frozenset[str] | None]


def request_names(claim_spec: Mapping[str, Any]) -> RequestNames:
    names: RequestNames = {}
    for request in as_list(as_dict(claim_spec.get("devices")).get("requests")):
        request = as_dict(request)
        subs = as_list(request.get("firstAvailable"))
        names[as_str(request.get("name"))] = (
            frozenset(as_str(as_dict(s).get("name")) for s in subs) if subs else None
        )
    return names


def _has_ref(names: RequestNames, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    if len(parts) == 1:
        return True
    subs = names[parts[0]]
    return subs is not None and parts[1] in subs


def _validate_request_ref(ref: Any, path: Path, names: RequestNames) -> list[FieldError]:
    text = as_str(ref)
    parts = text.split("/")
    if len(parts) > 2:
        return [invalid(path, text, _REF_DETAIL)]
    errs = [invalid(path, part, m) for part in parts for m in dns1123_label_errors(part)]
    if not _has_ref(names, text):
        errs.append(invalid(path, text, _REF_DETAIL))
    return errs


def _validate_request_refs(refs: Any, path: Path, names: RequestNames) -> list[FieldError]:
    return validate_set(
        as_list(refs),
        REQUESTS_MAX,
        path,
        lambda r, p: _validate_request_ref(r, p, names),
        lambda r: as_str(r),
    )


# --- selectors and config ---------------------------------------------------------------------


def validate_selectors(
    selectors: Any, path: Path, *, stored: bool, gates: Mapping[str, bool]
) -> list[FieldError]:
    def check(selector: Any, p: Path) -> list[FieldError]:
        cel = as_dict(selector).get("cel")
        if cel is None:
            return [required(p.child("cel"))]
        expression = as_str(as_dict(cel).get("expression"))
        return validate_cel_expression(
            expression, p.child("cel", "expression"), stored=stored, gates=gates
        )

    return validate_list(as_list(selectors), SELECTORS_MAX, path, check)


def validate_opaque_config(config: Any, path: Path, *, stored: bool) -> list[FieldError]:
    """``opaque`` Required; driver name rules; parameters a JSON object of at most 10Ki."""
    opaque = as_dict(config).get("opaque")
    if opaque is None:
        return [required(path.child("opaque"))]
    opaque = as_dict(opaque)
    errs = validate_driver_name(as_str(opaque.get("driver")), path.child("opaque", "driver"))
    errs += validate_raw_object(
        opaque.get("parameters"),
        path.child("opaque", "parameters"),
        limit=OPAQUE_PARAMETERS_MAX,
        check_size=not stored,
    )
    return errs


# --- requests -----------------------------------------------------------------------------------


def _validate_allocation_mode(request: Mapping[str, Any], path: Path) -> list[FieldError]:
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count")
    if mode == "All":
        if count not in (None, 0):
            return [
                invalid(
                    path.child("count"), count, "must not be specified when allocationMode is 'All'"
                )
            ]
        return []
    if mode == "ExactCount":
        value = 1 if count in (None, 0) else count
        if isinstance(value, int) and value <= 0:
            return [invalid(path.child("count"), value, "must be greater than zero")]
        return []
    return [not_supported(path.child("allocationMode"), mode, ALLOCATION_MODES)]


def _validate_capacity_requests(capacity: Any, path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    requests = as_dict(as_dict(capacity).get("requests"))
    for key, value in requests.items():
        errs.extend(validate_quantity(value, path.child("requests").key(key)))
    return errs


def _validate_class_name(name: Any, path: Path) -> list[FieldError]:
    text = as_str(name)
    if not text:
        return [required(path)]
    return validate_dns_subdomain(text, path)


def _validate_exact(
    request: Mapping[str, Any], path: Path, *, gates: Mapping[str, bool]
) -> list[FieldError]:
    errs = _validate_class_name(request.get("deviceClassName"), path.child("deviceClassName"))
    errs += validate_selectors(
        request.get("selectors"), path.child("selectors"), stored=False, gates=gates
    )
    errs += _validate_allocation_mode(request, path)
    errs += validate_list(
        as_list(request.get("tolerations")),
        TOLERATIONS_MAX,
        path.child("tolerations"),
        validate_toleration,
    )
    if request.get("capacity") is not None:
        errs += _validate_capacity_requests(request.get("capacity"), path.child("capacity"))
    return errs


def _validate_request(request: Any, path: Path, *, gates: Mapping[str, bool]) -> list[FieldError]:
    request = as_dict(request)
    errs = validate_device_name(as_str(request.get("name")), path.child("name"))
    first_available = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    if not first_available and exactly is None:
        errs.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif first_available and exactly is not None:
        errs.append(
            invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, "
                "but multiple fields are set",
            )
        )
    elif first_available:

        def check_sub(sub: Any, p: Path) -> list[FieldError]:
            sub = as_dict(sub)
            return validate_device_name(as_str(sub.get("name")), p.child("name")) + _validate_exact(
                sub, p, gates=gates
            )

        errs += validate_set(
            first_available,
            SUBREQUESTS_MAX,
            path.child("firstAvailable"),
            check_sub,
            lambda s: as_str(as_dict(s).get("name")),
        )
    else:
        errs += _validate_exact(as_dict(exactly), path.child("exactly"), gates=gates)
    return errs


def _validate_constraint(
    constraint: Any, path: Path, names: RequestNames, gates: Mapping[str, bool]
) -> list[FieldError]:
    from fakeapi.features import enabled

    constraint = as_dict(constraint)
    errs = _validate_request_refs(constraint.get("requests"), path.child("requests"), names)
    match = constraint.get("matchAttribute")
    distinct = constraint.get("distinctAttribute")
    if match is not None and distinct is not None:
        errs.append(
            invalid(
                path,
                "{`matchAttribute`, `distinctAttribute`}",
                'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            )
        )
    if match is not None:
        errs += validate_fully_qualified_name(as_str(match), path.child("matchAttribute"))
    elif distinct is not None:
        errs += validate_fully_qualified_name(as_str(distinct), path.child("distinctAttribute"))
    elif enabled(gates, "DRAConsumableCapacity"):
        errs.append(
            required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is '
                "required, but multiple fields are set",
            )
        )
    else:
        errs.append(required(path.child("matchAttribute")))
    return errs


def validate_consumer_reference(ref: Any, path: Path) -> list[FieldError]:
    """A ResourceClaimConsumerReference: resource, name and uid are required."""
    ref = as_dict(ref)
    errs: list[FieldError] = []
    for name in ("resource", "name", "uid"):
        if not as_str(ref.get(name)):
            errs.append(required(path.child(name)))
    return errs


def validate_claim_spec(
    spec: Any, path: Path, *, gates: Mapping[str, bool], stored: bool = False
) -> list[FieldError]:
    """A ResourceClaimSpec (claims and ``spec.spec`` of templates)."""
    spec = as_dict(spec)
    devices = as_dict(spec.get("devices"))
    devices_path = path.child("devices")
    names = request_names(spec)
    errs = validate_set(
        as_list(devices.get("requests")),
        REQUESTS_MAX,
        devices_path.child("requests"),
        lambda r, p: _validate_request(r, p, gates=gates),
        lambda r: as_str(as_dict(r).get("name")),
    )
    errs += validate_list(
        as_list(devices.get("constraints")),
        CONSTRAINTS_MAX,
        devices_path.child("constraints"),
        lambda c, p: _validate_constraint(c, p, names, gates),
    )

    def check_config(config: Any, p: Path) -> list[FieldError]:
        return _validate_request_refs(
            as_dict(config).get("requests"), p.child("requests"), names
        ) + validate_opaque_config(config, p, stored=stored)

    errs += validate_list(
        as_list(devices.get("config")), CONFIG_MAX, devices_path.child("config"), check_config
    )
    if spec.get("reservedFor") is not None:
        errs += validate_consumer_reference(spec.get("reservedFor"), path.child("reservedFor"))
    return errs


_TEMPLATE_META_ALLOWED = frozenset({"labels", "annotations"})
_ANNOTATIONS_MAX_BYTES = 256 * 1024


def validate_template_metadata(meta: Any, path: Path) -> list[FieldError]:
    """Template ``spec.metadata``: valid labels and annotations, nothing else."""
    meta = as_dict(meta)
    errs: list[FieldError] = []
    annotations = as_dict(meta.get("annotations"))
    total = 0
    for key, value in annotations.items():
        total += len(key) + len(as_str(value))
        errs.extend(validate_label_name(key.lower(), path.child("annotations")))
    if total > _ANNOTATIONS_MAX_BYTES:
        errs.append(too_long(path.child("annotations"), _ANNOTATIONS_MAX_BYTES))
    for key, value in as_dict(meta.get("labels")).items():
        errs.extend(validate_label_name(key, path.child("labels")))
        errs.extend(validate_label_value(as_str(value), path.child("labels")))
    for key, value in meta.items():
        if key not in _TEMPLATE_META_ALLOWED and value not in (None, "", [], {}, 0):
            errs.append(forbidden(path.child(key), "cannot be set for a template"))
    return errs


# --- status ---------------------------------------------------------------------------------------


def _validate_skip_node_operations(ops: Any, path: Path) -> list[FieldError]:
    values = [as_str(o) for o in as_list(ops)]
    errs = [
        not_supported(path.index(i), v, SKIP_NODE_OPERATIONS)
        for i, v in enumerate(values)
        if v not in SKIP_NODE_OPERATIONS
    ]
    if (
        "NodePrepareResources" in values
        and "NodeUnprepareResources" not in values
        and "*" not in values
    ):
        errs.append(
            invalid(
                path,
                values,
                "NodePrepareResources cannot be skipped unless "
                "NodeUnprepareResources is also skipped",
            )
        )
    return errs


def _validate_result(result: Any, path: Path, names: RequestNames) -> list[FieldError]:
    result = as_dict(result)
    errs = _validate_request_ref(result.get("request"), path.child("request"), names)
    errs += validate_driver_name(as_str(result.get("driver")), path.child("driver"))
    errs += validate_pool_name(as_str(result.get("pool")), path.child("pool"))
    errs += validate_device_name(as_str(result.get("device")), path.child("device"))
    errs += validate_binding_parameters(result, path)
    errs += validate_items(
        as_list(result.get("tolerations")), path.child("tolerations"), validate_toleration
    )
    if result.get("shareID") is not None:
        errs += validate_uid(as_str(result.get("shareID")), path.child("shareID"))
    errs += _validate_skip_node_operations(
        result.get("skipNodeOperations"), path.child("skipNodeOperations")
    )
    return errs


def validate_allocation_result(
    allocation: Any, path: Path, names: RequestNames
) -> list[FieldError]:
    """A new allocation (stored allocations are never re-validated)."""
    allocation = as_dict(allocation)
    devices = as_dict(allocation.get("devices"))
    devices_path = path.child("devices")
    errs = validate_list(
        as_list(devices.get("results")),
        RESULTS_MAX,
        devices_path.child("results"),
        lambda r, p: _validate_result(r, p, names),
    )

    def check_config(config: Any, p: Path) -> list[FieldError]:
        config = as_dict(config)
        source = config.get("source") or ""
        out: list[FieldError] = []
        if source == "":
            out.append(required(p.child("source")))
        elif source not in CONFIG_SOURCES:
            out.append(not_supported(p.child("source"), source, CONFIG_SOURCES))
        out += _validate_request_refs(config.get("requests"), p.child("requests"), names)
        return out + validate_opaque_config(config, p, stored=False)

    errs += validate_list(
        as_list(devices.get("config")), 2 * CONFIG_MAX, devices_path.child("config"), check_config
    )
    if allocation.get("nodeSelector") is not None:
        errs += validate_node_selector(allocation.get("nodeSelector"), path.child("nodeSelector"))
    return errs


def _device_id(entry: Mapping[str, Any]) -> str:
    parts = [as_str(entry.get("driver")), as_str(entry.get("pool")), as_str(entry.get("device"))]
    if entry.get("shareID"):
        parts.append(as_str(entry.get("shareID")))
    return "/".join(parts)


def _validate_device_status(entry: Any, path: Path, allocated: set[str]) -> list[FieldError]:
    entry = as_dict(entry)
    errs = validate_driver_name(as_str(entry.get("driver")), path.child("driver"))
    errs += validate_pool_name(as_str(entry.get("pool")), path.child("pool"))
    errs += validate_device_name(as_str(entry.get("device")), path.child("device"))
    if entry.get("shareID") is not None:
        errs += validate_uid(as_str(entry.get("shareID")), path.child("shareID"))
    device_id = _device_id(entry)
    if device_id not in allocated:
        errs.append(invalid(path, device_id, "must be an allocated device in the claim"))
    conditions = as_list(entry.get("conditions"))
    if len(conditions) > DEVICE_STATUS_CONDITIONS_MAX:
        errs.append(
            too_many(path.child("conditions"), len(conditions), DEVICE_STATUS_CONDITIONS_MAX)
        )
    errs += validate_conditions(conditions, path.child("conditions"))
    if entry.get("data") is not None:
        errs += validate_raw_object(
            entry.get("data"), path.child("data"), limit=DEVICE_STATUS_DATA_MAX
        )
    network = entry.get("networkData")
    if network is not None:
        network = as_dict(network)
        net_path = path.child("networkData")
        if len(as_str(network.get("interfaceName"))) > INTERFACE_NAME_MAX:
            errs.append(too_long(net_path.child("interfaceName"), INTERFACE_NAME_MAX))
        if len(as_str(network.get("hardwareAddress"))) > HARDWARE_ADDRESS_MAX:
            errs.append(too_long(net_path.child("hardwareAddress"), HARDWARE_ADDRESS_MAX))
        errs += validate_set(
            as_list(network.get("ips")),
            NETWORK_IPS_MAX,
            net_path.child("ips"),
            lambda ip, p: validate_interface_address(as_str(ip), p),
            lambda ip: as_str(ip),
        )
    return errs


def validate_claim_status_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    """Rules of a write to ``/status`` of a ResourceClaim (§6.5)."""
    status = as_dict(new.get("status"))
    old_status = as_dict(old.get("status"))
    path = Path("status")
    names = request_names(as_dict(new.get("spec")))
    reserved = as_list(status.get("reservedFor"))
    errs = validate_set(
        reserved,
        RESERVED_FOR_MAX,
        path.child("reservedFor"),
        validate_consumer_reference,
        lambda r: as_str(as_dict(r).get("uid")),
    )

    allocation = status.get("allocation")
    allocated: set[str] = set()
    if allocation is not None:
        for result in as_list(as_dict(as_dict(allocation).get("devices")).get("results")):
            allocated.add(_device_id(as_dict(result)))
    errs += validate_set(
        as_list(status.get("devices")),
        -1,
        path.child("devices"),
        lambda d, p: _validate_device_status(d, p, allocated),
        lambda d: _device_id(as_dict(d)),
    )

    if reserved:
        if allocation is None:
            errs.append(
                forbidden(
                    path.child("reservedFor"), "may not be specified when `allocated` is not set"
                )
            )
        elif as_dict(new.get("metadata")).get("deletionTimestamp"):
            old_uids = {
                as_str(as_dict(r).get("uid")) for r in as_list(old_status.get("reservedFor"))
            }
            old_entries = [as_dict(r) for r in as_list(old_status.get("reservedFor"))]
            added = [
                r
                for r in reserved
                if as_str(as_dict(r).get("uid")) not in old_uids or as_dict(r) not in old_entries
            ]
            if added:
                errs.append(
                    forbidden(
                        path.child("reservedFor"),
                        "new entries may not be added while `deallocationRequested` "
                        "or `deletionTimestamp` are set",
                    )
                )

    old_allocation = old_status.get("allocation")
    if old_allocation is not None and allocation is not None:
        if allocation != old_allocation:
            errs.append(invalid(path.child("allocation"), allocation, "field is immutable"))
    elif allocation is not None:
        errs += validate_allocation_result(allocation, path.child("allocation"), names)
    return errs
