"""PodGroup (scheduling.k8s.io/v1alpha1, seed KEP-5729, ``/status``): one group of a Workload.

The spec (workload, template, policy, shared claims) is immutable. ``spec.resourceClaims`` and
``status.resourceClaimStatuses`` exist only with the seed gate
``WorkloadPodGroupResourceClaimTemplate`` and are otherwise dropped unless already in use.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.validation import dra_scheduling
from fakeapi.validation.field import FieldError

__all__ = ["PodGroupStrategy"]

_POD_GROUP_GATED_FIELDS = (
    GatedFields(
        ("WorkloadPodGroupResourceClaimTemplate",),
        ("spec.resourceClaims", "status.resourceClaimStatuses"),
    ),
)


class PodGroupStrategy(Strategy):
    """PodGroups: immutable spec, conditions and generated claims in status."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.pop("status", None)
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=_POD_GROUP_GATED_FIELDS)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra_scheduling.validate_pod_group(obj)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_POD_GROUP_GATED_FIELDS)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra_scheduling.validate_pod_group_update(new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_POD_GROUP_GATED_FIELDS)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra_scheduling.validate_pod_group_status_update(new)
