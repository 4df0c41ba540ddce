"""Helpers several controllers share that are not object vocabulary.

The vocabulary over JSON-shaped objects (``as_dict``, ``meta``, ``text``, owner references...)
has one definition, in :mod:`fakeapi.objects`; what is left here registers indexes in a way
that tolerates a restart against the same shared informer, and reads node conditions and
writes ``metav1.Condition`` lists.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from fakeapi.client import Informer
from fakeapi.client.informer import IndexFunc
from fakeapi.objects import Obj, as_dict, as_list, text
from fakeapi.timefmt import format_time

__all__ = ["ensure_index", "node_ready", "set_condition"]


def node_ready(node: Obj) -> str:
    """The status of a Node's ``Ready`` condition (``Unknown`` when blank), ``""`` without one."""
    for condition in as_list(as_dict(node.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == "Ready":
            return text(condition.get("status")) or "Unknown"
    return ""


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
