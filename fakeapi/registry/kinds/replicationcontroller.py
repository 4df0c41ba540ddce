"""core/v1 ReplicationController: defaults, validation, ``/status`` and ``/scale``.

Upstream's defaults: one replica, and an empty selector (and empty object labels) taken from the
template's labels. ``status.replicas`` is a field label.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi.objects import as_dict
from fakeapi.registry.kinds.apps import default_template
from fakeapi.registry.kinds.workload_printing import REPLICATION_CONTROLLER_COLUMNS
from fakeapi.registry.scale import ScaleSubresource, map_selector_string
from fakeapi.registry.strategy import Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError
from fakeapi.validation.replication import (
    validate_replication_controller,
    validate_replication_controller_status,
)

__all__ = ["ReplicationControllerStrategy"]


class ReplicationControllerStrategy(Strategy):
    """Namespaced; status and scale subresources; generation tracked."""

    status_subresource = True
    tracks_generation = True
    columns: ClassVar[tuple[Column, ...]] = REPLICATION_CONTROLLER_COLUMNS
    field_labels: ClassVar[tuple[str, ...]] = ("status.replicas",)
    scale = ScaleSubresource(selector=map_selector_string)

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        template = spec.get("template")
        labels = as_dict(as_dict(as_dict(template).get("metadata")).get("labels"))
        if labels:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = obj.setdefault("metadata", {})
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(labels)
        spec.setdefault("replicas", 1)
        default_template(template)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"status.replicas": str(as_dict(obj.get("status")).get("replicas") or 0)}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_replication_controller(obj)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_replication_controller_status(new)
