"""NodeAffinity's PreFilter: terms that name nodes (``matchFields metadata.name In``, as a
DaemonSet pins its pods) narrow the nodes before Filter, as upstream's, and the FailedScheduling
message says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.scheduler.framework import CycleState
from fakeapi.scheduler.framework.status import Code
from fakeapi.scheduler.plugins.node_affinity import NodeAffinity

from .conftest import Cluster

Eventually = Callable[..., Any]


def _pinned(*terms: list[str]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": names}]}
            for names in terms
        ]}}}


def _pod(affinity: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}], "affinity": affinity}}


def test_terms_naming_nodes_narrow_the_nodes_and_their_union_is_kept() -> None:
    result, status = NodeAffinity().pre_filter(CycleState(), _pod(_pinned(["a", "b"], ["c"])), [])
    assert status is None and result is not None and result.node_names == {"a", "b", "c"}


def test_a_term_without_a_node_name_leaves_every_node_open() -> None:
    affinity = _pinned(["a"])
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    terms["nodeSelectorTerms"].append(
        {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}
    )
    result, status = NodeAffinity().pre_filter(CycleState(), _pod(affinity), [])
    assert (result, status) == (None, None)


def test_conflicting_node_names_are_unresolvable_at_pre_filter() -> None:
    conflict = _pinned(["a"])
    term = conflict["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]
    term["matchFields"].append({"key": "metadata.name", "operator": "In", "values": ["b"]})
    result, status = NodeAffinity().pre_filter(CycleState(), _pod(conflict), [])
    assert result is None and status is not None
    assert (status.code, status.reasons) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("pod affinity terms conflict",))


async def test_the_nodes_left_out_are_counted_as_not_satisfying_node_affinity(
    cluster: Cluster, eventually: Eventually
) -> None:
    for name in ("node-1", "node-2", "node-3"):
        await cluster.node(name, cpu="2")
    await cluster.start_scheduler()
    await cluster.pod("pinned", cpu="5", affinity=_pinned(["node-1"]))
    events = await eventually(lambda: cluster.events_about("pinned", reason="FailedScheduling"))
    assert events[0]["note"] == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
        "[NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found "
        "for incoming pod, 2 Preemption is not helpful for scheduling."
    )
