"""Deletion semantics: preconditions, propagation finalizers, grace periods and finalization.

A DELETE either removes the object at once or starts a *pending* deletion: it stamps
``deletionTimestamp``/``deletionGracePeriodSeconds`` (bumping ``generation`` once, as upstream)
and the object stays until its finalizers are gone and its grace period is over. The update that
removes the last finalizer of such an object removes it (:func:`finalized`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from fakeapi import errors
from fakeapi.registry.options import DeleteOptions, Preconditions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Obj, WriteContext
from fakeapi.storage.interface import ConflictError
from fakeapi.timefmt import format_time

__all__ = ["check_preconditions", "propagation_finalizers", "begin_deletion", "finalized"]


def check_preconditions(
    rt: ResourceType,
    meta: Obj,
    pre: Preconditions | None,
    check_version: Callable[[str, int | None], object],
    key: str,
) -> None:
    """DeleteOptions.preconditions: the uid, and the resourceVersion (compared by the storage's
    ``check_version``, the one place that compares versions)."""
    if pre is None:
        return
    name = meta.get("name", "")
    if pre.uid is not None and pre.uid != meta.get("uid"):
        raise errors.conflict(
            resource=rt.plural,
            group=rt.group,
            name=name,
            detail=f"Precondition failed: UID in precondition: {pre.uid}, UID in object meta: "
            f"{meta.get('uid')}",
        )
    if pre.resource_version is None:
        return
    try:
        wanted = int(pre.resource_version) if pre.resource_version.isdigit() else -1
        check_version(key, wanted)
    except ConflictError:
        raise errors.conflict(
            resource=rt.plural,
            group=rt.group,
            name=name,
            detail=f"Precondition failed: ResourceVersion in precondition: "
            f"{pre.resource_version}, ResourceVersion in object meta: "
            f"{meta.get('resourceVersion')}",
        ) from None


def propagation_finalizers(finalizers: list[str], policy: str | None) -> list[str]:
    """Record the propagation policy the way the garbage collector reads it: Orphan adds
    ``orphan``, Foreground adds ``foregroundDeletion``, and each policy drops the other's."""
    out = list(finalizers)
    if policy == "Orphan" and "orphan" not in out:
        out.append("orphan")
    if policy == "Foreground" and "foregroundDeletion" not in out:
        out.append("foregroundDeletion")
    if policy in ("Background", "Foreground") and "orphan" in out:
        out.remove("orphan")
    if policy in ("Background", "Orphan") and "foregroundDeletion" in out:
        out.remove("foregroundDeletion")
    return out


def begin_deletion(
    rt: ResourceType, obj: Obj, new: Obj, options: DeleteOptions, ctx: WriteContext
) -> bool:
    """Turn ``new`` (a private copy of ``obj``) into its deleting state; False if the object can
    go at once."""
    meta, new_meta = obj["metadata"], new["metadata"]
    finalizers = propagation_finalizers(
        new_meta.get("finalizers") or [], options.propagation_policy
    )
    if finalizers:
        new_meta["finalizers"] = finalizers
    else:
        new_meta.pop("finalizers", None)
    grace = rt.strategy.grace_period_seconds(obj, options.grace_period_seconds)
    deleting = bool(meta.get("deletionTimestamp"))
    existing_grace = meta.get("deletionGracePeriodSeconds")
    if deleting and existing_grace is not None:
        grace = min(grace, int(existing_grace))  # a deletion can only be hastened
    if not (grace > 0 or finalizers or rt.strategy.deletion_blocked(new)):
        return False
    if not deleting or grace != existing_grace:
        if not deleting and new_meta.get("generation"):
            new_meta["generation"] = int(new_meta["generation"]) + 1
        if grace > 0 or not deleting:
            new_meta["deletionTimestamp"] = _after(ctx.now, grace)
        new_meta["deletionGracePeriodSeconds"] = grace
    rt.strategy.prepare_for_delete(new, ctx)
    return True


def _after(now: datetime, seconds: int) -> str:
    return format_time(now + timedelta(seconds=seconds))


def finalized(rt: ResourceType, obj: Obj) -> bool:
    """A deleting object whose last finalizer (and grace period) is gone must be removed."""
    meta = obj["metadata"]
    return (
        bool(meta.get("deletionTimestamp"))
        and not meta.get("finalizers")
        and not meta.get("deletionGracePeriodSeconds")
        and not rt.strategy.deletion_blocked(obj)
    )
