"""Validation of ResourceClaim status writes: allocation, reservations, devices.

A stored allocation is never re-validated (rules for new results are stricter than they once were);
it may only stay exactly as it is or be cleared. Device status entries must name devices the
allocation holds, matched by driver, pool, device and share ID.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_claim import (
    CONFIG_MAX,
    RESULTS_MAX,
    RequestNames,
    request_names,
    validate_consumer_reference,
    validate_opaque_config,
    validate_request_ref,
    validate_request_refs,
)
from fakeapi.validation.dra_common import (
    as_dict,
    as_list,
    as_str,
    validate_binding_parameters,
    validate_conditions,
    validate_interface_address,
    validate_items,
    validate_list,
    validate_node_selector,
    validate_raw_object,
    validate_set,
    validate_toleration,
)
from fakeapi.validation.dra_names import (
    validate_device_name,
    validate_driver_name,
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
    "validate_claim_status_update",
    "validate_allocation_result",
    "validate_skip_node_operations",
    "RESERVED_FOR_MAX",
    "SKIP_NODE_OPERATIONS",
]

RESERVED_FOR_MAX = 256
DEVICE_STATUS_CONDITIONS_MAX = 8
DEVICE_STATUS_DATA_MAX = 10 * 1024
NETWORK_IPS_MAX = 16
INTERFACE_NAME_MAX = 256
HARDWARE_ADDRESS_MAX = 128
CONFIG_SOURCES = ("FromClaim", "FromClass")
SKIP_NODE_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")


# --- status ---------------------------------------------------------------------------------------


def validate_skip_node_operations(ops: Any, path: Path) -> list[FieldError]:
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
    errs = validate_request_ref(result.get("request"), path.child("request"), names)
    errs += validate_driver_name(as_str(result.get("driver")), path.child("driver"))
    errs += validate_pool_name(as_str(result.get("pool")), path.child("pool"))
    errs += validate_device_name(as_str(result.get("device")), path.child("device"))
    errs += validate_binding_parameters(result, path)
    if result.get("tolerations"):
        errs += validate_items(
            as_list(result.get("tolerations")), path.child("tolerations"), validate_toleration
        )
    if result.get("shareID") is not None:
        errs += validate_uid(as_str(result.get("shareID")), path.child("shareID"))
    if result.get("skipNodeOperations"):
        errs += validate_skip_node_operations(
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
        out += validate_request_refs(config.get("requests"), p.child("requests"), names)
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
    """Rules of a write to ``/status`` of a ResourceClaim."""
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
