"""PodTopologySpread: DoNotSchedule filter (maxSkew, minDomains, inclusion policies,
matchLabelKeys, the missing label), ScheduleAnyway scoring, the system default constraints,
queueing hints; on its own against NodeInfos, then through a whole in-process cluster."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from fakeapi.client import NAMESPACE_INDEX, NODES, PODS, SERVICES
from fakeapi.scheduler.framework import Code, CycleState, NodeInfo, NodeScore, PodInfo
from fakeapi.scheduler.framework.events import QueueingHint
from fakeapi.scheduler.plugins import DEFAULT_SCORE_WEIGHTS, in_tree_registry
from fakeapi.scheduler.plugins.pod_topology_spread import (
    ERR_CONSTRAINTS_NOT_MATCH,
    ERR_NODE_LABEL_NOT_MATCH,
    NAME,
    PodTopologySpread,
)

from .conftest import Cluster

Obj = dict[str, Any]
Eventually = Callable[..., Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
SKEW = (Code.UNSCHEDULABLE, (ERR_CONSTRAINTS_NOT_MATCH,))
NO_LABEL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_LABEL_NOT_MATCH,))


# -- building blocks ---------------------------------------------------------------------------
def node(name: str, *, taints: Sequence[Obj] = (), **labels: str) -> NodeInfo:
    return NodeInfo({
        "metadata": {"name": name, "labels": {HOST: name, **labels}},
        "spec": {"taints": list(taints)},
    })


def spread(
    key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", **extra: Any
) -> Obj:
    selector = extra.pop("selector", {"matchLabels": {"app": "web"}})
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": selector, **extra}


def pod(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    namespace: str = "default",
    constraints: Sequence[Obj] = (),
    **spec: Any,
) -> Obj:
    body: Obj = {"containers": [{"name": "c", "image": "i"}], **spec}
    if constraints:
        body["topologySpreadConstraints"] = list(constraints)
    return {
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                     "labels": {"app": "web"} if labels is None else labels},
        "spec": body,
    }


def place(target: NodeInfo, *pods: Obj) -> NodeInfo:
    for placed in pods:
        target.add_pod(PodInfo({**placed, "spec": {**placed["spec"], "nodeName": target.name}}))
    return target


def webs(prefix: str, count: int, **labels: str) -> list[Obj]:
    return [pod(f"{prefix}-{i}", labels={"app": "web", **labels}) for i in range(count)]


def run_filter(
    plugin: PodTopologySpread, incoming: Obj, nodes: Sequence[NodeInfo]
) -> dict[str, tuple[Code, tuple[str, ...]] | None]:
    state = CycleState()
    _, status = plugin.pre_filter(state, incoming, nodes)
    assert status is None, status
    verdicts: dict[str, tuple[Code, tuple[str, ...]] | None] = {}
    for n in nodes:
        rejected = plugin.filter(state, incoming, n)
        verdicts[n.name] = None if rejected is None else (rejected.code, rejected.reasons)
    return verdicts


# -- Filter ------------------------------------------------------------------------------------
def test_max_skew_rejects_the_domains_that_would_exceed_it() -> None:
    a1, a2, b1 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, *webs("a", 2))
    place(b1, pod("db", labels={"app": "db"}))
    incoming = pod("web", constraints=[spread(skew=1)])
    # zone a: 2 + 1 − 0 > 1; zone b: 0 + 1 − 0
    assert run_filter(PodTopologySpread(), incoming, [a1, a2, b1]) == {
        "a1": SKEW, "a2": SKEW, "b1": None,
    }
    # a pod its own selector does not select adds nothing to the skew
    other = pod("api", labels={"app": "api"}, constraints=[spread(skew=2)])
    assert run_filter(PodTopologySpread(), other, [a1, a2, b1]) == {
        "a1": None, "a2": None, "b1": None,
    }


def test_a_node_without_a_topology_key_is_rejected_for_good() -> None:
    a1, bare = node("a1", **{ZONE: "a"}), node("bare")
    incoming = pod("web", constraints=[spread(HOST, skew=5), spread(ZONE, skew=5)])
    assert run_filter(PodTopologySpread(), incoming, [a1, bare]) == {"a1": None, "bare": NO_LABEL}


def test_min_domains_counts_the_minimum_as_zero_until_there_are_enough_domains() -> None:
    a1, b1 = place(node("a1", **{ZONE: "a"}), *webs("a", 1)), place(
        node("b1", **{ZONE: "b"}), *webs("b", 1))
    enough = pod("web", constraints=[spread(skew=1, minDomains=2)])
    assert run_filter(PodTopologySpread(), enough, [a1, b1]) == {"a1": None, "b1": None}
    too_few = pod("web", constraints=[spread(skew=1, minDomains=3)])
    assert run_filter(PodTopologySpread(), too_few, [a1, b1]) == {"a1": SKEW, "b1": SKEW}


def test_node_affinity_policy_decides_whether_nodes_the_pod_cannot_use_count() -> None:
    a1 = place(node("a1", **{ZONE: "a"}, pool="web"), *webs("a", 1))
    c1 = node("c1", **{ZONE: "c"}, pool="batch")  # an empty zone the pod may not use
    honored = pod("web", constraints=[spread(skew=1)], nodeSelector={"pool": "web"})
    assert run_filter(PodTopologySpread(), honored, [a1, c1])["a1"] is None
    ignored = pod("web", constraints=[spread(skew=1, nodeAffinityPolicy="Ignore")],
                  nodeSelector={"pool": "web"})
    assert run_filter(PodTopologySpread(), ignored, [a1, c1])["a1"] == SKEW


def test_node_taints_policy_honor_leaves_out_nodes_with_untolerated_taints() -> None:
    a1 = place(node("a1", **{ZONE: "a"}), *webs("a", 1))
    tainted = node("t1", **{ZONE: "t"}, taints=[{"key": "gpu", "effect": "NoSchedule"}])
    ignoring = pod("web", constraints=[spread(skew=1)])
    assert run_filter(PodTopologySpread(), ignoring, [a1, tainted])["a1"] == SKEW
    honoring = pod("web", constraints=[spread(skew=1, nodeTaintsPolicy="Honor")])
    assert run_filter(PodTopologySpread(), honoring, [a1, tainted])["a1"] is None
    tolerating = pod("web", constraints=[spread(skew=1, nodeTaintsPolicy="Honor")],
                     tolerations=[{"key": "gpu", "operator": "Exists"}])
    assert run_filter(PodTopologySpread(), tolerating, [a1, tainted])["a1"] == SKEW


def test_match_label_keys_spread_each_revision_on_its_own() -> None:
    a1, b1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, *webs("old", 3, rev="1"))
    incoming = pod("web", labels={"app": "web", "rev": "2"},
                   constraints=[spread(skew=1, matchLabelKeys=["rev"])])
    assert run_filter(PodTopologySpread(), incoming, [a1, b1]) == {"a1": None, "b1": None}
    place(a1, *webs("new", 1, rev="2"))
    assert run_filter(PodTopologySpread(), incoming, [a1, b1]) == {"a1": SKEW, "b1": None}


def test_pods_of_other_namespaces_and_terminating_pods_do_not_count() -> None:
    a1, b1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    leaving = pod("leaving")
    leaving["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    place(a1, pod("elsewhere", namespace="other"), leaving)
    incoming = pod("web", constraints=[spread(skew=0)])
    # zone a has no counted pod: 0 + 1 − 0 = 1 > 0 everywhere alike
    assert run_filter(PodTopologySpread(), incoming, [a1, b1]) == {"a1": SKEW, "b1": SKEW}
    incoming = pod("web", constraints=[spread(skew=1)])
    assert run_filter(PodTopologySpread(), incoming, [a1, b1]) == {"a1": None, "b1": None}


def test_pre_filter_and_pre_score_skip_pods_without_constraints() -> None:
    nodes = [node("a1", **{ZONE: "a"})]
    plain = pod("web")
    _, status = PodTopologySpread().pre_filter(CycleState(), plain, nodes)
    assert status is not None and status.code is Code.SKIP
    status = PodTopologySpread().pre_score(CycleState(), plain, nodes)
    assert status is not None and status.code is Code.SKIP
    soft_only = pod("web", constraints=[spread(when="ScheduleAnyway")])
    _, status = PodTopologySpread().pre_filter(CycleState(), soft_only, nodes)
    assert status is not None and status.code is Code.SKIP


def test_a_copy_of_a_node_counts_its_own_pods_as_preemption_needs() -> None:
    a1, b1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, *webs("a", 2))
    place(b1, *webs("b", 1))
    incoming = pod("web", constraints=[spread(skew=1)])
    plugin, state = PodTopologySpread(), CycleState()
    plugin.pre_filter(state, incoming, [a1, b1])
    assert plugin.filter(state, incoming, a1) is not None  # 2 + 1 − 1 > 1
    without_one = a1.clone()
    without_one.remove_pod("uid-a-0")
    assert plugin.filter(state, incoming, without_one) is None
    assert plugin.filter(state, incoming, b1) is None  # 1 + 1 − 1
    # pods nominated to b1 count there: 3 + 1 − 2 > 1
    with_nominated = b1.clone()
    for name in ("nominated-0", "nominated-1"):
        with_nominated.add_pod(PodInfo(pod(name)))
    assert plugin.filter(state, incoming, with_nominated) is not None
    assert plugin.filter(state, incoming, b1) is None  # the state itself is untouched


# -- Score -------------------------------------------------------------------------------------
def scores_of(plugin: PodTopologySpread, incoming: Obj, nodes: Sequence[NodeInfo]) -> list[int]:
    state = CycleState()
    status = plugin.pre_score(state, incoming, nodes)
    assert status is None, status
    scores = [NodeScore(n.name, plugin.score(state, incoming, n)[0]) for n in nodes]
    plugin.normalize_score(state, incoming, scores)
    return [s.score for s in scores]


def test_schedule_anyway_scores_the_less_crowded_domains_higher() -> None:
    a1, a2, b1 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    bare = node("bare")
    place(a1, *webs("a", 3))
    place(b1, *webs("b", 1))
    incoming = pod("web", constraints=[spread(skew=1, when="ScheduleAnyway")])
    # raw: count × log(2 domains + 2) + (maxSkew − 1): a 3·ln4 → 4, b ln4 → 1; bare ignored
    assert round(3 * math.log(4)) == 4 and round(math.log(4)) == 1
    # normalised: 100 × (max + min − score) / max
    assert scores_of(PodTopologySpread(), incoming, [a1, a2, b1, bare]) == [
        100 * (4 + 1 - 4) // 4, 100 * (4 + 1 - 4) // 4, 100, 0,
    ]


def test_hostname_constraints_count_the_node_itself() -> None:
    n1, n2, n3 = node("n1"), node("n2"), node("n3")
    place(n1, *webs("a", 2))
    place(n2, *webs("b", 1))
    incoming = pod("web", constraints=[spread(HOST, skew=2, when="ScheduleAnyway")])
    # raw: count × ln(3 + 2) + 1 → n1 round(2·1.609 + 1) = 4, n2 3, n3 1
    assert scores_of(PodTopologySpread(), incoming, [n1, n2, n3]) == [
        100 * (4 + 1 - 4) // 4, 100 * (4 + 1 - 3) // 4, 100,
    ]


class _Services:
    """The read side of the Services informer, indexed by namespace."""

    def __init__(self, services: Sequence[Obj]) -> None:
        self.services = list(services)

    def add_index(self, name: str, index: Any) -> None:
        assert name == NAMESPACE_INDEX

    def by_index(self, name: str, value: str) -> list[Obj]:
        return [s for s in self.services if s["metadata"]["namespace"] == value]


class _Handle:
    def __init__(self, nodes: Sequence[NodeInfo], services: Sequence[Obj]) -> None:
        self.nodes = nodes
        self.services = _Services(services)

    def informer(self, resource: Any) -> _Services:
        assert resource is SERVICES
        return self.services

    def node_infos(self) -> Sequence[NodeInfo]:
        return self.nodes


def service(name: str, selector: dict[str, str] | None, namespace: str = "default") -> Obj:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector}}


def test_system_defaults_spread_the_pods_a_service_selects_by_hostname_then_zone() -> None:
    n1, n2 = node("n1"), node("n2", **{ZONE: "b"})
    place(n1, *webs("a", 2))
    nodes = [n1, n2]
    web = pod("web")
    for services in ([], [service("api", {"app": "api"})],
                     [service("web", {"app": "web"}, namespace="other")],
                     [service("headless", None)]):
        plugin = PodTopologySpread(_Handle(nodes, services))  # type: ignore[arg-type]
        status = plugin.pre_score(CycleState(), web, nodes)
        assert status is not None and status.code is Code.SKIP, services
    plugin = PodTopologySpread(_Handle(nodes, [service("web", {"app": "web"}),
                                               service("all", {})]))  # type: ignore[arg-type]
    # hostname, maxSkew 3: n1 round(2·ln4 + 2) = 5, n2 2; zone, maxSkew 5: only n2 has the
    # label (nodes without it are not ignored under the defaults): + 0·ln(2 + 2) + 4
    assert scores_of(plugin, web, nodes) == [100 * (6 + 5 - 5) // 6, 100 * (6 + 5 - 6) // 6]
    # no own constraints means no filtering either: the defaults are ScheduleAnyway
    _, status = plugin.pre_filter(CycleState(), web, nodes)
    assert status is not None and status.code is Code.SKIP


# -- queueing hints ----------------------------------------------------------------------------
def bound(p: Obj, node_name: str = "n1") -> Obj:
    return {**p, "spec": {**p["spec"], "nodeName": node_name}}


def test_pod_hints_queue_for_bound_pods_entering_or_leaving_the_selection() -> None:
    hint = PodTopologySpread()._pod_changed
    queue, skip = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
    target = pod("web", constraints=[spread(skew=1, nodeTaintsPolicy="Honor")])
    web, db = bound(pod("w")), bound(pod("d", labels={"app": "db"}))
    assert hint(target, None, web) is queue
    assert hint(target, None, db) is skip
    assert hint(target, web, None) is queue
    assert hint(target, None, pod("w")) is skip  # not bound
    assert hint(target, None, bound(pod("w", namespace="other"))) is skip
    assert hint(target, db, bound(pod("d", labels={"app": "web"}))) is queue
    assert hint(target, web, bound(pod("w", labels={"app": "web", "x": "y"}))) is skip
    tolerating = {**target, "spec": {**target["spec"], "tolerations": [{"operator": "Exists"}]}}
    assert hint(target, target, tolerating) is queue
    assert hint(pod("plain"), None, web) is skip


def test_node_hints_queue_for_nodes_that_change_a_domain() -> None:
    hint = PodTopologySpread()._node_changed
    queue, skip = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
    target = pod("web", constraints=[spread(skew=1)])

    def raw(taints: Sequence[Obj] = (), **labels: str) -> Obj:
        return {"metadata": {"name": "n", "labels": labels}, "spec": {"taints": list(taints)}}

    zoned = raw(**{ZONE: "a"})
    assert hint(target, None, zoned) is queue
    assert hint(target, None, raw()) is skip
    assert hint(target, zoned, None) is queue
    assert hint(target, raw(), None) is skip
    assert hint(target, raw(), zoned) is queue
    assert hint(target, zoned, raw(**{ZONE: "b"})) is queue
    assert hint(target, zoned, raw(**{ZONE: "a"}, gpu="1")) is skip
    assert hint(target, zoned, raw([{"key": "k", "effect": "NoSchedule"}], **{ZONE: "a"})) is queue


def test_the_default_profile_runs_it_with_upstreams_weight() -> None:
    assert NAME in in_tree_registry()
    assert DEFAULT_SCORE_WEIGHTS[NAME] == 2


# -- through a cluster -------------------------------------------------------------------------
async def _create_web(cluster: Cluster, name: str, *constraints: Obj, **spec: Any) -> Obj:
    body = pod(name, constraints=constraints, **spec)
    del body["metadata"]["uid"]
    return await cluster.client.create(PODS, body=body)


async def test_replicas_created_together_spread_evenly_over_the_zones(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-a1", labels={ZONE: "a"})
    await cluster.node("node-a2", labels={ZONE: "a"})
    await cluster.node("node-b", labels={ZONE: "b"})
    for i in range(4):
        await _create_web(cluster, f"web-{i}", spread(skew=1))
    await cluster.start_scheduler()
    placed = [await eventually(lambda i=i: cluster.node_of(f"web-{i}")) for i in range(4)]
    zones = sorted("b" if name == "node-b" else "a" for name in placed)
    assert zones == ["a", "a", "b", "b"]


async def test_a_pod_that_would_skew_the_spread_waits_with_upstreams_message(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-a", labels={ZONE: "a"})
    await cluster.node("node-b", labels={ZONE: "b"},
                       taints=[{"key": "maintenance", "effect": "NoSchedule"}])
    await cluster.node("node-bare")
    for i in range(2):
        await _create_web(cluster, f"running-{i}", nodeName="node-a")
    await cluster.start_scheduler()
    await _create_web(cluster, "web", spread(skew=1))
    events = await eventually(lambda: cluster.events_about("web", reason="FailedScheduling"))
    assert events[0]["note"] == (
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, "
        "1 node(s) didn't match pod topology spread constraints (missing required label), "
        "1 node(s) had untolerated taint(s). preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )
    # zone b goes away for good: zone a is then the only domain, and its minimum
    await cluster.client.delete(NODES, name="node-b")
    assert await eventually(lambda: cluster.node_of("web")) == "node-a"


async def test_relabelling_a_running_pod_out_of_the_selection_makes_room(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-a", labels={ZONE: "a"})
    await cluster.node("node-b", labels={ZONE: "b"}, unschedulable=True)
    for i in range(2):
        await _create_web(cluster, f"running-{i}", nodeName="node-a")
    await cluster.start_scheduler()
    await _create_web(cluster, "web", spread(skew=2))
    await eventually(lambda: cluster.events_about("web", reason="FailedScheduling"))
    running = await cluster.get_pod("running-0")
    running["metadata"]["labels"] = {"app": "retired"}
    await cluster.client.update(PODS, body=running)
    assert await eventually(lambda: cluster.node_of("web")) == "node-a"


async def test_the_system_defaults_spread_a_services_pods_over_the_nodes(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    for i in range(2):
        await _create_web(cluster, f"running-{i}", nodeName="node-1")
    # node-2 is busier: resources alone would pick node-1, where the Service's pods are
    await cluster.client.create(PODS, body={
        "metadata": {"name": "batch", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i",
                                 "resources": {"requests": {"cpu": "3"}}}],
                 "nodeName": "node-2"},
    })
    await cluster.client.create(SERVICES, body={
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
    })
    await cluster.start_scheduler()
    await _create_web(cluster, "web")
    assert await eventually(lambda: cluster.node_of("web")) == "node-2"
