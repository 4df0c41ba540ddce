"""DynamicResources' Filter timeout (upstream ``filterTimeout``, DRASchedulerFilterTimeout): an
allocation search that runs past its deadline gives up on that node with upstream's words.

The search looks at the clock every 256 steps; these tests make it look at every step and give
it a clock that moves one second per reading, so a deadline is passed after a known number of
steps without any real waiting.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.clock import Clock
from fakeapi.scheduler.plugins.dynamic_resources import (
    AllocationTimeoutError,
    Allocator,
    DeviceInventory,
)
from fakeapi.scheduler.plugins.dynamic_resources import search as search_module
from fakeapi.scheduler.plugins.dynamic_resources.plugin import (
    DEFAULT_FILTER_TIMEOUT,
    DynamicResources,
)

from .conftest import Cluster
from .test_allocator_claim_limit import GPU_CLASS, gpu_slice

Eventually = Callable[..., Any]


@pytest.fixture
def deadline_checked_every_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "_DEADLINE_MASK", 0)


def inventory(devices: int) -> DeviceInventory:
    made = DeviceInventory()
    made.upsert_class(GPU_CLASS)
    made.upsert_slice(gpu_slice(devices), key="node-1-gpu")
    return made


def claim(count: int) -> dict[str, Any]:
    return {
        "metadata": {"namespace": "ns", "name": "c"},
        "spec": {
            "devices": {
                "requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": count}}]
            }
        },
    }


@pytest.mark.usefixtures("deadline_checked_every_step")
def test_a_search_past_its_deadline_raises_the_timeout_error() -> None:
    allocator = Allocator(inventory=inventory(8))
    readings = itertools.count()

    with pytest.raises(AllocationTimeoutError) as err:
        allocator.allocate(claims=[claim(4)], node="node-1", deadline=2, now=readings.__next__)

    assert str(err.value) == "timed out trying to allocate devices"


@pytest.mark.usefixtures("deadline_checked_every_step")
def test_the_same_search_without_a_deadline_or_with_time_to_spare_allocates() -> None:
    allocator = Allocator(inventory=inventory(8))
    unbounded = allocator.allocate(claims=[claim(4)], node="node-1")
    in_time = allocator.allocate(
        claims=[claim(4)], node="node-1", deadline=1_000, now=itertools.count().__next__
    )

    assert unbounded is not None and in_time == unbounded


class _RunningClock:
    """A fake clock whose monotonic time moves on one second each time it is read."""

    def __init__(self, inner: Clock) -> None:
        self._inner = inner
        self._readings = 0

    def monotonic(self) -> float:
        self._readings += 1
        return self._inner.monotonic() + self._readings

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _dynamic_resources(scheduler: Any) -> DynamicResources:
    found: DynamicResources = next(
        p for p in scheduler.framework.plugins if isinstance(p, DynamicResources)
    )
    return found


@pytest.mark.usefixtures("deadline_checked_every_step")
async def test_a_filter_past_its_timeout_leaves_the_pod_pending_with_upstreams_words(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.slice("node-1", 8)
    await cluster.claim("big", count=4)
    scheduler = await cluster.start_scheduler()
    plugin = _dynamic_resources(scheduler)
    assert plugin.filter_timeout == DEFAULT_FILTER_TIMEOUT
    plugin.filter_timeout = 2
    scheduler.clock = _RunningClock(cluster.clock)  # type: ignore[assignment]

    await cluster.pod("app", claims=[{"name": "gpu", "resourceClaimName": "big"}])

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert events[0]["note"].startswith(
        "0/1 nodes are available: 1 timed out trying to allocate devices."
    )
    assert await cluster.node_of("app") is None


async def test_the_filter_timeout_is_off_without_its_feature_gate() -> None:
    cluster = Cluster(feature_gates={"DRASchedulerFilterTimeout": False})
    try:
        scheduler = await cluster.start_scheduler()
        assert _dynamic_resources(scheduler).filter_timeout == 0
    finally:
        await cluster.stop()
