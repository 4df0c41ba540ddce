"""Runs the lifecycle stages of one node's pods on the injected clock.

The engine is the timing half of :mod:`fakeapi.kubelet.stages`: it remembers, per pod, which
stage was chosen and when it becomes due, and answers one question for the kubelet's reconcile —
"apply a stage now, or check again in how many seconds?". It never writes anything; the kubelet
applies the stage's :class:`~fakeapi.kubelet.steps.StageOutcome` through the API and
reconciles again when the pod changes or the returned delay has passed (a ``WorkQueue.add_after``
on the same clock), so a restarted or delayed kubelet simply decides again from the pod's state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi.kubelet.stages import Stage

__all__ = ["Decision", "StageEngine"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Apply ``stage`` now (when set), else look again after ``retry_after`` seconds (if set)."""

    stage: Stage | None = None
    retry_after: float | None = None


@dataclass(slots=True)
class _Pending:
    stage: Stage
    due: float


class StageEngine:
    """Chooses and times stages; see :mod:`fakeapi.kubelet.stages` for when a stage fires."""

    def __init__(self, *, stages: Sequence[Stage], rng: random.Random) -> None:
        self.stages = tuple(stages)
        self.rng = rng
        self._pending: dict[str, _Pending] = {}

    def decide(
        self, key: str, pod: dict[str, Any], *, now: float, back_off: float = 0.0
    ) -> Decision:
        """What to do for the pod with ``key`` at monotonic time ``now``; ``back_off``: the
        seconds left of the crash-loop back-off of its waiting containers (for stages whose
        delay is ``fromBackOff``)."""
        pending = self._pending.get(key)
        if pending is not None:
            if pending.stage.matches(pod):
                if now >= pending.due:
                    del self._pending[key]
                    return Decision(stage=pending.stage)
                return Decision(retry_after=pending.due - now)
            del self._pending[key]
        matching = [stage for stage in self.stages if stage.matches(pod)]
        if not matching:
            return Decision()
        stage = self._choose(matching)
        delay = stage.delay.draw(pod, self.rng, back_off=back_off)
        if delay <= 0:
            return Decision(stage=stage)
        self._pending[key] = _Pending(stage, now + delay)
        return Decision(retry_after=delay)

    def _choose(self, matching: list[Stage]) -> Stage:
        if len(matching) == 1:
            return matching[0]
        weights = [stage.weight for stage in matching]
        if not any(weights):
            return self.rng.choice(matching)
        return self.rng.choices(matching, weights=weights, k=1)[0]

    def pending(self, key: str) -> str | None:
        """The name of the stage waiting to fire for ``key``, if any."""
        entry = self._pending.get(key)
        return entry.stage.name if entry is not None else None

    def forget(self, key: str) -> None:
        self._pending.pop(key, None)
