"""DeviceClass (resource.k8s.io/v1, cluster-scoped): mutable spec, generation bumped on change.

On update, selectors and config that did not change are treated as stored: they are neither
compiled nor size-checked again, so a class stays editable after CEL or size rules tighten.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.validation import dra
from fakeapi.validation.field import FieldError

__all__ = ["DeviceClassStrategy"]

_CLASS_GATED_FIELDS = (GatedFields(("DRAExtendedResource",), ("spec.extendedResourceName",)),)


class DeviceClassStrategy(Strategy):
    """Device classes: selectors, config and an optional extended resource name."""

    tracks_generation: ClassVar[bool] = True

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=_CLASS_GATED_FIELDS)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_device_class(obj, gates=ctx.feature_gates)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_CLASS_GATED_FIELDS)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_device_class_update(new, old, gates=ctx.feature_gates)
