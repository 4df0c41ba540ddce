"""What the scheduling cycle remembers between pods, and that it never goes stale.

A cycle walks hundreds of nodes per pod, so the cheap answers are kept: the cache indexes the
nodes with taints, images, a cordon or no room for one more pod (``NodeTraits``),
NodeResourcesFit keeps each node's score on its NodeInfo until the node changes, and
DynamicResources remembers its allocator's answers per node (until the node's labels, its
pools' allocations, slices or classes change) and leaves the allocations it took from that memo
there for Score and Reserve. Each test changes what an answer depends on and checks the answer
follows.
The best node is then found by C-level scans; the last test holds it to the one-draw rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.client import NODES, RESOURCE_SLICES
from fakeapi.scheduler.cache import Cache
from fakeapi.scheduler.framework import Code, CycleState, NodeInfo
from fakeapi.scheduler.framework.cycle_state import pod_info_of
from fakeapi.scheduler.framework.types import NodeTraits, PodInfo
from fakeapi.scheduler.plugins.dynamic_resources.plugin import NAME as DRA
from fakeapi.scheduler.plugins.image_locality import ImageLocality
from fakeapi.scheduler.plugins.node_resources_fit import NodeResourcesFit
from fakeapi.scheduler.plugins.node_unschedulable import NodeUnschedulable
from fakeapi.scheduler.plugins.taint_toleration import TaintToleration
from fakeapi.scheduler.scheduler import best_score_index

from .conftest import DRIVER, Cluster

NO_SCHEDULE = {"key": "k", "value": "v", "effect": "NoSchedule"}
PREFER_NO = {"key": "k", "value": "v", "effect": "PreferNoSchedule"}


def node(name: str, **spec: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
    images = spec.pop("images", None)
    if images:
        status["images"] = images
    return {"metadata": {"name": name, "labels": {}}, "spec": spec, "status": status}


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [{"name": "c", "image": "app"}], **spec},
    }


def test_the_cache_indexes_the_nodes_with_taints_images_and_cordons() -> None:
    cache = Cache()
    for name in ("n1", "n2"):
        cache.add_node(node(name))
    nodes = cache.nodes
    traits = cache.traits
    for trait in NodeTraits.__slots__:
        assert not NodeTraits.any_has(nodes, trait)
    cache.update_node(node("n2", taints=[PREFER_NO], unschedulable=True,
                           images=[{"names": ["app:latest"], "sizeBytes": 1}]))
    assert set(traits.taints) == set(traits.prefer_no_schedule_taints) == {"n2"}
    assert set(traits.unschedulable) == set(traits.images) == {"n2"}
    for trait in NodeTraits.NODE_TRAITS:
        assert NodeTraits.any_has(nodes, trait)
        assert not NodeTraits.any_has(nodes[:1], trait)  # the walk still decides which
    cache.update_node(node("n2", taints=[NO_SCHEDULE]))
    assert set(traits.taints) == {"n2"}
    assert not traits.prefer_no_schedule_taints and not traits.unschedulable
    assert not traits.images
    cache.remove_node(node("n2"))
    assert not traits.taints
    # a what-if copy is outside the index, and answers for itself
    lone = NodeInfo(node("lone", taints=[NO_SCHEDULE]))
    assert lone.traits is None and NodeTraits.any_has([lone], "taints")


def test_filters_and_scores_follow_a_node_update_through_the_index() -> None:
    cache = Cache()
    cache.add_node(node("n1"))
    state = CycleState()
    taints, cordon = TaintToleration(), NodeUnschedulable()
    assert taints.filter_nodes(state, pod(), cache.nodes) == [None]
    assert cordon.filter_nodes(state, pod(), cache.nodes) == [None]
    status = taints.pre_score(state, pod(), cache.nodes)
    assert status is not None and status.code is Code.SKIP

    cache.update_node(node("n1", taints=[NO_SCHEDULE, PREFER_NO], unschedulable=True))
    [tainted] = taints.filter_nodes(state, pod(), cache.nodes)
    [cordoned] = cordon.filter_nodes(state, pod(), cache.nodes)
    assert tainted is not None and tainted.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert cordoned is not None and cordoned.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert taints.pre_score(CycleState(), pod(), cache.nodes) is None


def test_the_cache_indexes_the_nodes_without_room_for_one_more_pod() -> None:
    cache = Cache()
    small = node("small")
    small["status"]["allocatable"]["pods"] = "2"
    cache.add_node(small)
    cache.add_node(node("big"))
    state, fit, first = CycleState(), NodeResourcesFit(), pod("first")
    fit.pre_filter(state, first, cache.nodes)
    assert not cache.traits.full and fit.filter_nodes(state, first, cache.nodes) == [None, None]
    cache.assume_pod(PodInfo(pod("one")), "small")
    assert not cache.traits.full
    cache.assume_pod(PodInfo(pod("two")), "small")
    assert set(cache.traits.full) == {"small"}
    [full, room] = fit.filter_nodes(state, first, cache.nodes)
    assert full is not None and full.reasons == ("Too many pods",) and room is None
    cache.forget_pod("uid-two")
    assert not cache.traits.full and fit.filter_nodes(state, first, cache.nodes) == [None, None]
    cache.assume_pod(PodInfo(pod("two")), "small")
    small["status"]["allocatable"]["pods"] = "3"  # the node grew
    cache.update_node(small)
    assert not cache.traits.full


class _Handle:
    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def node_infos(self) -> Any:
        return self.cache.nodes


def test_image_locality_counts_the_nodes_holding_an_image_as_they_change() -> None:
    cache = Cache()
    for name in ("n1", "n2"):
        cache.add_node(node(name))
    plugin = ImageLocality(_Handle(cache))  # type: ignore[arg-type]
    status = plugin.pre_score(CycleState(), pod(), cache.nodes)
    assert status is not None and status.code is Code.SKIP
    big = [{"names": ["app:latest"], "sizeBytes": 500 * 1024 * 1024}]
    cache.update_node(node("n1", images=big))
    state = CycleState()
    assert plugin.pre_score(state, pod(), cache.nodes) is None
    one_of_two = plugin.score(state, pod(), cache.node("n1"))[0]  # type: ignore[arg-type]
    cache.update_node(node("n2", images=big))
    state = CycleState()
    assert plugin.pre_score(state, pod(), cache.nodes) is None
    assert plugin.score(state, pod(), cache.node("n1"))[0] > one_of_two  # type: ignore[arg-type]


def _fit_scores(plugin: NodeResourcesFit, incoming: dict[str, Any], nodes: Any) -> list[int]:
    state = CycleState()
    plugin.pre_filter(state, incoming, nodes)
    scores, status = plugin.score_nodes(state, incoming, nodes)
    assert status is None
    return scores


def _sized(name: str, cpu: str) -> dict[str, Any]:
    body = pod(name)
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    return body


def test_fit_scores_follow_each_change_of_a_node_and_the_pod_size() -> None:
    cache = Cache()
    for name in ("n1", "n2"):
        cache.add_node(node(name))
    plugin = NodeResourcesFit()
    small, large = _sized("small", "1"), _sized("large", "2")
    first = _fit_scores(plugin, small, cache.nodes)
    assert first[0] == first[1]
    assert _fit_scores(plugin, large, cache.nodes)[0] < first[0]  # another size, other scores
    cache.assume_pod(PodInfo(_sized("placed", "2")), "n1")
    after = _fit_scores(plugin, small, cache.nodes)
    assert after[0] < after[1] == first[1]
    cache.forget_pod("uid-placed")
    assert _fit_scores(plugin, small, cache.nodes) == first
    bigger = node("n2")
    bigger["status"]["allocatable"]["cpu"] = "8"
    cache.update_node(bigger)
    assert _fit_scores(plugin, small, cache.nodes)[1] > first[1]
    # a what-if copy with a pod more is a state of its own, never scored from its original's
    n1 = cache.node("n1")
    assert n1 is not None
    trial = n1.clone()
    trial.add_pod(PodInfo(_sized("more", "2")))
    assert _fit_scores(plugin, small, [trial])[0] < _fit_scores(plugin, small, [n1])[0]


async def test_reserve_takes_the_allocation_filter_found_in_its_memo(
    cluster: Cluster, eventually: Callable[..., Any]
) -> None:
    """The second pod's Filter answers from the memo for the nodes the first pod left alone;
    its Reserve allocates from that remembered answer."""
    for name in ("node-1", "node-2", "node-3"):
        await cluster.node(name)
        await cluster.slice(name, 1)
    await cluster.device_class()
    await cluster.claim("first")
    await cluster.pod("first", claims=[{"name": "gpu", "resourceClaimName": "first"}])
    scheduler = await cluster.start_scheduler()
    first_node = await eventually(lambda: cluster.node_of("first"))
    memo = scheduler.framework.plugins_by_name[DRA].memo
    hits = memo.hits
    await cluster.claim("second")
    await cluster.pod("second", claims=[{"name": "gpu", "resourceClaimName": "second"}])
    second_node = await eventually(lambda: cluster.node_of("second"))
    assert memo.hits > hits
    assert second_node != first_node
    claim = await cluster.get_claim("second")
    [result] = claim["status"]["allocation"]["devices"]["results"]
    assert (result["pool"], result["device"]) == (second_node, "gpu-0")


async def test_filter_asks_again_for_a_node_whose_labels_changed(
    cluster: Cluster, eventually: Callable[..., Any]
) -> None:
    """A node that could not allocate is remembered so; once relabelled into a slice's node
    selector, that answer is gone and the next pod goes there."""
    await cluster.node("node-1", labels={"gpu": "yes"})
    await cluster.node("node-2")
    await cluster.client.create(
        RESOURCE_SLICES,
        body={
            "metadata": {"name": "shared"},
            "spec": {
                "driver": DRIVER,
                "pool": {"name": "shared", "generation": 1, "resourceSliceCount": 1},
                "nodeSelector": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["yes"]}]}
                ]},
                "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}],
            },
        },
    )
    await cluster.device_class()
    await cluster.claim("first")
    await cluster.pod("first", claims=[{"name": "gpu", "resourceClaimName": "first"}])
    scheduler = await cluster.start_scheduler()
    assert await eventually(lambda: cluster.node_of("first")) == "node-1"
    hits = scheduler.framework.plugins_by_name[DRA].memo_hits
    await cluster.client.patch(NODES, name="node-2", patch={"metadata": {"labels": {"gpu": "yes"}}})
    await cluster.client.patch(NODES, name="node-1", patch={"spec": {"unschedulable": True}})
    cordoned, relabelled = scheduler.cache.node("node-1"), scheduler.cache.node("node-2")
    assert cordoned is not None and relabelled is not None
    await eventually(lambda: cordoned.unschedulable and relabelled.labels.get("gpu"))
    await cluster.claim("second")
    await cluster.pod("second", claims=[{"name": "gpu", "resourceClaimName": "second"}])
    assert await eventually(lambda: cluster.node_of("second")) == "node-2"
    # node-1 (cordoned) is never asked, node-2 was asked again: nothing came from the memo
    assert scheduler.framework.plugins_by_name[DRA].memo_hits == hits


@pytest.mark.parametrize(
    "totals",
    [[7], [1, 9, 3], [5, 5], [2, 8, 8, 1, 8], [0] * 230, [4, 9] * 100 + [9]],
)
def test_the_best_score_wins_and_ties_take_one_draw_in_node_order(totals: list[int]) -> None:
    best = max(totals)
    ties = [i for i, score in enumerate(totals) if score == best]
    for seed in range(20):
        expected = ties[random.Random(seed).randrange(len(ties))] if len(ties) > 1 else ties[0]
        assert best_score_index(totals, rng=random.Random(seed)) == expected


def test_plugins_reuse_the_schedulers_pod_info_only_for_that_very_pod_object() -> None:
    state = CycleState()
    scheduled = _sized("p", "1")
    state.pod_info = PodInfo(scheduled)
    assert pod_info_of(state, scheduled) is state.pod_info
    newer = _sized("p", "2")  # another version of the pod: parsed afresh
    assert pod_info_of(state, newer).requests.milli_cpu == 2000
    fit = NodeResourcesFit()
    fit.pre_filter(state, newer, [])
    [fits] = fit.filter_nodes(state, newer, [NodeInfo(node("n"))])
    assert fits is None  # 2 of the node's 4 cpus
    bigger = _sized("p", "5")
    fit.pre_filter(state, bigger, [])
    [too_big] = fit.filter_nodes(state, bigger, [NodeInfo(node("n"))])
    assert too_big is not None and too_big.reasons == ("Insufficient cpu",)
