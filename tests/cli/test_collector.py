"""The sandbox's collector: young collections freeze their objects instead of scanning them, an
explicit full collection is left alone, and the periodic sweep still collects cyclic garbage
that was frozen (alive or not)."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Iterator

import pytest

from fakeapi import cli


class _Node:
    other: _Node | None = None


@pytest.fixture
def thawed_afterwards() -> Iterator[None]:
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.mark.usefixtures("thawed_afterwards")
async def test_a_cycle_frozen_while_alive_is_collected_by_the_sweep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    alive = weakref.ref(first)
    cli._freeze_young("start", {"generation": 0})  # a young collection froze the cycle
    del first, second
    gc.collect()
    assert alive() is not None  # frozen: no collection looks at it

    monkeypatch.setattr(cli, "_last_sweep", [time.monotonic() - cli.SWEEP_SECONDS - 1])
    cli._freeze_young("stop", {"generation": 0})
    await asyncio.sleep(0)  # the sweep runs once the loop is back in control
    assert alive() is None


@pytest.mark.usefixtures("thawed_afterwards")
async def test_no_sweep_before_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_last_sweep", [time.monotonic()])
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    alive = weakref.ref(first)
    cli._freeze_young("stop", {"generation": 0})
    del first, second
    await asyncio.sleep(0)
    assert alive() is not None


@pytest.mark.usefixtures("thawed_afterwards")
def test_a_young_collection_freezes_its_objects_and_has_nothing_left_to_scan() -> None:
    young = [_Node() for _ in range(100)]
    before = gc.get_freeze_count()
    cli._freeze_young("start", {"generation": 0})
    assert gc.get_count()[0] == 0
    assert gc.get_freeze_count() >= before + len(young)


@pytest.mark.usefixtures("thawed_afterwards")
def test_an_explicit_full_collection_still_collects_young_cycles() -> None:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    alive = weakref.ref(first)
    del first, second
    cli._freeze_young("start", {"generation": 2})  # what gc.collect() announces
    gc.collect()
    assert alive() is None
