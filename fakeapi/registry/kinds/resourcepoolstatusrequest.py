"""ResourcePoolStatusRequest (resource.k8s.io/v1alpha3, cluster-scoped, ``/status``): one question,
answered once.

As upstream's strategy: the spec is immutable and ``spec.limit`` defaults to 100 (1 to 1000);
status is reset on create and written through ``/status`` by the resourcepoolstatusrequest
controller; once the answer is there it never changes (a later status write that changes it is
refused as ``field is immutable``). Printed as ``NAME DRIVER POOL POOLS COMPLETE AGE``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from fakeapi.objects import as_dict, as_list
from fakeapi.objects import text as as_str
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.dra_common import validate_conditions
from fakeapi.validation.dra_names import validate_driver_name, validate_pool_name
from fakeapi.validation.field import FieldError, Path, invalid, required

__all__ = [
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "ResourcePoolStatusRequestStrategy",
    "validate_request",
    "validate_request_status",
]

#: upstream's ResourcePoolStatusRequestLimitDefault and ResourcePoolStatusRequestLimitMax
LIMIT_DEFAULT = 100
LIMIT_MAX = 1000


def _pool_cell(obj: Obj, _now: datetime) -> str:
    return as_str(as_dict(obj.get("spec")).get("poolName")) or "<all>"


def _count_cell(obj: Obj, _now: datetime) -> Any:
    count = as_dict(obj.get("status")).get("poolCount")
    return count if isinstance(count, int) else "<pending>"


def _complete_cell(obj: Obj, _now: datetime) -> str:
    for condition in as_list(as_dict(obj.get("status")).get("conditions")):
        if as_dict(condition).get("type") == "Complete":
            return as_str(condition.get("status")) or "Unknown"
    return "Unknown"


_COLUMNS = (
    NAME_COLUMN,
    Column(
        "Driver",
        lambda obj, _now: as_str(as_dict(obj.get("spec")).get("driver")),
        description="The driver whose pools are reported.",
    ),
    Column("Pool", _pool_cell, description="The pool asked about; <all> for every pool."),
    Column("Pools", _count_cell, description="The number of matching pools."),
    Column("Complete", _complete_cell, description="Whether the answer is there."),
    AGE_COLUMN,
)


def validate_request(obj: Obj) -> list[FieldError]:
    """The spec: a driver name, an optional non-empty pool name, a limit of 1 to 1000."""
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    driver = as_str(spec.get("driver"))
    if not driver:
        errs.append(required(path.child("driver")))
    else:
        errs += validate_driver_name(driver, path.child("driver"))
    if "poolName" in spec and spec["poolName"] is not None:
        errs += validate_pool_name(as_str(spec["poolName"]), path.child("poolName"))
    limit = spec.get("limit")
    if isinstance(limit, int):
        if limit < 1:
            errs.append(invalid(path.child("limit"), limit, "must be greater than or equal to 1"))
        elif limit > LIMIT_MAX:
            errs.append(
                invalid(path.child("limit"), limit, f"must be less than or equal to {LIMIT_MAX}")
            )
    return errs + validate_request_status(obj)


def validate_request_status(obj: Obj) -> list[FieldError]:
    status = obj.get("status")
    if not isinstance(status, dict):
        return []
    path = Path("status")
    errs: list[FieldError] = []
    count = status.get("poolCount")
    if isinstance(count, int) and count < 0:
        errs.append(invalid(path.child("poolCount"), count, "must be greater than or equal to 0"))
    for i, pool in enumerate(as_list(status.get("pools"))):
        pool_path = path.child("pools").index(i)
        for name in (
            "totalDevices", "allocatedDevices", "availableDevices", "unavailableDevices",
            "resourceSliceCount", "generation",
        ):
            value = as_dict(pool).get(name)
            if isinstance(value, int) and value < 0:
                errs.append(
                    invalid(pool_path.child(name), value, "must be greater than or equal to 0")
                )
    errs += validate_conditions(as_list(status.get("conditions")), path.child("conditions"))
    return errs


def _immutable(path: str, new: Any, old: Any) -> list[FieldError]:
    return [] if new == old else [invalid(path, new, "field is immutable")]


class ResourcePoolStatusRequestStrategy(Strategy):
    """Requests: defaulted, immutable spec; status written once by the controller."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True
    field_labels: ClassVar[tuple[str, ...]] = ("spec.driver",)
    columns: ClassVar[tuple[Column, ...]] = _COLUMNS

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("limit") is None:
            spec["limit"] = LIMIT_DEFAULT

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.pop("status", None)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_request(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_request(new) + _immutable("spec", new.get("spec"), old.get("spec"))

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errs = validate_request_status(new)
        if old.get("status") and new.get("status") != old.get("status"):
            errs.append(invalid("status", new.get("status"), "field is immutable"))
        return errs

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"spec.driver": as_str(as_dict(obj.get("spec")).get("driver"))}
