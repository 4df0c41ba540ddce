"""The scheduler with DynamicResources, end to end through the API (in-process).

Nodes, slices, classes, claims and pods are made with the client; the scheduler sees them only
through its informers and writes back through the API. Each test names the behaviour it pins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.client import NODES, POD_GROUPS, PODS, RESOURCE_CLAIMS, RESOURCE_SLICES
from fakeapi.scheduler.plugins.dynamic_resources.plugin import DynamicResources
from fakeapi.timefmt import format_time

from .conftest import DRIVER, Cluster

pytestmark = pytest.mark.asyncio

Eventually = Callable[..., Any]


def _devices(claim: dict[str, Any]) -> list[str]:
    results = claim["status"]["allocation"]["devices"]["results"]
    return [f"{r['pool']}/{r['device']}" for r in results]


async def test_direct_claim_lands_on_the_node_with_the_device(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-2", 2)
    await cluster.claim("gpu")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("app")) == "node-2"
    claim = await cluster.get_claim("gpu")
    pod = await cluster.get_pod("app")
    assert "resource.kubernetes.io/delete-protection" in claim["metadata"]["finalizers"]
    assert _devices(claim) == ["node-2/gpu-0"]
    # stamped on every allocation while the binding-conditions gates are on, as upstream
    assert claim["status"]["allocation"]["allocationTimestamp"]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "app", "uid": pod["metadata"]["uid"]}
    ]
    scheduled = await eventually(lambda: cluster.events_about("app", reason="Scheduled"))
    assert scheduled[0]["note"] == "Successfully assigned default/app to node-2"
    assert scheduled[0]["reportingController"] == "default-scheduler"


async def test_template_claim_waits_for_the_controller_then_schedules(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    scheduler = await cluster.start_scheduler()
    pod = await cluster.pod(
        "app", claims=[{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    )
    await eventually(lambda: scheduler.queue.where(pod["metadata"]["uid"]) == "gated")
    assert await cluster.node_of("app") is None

    claim = await cluster.template_claim_for(pod)

    assert await eventually(lambda: cluster.node_of("app")) == "node-1"
    allocated = await cluster.get_claim(claim["metadata"]["name"])
    assert _devices(allocated) == ["node-1/gpu-0"]


async def test_shared_claim_puts_both_pods_on_its_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    for name in ("node-1", "node-2", "node-3"):
        await cluster.node(name)
    await cluster.device_class()
    await cluster.slice("node-3", 1)
    await cluster.claim("shared")
    for name in ("a", "b"):
        await cluster.pod(name, claims=[{"name": "gpu", "resourceClaimName": "shared"}])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("a")) == "node-3"
    # "b" came while the claim's allocation was in flight for "a"; the claim update requeues it
    # with backoff.
    cluster.clock.advance(1.0)
    assert await eventually(lambda: cluster.node_of("b")) == "node-3"
    claim = await cluster.get_claim("shared")
    assert sorted(r["name"] for r in claim["status"]["reservedFor"]) == ["a", "b"]


async def test_two_pods_never_share_a_dedicated_device(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.slice("node-2", 1)
    names = [f"p{i}" for i in range(3)]
    for name in names:
        await cluster.claim(name)
        await cluster.pod(name, claims=[{"name": "gpu", "resourceClaimName": name}])
    await cluster.start_scheduler()

    await eventually(
        lambda: (
            cluster.events_about("p2", reason="FailedScheduling")
            or cluster.events_about("p1", reason="FailedScheduling")
            or cluster.events_about("p0", reason="FailedScheduling")
        )
    )
    bound = [n for n in names if await cluster.node_of(n)]
    assert len(bound) == 2
    devices = [tuple(_devices(await cluster.get_claim(n))) for n in bound]
    assert len(set(devices)) == 2
    unbound = (set(names) - set(bound)).pop()
    assert "status" not in (await cluster.get_claim(unbound)) or not (
        await cluster.get_claim(unbound)
    )["status"].get("allocation")


async def test_impossible_claim_leaves_the_pod_pending_with_failed_scheduling(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.slice("node-1", 2)
    await cluster.claim("too-many", count=3)
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "too-many"}])
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    message = (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    assert events[0]["note"] == message
    assert events[0]["type"] == "Warning"
    pod = await eventually(lambda: _scheduled_condition(cluster, "app"))
    assert pod == {"status": "False", "reason": "Unschedulable", "message": message}
    assert await cluster.node_of("app") is None


async def _scheduled_condition(cluster: Cluster, name: str) -> dict[str, Any] | None:
    pod = await cluster.get_pod(name)
    for condition in pod.get("status", {}).get("conditions") or ():
        if condition["type"] == "PodScheduled":
            return {k: condition.get(k) for k in ("status", "reason", "message")}
    return None


async def test_a_new_slice_wakes_the_unschedulable_pod(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.claim("gpu")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()
    await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))

    await cluster.slice("node-1", 1)
    # the scheduler is idle: the pod is taken from backoffQ at once (SchedulerPopFromBackoffQ)
    assert await eventually(lambda: cluster.node_of("app")) == "node-1"


async def test_without_pop_from_backoff_a_woken_pod_waits_out_its_backoff(
    cluster: Cluster, eventually: Eventually
) -> None:
    cluster.feature_gates["SchedulerPopFromBackoffQ"] = False
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.claim("gpu")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    scheduler = await cluster.start_scheduler()
    await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))

    await cluster.slice("node-1", 1)
    await eventually(lambda: scheduler.queue.where(_uid_of(scheduler, "app")) == "backoff")
    assert await cluster.node_of("app") is None
    cluster.clock.advance(1.0)

    assert await eventually(lambda: cluster.node_of("app")) == "node-1"


def _uid_of(scheduler: Any, name: str) -> str:
    pod = scheduler.pods.get(f"default/{name}")
    return "" if pod is None else str(pod["metadata"]["uid"])


async def test_pods_of_other_schedulers_are_left_alone(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.pod("mine")
    await cluster.pod("theirs", schedulerName="other-scheduler")
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("mine")) == "node-1"
    assert await cluster.node_of("theirs") is None
    assert await cluster.events_about("theirs") == []


async def _pod_group(cluster: Cluster, name: str, **spec: Any) -> dict[str, Any]:
    return await cluster.client.create(
        POD_GROUPS,
        body={
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "workloadRef": {"name": "workload"},
                "podGroupTemplateRef": {"name": "group-1"},
                **spec,
            },
        },
    )


def _group_reference(group: dict[str, Any]) -> dict[str, Any]:
    """The ``reservedFor`` entry of a claim reserved for the PodGroup ``group``."""
    return {
        "apiGroup": "scheduling.k8s.io",
        "resource": "podgroups",
        "name": group["metadata"]["name"],
        "uid": group["metadata"]["uid"],
    }


async def test_pod_group_claim_shared_by_300_pods_has_one_reservation(
    cluster: Cluster, eventually: Eventually
) -> None:
    for i in range(4):
        await cluster.node(f"node-{i}", pods="500")
    await cluster.device_class()
    await cluster.slice("node-2", 1)
    await cluster.claim("group-claim")
    group = await _pod_group(
        cluster, "group", resourceClaims=[{"name": "shared", "resourceClaimName": "group-claim"}]
    )
    for i in range(300):
        await cluster.pod(
            f"member-{i}",
            claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
            workloadRef={"name": "workload", "podGroupName": "group"},
        )
    scheduler = await cluster.start_scheduler()

    async def all_bound() -> bool:
        pods = await cluster.client.list(PODS, namespace="default")
        return all(p["spec"].get("nodeName") for p in pods.items)

    await eventually(all_bound, timeout=60)
    await scheduler.wait_idle()
    pods = await cluster.client.list(PODS, namespace="default")
    assert {p["spec"]["nodeName"] for p in pods.items} == {"node-2"}
    claim = await cluster.get_claim("group-claim")
    assert claim["status"]["reservedFor"] == [_group_reference(group)]


async def test_pods_joining_through_scheduling_group_share_the_pod_group_claim(
    cluster: Cluster, eventually: Eventually
) -> None:
    """Upstream's ``spec.schedulingGroup.podGroupName`` names the PodGroup as the seed's
    ``spec.workloadRef.podGroupName`` does: the members reach its claim, one reservation."""
    for i in range(2):
        await cluster.node(f"node-{i}")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.claim("group-claim")
    group = await _pod_group(
        cluster, "group", resourceClaims=[{"name": "shared", "resourceClaimName": "group-claim"}]
    )
    for i in range(3):
        await cluster.pod(
            f"member-{i}",
            claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
            schedulingGroup={"podGroupName": "group"},
        )
    await cluster.start_scheduler()

    for i in range(3):
        assert await eventually(lambda i=i: cluster.node_of(f"member-{i}")) == "node-1"
    claim = await cluster.get_claim("group-claim")
    assert claim["status"]["reservedFor"] == [_group_reference(group)]


async def test_a_gang_joined_through_scheduling_group_waits_for_its_min_count(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-0", cpu="1")
    await _pod_group(cluster, "gang", policy={"gang": {"minCount": 2}})
    for i in range(2):
        await cluster.pod(f"member-{i}", cpu="1", schedulingGroup={"podGroupName": "gang"})
    scheduler = await cluster.start_scheduler()
    await eventually(lambda: len(scheduler.framework.waiting) == 1)
    assert [await cluster.node_of(f"member-{i}") for i in range(2)] == [None, None]

    await cluster.node("node-1", cpu="1")
    cluster.clock.advance(1.0)

    async def both_bound() -> bool:
        return all([await cluster.node_of(f"member-{i}") for i in range(2)])

    await eventually(both_bound)


async def test_a_pod_of_a_pod_group_not_yet_created_waits_for_it(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", cpu="4")
    for i in range(2):
        await cluster.pod(f"member-{i}", cpu="1",
                          workloadRef={"name": "workload", "podGroupName": "later"})
    scheduler = await cluster.start_scheduler()
    uids = [(await cluster.get_pod(f"member-{i}"))["metadata"]["uid"] for i in range(2)]
    await eventually(lambda: all(scheduler.queue.where(uid) == "gated" for uid in uids))
    assert [await cluster.node_of(f"member-{i}") for i in range(2)] == [None, None]

    await _pod_group(cluster, "later", policy={"gang": {"minCount": 2}})

    async def both_bound() -> bool:
        return all([await cluster.node_of(f"member-{i}") for i in range(2)])

    await eventually(both_bound)


async def test_claim_reserved_for_its_workload_gets_reserved_for_any_pod(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    workload = {
        "apiGroup": "example.com",
        "resource": "jobsets",
        "name": "train",
        "uid": "0b7c2f5e-6a59-4c1e-9d1a-3f7c1d2e4b5a",
    }
    await cluster.claim("for-workload", reservedFor=workload)
    for name in ("a", "b"):
        await cluster.pod(name, claims=[{"name": "gpu", "resourceClaimName": "for-workload"}])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("a")) == "node-1"
    cluster.clock.advance(1.0)  # "b" may have met the claim while its allocation was in flight
    assert await eventually(lambda: cluster.node_of("b")) == "node-1"
    claim = await cluster.get_claim("for-workload")
    assert claim["status"]["allocation"]["reservedForAnyPod"] is True
    assert claim["status"]["reservedFor"] == [workload]


async def _gang_of_four_on_room_for_three(cluster: Cluster, eventually: Eventually) -> Any:
    """Three one-cpu nodes, a PodGroup with minCount 4 and four one-cpu members; returns the
    scheduler once three members wait at Permit."""
    for i in range(3):
        await cluster.node(f"node-{i}", cpu="1")
    await _pod_group(cluster, "gang", policy={"gang": {"minCount": 4}})
    for i in range(4):
        await cluster.pod(
            f"member-{i}", cpu="1", workloadRef={"name": "workload", "podGroupName": "gang"}
        )
    scheduler = await cluster.start_scheduler()
    await eventually(lambda: len(scheduler.framework.waiting) == 3)
    return scheduler


async def test_gang_of_four_on_room_for_three_binds_none_then_all_with_a_fourth_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    scheduler = await _gang_of_four_on_room_for_three(cluster, eventually)
    await eventually(
        lambda: (
            cluster.events_about("member-3", reason="FailedScheduling")
            or any(
                scheduler.queue.where(_uid_of(scheduler, f"member-{i}")) == "unschedulable"
                for i in range(4)
            )
        )
    )
    assert [await cluster.node_of(f"member-{i}") for i in range(4)] == [None] * 4

    await cluster.node("node-3", cpu="1")
    cluster.clock.advance(1.0)

    async def all_bound() -> bool:
        return all([await cluster.node_of(f"member-{i}") for i in range(4)])

    await eventually(all_bound)
    nodes = {await cluster.node_of(f"member-{i}") for i in range(4)}
    assert nodes == {"node-0", "node-1", "node-2", "node-3"}


async def test_incomplete_gang_releases_its_reservations_after_the_timeout(
    cluster: Cluster, eventually: Eventually
) -> None:
    # the steps below watch the pod between attempts: no early pop from backoffQ
    cluster.feature_gates["SchedulerPopFromBackoffQ"] = False
    scheduler = await _gang_of_four_on_room_for_three(cluster, eventually)

    waiting_before = set(scheduler.framework.waiting)

    cluster.clock.advance(300.0)

    async def timed_out() -> list[str]:
        notes = []
        for i in range(4):
            for event in await cluster.events_about(f"member-{i}", reason="FailedScheduling"):
                notes.append(event["note"])
        return [n for n in notes if "rejected due to timeout" in n]

    notes = await eventually(timed_out)
    # one deadline for the group: the first member waited 5 minutes, the others what was left
    assert notes[0] == "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
    # the members that timed out hold nothing any more
    await eventually(
        lambda: (
            not any(
                uid in scheduler.framework.waiting or scheduler.cache.is_assumed(uid)
                for uid in waiting_before
            )
        )
    )
    assert [await cluster.node_of(f"member-{i}") for i in range(4)] == [None] * 4


async def test_scheduler_metrics_count_attempts_and_pending_pods(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", cpu="1")
    await cluster.pod("fits", cpu="1")
    await cluster.pod("too-big", cpu="2")
    await cluster.start_scheduler()
    await eventually(lambda: cluster.events_about("too-big", reason="FailedScheduling"))
    await eventually(lambda: cluster.node_of("fits"))

    def value(name: str, **labels: str) -> float | None:
        return cluster.metrics.get_sample_value(name, labels)

    await eventually(
        lambda: (
            value(
                "scheduler_schedule_attempts_total", result="scheduled", profile="default-scheduler"
            )
            == 1.0
        )
    )
    assert (
        value(
            "scheduler_schedule_attempts_total", result="unschedulable", profile="default-scheduler"
        )
        == 1.0
    )
    assert value("scheduler_pending_pods", queue="unschedulable") == 1.0
    assert value("scheduler_pod_scheduling_duration_seconds_count", attempts="1") == 1.0
    assert value("scheduler_pod_scheduling_sli_duration_seconds_count", attempts="1") == 1.0
    assert value("scheduler_pod_scheduling_attempts_bucket", le="1.0") == 1.0
    # too-big was considered for preemption once, with no candidate to choose
    assert value("scheduler_preemption_attempts_total") == 1.0
    assert value("scheduler_preemption_victims_count") == 0.0


async def test_time_spent_gated_is_not_scheduling_time(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.pod("gated", schedulingGates=[{"name": "example.com/wait"}])
    scheduler = await cluster.start_scheduler()
    uid = (await cluster.get_pod("gated"))["metadata"]["uid"]
    await eventually(lambda: scheduler.queue.where(uid) == "gated")
    cluster.clock.advance(15.0)
    await cluster.client.patch(
        PODS, name="gated", namespace="default", patch={"spec": {"schedulingGates": None}}
    )
    await eventually(lambda: cluster.node_of("gated"))

    def seconds() -> float | None:
        return cluster.metrics.get_sample_value(
            "scheduler_pod_scheduling_duration_seconds_sum", {"attempts": "1"}
        )

    await eventually(lambda: seconds() is not None)
    assert seconds() == 0.0  # measured from entering activeQ, on a clock that stood still


async def test_deleting_a_bound_pod_frees_room_for_the_waiting_one(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", cpu="1")
    await cluster.pod("first", cpu="1")
    await cluster.start_scheduler()
    await eventually(lambda: cluster.node_of("first"))
    await cluster.pod("second", cpu="1")
    events = await eventually(lambda: cluster.events_about("second", reason="FailedScheduling"))
    assert events[0]["note"].startswith("0/1 nodes are available: 1 Insufficient cpu.")

    await cluster.client.delete(PODS, name="first", namespace="default", grace_period_seconds=0)
    cluster.clock.advance(2.0)

    assert await eventually(lambda: cluster.node_of("second")) == "node-1"


async def test_node_affinity_message_counts_each_reason(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", labels={"zone": "a"})
    await cluster.node(
        "node-2",
        labels={"zone": "b"},
        taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
    )
    await cluster.node("node-3", labels={"zone": "b"})
    await cluster.client.patch(NODES, name="node-3", patch={"spec": {"unschedulable": True}})
    await cluster.pod("app", nodeSelector={"zone": "c"})
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert events[0]["note"] == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


async def test_a_new_reason_keeps_the_time_the_pod_became_unschedulable(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", unschedulable=True)
    await cluster.pod("app")
    await cluster.start_scheduler()

    def scheduled_condition(message_part: str) -> Any:
        async def check() -> dict[str, Any] | None:
            pod = await cluster.get_pod("app")
            for condition in pod["status"].get("conditions") or ():
                if condition["type"] == "PodScheduled" and message_part in condition["message"]:
                    return dict(condition)
            return None

        return check

    first = await eventually(scheduled_condition("were unschedulable"))
    assert first["observedGeneration"] == 1
    cluster.clock.advance(30)
    await cluster.client.patch(NODES, name="node-1", patch={"spec": {
        "unschedulable": False,
        "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
    }})
    second = await eventually(scheduled_condition("untolerated taint(s)"))
    assert (second["status"], second["reason"]) == ("False", "Unschedulable")
    assert second["lastTransitionTime"] == first["lastTransitionTime"]


def _gpu_0_on(node: str) -> dict[str, Any]:
    """An allocation of the ``gpu`` request to device gpu-0 of ``node``'s pool, as the scheduler
    would have written it on an earlier attempt."""
    pinned = {"key": "metadata.name", "operator": "In", "values": [node]}
    return {
        "devices": {
            "results": [{"request": "gpu", "driver": DRIVER, "pool": node, "device": "gpu-0"}]
        },
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [pinned]}]},
    }


async def _taint_for_maintenance(cluster: Cluster, node: str) -> None:
    """A NoSchedule taint no test pod tolerates."""
    await cluster.client.patch(
        NODES,
        name=node,
        patch={"spec": {"taints": [{"key": "maintenance", "effect": "NoSchedule"}]}},
    )


async def test_post_filter_deallocates_a_claim_allocated_elsewhere_and_unreserved(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2", cpu="1")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.slice("node-2", 1)
    await cluster.claim("gpu")
    claim = await cluster.get_claim("gpu")
    claim["status"] = {"allocation": _gpu_0_on("node-1")}
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    await cluster.node("node-3", cpu="1")
    await _taint_for_maintenance(cluster, "node-1")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert "deallocation of ResourceClaim completed" in events[0]["note"]
    cluster.clock.advance(2.0)
    assert await eventually(lambda: cluster.node_of("app")) == "node-2"


async def test_scheduler_over_http_places_claims_and_reports_failures(
    cluster_over_http: Cluster, eventually: Eventually
) -> None:
    cluster = cluster_over_http
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-2", 1)
    await cluster.claim("gpu")
    await cluster.claim("too-many", count=2)
    await cluster.pod("fits", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.pod("impossible", claims=[{"name": "gpu", "resourceClaimName": "too-many"}])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("fits")) == "node-2"
    events = await eventually(lambda: cluster.events_about("impossible", reason="FailedScheduling"))
    assert events[0]["note"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")
    assert _devices(await cluster.get_claim("gpu")) == ["node-2/gpu-0"]


async def test_scheduling_gates_hold_a_pod_until_removed(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    scheduler = await cluster.start_scheduler()
    pod = await cluster.pod("gated", schedulingGates=[{"name": "example.com/wait"}])
    [condition] = pod["status"]["conditions"]  # set by the API server as the pod is created
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
        "PodScheduled", "False", "SchedulingGated",
        "Scheduling is blocked due to non-empty scheduling gates",
    )
    uid = pod["metadata"]["uid"]
    await eventually(lambda: scheduler.queue.where(uid) == "gated")

    await cluster.client.patch(
        PODS, name="gated", namespace="default", patch={"spec": {"schedulingGates": None}}
    )

    assert await eventually(lambda: cluster.node_of("gated")) == "node-1"


async def test_a_true_binding_failure_condition_undoes_the_allocation(
    cluster: Cluster, eventually: Eventually
) -> None:
    # the steps below watch the pod between attempts: no early pop from backoffQ
    cluster.feature_gates["SchedulerPopFromBackoffQ"] = False
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.client.create(
        RESOURCE_SLICES,
        body={
            "metadata": {"name": "fabric"},
            "spec": {
                "driver": DRIVER,
                "nodeName": "node-1",
                "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": "gpu-0",
                        "bindingConditions": ["Attached"],
                        "bindingFailureConditions": ["AttachFailed"],
                    }
                ],
            },
        },
    )
    await cluster.claim("gpu")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    async def allocated() -> dict[str, Any] | None:
        claim = await cluster.get_claim("gpu")
        return claim if claim.get("status", {}).get("allocation") else None

    claim = await eventually(allocated)
    result = claim["status"]["allocation"]["devices"]["results"][0]
    assert result["bindingConditions"] == ["Attached"]
    assert "allocationTimestamp" in claim["status"]["allocation"]
    claim["status"]["devices"] = [
        {
            "driver": DRIVER,
            "pool": "node-1",
            "device": "gpu-0",
            "conditions": [
                {
                    "type": "AttachFailed",
                    "status": "True",
                    "reason": "NoPath",
                    "message": "no path to the fabric",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ],
        }
    ]
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    # upstream's words: PreBind's error names the plugin, the driver's reason and message
    assert events[0]["note"] == (
        'running PreBind plugin "DynamicResources": claim gpu binding failed: reason=NoPath, '
        'message="no path to the fabric"'
    )
    pod = await cluster.get_pod("app")
    [scheduled] = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert scheduled["reason"] == "SchedulerError"
    assert await cluster.node_of("app") is None
    assert not (await cluster.get_claim("gpu")).get("status", {}).get("allocation")


async def test_binding_conditions_never_met_time_out_in_upstreams_words(
    cluster: Cluster, eventually: Eventually
) -> None:
    cluster.feature_gates["SchedulerPopFromBackoffQ"] = False
    await cluster.node("node-1")
    await cluster.device_class()
    await _fabric_slice(cluster, "node-1")
    await cluster.claim("gpu")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    async def allocated() -> bool:
        return bool((await cluster.get_claim("gpu")).get("status", {}).get("allocation"))

    await eventually(allocated)

    async def timed_out() -> list[str]:
        events = await cluster.events_about("app", reason="FailedScheduling")
        return [e["note"] for e in events if "binding timeout" in e["note"]]

    # the driver never attaches: the clock moves past the 600 s binding timeout (in two steps
    # if the scheduler's wait had not begun yet when the first was taken)
    [note, *_] = await eventually(timed_out, clock=cluster.clock, step=601.0, timeout=1202.0)
    assert note == 'running PreBind plugin "DynamicResources": claim gpu binding timeout'


async def _fabric_slice(cluster: Cluster, node: str) -> None:
    """One device on ``node`` that must be attached before a pod may use it (KEP-5007)."""
    await cluster.slice(node, [{
        "name": "gpu-0",
        "bindingConditions": ["Attached"],
        "bindingFailureConditions": ["AttachFailed"],
    }])


def _device_condition(node: str, type_: str) -> list[dict[str, Any]]:
    """``status.devices`` of a claim on ``node``'s gpu-0 with one true condition."""
    condition = {
        "type": type_,
        "status": "True",
        "reason": "ByTest",
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    return [{"driver": DRIVER, "pool": node, "device": "gpu-0", "conditions": [condition]}]


def _attachable_allocation(cluster: Cluster, node: str) -> dict[str, Any]:
    allocation = _gpu_0_on(node)
    allocation["devices"]["results"][0].update(
        bindingConditions=["Attached"], bindingFailureConditions=["AttachFailed"]
    )
    allocation["allocationTimestamp"] = format_time(cluster.clock.now())
    return allocation


async def test_a_pod_sharing_a_claim_still_being_attached_waits_for_its_binding_conditions(
    cluster: Cluster, eventually: Eventually
) -> None:
    """The pod did not allocate the claim, yet PreBind holds it, says so on the pod, and binds
    it once the driver reports the device attached."""
    await cluster.node("node-1")
    await cluster.device_class()
    await _fabric_slice(cluster, "node-1")
    await cluster.claim("gpu")
    claim = await cluster.get_claim("gpu")
    claim["status"] = {"allocation": _attachable_allocation(cluster, "node-1")}
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    [event] = await eventually(
        lambda: cluster.events_about("app", reason="BindingConditionsPending")
    )
    assert event["note"] == "waiting for binding conditions for device on node node-1"
    assert await cluster.node_of("app") is None

    claim = await cluster.get_claim("gpu")
    assert claim["status"]["reservedFor"][0]["name"] == "app"
    claim["status"]["devices"] = _device_condition("node-1", "Attached")
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    assert await eventually(lambda: cluster.node_of("app")) == "node-1"


async def test_a_claim_whose_binding_failed_finds_no_node_until_allocated_again(
    cluster: Cluster, eventually: Eventually
) -> None:
    """Allocated on an earlier attempt, then the attach failed: every node is unavailable, the
    unreserved claim is deallocated and the pod lands with a fresh allocation."""
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await _fabric_slice(cluster, "node-1")
    await cluster.slice("node-2", 1)
    await cluster.claim("gpu")
    claim = await cluster.get_claim("gpu")
    claim["status"] = {
        "allocation": _attachable_allocation(cluster, "node-1"),
        "devices": _device_condition("node-1", "AttachFailed"),
    }
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    # the fabric is gone: a fresh allocation can only be node-2's device
    await cluster.client.delete(RESOURCE_SLICES, name=f"node-1-{DRIVER}")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "gpu"}])
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert events[0]["note"].startswith(
        "0/2 nodes are available: 2 resourceclaim not available on the node."
    )
    cluster.clock.advance(2.0)
    assert await eventually(lambda: cluster.node_of("app")) == "node-2"
    claim = await cluster.get_claim("gpu")
    assert _devices(claim) == ["node-2/gpu-0"]
    assert claim["status"]["reservedFor"][0]["name"] == "app"


async def test_post_filter_never_deallocates_a_claim_reserved_for_a_workload(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    workload = {
        "apiGroup": "example.com",
        "resource": "jobsets",
        "name": "train",
        "uid": "5d1c8f0e-3b8a-4c4e-8f3e-2a9b7c6d5e4f",
    }
    await cluster.claim("held")
    claim = await cluster.get_claim("held")
    claim["status"] = {
        "allocation": _gpu_0_on("node-1"),
        "reservedFor": [workload],
    }
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    await _taint_for_maintenance(cluster, "node-1")
    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "held"}])
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert "still not schedulable" in events[0]["note"]
    assert (await cluster.get_claim("held"))["status"]["reservedFor"] == [workload]


async def _group_claim_stuck_on_node_1(cluster: Cluster) -> dict[str, Any]:
    """A PodGroup whose claim is allocated on node-1 and reserved for the group, node-1 full
    (tainted), and a free device on node-2; returns the group."""
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.slice("node-2", 1)
    await cluster.claim("group-claim")
    group = await _pod_group(
        cluster, "group", resourceClaims=[{"name": "shared", "resourceClaimName": "group-claim"}]
    )
    claim = await cluster.get_claim("group-claim")
    claim["status"] = {
        "allocation": _gpu_0_on("node-1"),
        "reservedFor": [_group_reference(group)],
    }
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    await _taint_for_maintenance(cluster, "node-1")
    return group


async def test_a_group_claim_no_member_uses_is_released_for_the_group_to_move(
    cluster: Cluster, eventually: Eventually
) -> None:
    group = await _group_claim_stuck_on_node_1(cluster)
    await cluster.pod("member-0", claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
                      workloadRef={"name": "workload", "podGroupName": "group"})
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("member-0", reason="FailedScheduling"))
    assert "deallocation of ResourceClaim completed" in events[0]["note"]
    cluster.clock.advance(2.0)
    assert await eventually(lambda: cluster.node_of("member-0")) == "node-2"
    claim = await cluster.get_claim("group-claim")
    assert _devices(claim) == ["node-2/gpu-0"]
    assert claim["status"]["reservedFor"] == [_group_reference(group)]


async def test_a_group_claim_being_allocated_for_waiting_members_is_not_deallocated(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1", cpu="2")  # the device, and room for two members
    await cluster.node("node-2", cpu="8")  # room, no device
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.claim("group-claim")
    await _pod_group(
        cluster, "gang", policy={"gang": {"minCount": 3}},
        resourceClaims=[{"name": "shared", "resourceClaimName": "group-claim"}],
    )
    for i in range(3):
        await cluster.pod(f"member-{i}", cpu="1",
                          claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
                          workloadRef={"name": "workload", "podGroupName": "gang"})
    await cluster.start_scheduler()

    async def third_failed() -> list[dict[str, Any]]:
        return [e for i in range(3)
                for e in await cluster.events_about(f"member-{i}", reason="FailedScheduling")]

    [event] = await eventually(third_failed)
    assert "still not schedulable" in event["note"]
    assert "deallocation" not in event["note"]
    claim = await cluster.get_claim("group-claim")
    assert not claim.get("status")  # the allocation is still only in flight
    managers = {e["manager"] for e in claim["metadata"].get("managedFields") or ()}
    assert "kube-scheduler" not in managers


async def test_a_group_claim_is_kept_while_a_member_is_bound_to_it(
    cluster: Cluster, eventually: Eventually
) -> None:
    await _group_claim_stuck_on_node_1(cluster)
    membership = {"workloadRef": {"name": "workload", "podGroupName": "group"}}
    await cluster.pod("member-0", claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
                      nodeName="node-1", **membership)
    await cluster.pod("member-1", claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
                      **membership)
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("member-1", reason="FailedScheduling"))
    assert "still not schedulable" in events[0]["note"]
    assert _devices(await cluster.get_claim("group-claim")) == ["node-1/gpu-0"]


async def test_a_new_gang_member_wakes_only_its_own_group(
    cluster: Cluster, eventually: Eventually, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakeapi.scheduler.plugins.gang import GangScheduling

    asked: list[str] = []
    same_group = GangScheduling._same_group

    def counting(self: GangScheduling, pod: Any, old: Any, new: Any) -> Any:
        asked.append(pod["metadata"]["name"])
        return same_group(self, pod, old, new)

    monkeypatch.setattr(GangScheduling, "_same_group", counting)
    await cluster.node("node-0", cpu="8")
    for group in ("a", "b"):
        await _pod_group(cluster, group, policy={"gang": {"minCount": 3}})
    scheduler = await cluster.start_scheduler()
    for group in ("a", "b"):
        for i in range(2):
            await cluster.pod(
                f"{group}-{i}", cpu="1", workloadRef={"name": "workload", "podGroupName": group}
            )
    await eventually(lambda: scheduler.queue.pending_counts()["gated"] == 4)
    asked.clear()

    await cluster.pod("a-2", cpu="1", workloadRef={"name": "workload", "podGroupName": "a"})

    assert await eventually(lambda: cluster.node_of("a-1")) == "node-0"
    assert sorted(asked) == ["a-0", "a-1"]
    assert [await cluster.node_of(f"b-{i}") for i in range(2)] == [None, None]


async def test_a_remembered_allocation_is_dropped_when_its_pool_changes(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await cluster.device_class()
    await cluster.slice("node-1", 3)
    await cluster.slice("node-2", 3, driver="other.example.com")
    scheduler = await cluster.start_scheduler()
    [plugin] = [p for p in scheduler.framework.plugins if isinstance(p, DynamicResources)]
    names = [f"p{i}" for i in range(3)]
    for name in names:
        # one at a time: each pod is filtered after the previous one's allocation was recorded
        await cluster.claim(name)
        await cluster.pod(name, claims=[{"name": "gpu", "resourceClaimName": name}])
        assert await eventually(lambda name=name: cluster.node_of(name)) == "node-1"
    devices = [_devices(await cluster.get_claim(name)) for name in names]
    assert sorted(devices) == [["node-1/gpu-0"], ["node-1/gpu-1"], ["node-1/gpu-2"]]
    # every pod's answer for node-1 was computed anew (its pool changed each time), while
    # node-2, whose pool no allocation touched, was answered from memory after the first pod
    assert plugin.allocate_calls == 4
    assert plugin.memo_hits == 2
