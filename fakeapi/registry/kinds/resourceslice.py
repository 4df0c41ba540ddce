"""ResourceSlice (resource.k8s.io/v1, cluster-scoped): devices published by drivers.

Driver, pool name and node name are immutable; fields of disabled gates are dropped unless the old
slice already uses them; device taints get ``timeAdded`` when the driver leaves it unset (kept from
the same taint of the old device, else the time of the write). Upper-case driver names are accepted
with a warning, like upstream.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.timefmt import format_time
from fakeapi.validation import dra
from fakeapi.validation.dra_common import as_dict, as_list
from fakeapi.validation.field import FieldError

__all__ = ["ResourceSliceStrategy", "SLICE_GATED_FIELDS"]

_DEVICES = "spec.devices[*]"

SLICE_GATED_FIELDS: tuple[GatedFields, ...] = (
    GatedFields(("DRADeviceTaints",), (f"{_DEVICES}.taints",)),
    GatedFields(
        ("DRAPartitionableDevices",),
        (
            "spec.sharedCounters",
            "spec.perDeviceNodeSelection",
            f"{_DEVICES}.consumesCounters",
            f"{_DEVICES}.nodeName",
            f"{_DEVICES}.nodeSelector",
            f"{_DEVICES}.allNodes",
        ),
    ),
    GatedFields(
        ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
        (
            f"{_DEVICES}.bindsToNode",
            f"{_DEVICES}.bindingConditions",
            f"{_DEVICES}.bindingFailureConditions",
        ),
    ),
    GatedFields(
        ("DRAConsumableCapacity",),
        (f"{_DEVICES}.allowMultipleAllocations", f"{_DEVICES}.capacity{{*}}.requestPolicy"),
    ),
    GatedFields(
        ("DRAListTypeAttributes",),
        tuple(
            f"{_DEVICES}.attributes{{*}}.{name}"
            for name in ("ints", "bools", "strings", "versions")
        ),
    ),
    GatedFields(("DRANodeAllocatableResources",), (f"{_DEVICES}.nodeAllocatableResources",)),
    GatedFields(("DRAOptionalNodeOperations",), ("spec.skipNodeOperations",)),
    GatedFields(("DRAPartitionableDevicesType",), ("spec.partitionTypeAttribute",)),
)


def _spec(obj: Obj) -> dict[str, Any]:
    return as_dict(obj.get("spec"))


def _node_cell(obj: Obj, _now: datetime) -> str:
    node = _spec(obj).get("nodeName")
    return node if isinstance(node, str) and node else "<none>"


_COLUMNS = (
    NAME_COLUMN,
    Column("Node", _node_cell, description="The node whose local devices the slice lists."),
    Column(
        "Driver",
        lambda obj, _now: str(_spec(obj).get("driver", "")),
        description="The driver that publishes the slice.",
    ),
    Column(
        "Pool",
        lambda obj, _now: str(as_dict(_spec(obj).get("pool")).get("name", "")),
        description="The pool the slice belongs to.",
    ),
    AGE_COLUMN,
)


def _taint_key(taint: dict[str, Any]) -> tuple[Any, Any, Any]:
    return taint.get("key"), taint.get("value"), taint.get("effect")


def _set_taint_times(new: Obj, old: Obj | None, now: datetime) -> None:
    old_devices = (
        {as_dict(d).get("name"): as_dict(d) for d in as_list(_spec(old).get("devices"))}
        if old
        else {}
    )
    stamp = format_time(now)
    for device in as_list(_spec(new).get("devices")):
        if not isinstance(device, dict):
            continue
        previous = {
            _taint_key(as_dict(t)): as_dict(t).get("timeAdded")
            for t in as_list(as_dict(old_devices.get(device.get("name"))).get("taints"))
        }
        for taint in as_list(device.get("taints")):
            if isinstance(taint, dict) and not taint.get("timeAdded"):
                taint["timeAdded"] = previous.get(_taint_key(taint)) or stamp


class ResourceSliceStrategy(Strategy):
    """Slices: immutable identity, gated fields, taint timestamps, field selectors."""

    tracks_generation: ClassVar[bool] = True
    field_labels: ClassVar[tuple[str, ...]] = ("spec.nodeName", "spec.driver")
    columns: ClassVar[tuple[Column, ...]] = _COLUMNS

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=SLICE_GATED_FIELDS)
        _set_taint_times(obj, None, ctx.now)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_slice(obj, gates=ctx.feature_gates)

    def warnings_on_create(self, obj: Obj, ctx: WriteContext) -> list[str]:
        return _driver_warnings(obj)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=SLICE_GATED_FIELDS)
        _set_taint_times(new, old, ctx.now)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_slice_update(new, old, gates=ctx.feature_gates)

    def warnings_on_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return _driver_warnings(new)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        spec = _spec(obj)
        return {
            "spec.nodeName": str(spec.get("nodeName") or ""),
            "spec.driver": str(spec.get("driver") or ""),
        }


def _driver_warnings(obj: Obj) -> list[str]:
    driver = _spec(obj).get("driver")
    if isinstance(driver, str) and driver != driver.lower():
        return [
            f"spec.driver: driver names should be lowercase; "
            f'"{driver}" contains uppercase characters'
        ]
    return []
