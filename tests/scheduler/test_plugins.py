"""Each in-tree plugin on its own, against NodeInfos built from plain dicts."""

from __future__ import annotations

from typing import Any

from fakeapi.clock import FakeClock
from fakeapi.scheduler.framework import Code, CycleState, NodeInfo, NodeScore, PodInfo
from fakeapi.scheduler.framework.interface import NodeToStatus
from fakeapi.scheduler.framework.status import unresolvable, unschedulable
from fakeapi.scheduler.framework.types import QueuedPodInfo
from fakeapi.scheduler.plugins.default_preemption import DefaultPreemption
from fakeapi.scheduler.plugins.gang import GangScheduling
from fakeapi.scheduler.plugins.helpers import default_normalize_score
from fakeapi.scheduler.plugins.node_affinity import NodeAffinity
from fakeapi.scheduler.plugins.node_name import NodeName
from fakeapi.scheduler.plugins.node_resources_fit import NodeResourcesFit
from fakeapi.scheduler.plugins.node_unschedulable import NodeUnschedulable
from fakeapi.scheduler.plugins.priority_sort import PrioritySort
from fakeapi.scheduler.plugins.taint_toleration import TaintToleration
from fakeapi.scheduler.scheduler import num_feasible_nodes_to_find


def node(
    name: str = "n",
    *,
    labels: dict[str, str] | None = None,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    **spec: Any,
) -> NodeInfo:
    return NodeInfo(
        {
            "metadata": {"name": name, "labels": labels or {}},
            "spec": spec,
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
        }
    )


def pod(
    name: str = "p", *, cpu: str | None = None, memory: str | None = None, **spec: Any
) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    container: dict[str, Any] = {"name": "c", "image": "i"}
    if requests:
        container["resources"] = {"requests": requests}
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [container], **spec},
    }


def test_node_name_fits_only_the_named_node() -> None:
    plugin = NodeName()
    assert plugin.filter(CycleState(), pod(nodeName="a"), node("a")) is None
    status = plugin.filter(CycleState(), pod(nodeName="a"), node("b"))
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("node(s) didn't match the requested node name",)


def test_cordoned_node_takes_only_pods_that_tolerate_it() -> None:
    plugin = NodeUnschedulable()
    cordoned = node(unschedulable=True)
    status = plugin.filter(CycleState(), pod(), cordoned)
    assert status is not None and status.reasons == ("node(s) were unschedulable",)
    tolerating = pod(
        tolerations=[
            {
                "key": "node.kubernetes.io/unschedulable",
                "operator": "Exists",
                "effect": "NoSchedule",
            }
        ]
    )
    assert plugin.filter(CycleState(), tolerating, cordoned) is None


def test_node_affinity_filters_on_selector_and_required_terms() -> None:
    plugin = NodeAffinity()
    wanted = pod(
        nodeSelector={"zone": "a"},
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}
                    ]
                }
            }
        },
    )
    state = CycleState()
    _, status = plugin.pre_filter(state, wanted, [])
    assert status is None
    assert plugin.filter(state, wanted, node(labels={"zone": "a", "gpu": "x"})) is None
    for labels in ({"zone": "a"}, {"zone": "b", "gpu": "x"}):
        rejected = plugin.filter(state, wanted, node(labels=labels))
        assert rejected is not None
        assert rejected.reasons == ("node(s) didn't match Pod's node affinity/selector",)


def test_node_affinity_skips_pods_without_affinity() -> None:
    _, status = NodeAffinity().pre_filter(CycleState(), pod(), [])
    assert status is not None and status.code is Code.SKIP


def test_node_affinity_scores_preferred_terms_by_weight() -> None:
    plugin = NodeAffinity()
    preferring = pod(
        affinity={
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 10,
                        "preference": {
                            "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]
                        },
                    },
                    {
                        "weight": 5,
                        "preference": {"matchExpressions": [{"key": "fast", "operator": "Exists"}]},
                    },
                ]
            }
        }
    )
    state = CycleState()
    assert plugin.pre_score(state, preferring, []) is None
    nodes = [
        node("both", labels={"zone": "a", "fast": "1"}),
        node("zone", labels={"zone": "a"}),
        node("none"),
    ]
    scores = [NodeScore(n.name, plugin.score(state, preferring, n)[0]) for n in nodes]
    plugin.normalize_score(state, preferring, scores)
    assert [s.score for s in scores] == [100, 66, 0]


def test_taints_reject_unless_tolerated_and_prefer_no_schedule_scores_lower() -> None:
    plugin = TaintToleration()
    tainted = node(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    status = plugin.filter(CycleState(), pod(), tainted)
    assert status is not None
    assert status.reasons == ("node(s) had untolerated taint(s)",)
    tolerating = pod(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu"}])
    assert plugin.filter(CycleState(), tolerating, tainted) is None

    soft = node("soft", taints=[{"key": "k", "effect": "PreferNoSchedule"}])
    clean = node("clean")
    state = CycleState()
    plugin.pre_score(state, pod(), [soft, clean])
    scores = [NodeScore(n.name, plugin.score(state, pod(), n)[0]) for n in (soft, clean)]
    plugin.normalize_score(state, pod(), scores)
    assert [s.score for s in scores] == [0, 100]


def test_resources_fit_reports_every_shortage() -> None:
    plugin = NodeResourcesFit()
    big = pod(cpu="3", memory="10Gi")
    state = CycleState()
    plugin.pre_filter(state, big, [])
    status = plugin.filter(state, big, node(cpu="2", memory="8Gi", pods="0"))
    assert status is not None and status.code is Code.UNSCHEDULABLE
    assert status.reasons == ("Too many pods", "Insufficient cpu", "Insufficient memory")
    assert plugin.filter(state, big, node(cpu="4", memory="16Gi")) is None


def test_resources_fit_checks_ephemeral_storage_and_counts_sidecars() -> None:
    plugin = NodeResourcesFit()
    roomy = NodeInfo(
        {
            "metadata": {"name": "n", "labels": {}},
            "spec": {},
            "status": {
                "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110",
                                "ephemeral-storage": "10Gi"}
            },
        }
    )
    scratch = pod(cpu="1")
    scratch["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "20Gi"
    scratch["spec"]["initContainers"] = [
        {"name": "proxy", "image": "i", "restartPolicy": "Always",
         "resources": {"requests": {"cpu": "1500m"}}}
    ]
    state = CycleState()
    plugin.pre_filter(state, scratch, [])
    status = plugin.filter(state, scratch, roomy)
    assert status is not None
    assert status.reasons == ("Insufficient cpu", "Insufficient ephemeral-storage")
    assert plugin.filter_nodes(state, scratch, [roomy]) == [status]


def test_resources_fit_counts_pods_already_on_the_node() -> None:
    plugin = NodeResourcesFit()
    full = node(cpu="2")
    full.add_pod(PodInfo(pod("existing", cpu="1500m")))
    state = CycleState()
    plugin.pre_filter(state, pod(cpu="1"), [])
    status = plugin.filter(state, pod(cpu="1"), full)
    assert status is not None and status.reasons == ("Insufficient cpu",)
    full.remove_pod("uid-existing")
    assert plugin.filter(state, pod(cpu="1"), full) is None


def test_least_allocated_prefers_the_emptier_node() -> None:
    plugin = NodeResourcesFit()
    busy, idle = node("busy"), node("idle")
    busy.add_pod(PodInfo(pod("existing", cpu="3", memory="6Gi")))
    state = CycleState()
    incoming = pod(cpu="500m", memory="1Gi")
    plugin.pre_filter(state, incoming, [])
    busy_score = plugin.score(state, incoming, busy)[0]
    idle_score = plugin.score(state, incoming, idle)[0]
    assert idle_score > busy_score
    # idle: cpu (4000-500)/4000 -> 87, memory (8Gi-1Gi)/8Gi -> 87
    assert idle_score == 87


def test_least_allocated_score_follows_pods_added_and_removed_and_the_pods_requests() -> None:
    plugin = NodeResourcesFit()
    target = node("target")
    small, large = pod("small", cpu="500m", memory="1Gi"), pod("large", cpu="2", memory="4Gi")
    small_state, large_state = CycleState(), CycleState()
    plugin.pre_filter(small_state, small, [])
    plugin.pre_filter(large_state, large, [])
    empty = plugin.score(small_state, small, target)[0]
    assert plugin.score(large_state, large, target)[0] < empty
    target.add_pod(PodInfo(pod("existing", cpu="2", memory="4Gi")))
    busier = plugin.score(small_state, small, target)[0]
    assert busier < empty
    target.remove_pod("uid-existing")
    assert plugin.score(small_state, small, target)[0] == empty
    # the same name, a new node object (deleted and created again) with less room
    assert plugin.score(small_state, small, node("target", cpu="1", memory="2Gi"))[0] < empty


def test_priority_sort_orders_by_priority_then_time() -> None:
    sort = PrioritySort()

    def queued(priority: int, timestamp: float) -> QueuedPodInfo:
        return QueuedPodInfo(
            info=PodInfo(pod(priority=priority)), timestamp=timestamp, initial_timestamp=timestamp
        )

    assert sort.less(queued(10, 5), queued(1, 0))
    assert sort.less(queued(1, 0), queued(1, 5))
    assert not sort.less(queued(1, 5), queued(1, 0))


async def test_preemption_verdict_counts_nodes_by_whether_eviction_could_help() -> None:
    statuses = NodeToStatus(
        statuses={
            "a": unresolvable("x"),
            "b": unschedulable("Insufficient cpu"),
            "c": unresolvable("y"),
        },
        num_all_nodes=3,
    )
    _, status = await DefaultPreemption().post_filter(CycleState(), pod(), statuses)
    assert status is not None
    assert status.message == (
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )


def test_default_normalize_scales_to_the_maximum() -> None:
    scores = [NodeScore("a", 5), NodeScore("b", 10), NodeScore("c", 0)]
    default_normalize_score(scores)
    assert [s.score for s in scores] == [50, 100, 0]
    default_normalize_score(scores, reverse=True)
    assert [s.score for s in scores] == [50, 0, 100]


def test_adaptive_percentage_of_nodes_to_score() -> None:
    assert num_feasible_nodes_to_find(50) == 50
    assert num_feasible_nodes_to_find(100) == 100
    assert num_feasible_nodes_to_find(500) == 230  # 46% of 500
    assert num_feasible_nodes_to_find(5000) == 500  # 10%
    assert num_feasible_nodes_to_find(10000) == 500  # the 5% floor
    assert num_feasible_nodes_to_find(1000, 1) == 100  # never fewer than 100
    assert num_feasible_nodes_to_find(1000, 100) == 1000


class _GangHandle:
    """Just what GangScheduling reads: the PodGroup, its pods, who is placed, the clock."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        group = {"metadata": {"name": "g", "namespace": "default"},
                 "spec": {"policy": {"gang": {"minCount": 3}}}}
        self.members = [pod(f"m-{i}", workloadRef={"name": "w", "podGroupName": "g"})
                        for i in range(3)]
        self.groups = {"default/g": group}

    def informer(self, resource: Any) -> Any:
        return self.groups

    def pods_of_group(self, namespace: str, group: str) -> list[dict[str, Any]]:
        return self.members

    def is_assumed_or_bound(self, uid: str) -> bool:
        return uid == "uid-m-0"

    def waiting_pods(self) -> list[Any]:
        return []


def test_a_gang_has_one_permit_deadline_that_later_members_share() -> None:
    clock = FakeClock()
    handle = _GangHandle(clock)
    plugin = GangScheduling(handle)  # type: ignore[arg-type]
    status, first = plugin.permit(CycleState(), handle.members[0], "n")
    assert status is not None and status.code is Code.WAIT and first == 300.0
    clock.advance(100)
    _, second = plugin.permit(CycleState(), handle.members[1], "n")
    assert second == 200.0
    clock.advance(250)  # the deadline passed: a new attempt gets a new one
    _, third = plugin.permit(CycleState(), handle.members[1], "n")
    assert third == 300.0
