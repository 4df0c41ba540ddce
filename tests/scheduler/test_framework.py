"""The framework runtime: what each Status does at each extension point, with recording plugins."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fakeapi.clock import FakeClock
from fakeapi.scheduler.framework import (
    Code,
    CycleState,
    Framework,
    NodeInfo,
    NodeScore,
    PreFilterResult,
    Profile,
    Status,
    skip,
    unresolvable,
)
from fakeapi.scheduler.framework.waiting import go_duration
from fakeapi.scheduler.plugins.priority_sort import PrioritySort

Obj = Mapping[str, Any]
CALLS: list[str] = []


class _Handle:
    def __init__(self) -> None:
        self.clock = FakeClock()


class Binder:
    """Every profile needs a Bind plugin; these tests never reach binding."""

    name = "Binder"

    def __init__(self, handle: Any) -> None:
        pass

    async def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        return None


class Skipper:
    """PreFilter says Skip, so its Filter must never run."""

    name = "Skipper"

    def __init__(self, handle: Any) -> None:
        pass

    def pre_filter(self, state: CycleState, pod: Obj, nodes: Any) -> tuple[Any, Status | None]:
        return None, skip()

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        CALLS.append(f"Skipper.filter {node.name}")
        return unresolvable("never")


class OnlyB:
    """Rejects every node but "b"; scores by name; reserves and unreserves with a record."""

    name = "OnlyB"

    def __init__(self, handle: Any) -> None:
        pass

    def pre_filter(self, state: CycleState, pod: Obj, nodes: Any) -> tuple[Any, Status | None]:
        return PreFilterResult({"a", "b"}), None

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        return None if node.name == "b" else unresolvable("not b")

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        return {"a": 10, "b": 20}.get(node.name, 0), None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        for s in scores:
            s.score //= 2
        return None

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        CALLS.append("OnlyB.reserve")
        return None

    async def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        CALLS.append("OnlyB.unreserve")


class Waiter:
    """Reserves, then holds the pod at Permit for 10 s."""

    name = "Waiter"

    def __init__(self, handle: Any) -> None:
        pass

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        CALLS.append("Waiter.reserve")
        return None

    async def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        CALLS.append("Waiter.unreserve")

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status | None, float]:
        return Status(Code.WAIT), 10.0


class Broken:
    name = "Broken"

    def __init__(self, handle: Any) -> None:
        pass

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        raise RuntimeError("boom")


def framework(*plugins: type, weights: dict[str, int] | None = None) -> Framework:
    registry = {"PrioritySort": PrioritySort, "Binder": Binder, **{p.name: p for p in plugins}}
    return Framework(
        handle=_Handle(),  # type: ignore[arg-type]
        registry=registry,
        profile=Profile.multi_point(
            "PrioritySort", *(p.name for p in plugins), "Binder", weights=weights
        ),
    )


POD: dict[str, Any] = {
    "metadata": {"name": "p", "namespace": "default", "uid": "uid-p"},
    "spec": {"containers": []},
}


def nodes(*names: str) -> list[NodeInfo]:
    return [NodeInfo({"metadata": {"name": n}}) for n in names]


@pytest.fixture(autouse=True)
def _clear_calls() -> None:
    CALLS.clear()


def test_skip_at_pre_filter_means_filter_is_never_called() -> None:
    fw = framework(Skipper, OnlyB)
    state = CycleState()
    result, status = fw.run_pre_filter(state, POD, nodes("a", "b"))
    assert status is None and result is not None and result.node_names == {"a", "b"}
    statuses: dict[str, Status] = {}
    feasible, processed, error = fw.find_feasible(
        state, POD, nodes("a", "b", "c"), start=0, wanted=3, statuses=statuses
    )
    assert [n.name for n in feasible] == ["b"] and processed == 3 and error is None
    assert {k: (v.plugin, v.reasons) for k, v in statuses.items()} == {
        "a": ("OnlyB", ("not b",)),
        "c": ("OnlyB", ("not b",)),
    }
    assert CALLS == []


def test_filter_stops_once_enough_nodes_fit() -> None:
    fw = framework(OnlyB)
    feasible, processed, _ = fw.find_feasible(
        CycleState(), POD, nodes("b", "b2", "b"), start=0, wanted=1, statuses={}
    )
    assert len(feasible) == 1 and processed == 1


def test_a_plugin_that_raises_fails_the_attempt_with_an_error_naming_it() -> None:
    fw = framework(Broken)
    _, _, error = fw.find_feasible(CycleState(), POD, nodes("a"), start=0, wanted=1, statuses={})
    assert error is not None and error.code is Code.ERROR and error.plugin == "Broken"


class ScoresByName:
    """Scores without normalizing (no ScoreExtensions): node "big" gets 150, out of range."""

    name = "ScoresByName"

    def __init__(self, handle: Any) -> None:
        pass

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        return {"a": 40, "big": 150}.get(node.name, 7), None


def test_scores_without_normalizing_are_weighted_as_given() -> None:
    fw = framework(ScoresByName, weights={"ScoresByName": 2})
    totals, status = fw.run_score(CycleState(), POD, nodes("a", "c"))
    assert status is None and totals == [80, 14]


def test_a_score_out_of_range_fails_the_attempt_naming_plugin_and_score() -> None:
    fw = framework(ScoresByName)
    _, status = fw.run_score(CycleState(), POD, nodes("a", "big"))
    assert status is not None and status.code is Code.ERROR
    assert status.plugin == "ScoresByName"
    assert status.message == (
        "plugin ScoresByName returns an invalid score 150, "
        "it should in the range of [0, 100] after normalizing"
    )


def test_scores_are_normalized_then_weighted() -> None:
    fw = framework(OnlyB, weights={"OnlyB": 3})
    totals, status = fw.run_score(CycleState(), POD, nodes("a", "b"))
    assert status is None and totals == [15, 30]


async def test_permit_wait_times_out_on_the_clock_and_unreserve_runs_in_reverse() -> None:
    fw = framework(OnlyB, Waiter)
    state = CycleState()
    assert fw.run_reserve(state, POD, "b") is None
    status = fw.run_permit(state, POD, "b")
    assert status is not None and status.code is Code.WAIT
    waiting = asyncio.ensure_future(fw.wait_on_permit(POD))
    clock: FakeClock = fw.handle.clock  # type: ignore[assignment]
    for _ in range(100):  # until the wait has armed its timer
        if clock.sleepers:
            break
        await asyncio.sleep(0)
    clock.advance(10)
    rejected = await waiting
    assert rejected is not None and rejected.code is Code.UNSCHEDULABLE
    assert rejected.reasons == ("rejected due to timeout after waiting 10s at plugin Waiter",)
    await fw.run_unreserve(state, POD, "b")
    assert CALLS == ["OnlyB.reserve", "Waiter.reserve", "Waiter.unreserve", "OnlyB.unreserve"]


async def test_an_allowed_pod_proceeds_without_waiting_for_the_timeout() -> None:
    fw = framework(Waiter)
    state = CycleState()
    fw.run_permit(state, POD, "b")
    fw.waiting["uid-p"].allow("Waiter")
    assert await fw.wait_on_permit(POD) is None


def test_go_durations() -> None:
    assert [go_duration(s) for s in (0.5, 5, 60, 90, 3723)] == [
        "500ms",
        "5s",
        "1m0s",
        "1m30s",
        "1h2m3s",
    ]


class RejectsLabelledA:
    """Answers for many nodes at once: rejects nodes labelled ``a``, lets those labelled ``s``
    through with a SUCCESS status rather than None, and fails those labelled ``e``."""

    name = "RejectsLabelledA"

    def __init__(self, handle: Any) -> None:
        pass

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        if node.labels.get("e"):
            return Status(Code.ERROR, ("broken on e",))
        if node.labels.get("a"):
            return unresolvable("labelled a")
        return Status(Code.SUCCESS) if node.labels.get("s") else None

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        return [self.filter(state, pod, node) for node in nodes]


class RejectsLabelledB:
    """Answers node by node: rejects nodes labelled ``b``."""

    name = "RejectsLabelledB"

    def __init__(self, handle: Any) -> None:
        pass

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        return unresolvable("labelled b") if node.labels.get("b") else None


def labels(**flags: bool) -> dict[str, str]:
    return {key: "1" for key, value in flags.items() if value}


def one_node_at_a_time(
    fw: Framework, nodes: list[NodeInfo], *, start: int, wanted: int
) -> tuple[list[str], int, dict[str, tuple[str, tuple[str, ...]]]]:
    """The definition find_feasible must match: every filter per node, in rotation order,
    stopping at the wanted-th feasible node."""
    feasible: list[str] = []
    statuses: dict[str, tuple[str, tuple[str, ...]]] = {}
    processed = 0
    for i in range(len(nodes)):
        node = nodes[(start + i) % len(nodes)]
        processed += 1
        status = fw.run_filters(CycleState(), POD, node)
        if status is None:
            feasible.append(node.name)
            if len(feasible) >= wanted:
                break
        else:
            statuses[node.name] = (status.plugin, status.reasons)
    return feasible, processed, statuses


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    flags=st.lists(
        st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=150
    ),
    start_at=st.floats(min_value=0, max_value=1, exclude_max=True),
    wanted=st.one_of(
        st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=160)
    ),
)
@example(flags=[(i % 2 == 1, False, False) for i in range(40)], start_at=0.0, wanted=1)
@example(flags=[(i % 3 == 1, False, i % 3 == 2) for i in range(90)], start_at=0.5, wanted=40)
def test_filtering_in_chunks_answers_as_filtering_one_node_at_a_time(
    flags: list[tuple[bool, bool, bool]], start_at: float, wanted: int
) -> None:
    fw = framework(RejectsLabelledA, RejectsLabelledB)
    all_nodes = [
        NodeInfo({"metadata": {"name": f"n{i}", "labels": labels(a=a, b=b, s=success)}})
        for i, (a, b, success) in enumerate(flags)
    ]
    start = int(start_at * len(all_nodes))
    statuses: dict[str, Status] = {}

    feasible, processed, error = fw.find_feasible(
        CycleState(), POD, all_nodes, start=start, wanted=wanted, statuses=statuses
    )

    assert error is None
    assert (
        [n.name for n in feasible],
        processed,
        {k: (v.plugin, v.reasons) for k, v in statuses.items()},
    ) == one_node_at_a_time(fw, all_nodes, start=start, wanted=wanted)


def test_a_filter_error_stops_at_its_node_with_the_rejections_before_it() -> None:
    fw = framework(RejectsLabelledA)
    all_nodes = [
        NodeInfo({"metadata": {"name": name, "labels": labels(a=a, e=e)}})
        for name, a, e in [("n0", True, False), ("n1", False, False), ("n2", True, False),
                           ("n3", False, True), ("n4", True, False)]
    ]
    statuses: dict[str, Status] = {}
    feasible, processed, error = fw.find_feasible(
        CycleState(), POD, all_nodes, start=1, wanted=5, statuses=statuses
    )
    assert feasible == [] and processed == 3
    assert error is not None and error.code is Code.ERROR and error.plugin == "RejectsLabelledA"
    assert error.message == 'running "RejectsLabelledA" filter plugin: broken on e'
    assert set(statuses) == {"n2"}
