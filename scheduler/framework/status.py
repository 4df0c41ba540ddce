"""The result of a plugin call: a code plus reasons, as kube-scheduler's ``framework.Status``.

Plugins return ``None`` for success (as upstream's nil status) or a :class:`Status`. The codes keep
upstream's meaning, and the framework acts on them the same way:

* ``SUCCESS`` — go on; ``None`` means the same.
* ``ERROR`` — something broke (an API call, an internal inconsistency); the cycle is aborted and
  the pod goes to the backoff queue, whatever events happen.
* ``UNSCHEDULABLE`` — the pod does not fit *now*; the node is rejected, and preemption (PostFilter)
  may help. The pod waits in the unschedulable pool until an event the rejecting plugin declared
  makes it worth another try.
* ``UNSCHEDULABLE_AND_UNRESOLVABLE`` — as above, but preemption cannot help on this node.
* ``WAIT`` — only from Permit: hold the pod until it is allowed or rejected, or its timeout ends.
* ``SKIP`` — from PreFilter/PreScore: this plugin has nothing to do for the pod, so its
  Filter/Score is not called; from Bind: let the next binder bind.
* ``PENDING`` — the pod waits for something outside the scheduler (an external component); treated
  as unschedulable, not as a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "Code",
    "Status",
    "as_error",
    "is_rejected",
    "is_success",
    "skip",
    "unresolvable",
    "unschedulable",
]


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6


@dataclass(slots=True)
class Status:
    """A non-success outcome (or an explicit success) of one plugin call."""

    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    error: BaseException | None = None

    @property
    def message(self) -> str:
        """Reasons joined as upstream's ``Status.Message()``."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        if not self.plugin:
            self.plugin = plugin
        return self

    @property
    def rejected(self) -> bool:
        return self.code in _REJECTED

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}" if self.reasons else self.code.name


_REJECTED = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


def is_success(status: Status | None) -> bool:
    return status is None or status.code is Code.SUCCESS


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.code in _REJECTED


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def skip() -> Status:
    return Status(Code.SKIP)


def as_error(error: BaseException | str) -> Status:
    """An ERROR status carrying ``error`` (its text is the reason)."""
    if isinstance(error, str):
        return Status(Code.ERROR, (error,), error=RuntimeError(error))
    return Status(Code.ERROR, (str(error),), error=error)
