"""PriorityClass (scheduling.k8s.io/v1): cluster-scoped, value and preemption policy immutable.

Upstream reserves the ``system-`` prefix for the two built-in classes (created at start-up, see
``fakeapi.bootstrap``), refuses to delete them and caps user-defined values at one billion.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from fakeapi import errors
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, not_supported

__all__ = ["PriorityClassStrategy", "HIGHEST_USER_DEFINABLE_PRIORITY", "SYSTEM_PRIORITY_CLASSES"]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
#: the classes upstream creates itself, with their values
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
_POLICIES = ("Never", "PreemptLowerPriority")


def _bool_cell(obj: Obj, _now: datetime) -> bool:
    return bool(obj.get("globalDefault"))


class PriorityClassStrategy(Strategy):
    """Cluster-scoped; no status; value and preemptionPolicy cannot change."""

    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column(
            "Value",
            lambda obj, _now: obj.get("value", 0),
            type="integer",
            description="The priority of pods that use this class.",
        ),
        Column(
            "Global-Default",
            _bool_cell,
            type="boolean",
            description="Pods that name no priority class get this one.",
        ),
        AGE_COLUMN,
        Column(
            "PreemptionPolicy",
            lambda obj, _now: obj.get("preemptionPolicy", ""),
            description="Whether pods of this class may preempt lower-priority pods.",
        ),
    )


    def check_delete(self, obj: Obj) -> None:
        name = str(obj["metadata"].get("name", ""))
        if name in SYSTEM_PRIORITY_CLASSES:  # as upstream's PriorityClass storage
            raise errors.forbidden(
                resource="priorityclasses", group="scheduling.k8s.io", name=name,
                message="this is a system priority class and cannot be deleted",
            )

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        new.setdefault("preemptionPolicy", old.get("preemptionPolicy", "PreemptLowerPriority"))

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        errs: list[FieldError] = []
        name = str((obj.get("metadata") or {}).get("name") or "")
        value = obj.get("value")
        if name.startswith("system-"):
            if SYSTEM_PRIORITY_CLASSES.get(name) != value:
                errs.append(
                    invalid(
                        Path("metadata.name"),
                        name,
                        "priority class names with 'system-' prefix are reserved",
                    )
                )
        elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
            errs.append(
                forbidden(
                    Path("value"),
                    f"maximum allowed value of a user defined "
                    f"priority is {HIGHEST_USER_DEFINABLE_PRIORITY}",
                )
            )
        policy = obj.get("preemptionPolicy")
        if policy is not None and policy not in _POLICIES:
            errs.append(not_supported(Path("preemptionPolicy"), policy, _POLICIES))
        return errs

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errs = self.validate(new, ctx)
        if new.get("value") != old.get("value"):
            errs.append(forbidden(Path("value"), "may not be changed in an update."))
        if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errs.append(
                invalid(Path("preemptionPolicy"), new.get("preemptionPolicy"), "field is immutable")
            )
        return errs
