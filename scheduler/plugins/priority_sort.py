"""PrioritySort: the active queue serves higher ``spec.priority`` first, then the earlier pod."""

from __future__ import annotations

from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.types import QueuedPodInfo

__all__ = ["NAME", "PrioritySort"]

NAME = "PrioritySort"


def _priority(qpi: QueuedPodInfo) -> int:
    value = qpi.info.spec.get("priority")
    return int(value) if isinstance(value, int) else 0


class PrioritySort:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = _priority(a), _priority(b)
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)
