"""Lease (coordination.k8s.io/v1): the lock behind leader election and node heartbeats.

Leases change every few seconds in a real cluster, so the strategy is deliberately small: a
couple of range checks as upstream has, and the Holder column ``kubectl get leases`` prints.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from fakeapi.objects import as_dict, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError, Path, forbidden, invalid

__all__ = ["LeaseStrategy"]


def _holder_cell(obj: Obj, _now: datetime) -> str:
    return text(as_dict(obj.get("spec")).get("holderIdentity"))


class LeaseStrategy(Strategy):
    """Namespaced; no status subresource."""

    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Holder", _holder_cell, description="The holder of the lease."),
        AGE_COLUMN,
    )

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        path = Path("spec")
        errors: list[FieldError] = []
        duration = spec.get("leaseDurationSeconds")
        if isinstance(duration, int) and duration <= 0:
            errors.append(
                invalid(path.child("leaseDurationSeconds"), duration, "must be greater than 0")
            )
        transitions = spec.get("leaseTransitions")
        if isinstance(transitions, int) and transitions < 0:
            errors.append(
                invalid(
                    path.child("leaseTransitions"),
                    transitions,
                    "must be greater than or equal to 0",
                )
            )
        if spec.get("preferredHolder") and not spec.get("strategy"):
            errors.append(
                forbidden(
                    path.child("preferredHolder"), "may only be specified if `strategy` is defined"
                )
            )
        return errors
