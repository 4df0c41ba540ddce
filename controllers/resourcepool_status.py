"""What a ResourcePool's status says about one (driver, pool): pure functions, no I/O.

Given the pool's ResourceSlices, the claims whose allocations point into it and the
DeviceTaintRules in force, compute the summary counts, the cross-slice validation errors and the
two conditions the KEP-5677 seed defines. The counting is the shared rule of
:mod:`fakeapi.rules.pools` (``kubectl dra`` counts with it too); this module turns it into the
status. Kept apart from the controller so it is tested on plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list
from fakeapi.rules.conditions import set_status_condition
from fakeapi.rules.pools import count_pool, gather_pool

__all__ = ["MAX_VALIDATION_ERRORS", "PoolView", "compute_status"]

MAX_VALIDATION_ERRORS = 10


@dataclass
class PoolView:
    """The inputs for one pool: its slices and the claims whose allocations may name it."""

    driver: str
    pool: str
    slices: list[Obj] = field(default_factory=list)
    #: claims allocated in this pool (results of other pools in them are ignored)
    claims: list[Obj] = field(default_factory=list)
    #: DeviceTaintRules that may taint devices of this pool (each device is matched here)
    taint_rules: list[Obj] = field(default_factory=list)


def compute_status(view: PoolView, *, old: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The status for ``view``: condition transition times (``now`` for a changed condition)
    and ``lastUpdateTime`` are carried over from ``old``, so the caller can compare the result
    with ``old`` and stamp ``lastUpdateTime`` only when it writes."""
    contents = gather_pool(driver=view.driver, pool=view.pool, slices=view.slices)
    errors: list[str] = []
    if contents.mixed_generations:
        errors.append("ResourceSlices have inconsistent pool generations")
    errors.extend(contents.duplicates)
    usage = count_pool(contents, claims=view.claims, taint_rules=view.taint_rules)
    summary: dict[str, Any] = {
        "totalDevices": usage.total,
        "allocatedDevices": usage.allocated,
        "availableDevices": usage.available,
    }
    if usage.unavailable:
        summary["unavailableDevices"] = usage.unavailable
    if usage.partially_allocated:
        summary["partiallyAllocatedDevices"] = usage.partially_allocated
    current = contents.slices
    newest = contents.generation
    expected = max(
        (
            count
            for s in current
            if isinstance(
                count := as_dict(as_dict(s.get("spec")).get("pool")).get("resourceSliceCount"), int
            )
        ),
        default=0,
    )
    observed = len(current)
    conditions = [as_dict(c) for c in as_list(old.get("conditions"))]
    if observed == expected:
        conditions = set_status_condition(
            conditions,
            type="Complete",
            status="True",
            reason="AllSlicesPresent",
            message=f"All {expected} ResourceSlices of the pool are present",
            now=now,
        )
    else:
        conditions = set_status_condition(
            conditions,
            type="Complete",
            status="False",
            reason="SlicesMissing",
            message=f"{observed} of {expected} ResourceSlices present",
            now=now,
        )
    if errors:
        conditions = set_status_condition(
            conditions,
            type="Valid",
            status="False",
            reason="ValidationFailed",
            message=f"{len(errors)} validation errors",
            now=now,
        )
    else:
        conditions = set_status_condition(
            conditions,
            type="Valid",
            status="True",
            reason="ValidationPassed",
            message="The pool's ResourceSlices are consistent",
            now=now,
        )
    status: dict[str, Any] = {
        "summary": summary,
        "conditions": conditions,
        "observedSliceCount": observed,
        "expectedSliceCount": expected,
        "observedGeneration": newest,
        "truncatedErrorCount": len(errors) if len(errors) > MAX_VALIDATION_ERRORS else 0,
    }
    if errors:
        status["validationErrors"] = errors[:MAX_VALIDATION_ERRORS]
    status["lastUpdateTime"] = old.get("lastUpdateTime")
    return status
