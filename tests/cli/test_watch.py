"""``fakeapi sandbox -v``: one record rendered as klog text, as klog JSON and for a terminal, and
the event feed turning recorded Events into ``Event occurred`` lines."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest

from fakeapi import klog
from fakeapi.client import EVENTS
from fakeapi.cluster import Cluster, eventually
from fakeapi.commands.watch import (
    EVENTS_LOGGER,
    EventFeed,
    JsonFormatter,
    KlogTextFormatter,
    TerminalHandler,
    component_of,
    configure_logging,
)


def _record(name: str, message: object, level: int = logging.INFO, **extra: object) -> (
        logging.LogRecord):
    record = logging.LogRecord(name, level, __file__, 1, message, None, None)
    record.created = 1_764_326_086.034961
    record.msecs = 34.961
    record.__dict__.update(extra)
    return record


RESERVED = klog.Message("reserved", {"pod": "default/gpu-pod",
                                     "allocated": ["gpu.example.com/node-1/gpu-0"]})


def test_klog_messages_read_as_klog_text_wherever_they_are_printed() -> None:
    assert str(RESERVED) == (
        '"reserved" pod="default/gpu-pod" allocated=["gpu.example.com/node-1/gpu-0"]'
    )
    assert str(klog.Message("Health info changed", {"ready": True, "count": 2})) == (
        '"Health info changed" ready=true count=2'
    )


@pytest.mark.parametrize(
    ("logger", "component"),
    [
        ("fakeapi.scheduler.dra", "kube-scheduler"),
        ("fakeapi.controllers.resourceclaim", "kube-controller-manager"),
        ("fakeapi.kubelet", "kubelet"),
        ("fakeapi.server", "kube-apiserver"),
        ("fakeapi.cluster", "cluster"),
    ],
)
def test_each_logger_speaks_for_its_component(logger: str, component: str) -> None:
    assert component_of(_record(logger, "x")) == component


def test_the_text_format_is_klogs_with_the_component_for_the_source_file() -> None:
    line = KlogTextFormatter().format(_record("fakeapi.scheduler.dra", RESERVED))
    assert line.endswith(
        ' kube-scheduler] "reserved" pod="default/gpu-pod" '
        'allocated=["gpu.example.com/node-1/gpu-0"]'
    )
    assert line[0] == "I" and line[5] == " "  # Lmmdd, then the local time
    prepared = klog.Message("Done calling NodePrepareResources rpc", {"node": "node-1"})
    assert " kubelet node-1] " in KlogTextFormatter().format(_record("fakeapi.kubelet", prepared))
    warning = KlogTextFormatter().format(_record("fakeapi.kubelet", "heartbeat failed",
                                                 logging.WARNING))
    assert warning.startswith("W") and warning.endswith(' kubelet] "heartbeat failed"')


def test_the_json_format_is_one_object_per_line_with_the_pairs() -> None:
    line = JsonFormatter().format(_record("fakeapi.scheduler.dra", RESERVED))
    assert json.loads(line) == {
        "ts": 1764326086.034961, "component": "kube-scheduler", "v": 0, "msg": "reserved",
        "pod": "default/gpu-pod", "allocated": ["gpu.example.com/node-1/gpu-0"],
    }
    warning = json.loads(JsonFormatter().format(_record("fakeapi.kubelet", "x", logging.WARNING)))
    assert (warning["level"], "v" in warning) == ("warning", False)


def test_a_terminal_line_shows_an_event_as_reason_object_and_message() -> None:
    handler = TerminalHandler(io.StringIO())
    event = klog.Message("Event occurred", {"object": "default/gpu-pod", "kind": "Pod",
                                            "type": "Warning", "reason": "FailedScheduling",
                                            "message": "0/1 nodes are available"})
    rendered = handler.render(_record(EVENTS_LOGGER, event, component="default-scheduler"))
    assert rendered.plain.endswith(
        "default-scheduler          FailedScheduling pod/default/gpu-pod: 0/1 nodes are available"
    )
    step = handler.render(_record("fakeapi.kubelet", klog.Message(
        "Health info changed", {"node": "node-1", "health": "Unhealthy"})))
    assert step.plain.endswith('kubelet node-1             Health info changed health="Unhealthy"')


def test_configured_logging_sends_steps_and_is_undone() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("fakeapi.scheduler.dra")
    undo = configure_logging(verbosity=1, log_format="json", stream=stream)
    try:
        klog.info(logger, "reserved", pod="default/p")
        logger.debug("not at -v")
    finally:
        undo()
    klog.info(logger, "reserved", pod="default/after")
    [line] = stream.getvalue().splitlines()
    assert json.loads(line)["pod"] == "default/p"


async def test_the_event_feed_logs_events_recorded_after_it_starts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with Cluster() as cluster:
        await cluster.client.create(EVENTS, namespace="default", body={
            "metadata": {"name": "before"}, "involvedObject": {"kind": "Pod", "name": "a",
                                                              "namespace": "default"},
            "reason": "Old", "message": "recorded before the feed", "type": "Normal"})
        caplog.set_level(logging.INFO, logger=EVENTS_LOGGER)
        feed = EventFeed(cluster.client)
        task = asyncio.get_running_loop().create_task(feed.run())
        try:
            await feed.listed.wait()
            await cluster.client.create(EVENTS, namespace="default", body={
                "metadata": {"name": "after"},
                "involvedObject": {"kind": "Node", "name": "node-1"},
                "source": {"component": "kubelet", "host": "node-1"},
                "reason": "InvalidFaultAnnotation", "message": "bad", "type": "Warning"})
            record = await eventually(
                lambda: next((r for r in caplog.records if r.name == EVENTS_LOGGER), None))
        finally:
            task.cancel()
    assert [r.msg.kv["reason"] for r in caplog.records if r.name == EVENTS_LOGGER] == [
        "InvalidFaultAnnotation"
    ]
    assert (record.levelno, record.component) == (logging.WARNING, "kubelet node-1")
    assert record.msg.kv == {"object": "node-1", "kind": "Node", "type": "Warning",
                             "reason": "InvalidFaultAnnotation", "message": "bad"}
