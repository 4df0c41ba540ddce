"""Workload (scheduling.k8s.io/v1alpha1, seed KEP-5729): pod group templates, immutable.

The templates' ``resourceClaims`` exist only with the seed gate
``WorkloadPodGroupResourceClaimTemplate``; with it off they are dropped on write unless the stored
object already has them.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.validation import dra_scheduling
from fakeapi.validation.field import FieldError

__all__ = ["WorkloadStrategy"]

_WORKLOAD_GATED_FIELDS = (
    GatedFields(
        ("WorkloadPodGroupResourceClaimTemplate",), ("spec.podGroupTemplates[*].resourceClaims",)
    ),
)


class WorkloadStrategy(Strategy):
    """Workloads: validated templates, immutable after create (controllerRef may be set once)."""

    tracks_generation: ClassVar[bool] = True

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=_WORKLOAD_GATED_FIELDS)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra_scheduling.validate_workload(obj)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_WORKLOAD_GATED_FIELDS)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra_scheduling.validate_workload_update(new, old)
