"""policy/v1 PodDisruptionBudget: defaults nothing, validates, starts with no status.

The disruption controller computes the status; the eviction subresource
(:mod:`fakeapi.registry.kinds.pod_eviction`) reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from fakeapi.objects import as_dict
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError
from fakeapi.validation.policy import (
    validate_pod_disruption_budget,
    validate_pod_disruption_budget_status,
)

__all__ = ["PodDisruptionBudgetStrategy"]


def _bound(name: str) -> Callable[[Obj, datetime], str]:
    def cell(obj: Obj, _now: datetime) -> str:
        value = as_dict(obj.get("spec")).get(name)
        return "N/A" if value is None else str(value)

    return cell


class PodDisruptionBudgetStrategy(Strategy):
    """Namespaced; status subresource; generation tracked."""

    status_subresource = True
    tracks_generation = True
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Min Available", _bound("minAvailable"),
               description="The minimum number of pods that must be available."),
        Column("Max Unavailable", _bound("maxUnavailable"),
               description="The maximum number of pods that may be unavailable."),
        Column("Allowed Disruptions",
               lambda obj, _now: as_dict(obj.get("status")).get("disruptionsAllowed") or 0,
               type="integer",
               description="Calculated number of pods that may be disrupted at this time."),
        AGE_COLUMN,
    )

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_pod_disruption_budget(obj)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_pod_disruption_budget_status(new)
