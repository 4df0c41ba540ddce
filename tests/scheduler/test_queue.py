"""The scheduling queue on its own: backoff, hint-driven moves, in-flight events, the flush.

A framework with test plugins stands in for the real ones: ``Rejecter`` registers Node adds
with a hint that queues only for nodes labelled ``ready``, ``Gate`` keeps pods labelled ``gated``
out of the active queue until they lose the label, and ``Keyed`` registers Node adds with an
event index: a pod labelled ``wants=<node>`` is only asked about that node (or about a node
labelled ``any``), and its hint counts the pods it is asked about.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from fakeapi.clock import FakeClock
from fakeapi.scheduler.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    Framework,
    Profile,
    QueueingHint,
    Status,
    unschedulable,
)
from fakeapi.scheduler.framework.events import UNSCHEDULABLE_TIMEOUT
from fakeapi.scheduler.plugins.priority_sort import PrioritySort
from fakeapi.scheduler.queue import SchedulingQueue

Obj = Mapping[str, Any]
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)


class Rejecter:
    name = "Rejecter"

    def __init__(self, handle: Any) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def ready(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
            labels = ((new or {}).get("metadata") or {}).get("labels") or {}
            return QueueingHint.QUEUE if labels.get("ready") else QueueingHint.QUEUE_SKIP

        return [ClusterEventWithHint(NODE_ADD, ready)]


class Gate:
    name = "Gate"

    def __init__(self, handle: Any) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL)
            )
        ]

    def pre_enqueue(self, pod: Obj) -> Status | None:
        if (pod.get("metadata") or {}).get("labels", {}).get("gated"):
            return unschedulable("gated by label")
        return None


def _wanted_node(pod: Obj) -> frozenset[str] | None:
    wants = ((pod.get("metadata") or {}).get("labels") or {}).get("wants")
    return frozenset((wants,)) if wants else None


def _added_node(old: Obj | None, new: Obj | None) -> frozenset[str] | None:
    meta = (new or {}).get("metadata") or {}
    return None if (meta.get("labels") or {}).get("any") else frozenset((meta.get("name", ""),))


class Keyed:
    name = "Keyed"
    asked: ClassVar[list[str]] = []

    def __init__(self, handle: Any) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def wanted(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
            Keyed.asked.append(pod["metadata"]["name"])
            keys, added = _wanted_node(pod), _added_node(old, new)
            if keys is None or added is None or keys & added:
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP

        index = EventIndex(name="Keyed/nodes", pod_keys=_wanted_node, event_keys=_added_node)
        return [ClusterEventWithHint(NODE_ADD, wanted, index)]


class Binder:
    """Every profile needs a Bind plugin; the queue never binds."""

    name = "Binder"

    def __init__(self, handle: Any) -> None:
        pass

    async def bind(self, state: Any, pod: Any, node_name: str) -> None:
        return None


class _Handle:
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock


def make_queue(clock: FakeClock) -> SchedulingQueue:
    framework = Framework(
        handle=_Handle(clock),  # type: ignore[arg-type]
        registry={
            "PrioritySort": PrioritySort,
            "Rejecter": Rejecter,
            "Gate": Gate,
            "Keyed": Keyed,
            "Binder": Binder,
        },
        profile=Profile.multi_point("PrioritySort", "Rejecter", "Gate", "Keyed", "Binder"),
    )
    return SchedulingQueue(framework=framework, clock=clock)


def pod(name: str, *, priority: int = 0, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "labels": labels or {},
        },
        "spec": {"priority": priority, "containers": []},
    }


def node(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}}


async def pop_now(queue: SchedulingQueue) -> Any:
    return await asyncio.wait_for(queue.pop(), timeout=1)


async def reject(queue: SchedulingQueue, name: str, *, plugin: str = "Rejecter") -> Any:
    qpi = await pop_now(queue)
    assert qpi.info.name == name
    qpi.unschedulable_plugins = {plugin}
    queue.add_unschedulable_if_not_present(qpi)
    return qpi


async def test_active_queue_serves_higher_priority_first_then_older() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("low", priority=1))
    clock.advance(1)
    queue.add(pod("high-late", priority=5))
    queue.add(pod("low-late", priority=1))
    names = [(await pop_now(queue)).info.name for _ in range(3)]
    assert names == ["high-late", "low", "low-late"]


async def test_backoff_doubles_from_one_second_up_to_ten() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    qpi = await pop_now(queue)
    durations = []
    for attempts in range(1, 7):
        qpi.attempts = attempts
        durations.append(queue.backoff_duration(qpi))
    assert durations == [1, 2, 4, 8, 10, 10]


async def test_rejected_pod_waits_until_a_hint_says_queue() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    await reject(queue, "p")
    assert queue.where("uid-p") == "unschedulable"

    queue.on_event(NODE_ADD, None, node("n1"))
    assert queue.where("uid-p") == "unschedulable"

    queue.on_event(NODE_ADD, None, node("n2", ready="yes"))
    assert queue.where("uid-p") == "backoff"
    clock.advance(1.0)
    queue.flush_backoff_completed()
    assert queue.where("uid-p") == "active"


async def test_events_of_plugins_that_did_not_reject_the_pod_do_not_move_it() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    await reject(queue, "p", plugin="Gate")

    queue.on_event(NODE_ADD, None, node("n", ready="yes"))

    assert queue.where("uid-p") == "unschedulable"


async def test_an_event_during_the_attempt_sends_the_pod_to_backoff() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    qpi = await pop_now(queue)
    queue.on_event(NODE_ADD, None, node("n", ready="yes"))  # while "p" is in flight
    qpi.unschedulable_plugins = {"Rejecter"}
    queue.add_unschedulable_if_not_present(qpi)
    assert queue.where("uid-p") == "backoff"


async def test_an_error_always_backs_off() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    qpi = await pop_now(queue)
    qpi.failed_with_error = True
    queue.add_unschedulable_if_not_present(qpi)
    assert queue.where("uid-p") == "backoff"


async def test_pods_waiting_longer_than_five_minutes_are_flushed() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    await reject(queue, "p")
    clock.advance(299)
    queue.flush_unschedulable_left_over()
    assert queue.where("uid-p") == "unschedulable"
    clock.advance(2)
    queue.flush_unschedulable_left_over()
    assert queue.where("uid-p") == "active"


async def test_flushers_move_backoff_pods_on_the_injected_clock() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    flusher = asyncio.get_running_loop().create_task(queue.run_flushers())
    try:
        queue.add(pod("p"))
        qpi = await pop_now(queue)
        qpi.failed_with_error = True
        queue.add_unschedulable_if_not_present(qpi)
        await asyncio.sleep(0)
        clock.advance(1.0)
        again = await pop_now(queue)
        assert again.info.name == "p" and again.attempts == 2
    finally:
        queue.close()
        flusher.cancel()


async def test_pre_enqueue_gates_until_the_pods_own_update_lets_it_in() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    gated = pod("p", labels={"gated": "yes"})
    queue.add(gated)
    assert queue.where("uid-p") == "gated"
    assert queue.pending_counts()["gated"] == 1

    queue.update(gated, pod("p"))

    assert queue.where("uid-p") == "active"


async def test_unschedulable_timeout_event_moves_every_pod() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    await reject(queue, "p")
    queue.on_event(UNSCHEDULABLE_TIMEOUT, None, None)
    assert queue.where("uid-p") == "backoff"


async def test_deleted_pods_leave_the_queue() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    queue.delete(pod("p"))
    assert queue.where("uid-p") is None
    queue.close()
    assert await queue.pop() is None


async def test_activate_moves_a_pod_out_of_the_pool() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p"))
    await reject(queue, "p")
    queue.activate([pod("p")])
    assert queue.where("uid-p") == "active"


async def reject_all(queue: SchedulingQueue, rejectors: dict[str, str]) -> None:
    """Pop every active pod (in whatever order) and have the named plugin reject it."""
    for _ in rejectors:
        qpi = await pop_now(queue)
        qpi.unschedulable_plugins = {rejectors[qpi.info.name]}
        queue.add_unschedulable_if_not_present(qpi)
    Keyed.asked.clear()


async def test_an_indexed_hint_is_asked_only_about_pods_sharing_a_key_with_the_event() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("a", labels={"wants": "n1"}))
    queue.add(pod("b", labels={"wants": "n2"}))
    queue.add(pod("unkeyed"))
    queue.add(pod("other-plugin", labels={"wants": "n1"}))
    await reject_all(
        queue, {"a": "Keyed", "b": "Keyed", "unkeyed": "Keyed", "other-plugin": "Gate"}
    )

    queue.on_event(NODE_ADD, None, node("n1"))

    assert sorted(Keyed.asked) == ["a", "unkeyed"]
    assert queue.where("uid-a") == "backoff"
    assert queue.where("uid-unkeyed") == "backoff"
    assert queue.where("uid-b") == "unschedulable"
    assert queue.where("uid-other-plugin") == "unschedulable"


async def test_an_event_without_keys_asks_every_pod_of_the_rejecting_plugin() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    for name in ("a", "b"):
        queue.add(pod(name, labels={"wants": f"node-of-{name}"}))
    await reject_all(queue, {"a": "Keyed", "b": "Keyed"})

    queue.on_event(NODE_ADD, None, node("n9", any="yes"))

    assert sorted(Keyed.asked) == ["a", "b"]
    assert queue.where("uid-a") == queue.where("uid-b") == "backoff"


async def test_a_waiting_pods_keys_follow_its_updates() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p", labels={"wants": "n1"}))
    await reject_all(queue, {"p": "Keyed"})

    queue.update(pod("p", labels={"wants": "n1"}), pod("p", labels={"wants": "n2"}))
    queue.on_event(NODE_ADD, None, node("n1"))
    assert Keyed.asked == [] and queue.where("uid-p") == "unschedulable"

    queue.on_event(NODE_ADD, None, node("n2"))
    assert Keyed.asked == ["p"] and queue.where("uid-p") == "backoff"


async def test_a_pod_leaving_the_pool_is_no_longer_filed_under_its_keys() -> None:
    clock = FakeClock()
    queue = make_queue(clock)
    queue.add(pod("p", labels={"wants": "n1"}))
    await reject_all(queue, {"p": "Keyed"})
    queue.delete(pod("p"))

    queue.on_event(NODE_ADD, None, node("n1"))

    assert Keyed.asked == []
    assert queue.where("uid-p") is None
