"""``kubectl logs -f``: which pod versions keep a followed log read open."""

from __future__ import annotations

from typing import Any

from fakeapi.registry.kinds.pod_log import log_follows
from fakeapi.registry.options import ReadOptions


def _pod(node: str, **states: dict[str, Any]) -> dict[str, Any]:
    return {
        "spec": {"nodeName": node, "containers": [{"name": "app"}],
                 "initContainers": [{"name": "setup"}]},
        "status": {
            "containerStatuses": [{"name": "app", "state": states.get("app", {})}],
            "initContainerStatuses": [{"name": "setup", "state": states.get("setup", {})}],
        },
    }


RUNNING = {"running": {"startedAt": "2026-01-01T00:00:00Z"}}
DONE = {"terminated": {"exitCode": 0}}
FOLLOW = ReadOptions(follow=True)


def test_a_followed_log_stays_open_while_its_container_runs() -> None:
    assert log_follows(_pod("node-1", app=RUNNING), FOLLOW)
    assert not log_follows(_pod("node-1", app=DONE), FOLLOW)
    assert not log_follows(_pod("node-1", app={"waiting": {"reason": "ContainerCreating"}}),
                           FOLLOW)


def test_the_named_container_decides_and_a_previous_log_is_complete() -> None:
    pod = _pod("node-1", app=DONE, setup=RUNNING)
    assert log_follows(pod, ReadOptions(container="setup", follow=True))
    assert not log_follows(pod, FOLLOW)  # no name: the only regular container, "app"
    assert not log_follows(_pod("node-1", app=RUNNING),
                           ReadOptions(previous=True, follow=True))


def test_a_pod_on_no_node_has_a_complete_empty_log() -> None:
    assert not log_follows(_pod("", app=RUNNING), FOLLOW)
