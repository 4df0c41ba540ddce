"""Pod eviction as upstream's taint managers do it, shared by the two controllers that evict.

Node lifecycle (NoExecute node taints) and device taint eviction (NoExecute device taints) end a
pod the same way, upstream's ``addConditionAndDeletePod``: first the pod condition
``DisruptionTarget=True`` with the evicting manager's reason and message, so whoever watches the
pod can tell why it went, then a delete with the pod's uid as precondition, so a pod recreated
under the same name meanwhile is left alone. A pod already gone counts as evicted.
"""

from __future__ import annotations

from datetime import datetime

from fakeapi.client import PODS, Client, Preconditions, is_not_found
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, text
from fakeapi.timefmt import format_time

__all__ = ["DISRUPTION_TARGET", "evict_pod"]

DISRUPTION_TARGET = "DisruptionTarget"


async def evict_pod(*, client: Client, pod: Obj, reason: str, message: str, now: datetime) -> None:
    """Mark ``pod`` (not mutated) a disruption target with ``reason`` and ``message``, then
    delete it with a uid precondition."""
    m = meta(pod)
    updated = deep_copy(pod)
    status = as_dict(updated.get("status"))
    status["conditions"] = [
        c
        for c in (as_dict(c) for c in as_list(status.get("conditions")))
        if c.get("type") != DISRUPTION_TARGET
    ] + [
        {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": reason,
            "message": message,
            "lastTransitionTime": format_time(now),
        }
    ]
    updated["status"] = status
    await client.update_status(PODS, body=updated)
    try:
        await client.delete(
            PODS,
            namespace=m.get("namespace"),
            name=text(m.get("name")),
            preconditions=Preconditions(uid=text(m.get("uid"))),
        )
    except Exception as exc:
        if not is_not_found(exc):
            raise
