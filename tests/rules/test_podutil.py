"""Guard for fakeapi.rules.podutil: ready, available, active and terminating pods.

Cases follow upstream's ``pkg/api/v1/pod`` tests (IsPodAvailable: ready for at least
minReadySeconds, counted from the Ready condition's transition) and ``controller_utils``
(IsPodActive, IsPodTerminating).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.rules.podutil import (
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    is_pod_terminating,
)

NOW = datetime(2026, 1, 1, 0, 1, 0, tzinfo=UTC)


def _pod(*, ready: str | None = "True", since: str = "2026-01-01T00:00:00Z", phase: str = "Running",
         deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "p"}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:30Z"
    conditions = [] if ready is None else [
        {"type": "Ready", "status": ready, "lastTransitionTime": since}
    ]
    return {"metadata": meta, "status": {"phase": phase, "conditions": conditions}}


# (description, pod, minReadySeconds, ready, available)
AVAILABILITY = [
    ("ready, no minReadySeconds", _pod(), 0, True, True),
    ("not ready", _pod(ready="False"), 0, False, False),
    ("no Ready condition", _pod(ready=None), 0, False, False),
    ("ready long enough", _pod(), 30, True, True),
    ("ready, not long enough", _pod(since="2026-01-01T00:00:45Z"), 30, True, False),
    ("ready exactly minReadySeconds ago is not yet available",
     _pod(since="2026-01-01T00:00:30Z"), 30, True, False),
    ("ready without a transition time", _pod(since=""), 10, True, False),
]


@pytest.mark.parametrize(("description", "pod", "min_ready", "ready", "available"), AVAILABILITY)
def test_a_pod_is_available_once_ready_for_min_ready_seconds(
    description: str, pod: dict[str, Any], min_ready: int, ready: bool, available: bool
) -> None:
    assert is_pod_ready(pod) is ready, description
    assert is_pod_available(pod, min_ready_seconds=min_ready, now=NOW) is available, description


# (description, pod, active, terminating)
LIFECYCLE = [
    ("pending", _pod(phase="Pending", ready=None), True, False),
    ("running", _pod(), True, False),
    ("succeeded", _pod(phase="Succeeded"), False, False),
    ("failed", _pod(phase="Failed"), False, False),
    ("running, being deleted", _pod(deleting=True), False, True),
    ("failed, being deleted", _pod(phase="Failed", deleting=True), False, False),
]


@pytest.mark.parametrize(("description", "pod", "active", "terminating"), LIFECYCLE)
def test_active_and_terminating_pods(
    description: str, pod: dict[str, Any], active: bool, terminating: bool
) -> None:
    assert is_pod_active(pod) is active, description
    assert is_pod_terminating(pod) is terminating, description
