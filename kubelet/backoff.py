"""The kubelet's crash-loop back-off: how long a failed container waits before it restarts.

Upstream's kubelet keeps one ``flowcontrol.Backoff`` (``crashLoopBackOff``) for all containers,
keyed per container, with an initial delay of 10 s doubling to at most 300 s
(``MaxContainerBackOff``), and a ``HasExpiredFunc`` that starts afresh when the container ran for
more than 10 minutes (600 s between the restart that set the delay and the exit). The rules, as
``kuberuntime_manager.go`` ``doBackOff`` applies them, and :class:`CrashLoopBackOff` reproduces:

- a container that exits is *in back-off* while ``now - finishedAt`` is below the current delay
  of its entry (none yet: not in back-off, so the first failure restarts at once); it is then
  reported ``waiting`` with reason ``CrashLoopBackOff`` and the message
  ``back-off 20s restarting failed container=app pod=web_default(<uid>)`` (:func:`message`);
- when it restarts, :meth:`CrashLoopBackOff.next` moves its delay on: 10 s for a new (or
  expired) entry, else twice the last, capped at 300 s; the time of that restart is kept to tell
  whether the next exit comes more than 10 minutes later.

Everything here is pure: times are wall-clock seconds (``clock.now().timestamp()``) passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from fakeapi.timefmt import go_duration

__all__ = [
    "INITIAL_BACK_OFF_SECONDS",
    "MAX_BACK_OFF_SECONDS",
    "STABLE_RUN_SECONDS",
    "CrashLoopBackOff",
    "go_duration",
    "message",
]

#: upstream's ``initialCrashLoopBackOff`` (``ReduceDefaultCrashLoopBackOffDecay`` off)
INITIAL_BACK_OFF_SECONDS = 10.0
#: upstream's ``MaxContainerBackOff``
MAX_BACK_OFF_SECONDS = 300.0
#: the kubelet's ``crashLoopBackOff.HasExpiredFunc``: a run this long resets the back-off
STABLE_RUN_SECONDS = 600.0


@dataclass(slots=True)
class _Entry:
    delay: float
    last_update: float


class CrashLoopBackOff:
    """Per-container restart delays; see the module docstring."""

    def __init__(
        self,
        *,
        initial: float = INITIAL_BACK_OFF_SECONDS,
        maximum: float = MAX_BACK_OFF_SECONDS,
        stable: float = STABLE_RUN_SECONDS,
    ) -> None:
        self.initial = initial
        self.maximum = maximum
        self.stable = stable
        self._entries: dict[Hashable, _Entry] = {}

    def _expired(self, entry: _Entry, event_time: float) -> bool:
        return event_time - entry.last_update > self.stable

    def get(self, key: Hashable) -> float:
        """The current delay of ``key`` (0 when it has none)."""
        entry = self._entries.get(key)
        return entry.delay if entry is not None else 0.0

    def in_back_off_since(self, key: Hashable, event_time: float, *, now: float) -> bool:
        """Whether a container of ``key`` that exited at ``event_time`` must still wait."""
        entry = self._entries.get(key)
        if entry is None or self._expired(entry, event_time):
            return False
        return now - event_time < entry.delay

    def left(self, key: Hashable, event_time: float, *, now: float) -> float:
        """Seconds until the back-off of a container that exited at ``event_time`` ends."""
        if not self.in_back_off_since(key, event_time, now=now):
            return 0.0
        return self._entries[key].delay - (now - event_time)

    def next(self, key: Hashable, event_time: float, *, now: float) -> None:
        """The container restarts now, after exiting at ``event_time``: move its delay on."""
        entry = self._entries.get(key)
        if entry is None or self._expired(entry, event_time):
            self._entries[key] = _Entry(self.initial, now)
            return
        entry.delay = min(entry.delay * 2, self.maximum)
        entry.last_update = now

    def forget(self, keep: Callable[[Hashable], bool]) -> None:
        """Drop the entries whose key ``keep`` refuses (the pod is gone)."""
        self._entries = {k: v for k, v in self._entries.items() if keep(k)}


def message(delay: float, *, container: str, pod: str, namespace: str, uid: str) -> str:
    """The ``CrashLoopBackOff`` waiting message, in upstream's words (``format.Pod``)."""
    return (
        f"back-off {go_duration(delay)} restarting failed container={container} "
        f"pod={pod}_{namespace}({uid})"
    )
