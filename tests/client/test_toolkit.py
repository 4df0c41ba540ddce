"""The component toolkit: shared informers, read-your-writes, retries, events, queue draining.

Every test that talks to the API runs over both transports (``client`` fixture): a component
written against the toolkit must behave the same in-process and against a server over HTTP.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    EVENTS_K8S_IO,
    NODE_NAME_INDEX,
    NODES,
    PODS,
    Client,
    EventRecorder,
    HttpTransport,
    InformerFactory,
    WorkQueue,
    is_already_exists,
    is_conflict,
    is_gone,
    is_invalid,
    is_not_found,
    node_name_index,
    retry_on_conflict,
    wait_for_sync,
)
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError, conflict, expired, not_found
from fakeapi.registry.store import GenericStore
from fakeapi.server import inprocess
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.runner import ApiServer

Eventually = Callable[..., Any]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cluster(clock: FakeClock) -> GenericStore:
    return new_registry(clock=clock)


@pytest.fixture(params=["inprocess", "http"])
async def client(request: pytest.FixtureRequest, cluster: GenericStore) -> AsyncIterator[Client]:
    if request.param == "inprocess":
        yield Client(InProcessTransport(cluster), field_manager="toolkit-test")
        return
    async with (
        ApiServer(
            registry=cluster, watch=WatchSettings(min_timeout=30.0, bookmark_interval=30.0)
        ) as running,
        Client(HttpTransport(running.url), field_manager="toolkit-test") as remote,
    ):
        yield remote


def pod(name: str, *, node: str = "", labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": spec}


class TestSharedInformers:
    async def test_same_resource_and_selectors_share_one_informer(self, client: Client) -> None:
        factory = InformerFactory(client)
        assert factory.informer(PODS) is factory.informer(PODS)
        assert factory.informer(PODS, field_selector="spec.nodeName=a") is not factory.informer(
            PODS
        )
        # a namespace on a cluster-scoped resource is meaningless and must not split the cache
        assert factory.informer(NODES, namespace="x") is factory.informer(NODES)

    async def test_informers_asked_for_after_start_start_at_once(self, client: Client) -> None:
        factory = InformerFactory(client)
        factory.start()
        nodes = factory.informer(NODES)
        await factory.wait_for_sync(nodes, timeout=5)
        assert nodes.has_synced
        await factory.stop()
        assert not nodes.running

    async def test_wait_for_sync_times_out_when_an_informer_never_lists(
        self, client: Client
    ) -> None:
        factory = InformerFactory(client)
        never_started = factory.informer(PODS)
        with pytest.raises(TimeoutError):
            await wait_for_sync(never_started, timeout=0.05)


class TestReadYourWrites:
    async def test_a_create_is_in_the_cache_before_its_watch_event(self, client: Client) -> None:
        factory = InformerFactory(client)
        pods = factory.informer(PODS, namespace="default")
        factory.start()
        await factory.wait_for_sync(timeout=5)
        created = await client.create(PODS, body=pod("web"), namespace="default")
        # no await between the write returning and this read: the watch cannot have delivered
        cached = pods.get("default/web")
        assert cached is not None
        assert cached["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
        await factory.stop()

    async def test_writes_only_reach_informers_whose_selectors_match(self, client: Client) -> None:
        factory = InformerFactory(client)
        on_a = factory.informer(PODS, field_selector="spec.nodeName=a")
        labelled = factory.informer(PODS, label_selector="app=db")
        factory.start()
        await factory.wait_for_sync(timeout=5)
        await client.create(PODS, body=pod("p1", node="a"), namespace="default")
        await client.create(
            PODS, body=pod("p2", node="b", labels={"app": "db"}), namespace="default"
        )
        assert on_a.keys() == ["default/p1"]
        assert labelled.keys() == ["default/p2"]
        await factory.stop()

    async def test_an_older_watch_event_never_replaces_a_newer_own_write(
        self, client: Client, eventually: Eventually
    ) -> None:
        factory = InformerFactory(client)
        pods = factory.informer(PODS)
        seen: list[str] = []
        pods.add_handler(on_update=lambda old, new: seen.append(new["metadata"]["resourceVersion"]))
        factory.start()
        await factory.wait_for_sync(timeout=5)
        first = await client.create(PODS, body=pod("web"), namespace="default")
        second = await client.patch(
            PODS, name="web", namespace="default", patch={"metadata": {"labels": {"v": "2"}}}
        )
        await eventually(
            lambda: pods.last_resource_version == second["metadata"]["resourceVersion"]
        )
        cached = pods.get("default/web")
        assert cached is not None and cached["metadata"]["labels"] == {"v": "2"}
        # the patch was seen once, from our own write; its watch event added nothing
        assert seen == [second["metadata"]["resourceVersion"]]
        assert first["metadata"]["resourceVersion"] not in seen
        await factory.stop()

    async def test_the_watch_event_of_an_own_write_is_never_decoded_in_process(
        self, cluster: GenericStore, eventually: Eventually, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        client = Client(InProcessTransport(cluster))
        factory = InformerFactory(client)
        pods = factory.informer(PODS)
        factory.start()
        await factory.wait_for_sync(timeout=5)
        decoded: list[str] = []
        original = inprocess._decode

        def counting(raw: bytes) -> dict[str, Any]:
            obj = original(raw)
            decoded.append(obj["metadata"]["name"])
            return obj

        monkeypatch.setattr(inprocess, "_decode", counting)
        own = await client.create(PODS, body=pod("own"), namespace="default")
        other = await Client(InProcessTransport(cluster)).create(
            PODS, body=pod("other"), namespace="default"
        )
        assert decoded == ["own", "other"]  # the two replies
        await eventually(
            lambda: pods.last_resource_version == other["metadata"]["resourceVersion"]
        )
        # the watch brought both; only the version the cache did not hold yet was decoded
        assert decoded == ["own", "other", "other"]
        cached = pods.get("default/own")
        assert cached is not None and cached["metadata"] == own["metadata"]
        await factory.stop()

    async def test_a_delete_leaves_the_cache_at_once_and_is_not_revived(
        self, client: Client, eventually: Eventually
    ) -> None:
        factory = InformerFactory(client)
        pods = factory.informer(PODS)
        deletes: list[str] = []
        pods.add_handler(on_delete=lambda obj: deletes.append(obj["metadata"]["name"]))
        factory.start()
        await factory.wait_for_sync(timeout=5)
        await client.create(PODS, body=pod("web"), namespace="default")
        await client.delete(PODS, name="web", namespace="default", grace_period_seconds=0)
        assert "default/web" not in pods
        listed = await client.list(PODS)
        await eventually(lambda: pods.last_resource_version == listed.resource_version)
        assert "default/web" not in pods
        assert deletes == ["web"]
        await factory.stop()

    async def test_a_reply_the_watch_overtook_does_not_bring_back_a_deleted_object(
        self, client: Client, eventually: Eventually
    ) -> None:
        # over HTTP the watch can deliver another client's deletion before this client has
        # read the reply to its own earlier write: that reply must not revive the object
        factory = InformerFactory(client)
        pods = factory.informer(PODS)
        factory.start()
        await factory.wait_for_sync(timeout=5)
        other = Client(client.transport, field_manager="someone-else")
        created = await other.create(PODS, body=pod("web"), namespace="default")
        await other.delete(PODS, name="web", namespace="default", grace_period_seconds=0)
        listed = await client.list(PODS)
        await eventually(lambda: pods.last_resource_version == listed.resource_version)
        assert "default/web" not in pods
        pods.observe(created)  # the late reply of a write made before the deletion
        assert "default/web" not in pods
        await factory.stop()


class TestErrorPredicates:
    async def test_predicates_read_the_servers_answers(self, client: Client) -> None:
        with pytest.raises(StatusError) as missing:
            await client.get(PODS, name="nope", namespace="default")
        assert is_not_found(missing.value) and not is_conflict(missing.value)
        await client.create(PODS, body=pod("web"), namespace="default")
        with pytest.raises(StatusError) as duplicate:
            await client.create(PODS, body=pod("web"), namespace="default")
        assert is_already_exists(duplicate.value) and not is_conflict(duplicate.value)
        with pytest.raises(StatusError) as bad:
            await client.create(PODS, body={"metadata": {"name": "x"}}, namespace="default")
        assert is_invalid(bad.value)

    def test_predicates_answer_false_for_other_exceptions(self) -> None:
        assert not is_not_found(ValueError("404"))
        assert is_gone(expired("too old"))
        assert is_not_found(StatusError(404, "", "no reason given"))


class TestRetryOnConflict:
    async def test_a_stale_update_succeeds_after_a_fresh_read(self, client: Client) -> None:
        await client.create(PODS, body=pod("web"), namespace="default")
        stale = await client.get(PODS, name="web", namespace="default")
        await client.patch(
            PODS, name="web", namespace="default", patch={"metadata": {"labels": {"a": "1"}}}
        )
        attempts = 0

        async def relabel() -> dict[str, Any]:
            nonlocal attempts
            attempts += 1
            current = (
                stale if attempts == 1 else await client.get(PODS, name="web", namespace="default")
            )
            current["metadata"].setdefault("labels", {})["b"] = "2"
            return await client.update(PODS, body=current)

        updated = await retry_on_conflict(relabel)
        assert attempts == 2
        assert updated["metadata"]["labels"] == {"a": "1", "b": "2"}

    async def test_gives_up_after_the_last_step_and_passes_other_errors_at_once(self) -> None:
        calls = 0

        async def always(error: StatusError) -> None:
            nonlocal calls
            calls += 1
            raise error

        with pytest.raises(StatusError) as exc:
            await retry_on_conflict(
                lambda: always(conflict(resource="pods", group="", name="web")), steps=3
            )
        assert is_conflict(exc.value) and calls == 3
        calls = 0
        with pytest.raises(StatusError):
            await retry_on_conflict(
                lambda: always(not_found(resource="pods", group="", name="web"))
            )
        assert calls == 1


class TestEventRecorder:
    async def test_events_are_written_with_upstream_fields(
        self, client: Client, clock: FakeClock
    ) -> None:
        target = await client.create(PODS, body=pod("web"), namespace="default")
        recorder = EventRecorder(client, component="default-scheduler", clock=clock)
        recorder.event(
            regarding=target,
            type="Normal",
            reason="Scheduled",
            action="Binding",
            note="Successfully assigned default/web to node-1",
        )
        await recorder.flush()
        (event,) = (await client.list(EVENTS_K8S_IO, namespace="default")).items
        assert event["reason"] == "Scheduled" and event["type"] == "Normal"
        assert event["reportingController"] == "default-scheduler"
        assert event["reportingInstance"] == f"default-scheduler-{socket.gethostname()}"
        assert event["regarding"]["name"] == "web" and event["regarding"]["kind"] == "Pod"
        assert event["regarding"]["uid"] == target["metadata"]["uid"]
        assert event["metadata"]["name"].startswith("web.")
        assert "series" not in event
        await recorder.close()

    async def test_repeats_become_one_event_with_a_series(
        self, client: Client, clock: FakeClock
    ) -> None:
        target = await client.create(PODS, body=pod("web"), namespace="default")
        recorder = EventRecorder(client, component="default-scheduler", clock=clock)
        for attempt in range(5):
            recorder.event(
                regarding=target,
                type="Warning",
                reason="FailedScheduling",
                action="Scheduling",
                note=f"attempt {attempt}",
            )
        await recorder.flush()
        (event,) = (await client.list(EVENTS_K8S_IO, namespace="default")).items
        assert event["series"]["count"] == 2  # written at once on the second occurrence
        assert event["note"] == "attempt 0"  # the note is not part of the series key
        clock.advance(30 * 60)  # the series goes quiet: its final count is written
        await asyncio.sleep(0)
        await recorder.flush()
        (event,) = (await client.list(EVENTS_K8S_IO, namespace="default")).items
        assert event["series"]["count"] == 5
        await recorder.close()

    async def test_a_series_quiet_for_six_minutes_starts_a_new_event(
        self, client: Client, clock: FakeClock
    ) -> None:
        target = await client.create(PODS, body=pod("web"), namespace="default")
        recorder = EventRecorder(client, component="kubelet", clock=clock)
        recorder.event(regarding=target, type="Normal", reason="Pulled", action="Pull")
        clock.advance(7 * 60)
        recorder.event(regarding=target, type="Normal", reason="Pulled", action="Pull")
        await recorder.flush()
        events = (await client.list(EVENTS_K8S_IO, namespace="default")).items
        assert len(events) == 2 and all("series" not in e for e in events)
        await recorder.close()


    async def test_recorders_on_a_standing_clock_never_collide_on_names(
        self, client: Client, clock: FakeClock
    ) -> None:
        target = await client.create(PODS, body=pod("web"), namespace="default")
        recorders = [EventRecorder(client, component=f"c{i}", clock=clock) for i in range(3)]
        for recorder in recorders:
            recorder.event(regarding=target, type="Normal", reason="Seen", action="Look")
        for recorder in recorders:
            await recorder.close()
        events = (await client.list(EVENTS_K8S_IO, namespace="default")).items
        assert sorted(e["reportingController"] for e in events) == ["c0", "c1", "c2"]


class TestWorkQueueShutdown:
    async def test_drain_waits_for_keys_in_processing(self, clock: FakeClock) -> None:
        queue: WorkQueue[str] = WorkQueue(clock=clock)
        queue.add("a")
        key = await queue.get()
        drained = asyncio.create_task(queue.shutdown_with_drain())
        await asyncio.sleep(0)
        assert not drained.done()
        queue.add("b")  # refused: the queue is shutting down
        assert key is not None
        queue.done(key)
        await asyncio.wait_for(drained, timeout=5)
        assert await queue.get() is None

    async def test_metrics_count_adds_retries_and_depth(self, clock: FakeClock) -> None:
        metrics = CollectorRegistry()
        queue: WorkQueue[str] = WorkQueue(clock=clock, name="claims", metrics=metrics)
        other: WorkQueue[str] = WorkQueue(clock=clock, name="pools", metrics=metrics)
        for key in ("a", "b", "a"):
            queue.add(key)
        other.add("x")
        labels = {"name": "claims"}
        assert metrics.get_sample_value("workqueue_adds_total", labels) == 2
        assert metrics.get_sample_value("workqueue_depth", labels) == 2
        key = await queue.get()
        assert key == "a"
        clock.advance(2)
        queue.add_rate_limited(key)
        queue.done(key)
        assert metrics.get_sample_value("workqueue_retries_total", labels) == 1
        assert metrics.get_sample_value("workqueue_depth", labels) == 1
        assert metrics.get_sample_value("workqueue_work_duration_seconds_sum", labels) == 2
        assert metrics.get_sample_value("workqueue_adds_total", {"name": "pools"}) == 1


class TestSharedIndexes:
    async def test_the_same_index_added_twice_is_kept_once_and_a_clash_is_refused(
        self, client: Client
    ) -> None:
        factory = InformerFactory(client)
        pods = factory.informer(PODS)
        pods.add_index(NODE_NAME_INDEX, node_name_index)
        pods.add_index(NODE_NAME_INDEX, node_name_index)  # a second component: no change
        with pytest.raises(ValueError, match="already exists"):
            pods.add_index(NODE_NAME_INDEX, lambda obj: [])
        factory.start()
        await factory.wait_for_sync(timeout=5)
        await client.create(PODS, body=pod("a", node="n1"), namespace="default")
        await client.create(PODS, body=pod("b", node="n2"), namespace="default")
        await client.create(PODS, body=pod("c"), namespace="default")
        assert pods.index_keys(NODE_NAME_INDEX, "n1") == ["default/a"]
        assert pods.index_keys(NODE_NAME_INDEX, "n2") == ["default/b"]
        await factory.stop()
