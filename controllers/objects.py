"""Small helpers over JSON-shaped objects that several controllers need.

Informer caches hand out shared objects that must never be mutated, so every controller that
changes an object starts from :func:`~fakeapi.objects.deep_copy` (re-exported here with
``as_dict`` and ``as_list``, whose one definition lives in :mod:`fakeapi.objects`). The rest reads
fields defensively (a stored object may lack any optional field) and builds the pieces upstream
writes in many places: controller owner references, ``metav1.Condition`` lists keyed by type,
index registration that tolerates a restart against the same shared informer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from fakeapi.client import Informer
from fakeapi.client.informer import IndexFunc
from fakeapi.client.transport import Obj
from fakeapi.objects import as_dict, as_list, deep_copy
from fakeapi.timefmt import format_time

__all__ = [
    "as_dict",
    "as_list",
    "controller_ref",
    "deep_copy",
    "ensure_index",
    "is_deleting",
    "meta",
    "node_ready",
    "owner_uids",
    "set_condition",
    "text",
]


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def meta(obj: Obj) -> dict[str, Any]:
    return as_dict(obj.get("metadata"))


def is_deleting(obj: Obj) -> bool:
    return bool(meta(obj).get("deletionTimestamp"))


def node_ready(node: Obj) -> str:
    """The status of a Node's ``Ready`` condition (``Unknown`` when blank), ``""`` without one."""
    for condition in as_list(as_dict(node.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == "Ready":
            return text(condition.get("status")) or "Unknown"
    return ""


def owner_uids(obj: Obj) -> list[str]:
    """Index function: the uids of every owner reference."""
    return [
        text(ref.get("uid"))
        for ref in as_list(meta(obj).get("ownerReferences"))
        if isinstance(ref, dict) and ref.get("uid")
    ]


def controller_ref(obj: Obj) -> dict[str, Any] | None:
    """The owner reference with ``controller: true``, if any."""
    for ref in as_list(meta(obj).get("ownerReferences")):
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def ensure_index(informer: Informer, name: str, index: IndexFunc) -> None:
    """Add an index unless one of that name exists (a restarted controller re-registers it on
    the same shared informer)."""
    with contextlib.suppress(ValueError):
        informer.add_index(name, index)


def set_condition(
    conditions: Iterable[dict[str, Any]],
    *,
    type: str,
    status: str,
    reason: str,
    message: str,
    now: datetime,
    observed_generation: int | None = None,
) -> list[dict[str, Any]]:
    """``conditions`` with the one of ``type`` set, as apimachinery's ``SetStatusCondition``:
    ``lastTransitionTime`` changes only when the status does."""
    out: list[dict[str, Any]] = []
    found = False
    for condition in conditions:
        if condition.get("type") != type:
            out.append(condition)
            continue
        found = True
        updated = dict(condition)
        if updated.get("status") != status:
            updated["lastTransitionTime"] = format_time(now)
        updated.update(status=status, reason=reason, message=message)
        if observed_generation is not None:
            updated["observedGeneration"] = observed_generation
        out.append(updated)
    if not found:
        new: dict[str, Any] = {
            "type": type,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": format_time(now),
        }
        if observed_generation is not None:
            new["observedGeneration"] = observed_generation
        out.append(new)
    return out
