"""The core/v1 event recorder: client-go's correlator (counts, aggregation, spam filter)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import EVENTS, EVENTS_K8S_IO, PODS, Client, LegacyEventRecorder
from fakeapi.clock import FakeClock
from fakeapi.server.inprocess import InProcessTransport


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def client(clock: FakeClock) -> AsyncIterator[Client]:
    async with Client(InProcessTransport(new_registry(clock=clock))) as client:
        yield client


@pytest.fixture
async def pod(client: Client) -> dict[str, Any]:
    body = {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "app", "image": "x"}]}}
    return await client.create(PODS, namespace="default", body=body)


@pytest.fixture
async def kubelet(client: Client, clock: FakeClock) -> AsyncIterator[LegacyEventRecorder]:
    recorder = LegacyEventRecorder(client, component="kubelet", host="node-1", clock=clock)
    yield recorder
    await recorder.close()


async def events(client: Client) -> list[dict[str, Any]]:
    listed = await client.list(EVENTS, namespace="default")
    return sorted(listed.items, key=lambda e: (e["reason"], e["message"]))


async def test_an_event_carries_the_legacy_fields(client, pod, kubelet) -> None:
    kubelet.event(regarding=pod, type="Normal", reason="Started", note="Container started",
                  field_path="spec.containers{app}")
    await kubelet.flush()
    [event] = await events(client)
    assert event["source"] == {"component": "kubelet", "host": "node-1"}
    assert event["count"] == 1
    assert event["firstTimestamp"] == event["lastTimestamp"]
    assert event["involvedObject"]["fieldPath"] == "spec.containers{app}"
    assert event["involvedObject"]["uid"] == pod["metadata"]["uid"]
    assert (event["reportingComponent"], event["reportingInstance"]) == ("kubelet", "node-1")
    assert event["metadata"]["name"].startswith("web.")
    assert "eventTime" not in event
    [new_style] = (await client.list(EVENTS_K8S_IO, namespace="default")).items
    assert new_style["deprecatedCount"] == 1
    assert new_style["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}


async def test_a_repeated_event_counts_up_in_place(client, pod, kubelet, clock) -> None:
    kubelet.event(regarding=pod, type="Warning", reason="BackOff", note="Back-off restarting")
    await kubelet.flush()
    [first] = await events(client)
    clock.advance(30)
    kubelet.event(regarding=pod, type="Warning", reason="BackOff", note="Back-off restarting")
    kubelet.event(regarding=pod, type="Warning", reason="BackOff", note="Back-off restarting")
    await kubelet.flush()
    [event] = await events(client)
    assert event["metadata"]["name"] == first["metadata"]["name"]
    assert event["count"] == 3
    assert event["firstTimestamp"] == first["firstTimestamp"]
    assert event["lastTimestamp"] > first["lastTimestamp"]


async def test_the_tenth_distinct_message_starts_a_combined_event(client, pod, kubelet) -> None:
    for i in range(12):
        kubelet.event(regarding=pod, type="Warning", reason="Failed", note=f"error {i}")
    await kubelet.flush()
    written = {e["message"]: e["count"] for e in await events(client)}
    assert written == {
        **{f"error {i}": 1 for i in range(9)},
        "(combined from similar events): error 11": 3,
    }


async def test_a_source_may_burst_25_events_about_an_object_then_one_per_5_minutes(
    client, pod, kubelet, clock
) -> None:
    for i in range(30):
        kubelet.event(regarding=pod, type="Normal", reason=f"Step{i}", note="n")
    await kubelet.flush()
    assert len(await events(client)) == 25
    clock.advance(299)
    kubelet.event(regarding=pod, type="Normal", reason="Late", note="n")
    await kubelet.flush()
    assert len(await events(client)) == 25
    clock.advance(1)
    kubelet.event(regarding=pod, type="Normal", reason="Later", note="n")
    await kubelet.flush()
    reasons = [e["reason"] for e in await events(client)]
    assert len(reasons) == 26 and "Later" in reasons and "Late" not in reasons


async def test_events_dropped_by_the_filter_still_count(client, pod, kubelet, clock) -> None:
    for i in range(25):
        kubelet.event(regarding=pod, type="Normal", reason=f"Step{i}", note="n")
    kubelet.event(regarding=pod, type="Normal", reason="Step0", note="n")  # over the burst
    await kubelet.flush()
    assert {e["reason"]: e["count"] for e in await events(client)}["Step0"] == 1
    clock.advance(300)
    kubelet.event(regarding=pod, type="Normal", reason="Step0", note="n")
    await kubelet.flush()
    assert {e["reason"]: e["count"] for e in await events(client)}["Step0"] == 3


async def test_an_event_deleted_meanwhile_is_written_again_with_its_count(
    client, pod, kubelet
) -> None:
    kubelet.event(regarding=pod, type="Normal", reason="Pulled", note="image present")
    await kubelet.flush()
    [first] = await events(client)
    await client.delete(EVENTS, namespace="default", name=first["metadata"]["name"])
    kubelet.event(regarding=pod, type="Normal", reason="Pulled", note="image present")
    await kubelet.flush()
    [again] = await events(client)
    assert again["count"] == 2
