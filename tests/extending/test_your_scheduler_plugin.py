"""Scheduler plugins of your own, as a user's suite would run them: a Filter plugin that pins pods
to a node, Score plugins weighed by a KubeSchedulerConfiguration, and a default plugin turned off.

Only the documented surface: ``fakeapi.scheduler.framework`` for the plugin and the ``fakeapi``
marker's ``scheduler_plugins`` and ``scheduler_config``.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.scheduler.framework import CycleState, Handle, NodeInfo, Status, unresolvable

PIN = "example.com/pin"


def pod(name: str, *, pin: str = "", cpu: str = "") -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": "registry.example/app:1.0"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "annotations": {PIN: pin} if pin else {}},
        "spec": {"containers": [container]},
    }


class PinToNode:
    """Filter: a pod annotated ``example.com/pin: <node>`` fits that node only."""

    name = "PinToNode"

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: dict[str, Any], node: NodeInfo) -> Status | None:
        wanted = (pod["metadata"].get("annotations") or {}).get(PIN)
        if wanted and wanted != node.name:
            return unresolvable("node(s) didn't match the pod's pin")
        return None


def _prefers(node_name: str) -> type:
    class Prefers:
        """Score: 100 for one node, 0 for the others."""

        name = f"Prefers{node_name.title().replace('-', '')}"

        def __init__(self, handle: Handle) -> None:
            pass

        def score(
            self, state: CycleState, pod: dict[str, Any], node: NodeInfo
        ) -> tuple[int, Status | None]:
            return (100 if node.name == node_name else 0), None

    return Prefers


PrefersNode1 = _prefers("node-1")
PrefersNode3 = _prefers("node-3")


def config(plugins: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": plugins}],
    }


@pytest.mark.fakeapi(nodes=3, scheduler_plugins=[PinToNode])
async def test_a_pinned_pod_runs_on_its_node(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml([pod("pinned", pin="node-2"), pod("free")])

    pinned = await fakeapi_cluster.wait_for("pods", "pinned", jsonpath="{.status.phase}=Running")
    free = await fakeapi_cluster.wait_for("pods", "free", jsonpath="{.status.phase}=Running")

    assert pinned["spec"]["nodeName"] == "node-2"
    assert free["spec"]["nodeName"] in fakeapi_cluster.node_names()


@pytest.mark.fakeapi(nodes=3, scheduler_plugins=[PinToNode])
async def test_a_pod_pinned_nowhere_waits_and_moves_when_repinned(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(pod("lost", pin="node-9"))

    waiting = await fakeapi_cluster.wait_for("pods", "lost", condition=_unschedulable)
    [condition] = waiting["status"]["conditions"]
    assert condition["message"] == (
        "0/3 nodes are available: 3 node(s) didn't match the pod's pin. preemption: 0/3 nodes "
        "are available: 3 Preemption is not helpful for scheduling."
    )

    # the plugin registers no events, so any change may help its pods, as upstream's default
    await fakeapi_cluster.client.patch(
        "pods", name="lost", patch={"metadata": {"annotations": {PIN: "node-3"}}}
    )
    found = await fakeapi_cluster.wait_for("pods", "lost", jsonpath="{.status.phase}=Running")
    assert found["spec"]["nodeName"] == "node-3"


def _unschedulable(pod: dict[str, Any]) -> bool:
    return any(c.get("reason") == "Unschedulable" for c in pod["status"].get("conditions") or ())


@pytest.mark.fakeapi(
    nodes=3,
    scheduler_plugins=[PrefersNode1, PrefersNode3],
    scheduler_config=config({"multiPoint": {"enabled": [
        {"name": "PrefersNode1", "weight": 1}, {"name": "PrefersNode3", "weight": 5},
    ]}}),
)
async def test_score_weights_come_from_the_configuration(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(pod("weighed"))

    placed = await fakeapi_cluster.wait_for("pods", "weighed", jsonpath="{.spec.nodeName}=node-3")
    assert placed["spec"]["nodeName"] == "node-3"


@pytest.mark.fakeapi(
    nodes=3,
    scheduler_plugins={"PrefersNode1": PrefersNode1, "PrefersNode3": PrefersNode3},
    scheduler_config=config({"score": {"enabled": [
        {"name": "PrefersNode1", "weight": 7}, {"name": "PrefersNode3", "weight": 2},
    ]}}),
)
async def test_weights_at_the_score_point_turn_the_choice_around(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(pod("weighed"))

    await fakeapi_cluster.wait_for("pods", "weighed", jsonpath="{.spec.nodeName}=node-1")


@pytest.mark.fakeapi(nodes=1)
async def test_by_default_a_pod_too_big_for_every_node_is_unschedulable(
    fakeapi_cluster: Any,
) -> None:
    await fakeapi_cluster.apply_yaml(pod("huge", cpu="1000"))

    waiting = await fakeapi_cluster.wait_for("pods", "huge", condition=_unschedulable)
    assert "Insufficient cpu" in waiting["status"]["conditions"][0]["message"]


@pytest.mark.fakeapi(
    nodes=1,
    scheduler_config=config({"filter": {"disabled": [{"name": "NodeResourcesFit"}]}}),
)
async def test_a_default_filter_disabled_by_the_configuration_lets_it_through(
    fakeapi_cluster: Any,
) -> None:
    await fakeapi_cluster.apply_yaml(pod("huge", cpu="1000"))

    await fakeapi_cluster.wait_for("pods", "huge", jsonpath="{.spec.nodeName}=node-1")
