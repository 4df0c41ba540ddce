"""DefaultPreemption: a pod that fits nowhere evicts lower-priority pods, as kube-scheduler does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.client import NODES, PODS, PRIORITY_CLASSES

from .conftest import Cluster

Obj = dict[str, Any]
Eventually = Callable[..., Any]


async def _priority_classes(cluster: Cluster) -> None:
    for name, value, policy in (("low", 0, None), ("mid", 50, None), ("high", 1000, None),
                                ("high-polite", 1000, "Never")):
        body: Obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": name}, "value": value}
        if policy:
            body["preemptionPolicy"] = policy
        await cluster.client.create(PRIORITY_CLASSES, body=body)


async def _running(cluster: Cluster, name: str, node: str, cpu: str, priority: str) -> Obj:
    """A pod already bound to ``node`` (as if scheduled before)."""
    return await cluster.pod(name, cpu=cpu, nodeName=node, priorityClassName=priority)


async def _finish_deletion(cluster: Cluster, name: str) -> None:
    """What the victim's kubelet does once its containers stopped: delete for good."""
    await cluster.client.delete(PODS, name=name, namespace="default", grace_period_seconds=0)


def _disruption(pod: Obj) -> Obj | None:
    conditions = (pod.get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c.get("type") == "DisruptionTarget"), None)


async def test_a_high_priority_pod_evicts_a_low_one_and_takes_its_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await _running(cluster, "batch", "node-1", "2", "low")
    urgent = await cluster.pod("urgent", cpu="2", priorityClassName="high")
    await cluster.start_scheduler()

    async def evicted() -> Obj | None:
        pod = await cluster.get_pod("batch")
        return pod if pod["metadata"].get("deletionTimestamp") else None

    victim = await eventually(evicted)
    assert _disruption(victim) == {
        "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod",
        "lastTransitionTime": _disruption(victim)["lastTransitionTime"],
    }
    [event] = await eventually(lambda: cluster.events_about("batch", reason="Preempted"))
    assert event["note"] == f"Preempted by pod {urgent['metadata']['uid']} on node node-1"
    assert (event["related"]["kind"], event["related"]["name"]) == ("Pod", "urgent")
    victims = cluster.metrics.get_sample_value("scheduler_preemption_victims_sum", {})
    assert victims == 1.0
    pending = await cluster.get_pod("urgent")
    assert pending["status"]["nominatedNodeName"] == "node-1"
    assert pending["spec"].get("nodeName") is None

    # tried again while the victim terminates (a new node, tainted, wakes it): no second round
    await cluster.node("node-2", taints=[{"key": "maintenance", "effect": "NoSchedule"}])
    cluster.clock.advance(2.0)

    async def waits_for_the_victim() -> bool:
        conditions = (await cluster.get_pod("urgent"))["status"].get("conditions") or ()
        return any(c["type"] == "PodScheduled" and c["message"].endswith(
            ". preemption: not eligible due to a terminating pod on the nominated node.")
            for c in conditions)

    await eventually(waits_for_the_victim)

    await _finish_deletion(cluster, "batch")
    cluster.clock.advance(2.0)
    assert await eventually(lambda: cluster.node_of("urgent")) == "node-1"
    assert "nominatedNodeName" not in (await cluster.get_pod("urgent"))["status"]  # bound


async def test_victims_are_as_few_and_unimportant_as_will_do(
    cluster: Cluster, eventually: Eventually
) -> None:
    """node-1's victim would be a mid-priority pod, node-2's a low one: node-2 is chosen; there,
    of a low pod of 1 cpu and a mid pod of 2, giving the more important back still leaves
    room, so only the low one goes."""
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await cluster.node("node-2", cpu="4")
    await _running(cluster, "mid-1", "node-1", "2", "mid")
    await _running(cluster, "low-2", "node-2", "1", "low")
    await _running(cluster, "mid-2", "node-2", "2", "mid")
    await cluster.pod("urgent", cpu="2", priorityClassName="high")
    await cluster.start_scheduler()

    async def nominated() -> str | None:
        status: Obj = (await cluster.get_pod("urgent")).get("status") or {}
        return status.get("nominatedNodeName")

    assert await eventually(nominated) == "node-2"
    deleting = {
        name for name in ("mid-1", "low-2", "mid-2")
        if (await cluster.get_pod(name))["metadata"].get("deletionTimestamp")
    }
    assert deleting == {"low-2"}


async def test_a_pod_that_may_not_preempt_leaves_the_others_alone(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await _running(cluster, "batch", "node-1", "2", "low")
    await cluster.pod("polite", cpu="2", priorityClassName="high-polite")
    await cluster.start_scheduler()

    [event] = await eventually(lambda: cluster.events_about("polite", reason="FailedScheduling"))
    assert event["note"] == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
        "preemptionPolicy=Never."
    )
    assert not (await cluster.get_pod("batch"))["metadata"].get("deletionTimestamp")


async def test_equal_priorities_and_unresolvable_nodes_give_no_victims(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await cluster.node("node-2", cpu="2", unschedulable=True)
    await _running(cluster, "peer", "node-1", "2", "high")
    await cluster.pod("urgent", cpu="2", priorityClassName="high")
    await cluster.start_scheduler()

    [event] = await eventually(lambda: cluster.events_about("urgent", reason="FailedScheduling"))
    assert event["note"].endswith(
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling."
    )
    assert not (await cluster.get_pod("peer"))["metadata"].get("deletionTimestamp")



async def test_the_room_preemption_made_is_kept_for_the_nominated_pod(
    cluster: Cluster, eventually: Eventually
) -> None:
    """While the preemptor waits out its back-off, a lower-priority pod that would fit in the
    freed room is refused it (upstream's nominator), and the preemptor lands."""
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await _running(cluster, "batch", "node-1", "2", "low")
    await cluster.pod("urgent", cpu="2", priorityClassName="high")
    await cluster.start_scheduler()

    async def nominated() -> str | None:
        status: Obj = (await cluster.get_pod("urgent")).get("status") or {}
        return status.get("nominatedNodeName")

    assert await eventually(nominated) == "node-1"
    await _finish_deletion(cluster, "batch")
    await cluster.pod("sneaky", cpu="1", priorityClassName="low")  # the clock stands still
    events = await eventually(lambda: cluster.events_about("sneaky", reason="FailedScheduling"))
    assert events[0]["note"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert await cluster.node_of("sneaky") is None

    cluster.clock.advance(2.0)
    assert await eventually(lambda: cluster.node_of("urgent")) == "node-1"


async def test_a_nomination_is_cleared_when_preemption_finds_no_candidate(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _priority_classes(cluster)
    await cluster.node("node-1", cpu="2")
    await _running(cluster, "batch", "node-1", "1500m", "low")
    await cluster.pod("urgent", cpu="1", priorityClassName="high")
    await cluster.start_scheduler()

    async def nominated() -> str | None:
        return (await cluster.get_pod("urgent"))["status"].get("nominatedNodeName")

    assert await eventually(nominated) == "node-1"
    # the node goes (its victim still terminating); the only node left has no room for anyone
    await cluster.client.delete(NODES, name="node-1")
    await cluster.node("node-2", cpu="500m")
    cluster.clock.advance(2.0)

    async def cleared() -> bool:
        pod = await cluster.get_pod("urgent")
        conditions = pod["status"].get("conditions") or ()
        return "nominatedNodeName" not in pod["status"] and any(
            c["type"] == "PodScheduled" and "No preemption victims" in c["message"]
            for c in conditions
        )

    await eventually(cleared)
