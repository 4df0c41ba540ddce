"""Components of a user's own in the assembler: what they are given, when they start and stop,
how they are named, and how their failures reach the failure report."""

from __future__ import annotations

import asyncio
import functools
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from fakeapi.client import CONFIGMAPS, NODES
from fakeapi.cluster import Cluster, ComponentContext, eventually
from fakeapi.cluster.options import component_name

CALLS: list[str] = []


class Recorder:
    """Notes what it saw when it started and stopped."""

    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx
        self.seen: dict[str, Any] = {}

    async def start(self) -> None:
        node = await self.ctx.client.get(NODES, name="node-1")
        ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
        self.seen["node ready at start"] = ready[0]["status"]
        CALLS.append(f"start {self.ctx.name}")

    async def stop(self) -> None:
        CALLS.append(f"stop {self.ctx.name}")


class Writer:
    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx

    async def start(self) -> None:
        body = {"metadata": {"name": self.ctx.name, "namespace": "default"},
                "data": {"draw": str(self.ctx.rng.random())}}
        await self.ctx.client.create(CONFIGMAPS, body=body)

    async def stop(self) -> None:
        pass


class Crashing:
    """Its background task dies; it logs a warning on the way."""

    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx

    async def start(self) -> None:
        self.ctx.log.warning("cache is %d%% full", 97)
        self.ctx.spawn(self._loop(), name="loop")

    async def _loop(self) -> None:
        await asyncio.sleep(0)
        raise KeyError("pod default/web vanished")

    async def stop(self) -> None:
        pass


class NoStart:
    def __init__(self, ctx: ComponentContext) -> None:
        pass


class FailsToStart:
    def __init__(self, ctx: ComponentContext) -> None:
        pass

    async def start(self) -> None:
        raise RuntimeError("the license server is down")

    async def stop(self) -> None:
        pass


async def test_a_component_gets_its_own_client_field_manager_and_random_source() -> None:
    async with Cluster(components=(), profiles=(), seed=7, extra_components=[Writer]) as cluster:
        stored = await cluster.client.get(CONFIGMAPS, name="writer")
        assert [e["manager"] for e in stored["metadata"]["managedFields"]] == ["writer"]
        assert stored["data"]["draw"] == str(random.Random("7:writer").random())


async def test_the_context_serves_the_url_and_kubeconfig_when_the_cluster_does() -> None:
    seen: list[ComponentContext] = []

    def factory(ctx: ComponentContext) -> Writer:
        seen.append(ctx)
        return Writer(ctx)

    async with Cluster(components=(), profiles=(), extra_components={"a": factory}):
        assert (seen[0].url, seen[0].kubeconfig) == (None, None)
    async with Cluster(components=(), profiles=(), http=True,
                       extra_components={"b": factory}) as cluster:
        assert (seen[1].url, seen[1].kubeconfig) == (cluster.url, cluster.kubeconfig)
        assert seen[1].informers is cluster.informers and seen[1].clock is cluster.clock


async def test_user_components_start_after_the_built_in_ones_and_stop_before_them() -> None:
    CALLS.clear()
    made: list[Recorder] = []

    def recorder(ctx: ComponentContext) -> Recorder:
        made.append(Recorder(ctx))
        return made[-1]

    cluster = Cluster(nodes=1, stages="fast", extra_components={"first": recorder,
                                                                 "second": recorder})
    await cluster.start()
    assert [r.seen["node ready at start"] for r in made] == ["True", "True"]
    assert cluster.kubelets["node-1"].running

    def note_kubelet_stop(original: Any) -> Any:
        async def stop() -> None:
            CALLS.append("stop kubelet")
            await original()
        return stop

    cluster.kubelets["node-1"].stop = note_kubelet_stop(cluster.kubelets["node-1"].stop)
    await cluster.stop()
    assert CALLS == ["start first", "start second", "stop second", "stop first", "stop kubelet"]


async def test_failures_of_a_running_component_are_in_the_failure_report() -> None:
    async with Cluster(components=(), profiles=(), extra_components=[Crashing]) as cluster:
        await eventually(lambda: len(cluster.component_errors) == 2)
        report = cluster.failure_report()
    assert "component errors (oldest first):\n  crashing: cache is 97% full\n" in report
    assert "  crashing: task crashing loop failed: KeyError('pod default/web vanished')" in report
    assert "KeyError: 'pod default/web vanished'" in report  # the traceback's last line


async def test_a_component_that_fails_to_start_fails_the_cluster_and_says_which() -> None:
    cluster = Cluster(components=(), profiles=(), extra_components=[FailsToStart])
    with pytest.raises(RuntimeError, match="the license server is down") as caught:
        await cluster.start()
    assert "while starting component 'fails-to-start'" in caught.value.__notes__
    assert "fails-to-start: failed to start: RuntimeError" in cluster.failure_report()


async def test_a_factory_must_return_something_that_starts_and_stops() -> None:
    cluster = Cluster(components=(), profiles=(), extra_components=[NoStart])
    with pytest.raises(TypeError, match=re.escape(
        "component 'no-start': its factory returned NoStart, which has no async start()"
    )):
        await cluster.start()


async def test_a_user_component_stops_and_starts_again_on_its_own() -> None:
    async with Cluster(components=(), profiles=(), extra_components=[Writer]) as cluster:
        await cluster.stop_component("writer")
        await cluster.client.delete(CONFIGMAPS, name="writer")
        with pytest.raises(TypeError, match="writer takes no options"):
            await cluster.start_component("writer", workers=2)
        await cluster.start_component("writer")
        assert (await cluster.client.get(CONFIGMAPS, name="writer"))["data"]["draw"]


@pytest.mark.parametrize(
    ("factory", "name"),
    [
        (Writer, "writer"),
        (FailsToStart, "fails-to-start"),
        (Cluster, "cluster"),
        (functools.partial(Writer), "writer"),
    ],
)
def test_a_component_is_named_after_its_factory_in_kebab_case(factory: Any, name: str) -> None:
    assert component_name(factory) == name


def test_names_must_be_unique_and_leave_the_built_in_ones_alone() -> None:
    with pytest.raises(ValueError, match="two components are named 'writer'"):
        Cluster(extra_components=[Writer, Writer])
    with pytest.raises(ValueError, match="component name 'scheduler' is a built-in component's"):
        Cluster(extra_components={"scheduler": Writer})
    with pytest.raises(ValueError, match="cannot name component"):
        Cluster(extra_components=[lambda ctx: Writer(ctx)])


def test_a_factory_may_be_named_as_module_and_attribute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_components.py").write_text(
        "def make(ctx):\n    raise NotImplementedError\nmake.component_name = 'mine'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cluster = Cluster(extra_components=["my_components:make"])
    assert list(cluster.extra_components) == ["mine"]
    with pytest.raises(ValueError, match=r"component 'my_components:absent': .*absent"):
        Cluster(extra_components=["my_components:absent"])
    with pytest.raises(ValueError, match="component 'nowhere:make': No module named 'nowhere'"):
        Cluster(extra_components=["nowhere:make"])
    sys.modules.pop("my_components", None)


def test_component_feature_gates_may_name_a_user_component() -> None:
    cluster = Cluster(extra_components=[Writer],
                      component_feature_gates={"writer": {"DRAAdminAccess": False}})
    assert cluster.gates_of("writer") == {"DRAAdminAccess": False}
    with pytest.raises(ValueError, match=r"component_feature_gates names unknown component\(s\)"):
        Cluster(component_feature_gates={"reader": {}})
