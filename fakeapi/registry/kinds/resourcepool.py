"""ResourcePool (resource.k8s.io/v1beta2, seed KEP-5677): written by its controller only.

Who may write: the seed says ResourcePools are created and maintained by the controller, never by
users or drivers. A real cluster enforces that with RBAC; fakeapi has no authorisation, so the
strategy looks at the request's field manager instead. Every create, update and status write whose
``fieldManager`` is not :data:`CONTROLLER_FIELD_MANAGER` (``resourcepool-controller``) is refused
with 403 Forbidden, the answer an unauthorised user would get
(``resourcepools.resource.k8s.io "x" is forbidden: ...``). The in-process controller must send that
field manager on every write. Deletion is not guarded (the strategy has no delete hook).

As for any kind with ``/status``, status is reset on create: the controller creates the pool, then
writes its status through the subresource.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from fakeapi.errors import forbidden
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation import dra
from fakeapi.validation.dra_common import as_dict
from fakeapi.validation.field import FieldError

__all__ = ["ResourcePoolStrategy", "CONTROLLER_FIELD_MANAGER"]

CONTROLLER_FIELD_MANAGER = "resourcepool-controller"


def _summary_cell(name: str) -> Any:
    def cell(obj: Obj, _now: datetime) -> int:
        value = as_dict(as_dict(obj.get("status")).get("summary")).get(name)
        return value if isinstance(value, int) else 0

    return cell


def _spec_cell(name: str) -> Any:
    def cell(obj: Obj, _now: datetime) -> str:
        value = as_dict(obj.get("spec")).get(name)
        return value if isinstance(value, str) and value else "<none>"

    return cell


_COLUMNS = (
    NAME_COLUMN,
    Column("Driver", _spec_cell("driver"), description="The driver of the pool."),
    Column(
        "Total",
        _summary_cell("totalDevices"),
        type="integer",
        description="Devices listed in the pool's slices.",
    ),
    Column(
        "Allocated",
        _summary_cell("allocatedDevices"),
        type="integer",
        description="Devices allocated at least once.",
    ),
    Column(
        "Available",
        _summary_cell("availableDevices"),
        type="integer",
        description="Unallocated devices that can be allocated.",
    ),
    Column("Pool", _spec_cell("poolName"), priority=1, description="The pool name."),
    Column(
        "Node", _spec_cell("nodeName"), priority=1, description="The node of a node-local pool."
    ),
    Column(
        "Unavailable",
        _summary_cell("unavailableDevices"),
        type="integer",
        priority=1,
        description="Unallocated devices that cannot be allocated.",
    ),
    Column("Age", AGE_COLUMN.cell, priority=1, description=AGE_COLUMN.description),
)


def _refuse_users(obj: Obj, ctx: WriteContext) -> None:
    if ctx.field_manager == CONTROLLER_FIELD_MANAGER:
        return
    meta = as_dict(obj.get("metadata"))
    name = str(meta.get("name") or meta.get("generateName") or "")
    raise forbidden(
        resource="resourcepools",
        group="resource.k8s.io",
        name=name,
        message=(
            f"ResourcePools are maintained by the {CONTROLLER_FIELD_MANAGER}; writes with "
            f'field manager "{ctx.field_manager}" are not allowed'
        ),
    )


class ResourcePoolStrategy(Strategy):
    """Pools: controller-only writes, immutable spec, validated summary and conditions."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True
    field_labels: ClassVar[tuple[str, ...]] = ("spec.driver", "spec.nodeName")
    columns: ClassVar[tuple[Column, ...]] = _COLUMNS

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        _refuse_users(obj, ctx)
        obj.pop("status", None)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_pool(obj)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        _refuse_users(new, ctx)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_pool_update(new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        _refuse_users(new, ctx)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_pool_status(new)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        spec = as_dict(obj.get("spec"))
        return {
            "spec.driver": str(spec.get("driver") or ""),
            "spec.nodeName": str(spec.get("nodeName") or ""),
        }
