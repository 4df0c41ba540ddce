"""KEP-5501: a pod a PreEnqueue plugin keeps out of the queue says so in its status and events,
once the rejection has lasted the delay — a gang member waiting for the rest of its group shows
``PodScheduled=False``/``NotReadyForScheduling`` with the plugin's message; a claim that arrives
within the delay shows nothing; a verdict judged on a pod version the API has since moved past
(a lagging informer) is not written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.client import POD_GROUPS, PODS
from fakeapi.cluster.waiting import advance
from fakeapi.scheduler.scheduler import PRE_ENQUEUE_STATUS_DELAY

from .conftest import Cluster

Eventually = Callable[..., Any]

GANG_WAITING = "waiting for minCount pods from a gang to appear in scheduling queue"


async def _gang(cluster: Cluster, *, min_count: int) -> None:
    await cluster.client.create(POD_GROUPS, body={
        "metadata": {"name": "gang", "namespace": "default"},
        "spec": {"workloadRef": {"name": "workload"}, "podGroupTemplateRef": {"name": "g"},
                 "policy": {"gang": {"minCount": min_count}}},
    })


async def _gated_member(cluster: Cluster, eventually: Eventually, *, min_count: int) -> Any:
    """Start the scheduler with member-0 of a gang that waits for ``min_count`` pods, and
    return it once PreEnqueue keeps the pod out."""
    await cluster.node("node-1", cpu="4")
    await _gang(cluster, min_count=min_count)
    await cluster.pod("member-0", cpu="1", schedulingGroup={"podGroupName": "gang"})
    scheduler = await cluster.start_scheduler()
    uid = (await cluster.get_pod("member-0"))["metadata"]["uid"]
    await eventually(lambda: scheduler.queue.where(uid) == "gated")
    return scheduler


def _pod_scheduled(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in pod["status"].get("conditions") or []
                 if c["type"] == "PodScheduled"), None)


async def test_a_gang_member_waiting_for_its_group_shows_it_in_condition_and_event(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _gated_member(cluster, eventually, min_count=3)
    assert _pod_scheduled(await cluster.get_pod("member-0")) is None  # not before the delay

    await advance(cluster.clock, PRE_ENQUEUE_STATUS_DELAY - 1)
    assert _pod_scheduled(await cluster.get_pod("member-0")) is None

    async def reported() -> dict[str, Any] | None:
        return _pod_scheduled(await cluster.get_pod("member-0"))

    await advance(cluster.clock, 1)
    condition = await eventually(reported)
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "False", "NotReadyForScheduling", GANG_WAITING
    )
    [event] = await cluster.events_about("member-0", reason="NotReadyForScheduling")
    assert (event["type"], event["note"]) == ("Normal", GANG_WAITING)


async def test_a_rejection_that_ends_within_the_delay_is_not_reported(
    cluster: Cluster, eventually: Eventually
) -> None:
    scheduler = await _gated_member(cluster, eventually, min_count=2)
    uid = (await cluster.get_pod("member-0"))["metadata"]["uid"]
    await cluster.pod("member-1", cpu="1", schedulingGroup={"podGroupName": "gang"})
    await eventually(lambda: scheduler.queue.where(uid) != "gated")
    await advance(cluster.clock, PRE_ENQUEUE_STATUS_DELAY)

    async def both_bound() -> bool:
        return all([await cluster.node_of(f"member-{i}") for i in range(2)])

    await eventually(both_bound)
    assert await cluster.events_about("member-0", reason="NotReadyForScheduling") == []
    assert _pod_scheduled(await cluster.get_pod("member-0"))["status"] == "True"


async def test_the_gate_off_reports_nothing(cluster: Cluster, eventually: Eventually) -> None:
    cluster.feature_gates["SchedulerPreEnqueuePodStatus"] = False
    await _gated_member(cluster, eventually, min_count=3)
    await advance(cluster.clock, PRE_ENQUEUE_STATUS_DELAY)
    assert await cluster.events_about("member-0", reason="NotReadyForScheduling") == []
    assert _pod_scheduled(await cluster.get_pod("member-0")) is None


async def test_a_report_is_not_written_over_a_pod_version_the_scheduler_has_not_seen(
    cluster: Cluster, eventually: Eventually
) -> None:
    # a lagging informer (a busy machine): the pod changed after the verdict was judged, so the
    # verdict may be stale (a claim's status, say, has arrived) and the report is dropped
    scheduler = await _gated_member(cluster, eventually, min_count=3)
    await scheduler.pods.stop()
    pod = await cluster.get_pod("member-0")
    pod["metadata"]["labels"] = {"changed": "after-the-verdict"}
    await cluster.client.update(PODS, body=pod)

    await advance(cluster.clock, PRE_ENQUEUE_STATUS_DELAY)
    await eventually(lambda: not scheduler._report_tasks)
    assert _pod_scheduled(await cluster.get_pod("member-0")) is None
    assert await cluster.events_about("member-0", reason="NotReadyForScheduling") == []


async def test_pods_rejected_at_different_times_are_each_reported_after_their_own_delay(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", cpu="4")
    await _gang(cluster, min_count=3)
    await cluster.pod("member-0", cpu="1", schedulingGroup={"podGroupName": "gang"})
    scheduler = await cluster.start_scheduler()
    uids = [(await cluster.get_pod("member-0"))["metadata"]["uid"]]
    await eventually(lambda: scheduler.queue.where(uids[0]) == "gated")
    await advance(cluster.clock, 2)
    await cluster.pod("member-1", cpu="1", schedulingGroup={"podGroupName": "gang"})
    uids.append((await cluster.get_pod("member-1"))["metadata"]["uid"])
    await eventually(lambda: scheduler.queue.where(uids[1]) == "gated")

    async def reported(name: str) -> dict[str, Any] | None:
        return _pod_scheduled(await cluster.get_pod(name))

    await advance(cluster.clock, PRE_ENQUEUE_STATUS_DELAY - 2)
    condition = await eventually(lambda: reported("member-0"))
    assert (condition["reason"], condition["message"]) == ("NotReadyForScheduling", GANG_WAITING)
    await eventually(lambda: scheduler._report_tasks == {scheduler._gated_sweeper})
    assert await reported("member-1") is None  # two seconds of its delay are left

    await advance(cluster.clock, 2)
    condition = await eventually(lambda: reported("member-1"))
    assert (condition["reason"], condition["message"]) == ("NotReadyForScheduling", GANG_WAITING)
    assert len(await cluster.events_about("member-0", reason="NotReadyForScheduling")) == 1
