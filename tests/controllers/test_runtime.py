"""The reconcile runtime's one retry switch, on a FakeClock."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from fakeapi.clock import FakeClock
from fakeapi.controllers import CONTROLLER_NAMES, Controller, Result, select_controllers
from fakeapi.errors import StatusError


def _error(code: int, reason: str) -> StatusError:
    return StatusError(code, reason, f"{reason.lower()}!", {})


async def _run(seconds: float = 0.0, clock: FakeClock | None = None) -> None:
    for _ in range(20):
        await asyncio.sleep(0)
    if clock is not None and seconds:
        clock.advance(seconds)
        for _ in range(20):
            await asyncio.sleep(0)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def test_a_conflict_is_retried_at_once_then_backs_off(clock):
    calls: Counter[str] = Counter()

    async def reconcile(key: str) -> Result | None:
        calls[key] += 1
        raise _error(409, "Conflict")

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.start()
    controller.enqueue("k")
    await _run()
    assert calls["k"] == 6  # the first attempt and five immediate retries
    await _run(1.0, clock)
    assert calls["k"] > 6
    await controller.stop()


async def test_not_found_is_forgotten(clock):
    calls: Counter[str] = Counter()

    async def reconcile(key: str) -> Result | None:
        calls[key] += 1
        raise _error(404, "NotFound")

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.start()
    controller.enqueue("k")
    await _run(3600, clock)
    assert calls["k"] == 1
    assert controller.queue.num_requeues("k") == 0
    await controller.stop()


async def test_other_errors_back_off_on_the_clock(clock):
    calls: Counter[str] = Counter()

    async def reconcile(key: str) -> Result | None:
        calls[key] += 1
        if calls[key] < 3:
            raise RuntimeError("boom")
        return None

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.start()
    controller.enqueue("k")
    await _run()
    assert calls["k"] == 1
    await _run(0.005, clock)
    assert calls["k"] == 2
    await _run(0.010, clock)
    assert calls["k"] == 3
    assert controller.errors == 2
    assert controller.queue.num_requeues("k") == 0  # success forgets the backoff
    await controller.stop()


async def test_requeue_after_revisits_the_key_at_that_time(clock):
    calls: Counter[str] = Counter()

    async def reconcile(key: str) -> Result | None:
        calls[key] += 1
        return Result(requeue_after=30) if calls[key] == 1 else None

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.start()
    controller.enqueue("k")
    await _run(29, clock)
    assert calls["k"] == 1
    await _run(1, clock)
    assert calls["k"] == 2
    await controller.stop()


async def test_keys_added_after_stop_are_ignored(clock):
    calls: Counter[str] = Counter()

    async def reconcile(key: str) -> Result | None:
        calls[key] += 1
        return None

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.start()
    await controller.stop()
    controller.enqueue("k")
    await _run()
    assert not calls


async def test_watch_queues_the_key_of_each_changed_object(clock):
    from fakeapi.bootstrap import new_registry
    from fakeapi.client import CONFIGMAPS, Client, InformerFactory
    from fakeapi.server.inprocess import InProcessTransport

    registry = new_registry(clock=clock)
    client = Client(InProcessTransport(registry))
    informers = InformerFactory(client, clock=clock)
    seen: list[str] = []

    async def reconcile(key: str) -> Result | None:
        seen.append(key)
        return None

    controller = Controller(name="t", reconcile=reconcile, clock=clock)
    controller.watch(
        informers.informer(CONFIGMAPS, namespace="default"),
        key=lambda obj: (
            None if obj["metadata"]["name"] == "skip" else "cm:" + obj["metadata"]["name"]
        ),
    )
    informers.start()
    await informers.wait_for_sync(timeout=5)
    controller.start()
    for name in ("a", "skip"):
        await client.create(CONFIGMAPS, body={"metadata": {"name": name, "namespace": "default"}})
    await client.delete(CONFIGMAPS, namespace="default", name="a")
    await _run()
    assert seen and set(seen) == {"cm:a"}
    await controller.stop()
    await informers.stop()


async def test_stop_unregisters_the_owned_metrics_so_a_new_controller_can_register_them(clock):
    from prometheus_client import CollectorRegistry
    from prometheus_client import Counter as PromCounter

    metrics = CollectorRegistry()

    async def reconcile(key: str) -> Result | None:
        return None

    for _ in range(2):  # the second round registers the same names again
        controller = Controller(name="t", reconcile=reconcile, clock=clock, metrics=metrics)
        syncs = PromCounter("t_syncs", "syncs", registry=metrics)
        controller.own_metrics(syncs)
        controller.start()
        assert metrics.get_sample_value("t_syncs_total") == 0.0
        await controller.stop()
        assert metrics.get_sample_value("t_syncs_total") is None


@pytest.mark.parametrize(
    ("spec", "chosen"),
    [
        ("*", CONTROLLER_NAMES),
        (
            "*,-node-lifecycle-controller",
            tuple(n for n in CONTROLLER_NAMES if n != "node-lifecycle-controller"),
        ),
        (
            "node-lifecycle-controller,resourceclaim-controller",
            ("resourceclaim-controller", "node-lifecycle-controller"),
        ),
        ("resourceclaim-controller,-resourceclaim-controller", ()),
    ],
)
def test_controllers_are_chosen_as_kube_controller_managers_flag_does(
    spec: str, chosen: tuple[str, ...]
) -> None:
    assert select_controllers(spec) == chosen


def test_an_unknown_controller_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown controller"):
        select_controllers("*,-nodelifecycle-typo")
