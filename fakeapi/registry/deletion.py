"""Deletion semantics: preconditions, propagation finalizers, grace periods and finalization.

A DELETE either removes the object at once or starts a *pending* deletion: it stamps
``deletionTimestamp``/``deletionGracePeriodSeconds`` (bumping ``generation`` once, as upstream)
and the object stays until its finalizers are gone and its grace period is over. The update that
removes the last finalizer of such an object removes it (:func:`finalized`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fakeapi import errors
from fakeapi.registry.options import DeleteOptions, Preconditions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Obj, WriteContext
from fakeapi.storage.interface import ConflictError
from fakeapi.timefmt import format_time, parse_time

__all__ = [
    "begin_deletion",
    "check_delete_preconditions",
    "check_preconditions",
    "finalized",
    "propagation_finalizers",
]


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


def check_delete_preconditions(rt: ResourceType, meta: Obj, pre: Preconditions | None) -> None:
    """A DELETE's preconditions, checked as upstream's ``BeforeDelete`` does before anything else
    (its messages name the kind, where a write's storage-level check names the resource)."""
    if pre is None:
        return
    name = meta.get("name", "")
    if pre.uid is not None and pre.uid != meta.get("uid"):
        raise errors.conflict(
            resource=rt.kind,
            group=rt.group,
            name=name,
            detail=f"the UID in the precondition ({pre.uid}) does not match the UID in record "
            f"({meta.get('uid')}). The object might have been deleted and then recreated",
        )
    if pre.resource_version is not None and pre.resource_version != meta.get("resourceVersion"):
        raise errors.conflict(
            resource=rt.kind,
            group=rt.group,
            name=name,
            detail=f"the ResourceVersion in the precondition ({pre.resource_version}) does not "
            f"match the ResourceVersion in record ({meta.get('resourceVersion')}). The object "
            "might have been modified",
        )


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
    stamp = meta.get("deletionTimestamp")
    if stamp:
        # a deletion can only be hastened, and keeps its start: the new deadline is the old
        # one moved by the difference (upstream's BeforeDelete)
        existing_grace = int(meta.get("deletionGracePeriodSeconds") or 0)
        grace = min(grace, existing_grace)
    if not (grace > 0 or finalizers or rt.strategy.deletion_blocked(new)):
        return False
    if not stamp:
        if new_meta.get("generation"):
            new_meta["generation"] = int(new_meta["generation"]) + 1
        new_meta["deletionTimestamp"] = format_time(ctx.now + timedelta(seconds=grace))
        new_meta["deletionGracePeriodSeconds"] = grace
    elif grace != existing_grace:
        started = parse_time(stamp) - timedelta(seconds=existing_grace)
        new_meta["deletionTimestamp"] = format_time(started + timedelta(seconds=grace))
        new_meta["deletionGracePeriodSeconds"] = grace
    rt.strategy.prepare_for_delete(new, ctx)
    return True


def finalized(rt: ResourceType, obj: Obj) -> bool:
    """A deleting object whose last finalizer (and grace period) is gone must be removed."""
    meta = obj["metadata"]
    return (
        bool(meta.get("deletionTimestamp"))
        and not meta.get("finalizers")
        and not meta.get("deletionGracePeriodSeconds")
        and not rt.strategy.deletion_blocked(obj)
    )
