"""InterPodAffinity: required (anti-)affinity filter, the symmetric check of existing pods'
anti-affinity, preferred terms scoring, queueing hints; on its own against NodeInfos, then
through a whole in-process cluster (placements and FailedScheduling text)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fakeapi.client import NAMESPACES, PODS
from fakeapi.scheduler.cache import Cache
from fakeapi.scheduler.framework import Code, CycleState, NodeInfo, NodeScore, PodInfo
from fakeapi.scheduler.framework.events import QueueingHint
from fakeapi.scheduler.framework.types import affinity_terms
from fakeapi.scheduler.plugins import DEFAULT_PLUGINS, DEFAULT_SCORE_WEIGHTS, in_tree_registry
from fakeapi.scheduler.plugins.inter_pod_affinity import (
    ERR_AFFINITY,
    ERR_ANTI_AFFINITY,
    ERR_EXISTING_ANTI_AFFINITY,
    NAME,
    InterPodAffinity,
)

from .conftest import Cluster

Obj = dict[str, Any]
Eventually = Callable[..., Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


# -- building blocks ---------------------------------------------------------------------------
def node(name: str, **labels: str) -> NodeInfo:
    return NodeInfo({"metadata": {"name": name, "labels": {HOST: name, **labels}}, "spec": {}})


def term(topology: str, namespaces: Sequence[str] | None = None, **match: Any) -> Obj:
    """A PodAffinityTerm selecting ``match`` labels (``selector=None``: a null selector)."""
    selector = match.pop("selector", {"matchLabels": match})
    body: Obj = {"labelSelector": selector, "topologyKey": topology}
    if namespaces is not None:
        body["namespaces"] = list(namespaces)
    return body


def pod(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    namespace: str = "default",
    affinity: Sequence[Obj] = (),
    anti: Sequence[Obj] = (),
    preferred: Sequence[tuple[int, Obj]] = (),
    avoided: Sequence[tuple[int, Obj]] = (),
) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "i"}]}
    rules: Obj = {}
    if affinity or preferred:
        rules["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(affinity),
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "podAffinityTerm": t} for w, t in preferred
            ],
        }
    if anti or avoided:
        rules["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti),
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "podAffinityTerm": t} for w, t in avoided
            ],
        }
    if rules:
        spec["affinity"] = rules
    return {
        "metadata": {
            "name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": labels or {}
        },
        "spec": spec,
    }


def place(target: NodeInfo, *pods: Obj) -> NodeInfo:
    for placed in pods:
        bound = {**placed, "spec": {**placed["spec"], "nodeName": target.name}}
        target.add_pod(PodInfo(bound))
    return target


def run_filter(
    plugin: InterPodAffinity, incoming: Obj, nodes: Sequence[NodeInfo]
) -> dict[str, tuple[Code, tuple[str, ...]] | None]:
    state = CycleState()
    _, status = plugin.pre_filter(state, incoming, nodes)
    assert status is None, status
    verdicts: dict[str, tuple[Code, tuple[str, ...]] | None] = {}
    for n in nodes:
        rejected = plugin.filter(state, incoming, n)
        verdicts[n.name] = None if rejected is None else (rejected.code, rejected.reasons)
    return verdicts


UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
AFFINITY = (UNRESOLVABLE, (ERR_AFFINITY,))
ANTI = (Code.UNSCHEDULABLE, (ERR_ANTI_AFFINITY,))
EXISTING = (Code.UNSCHEDULABLE, (ERR_EXISTING_ANTI_AFFINITY,))


class _Informer:
    """The read side of an informer over fixed objects (cluster-scoped keys: the name)."""

    def __init__(self, objects: Sequence[Obj] = ()) -> None:
        self.objects = {o["metadata"]["name"]: o for o in objects}

    def get(self, key: str) -> Obj | None:
        return self.objects.get(key)

    def list(self) -> list[Obj]:
        return list(self.objects.values())


class _Handle:
    """The parts of the framework handle the plugin reads."""

    def __init__(self, nodes: Sequence[NodeInfo], namespaces: Sequence[Obj] = ()) -> None:
        self.nodes = nodes
        self.namespaces = _Informer(namespaces)

    def informer(self, resource: Any) -> _Informer:
        assert resource is NAMESPACES
        return self.namespaces

    def node_infos(self) -> Sequence[NodeInfo]:
        return self.nodes


def namespace(name: str, **labels: str) -> Obj:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, **labels}}}


# -- Filter ------------------------------------------------------------------------------------
def test_required_affinity_admits_only_the_topology_of_a_matching_pod() -> None:
    a1, a2, b1 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, pod("db", labels={"app": "db"}))
    web = pod("web", affinity=[term(ZONE, app="db")])
    assert run_filter(InterPodAffinity(), web, [a1, a2, b1]) == {
        "a1": None, "a2": None, "b1": AFFINITY,
    }


def test_every_affinity_term_must_be_met_by_one_pod_and_every_topology_key_be_on_the_node() -> None:
    a1, a2, bare = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("bare")
    # db matches both terms; cache matches only one of them: it counts for neither
    place(a1, pod("db", labels={"app": "db", "tier": "data"}))
    place(a2, pod("cache", labels={"app": "db"}))
    web = pod("web", affinity=[term(ZONE, app="db"), term(HOST, tier="data")])
    assert run_filter(InterPodAffinity(), web, [a1, a2, bare]) == {
        "a1": None, "a2": AFFINITY, "bare": AFFINITY,
    }


def test_the_first_pod_of_a_group_with_affinity_to_itself_may_start_anywhere() -> None:
    a1, b1, bare = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"}), node("bare")
    first = pod("web-0", labels={"app": "web"}, affinity=[term(ZONE, app="web")])
    assert run_filter(InterPodAffinity(), first, [a1, b1, bare]) == {
        "a1": None, "b1": None, "bare": AFFINITY,
    }
    # a pod whose term does not select itself gets no such exception
    stranger = pod("other", labels={"app": "other"}, affinity=[term(ZONE, app="web")])
    assert run_filter(InterPodAffinity(), stranger, [a1, b1]) == {"a1": AFFINITY, "b1": AFFINITY}
    # once one member runs, the others follow it
    place(a1, pod("web-1", labels={"app": "web"}))
    second = pod("web-2", labels={"app": "web"}, affinity=[term(ZONE, app="web")])
    assert run_filter(InterPodAffinity(), second, [a1, b1]) == {"a1": None, "b1": AFFINITY}


def test_required_anti_affinity_rejects_the_topology_of_any_matching_pod() -> None:
    a1, a2, b1 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, pod("web-0", labels={"app": "web"}))
    place(b1, pod("batch", labels={"app": "batch"}))
    web = pod("web-1", labels={"app": "web"}, anti=[term(ZONE, app="web"), term(HOST, app="x")])
    assert run_filter(InterPodAffinity(), web, [a1, a2, b1]) == {
        "a1": ANTI, "a2": ANTI, "b1": None,
    }


def test_an_existing_pods_anti_affinity_repels_a_pod_without_any_affinity() -> None:
    """The symmetric check: the incoming pod has no terms, the running one's repel it."""
    a1, a2, b1 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, pod("loner", labels={"app": "loner"}, anti=[term(ZONE, app="web")]))
    web = pod("web", labels={"app": "web"})
    assert run_filter(InterPodAffinity(), web, [a1, a2, b1]) == {
        "a1": EXISTING, "a2": EXISTING, "b1": None,
    }


def test_pre_filter_skips_when_neither_the_pod_nor_anyone_concerning_it_has_terms() -> None:
    plain = node("a1", **{ZONE: "a"})
    place(plain, pod("loner", anti=[term(ZONE, app="db")]))
    for incoming in (pod("web", labels={"app": "web"}), pod("p", preferred=[(5, term(ZONE))])):
        _, status = InterPodAffinity().pre_filter(CycleState(), incoming, [plain, node("b1")])
        assert status is not None and status.code is Code.SKIP


def test_the_cache_indexes_the_nodes_holding_pods_with_affinity() -> None:
    """What makes the Skip above free: no walk over the nodes, whatever their number."""
    cache = Cache()
    for name in ("n1", "n2"):
        cache.add_node({"metadata": {"name": name, "labels": {HOST: name}}})
    loner = bound(pod("loner", anti=[term(HOST, app="web")]), "n2")
    friendly = bound(pod("friend", preferred=[(1, term(HOST, app="web"))]), "n1")
    index = cache.affinity_nodes
    assert not index.with_affinity and not index.with_required_anti_affinity
    cache.add_pod(loner)
    cache.add_pod(friendly)
    assert set(index.with_affinity) == {"n1", "n2"}
    assert set(index.with_required_anti_affinity) == {"n2"}
    n2 = cache.node("n2")
    assert n2 is not None and set(n2.pods_with_required_anti_affinity) == {"uid-loner"}
    # a what-if copy shares nothing with the index
    n2.clone().remove_pod("uid-loner")
    assert set(index.with_required_anti_affinity) == {"n2"}
    cache.remove_pod(loner)
    assert set(index.with_affinity) == {"n1"} and not index.with_required_anti_affinity
    cache.remove_node({"metadata": {"name": "n1"}})
    assert not index.with_affinity


def test_namespaces_and_namespace_selector_choose_whose_pods_count() -> None:
    a1, b1, c1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"}), node("c1", **{ZONE: "c"})
    place(a1, pod("db-prod", labels={"app": "db"}, namespace="prod"))
    place(b1, pod("db-dev", labels={"app": "db"}, namespace="dev"))
    place(c1, pod("db-own", labels={"app": "db"}))
    handle = _Handle(
        [a1, b1, c1], [namespace("prod", env="prod"), namespace("dev", env="dev"),
                       namespace("default")]
    )
    plugin = InterPodAffinity(handle)  # type: ignore[arg-type]
    nodes = [a1, b1, c1]
    own = pod("web", affinity=[term(ZONE, app="db")])
    assert run_filter(plugin, own, nodes) == {"a1": AFFINITY, "b1": AFFINITY, "c1": None}
    listed = pod("web", affinity=[term(ZONE, ["dev"], app="db")])
    assert run_filter(plugin, listed, nodes) == {"a1": AFFINITY, "b1": None, "c1": AFFINITY}
    by_label = pod("web", affinity=[{**term(ZONE, app="db"),
                                     "namespaceSelector": {"matchLabels": {"env": "prod"}}}])
    assert run_filter(plugin, by_label, nodes) == {"a1": None, "b1": AFFINITY, "c1": AFFINITY}
    everywhere = pod("web", anti=[{**term(ZONE, app="db"), "namespaceSelector": {}}])
    assert run_filter(plugin, everywhere, nodes) == {"a1": ANTI, "b1": ANTI, "c1": ANTI}
    # an existing pod's namespace selector is read against the incoming pod's namespace labels
    place(c1, pod("guard", namespace="prod", anti=[{
        **term(ZONE, app="web"), "namespaceSelector": {"matchLabels": {"env": "dev"}}}]))
    assert run_filter(plugin, pod("web", labels={"app": "web"}, namespace="dev"), nodes) == {
        "a1": None, "b1": None, "c1": EXISTING,
    }
    _, status = plugin.pre_filter(CycleState(), pod("web", labels={"app": "web"}), nodes)
    assert status is not None and status.code is Code.SKIP  # default is not labelled env=dev


def test_match_label_keys_and_mismatch_label_keys_narrow_the_selector_to_the_pods_values() -> None:
    a1, b1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, pod("web-v1", labels={"app": "web", "version": "v1", "tenant": "t1"}))
    place(b1, pod("web-v2", labels={"app": "web", "version": "v2", "tenant": "t2"}))
    same_version = pod("web", labels={"app": "web", "version": "v2"},
                       affinity=[{**term(ZONE, app="web"), "matchLabelKeys": ["version"]}])
    assert run_filter(InterPodAffinity(), same_version, [a1, b1]) == {"a1": AFFINITY, "b1": None}
    # other tenants' pods repel: tenant exists and differs from mine
    other_tenants = pod("job", labels={"tenant": "t1"}, anti=[{
        **term(ZONE, selector={"matchExpressions": [{"key": "tenant", "operator": "Exists"}]}),
        "mismatchLabelKeys": ["tenant"]}])
    assert run_filter(InterPodAffinity(), other_tenants, [a1, b1]) == {"a1": None, "b1": ANTI}
    # a selector the API server already merged the keys into parses the same
    merged = affinity_terms(pod("web", labels={"version": "v2"}, affinity=[{
        **term(ZONE, selector={"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "version", "operator": "In", "values": ["v2"]}]}),
        "matchLabelKeys": ["version"]}]))
    unmerged = affinity_terms(same_version)
    assert merged is not None and unmerged is not None
    assert merged.required_affinity[0].selector == unmerged.required_affinity[0].selector


def test_a_null_label_selector_selects_no_pod() -> None:
    a1 = place(node("a1", **{ZONE: "a"}), pod("db", labels={"app": "db"}))
    repelled = pod("web", anti=[term(ZONE, selector=None)])
    assert run_filter(InterPodAffinity(), repelled, [a1]) == {"a1": None}


def test_a_copy_of_a_node_counts_its_own_pods_as_preemption_needs() -> None:
    """Preemption filters a copy without its victims; the counts follow the copy's pods."""
    a1, b1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"})
    place(a1, pod("web-0", labels={"app": "web"}), pod("other", labels={"app": "x"}))
    place(b1, pod("guard", anti=[term(ZONE, app="web")]))
    web = pod("web-1", labels={"app": "web"}, anti=[term(ZONE, app="web")])
    plugin, state = InterPodAffinity(), CycleState()
    plugin.pre_filter(state, web, [a1, b1])
    rejected = plugin.filter(state, web, a1)
    assert rejected is not None and rejected.reasons == (ERR_ANTI_AFFINITY,)
    without_victim = a1.clone()
    without_victim.remove_pod("uid-web-0")
    assert plugin.filter(state, web, without_victim) is None
    without_guard = b1.clone()
    without_guard.remove_pod("uid-guard")
    assert plugin.filter(state, web, without_guard) is None
    # the state itself is untouched: the real nodes are judged as before
    assert plugin.filter(state, web, a1) is not None
    assert plugin.filter(state, web, b1) is not None
    # a nominated pod added to a copy counts too
    with_nominated = b1.clone()
    with_nominated.remove_pod("uid-guard")
    with_nominated.add_pod(PodInfo(pod("web-9", labels={"app": "web"})))
    assert plugin.filter(state, web, with_nominated) is not None


# -- Score -------------------------------------------------------------------------------------
def scores_of(plugin: InterPodAffinity, incoming: Obj, nodes: Sequence[NodeInfo]) -> list[int]:
    state = CycleState()
    status = plugin.pre_score(state, incoming, nodes)
    assert status is None, status
    scores = [NodeScore(n.name, plugin.score(state, incoming, n)[0]) for n in nodes]
    plugin.normalize_score(state, incoming, scores)
    return [s.score for s in scores]


def test_preferred_terms_score_by_weight_and_the_lowest_node_scores_zero() -> None:
    a1, a2 = node("a1", **{ZONE: "a"}), node("a2", **{ZONE: "a"})
    b1, c1 = node("b1", **{ZONE: "b"}), node("c1", **{ZONE: "c"})
    place(a1, pod("cache", labels={"app": "cache"}))
    place(a2, pod("noisy", labels={"app": "noisy"}))
    place(b1, pod("cache-2", labels={"app": "cache"}))
    incoming = pod("web", preferred=[(10, term(ZONE, app="cache"))],
                   avoided=[(4, term(HOST, app="noisy"))])
    # raw: a1 10, a2 10 - 4 = 6, b1 10, c1 0 → (x - 0) / 10
    assert scores_of(InterPodAffinity(), incoming, [a1, a2, b1, c1]) == [100, 60, 100, 0]


def test_existing_pods_terms_about_the_pod_score_as_well() -> None:
    a1, b1, c1 = node("a1", **{ZONE: "a"}), node("b1", **{ZONE: "b"}), node("c1", **{ZONE: "c"})
    place(a1, pod("likes-web", affinity=[term(ZONE, app="web")],
                  preferred=[(5, term(HOST, app="web"))]))
    place(b1, pod("dislikes-web", avoided=[(3, term(ZONE, app="web"))]))
    web = pod("web", labels={"app": "web"})
    # raw: a1 1 (hard weight) + 5 = 6, b1 -3, c1 0 → (x + 3) / 9
    assert scores_of(InterPodAffinity(), web, [a1, b1, c1]) == [100, 0, 33]


def test_pre_score_skips_when_no_term_matches_anywhere() -> None:
    a1 = place(node("a1", **{ZONE: "a"}), pod("likes-db", affinity=[term(ZONE, app="db")]))
    for incoming in (pod("web", labels={"app": "web"}),
                     pod("web", preferred=[(1, term(ZONE, app="nothing"))])):
        status = InterPodAffinity().pre_score(CycleState(), incoming, [a1, node("b1")])
        assert status is not None and status.code is Code.SKIP


# -- queueing hints ----------------------------------------------------------------------------
def bound(p: Obj, node_name: str = "n1") -> Obj:
    return {**p, "spec": {**p["spec"], "nodeName": node_name}}


def test_pod_hints_queue_for_changes_that_can_help_and_skip_the_rest() -> None:
    hint = InterPodAffinity()._pod_changed
    queue, skip = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
    wants_db = pod("web", labels={"app": "web"}, affinity=[term(ZONE, app="db")],
                   anti=[term(HOST, app="noisy"), term(HOST, app="loud")])
    db, other = bound(pod("db", labels={"app": "db"})), bound(pod("x", labels={"app": "x"}))
    assert hint(wants_db, None, db) is queue
    assert hint(wants_db, None, other) is skip
    assert hint(wants_db, None, pod("db", labels={"app": "db"})) is skip  # not bound yet
    assert hint(wants_db, other, bound(pod("x", labels={"app": "db"}))) is queue  # relabelled in
    assert hint(wants_db, db, bound(pod("db", labels={"app": "db", "v": "2"}))) is skip
    loud = bound(pod("loud", labels={"app": "loud"}))
    assert hint(wants_db, loud, None) is queue  # one anti-affinity term is enough to repel
    assert hint(wants_db, loud, bound(pod("loud", labels={"app": "quiet"}))) is queue
    assert hint(wants_db, other, None) is skip
    # a deleted pod whose own anti-affinity repelled the pod
    guard = bound(pod("guard", anti=[term(ZONE, app="web")]))
    assert hint(wants_db, guard, None) is queue
    assert hint(pod("api", labels={"app": "api"}), guard, None) is skip
    # the pod's own relabelling
    assert hint(wants_db, wants_db, {**wants_db, "metadata": {
        **wants_db["metadata"], "labels": {"app": "db"}}}) is queue


def test_node_hints_queue_for_nodes_joining_or_leaving_the_pods_topologies() -> None:
    hint = InterPodAffinity()._node_changed
    queue, skip = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP

    def raw(**labels: str) -> Obj:
        return {"metadata": {"name": "n", "labels": labels}}

    wants_db = pod("web", affinity=[term(ZONE, app="db")])
    assert hint(wants_db, None, raw(**{ZONE: "a"})) is queue
    assert hint(wants_db, None, raw()) is skip
    assert hint(wants_db, raw(), raw(**{ZONE: "a"})) is queue
    assert hint(wants_db, raw(**{ZONE: "a"}), raw(**{ZONE: "b"})) is queue
    assert hint(wants_db, raw(**{ZONE: "a"}), raw(**{ZONE: "a"}, gpu="1")) is skip
    avoids = pod("web", anti=[term(ZONE, app="db")])
    assert hint(avoids, None, raw()) is queue
    assert hint(avoids, raw(**{ZONE: "a"}), raw()) is queue
    assert hint(avoids, raw(), raw(**{ZONE: "a"})) is skip


def test_the_default_profile_runs_it_with_upstreams_weight() -> None:
    assert NAME in in_tree_registry()
    assert DEFAULT_SCORE_WEIGHTS[NAME] == 2
    order = list(DEFAULT_PLUGINS)
    assert order.index("NodeResourcesFit") < order.index("PodTopologySpread")
    assert order.index("PodTopologySpread") < order.index(NAME) < order.index("DynamicResources")


# -- through a cluster -------------------------------------------------------------------------
def _spec(**affinity: Any) -> Obj:
    return {"affinity": affinity}


async def _failed(cluster: Cluster, name: str, eventually: Eventually) -> list[str]:
    events = await eventually(lambda: cluster.events_about(name, reason="FailedScheduling"))
    return [e["note"] for e in events]


async def test_anti_affinity_spreads_replicas_and_the_extra_one_waits_for_a_free_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    for name in ("node-1", "node-2"):
        await cluster.node(name)
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        term(HOST, app="web")]}}
    await cluster.start_scheduler()
    for i in range(2):
        await cluster.client.create(PODS, body={
            "metadata": {"name": f"web-{i}", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "i"}], "affinity": anti},
        })
        await eventually(lambda i=i: cluster.node_of(f"web-{i}"))
    assert {await cluster.node_of("web-0"), await cluster.node_of("web-1")} == {"node-1", "node-2"}
    await cluster.client.create(PODS, body={
        "metadata": {"name": "web-2", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "i"}], "affinity": anti},
    })
    [note] = await _failed(cluster, "web-2", eventually)
    assert note == (
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: "
        "0/2 nodes are available: 2 No preemption victims found for incoming pod."
    )
    freed = await cluster.node_of("web-0")
    await cluster.client.delete(PODS, name="web-0", namespace="default", grace_period_seconds=0)
    assert await eventually(lambda: cluster.node_of("web-2")) == freed


async def test_a_pod_waits_for_the_pod_it_needs_and_follows_it_once_bound(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-a", labels={ZONE: "a"})
    await cluster.node("node-b", labels={ZONE: "b"})
    await cluster.start_scheduler()
    await cluster.pod("web", **_spec(podAffinity={
        "requiredDuringSchedulingIgnoredDuringExecution": [term(ZONE, app="db")]}))
    [note] = await _failed(cluster, "web", eventually)
    assert note == (
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: "
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    # the scheduler places db itself; its binding is what brings web back
    await cluster.client.create(PODS, body={
        "metadata": {"name": "db", "namespace": "default", "labels": {"app": "db"}},
        "spec": {"containers": [{"name": "c", "image": "i"}], "nodeSelector": {ZONE: "b"}},
    })
    assert await eventually(lambda: cluster.node_of("db")) == "node-b"
    assert await eventually(lambda: cluster.node_of("web")) == "node-b"


async def test_a_running_pods_anti_affinity_keeps_others_out_of_its_zone(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-a1", labels={ZONE: "a"})
    await cluster.node("node-a2", labels={ZONE: "a"})
    await cluster.node("node-b", labels={ZONE: "b"}, unschedulable=True)
    await cluster.client.create(PODS, body={
        "metadata": {"name": "loner", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i"}], "nodeName": "node-a1",
                 **_spec(podAntiAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [
                     term(ZONE, app="web")]})},
    })
    await cluster.start_scheduler()
    await cluster.client.create(PODS, body={
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    })
    [note] = await _failed(cluster, "web", eventually)
    assert note == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy existing "
        "pods anti-affinity rules. preemption: 0/3 nodes are available: 1 Preemption is not "
        "helpful for scheduling, 2 No preemption victims found for incoming pod."
    )
    # the pod that repelled it leaves: the deletion brings it back
    await cluster.client.delete(PODS, name="loner", namespace="default", grace_period_seconds=0)
    assert await eventually(lambda: cluster.node_of("web")) in {"node-a1", "node-a2"}


async def test_preferred_affinity_outweighs_a_less_busy_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    # node-2 is busier, so resources alone would pick node-1; the cache is on node-2
    await cluster.client.create(PODS, body={
        "metadata": {"name": "cache", "namespace": "default", "labels": {"app": "cache"}},
        "spec": {"containers": [{"name": "c", "image": "i",
                                 "resources": {"requests": {"cpu": "2"}}}],
                 "nodeName": "node-2"},
    })
    await cluster.start_scheduler()
    await cluster.pod("web", **_spec(podAffinity={
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": term(HOST, app="cache")}]}))
    assert await eventually(lambda: cluster.node_of("web")) == "node-2"
