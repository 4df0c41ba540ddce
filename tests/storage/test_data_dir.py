"""A data directory keeps every acknowledged write across restarts, kill -9 and torn tails.

The storage is restored from the directory's snapshot and log: objects, the resourceVersion
counter (versions keep increasing), and no history (a watch from before the restart gets 410).
A crash in the middle of an append leaves a torn record at the log's end: it is cut off, never a
reason to refuse to start. The kill -9 test runs ``fakeapi serve --data-dir`` in a subprocess,
kills it while writers are busy, and finds every write the writers were answered for.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.storage.durable import DurableStorage
from fakeapi.storage.interface import StorageError
from fakeapi.storage.journal import LOG, SNAPSHOT

WRITE = WriteOptions(field_manager="test")


def _registry(directory: Path, **kwargs: Any) -> GenericStore:
    return new_registry(storage=DurableStorage(directory, **kwargs))


def _configmaps(registry: GenericStore) -> Any:
    found = registry.resources.lookup("", "v1", "configmaps")
    assert found is not None
    return found


def _names(registry: GenericStore) -> dict[str, dict[str, str]]:
    listed = registry.list(_configmaps(registry), "default", ListOptions())
    return {s.obj["metadata"]["name"]: s.obj.get("data", {}) for s in listed.items}


async def _write_some(registry: GenericStore, names: list[str]) -> None:
    rt = _configmaps(registry)
    for name in names:
        registry.create(rt, "default", {"metadata": {"name": name}, "data": {"v": "1"}}, WRITE)
    await registry.storage.durable()


def _close(registry: GenericStore) -> None:
    storage = registry.storage
    assert isinstance(storage, DurableStorage)
    storage.close()


async def test_objects_and_the_resource_version_come_back_after_a_restart(tmp_path):
    first = _registry(tmp_path)
    await _write_some(first, ["a", "b", "c"])
    rt = _configmaps(first)
    first.update(rt, "default", "b", {"metadata": {"name": "b"}, "data": {"v": "2"}}, WRITE)
    first.delete(rt, "default", "c", DeleteOptions())
    await first.storage.durable()
    last = first.resource_version
    _close(first)

    second = _registry(tmp_path)
    assert _names(second) == {"a": {"v": "1"}, "b": {"v": "2"}}
    assert second.resource_version == last
    created = second.create(rt, "default", {"metadata": {"name": "d"}}, WRITE)
    assert int(created.obj["metadata"]["resourceVersion"]) == last + 1
    _close(second)


async def test_a_watch_from_before_the_restart_is_expired_and_one_from_now_works(tmp_path):
    first = _registry(tmp_path)
    await _write_some(first, ["a"])
    before = first.resource_version - 1
    _close(first)

    second = _registry(tmp_path)
    rt = _configmaps(second)
    with pytest.raises(Exception) as expired:
        second.watch(rt, "default", WatchOptions(resource_version=str(before)))
    assert getattr(expired.value, "code", None) == 410
    now = WatchOptions(resource_version=str(second.resource_version))
    watcher = second.watch(rt, "default", now)
    await _write_some(second, ["b"])
    assert [etype for etype, _, _ in watcher.drain()] == ["ADDED"]
    watcher.close()
    _close(second)


async def test_a_torn_tail_is_cut_back_to_the_last_whole_record(tmp_path, caplog):
    first = _registry(tmp_path)
    await _write_some(first, ["a", "b"])
    _close(first)
    log = tmp_path / LOG
    whole = log.stat().st_size
    data = log.read_bytes()
    last = data.rfind(b'"b"')  # inside the last record: keep half of it, as a crash would
    with open(log, "r+b") as torn:
        torn.truncate(last)

    second = _registry(tmp_path)
    assert _names(second) == {"a": {"v": "1"}}
    assert log.stat().st_size < last < whole
    assert "torn tail" in caplog.text
    await _write_some(second, ["c"])  # appends after the cut, readable on the next start
    _close(second)

    third = _registry(tmp_path)
    assert set(_names(third)) == {"a", "c"}
    _close(third)


async def test_garbage_after_the_last_record_never_stops_a_start(tmp_path):
    first = _registry(tmp_path)
    await _write_some(first, ["a"])
    _close(first)
    with open(tmp_path / LOG, "ab") as log:
        log.write(b"\xff\xff\xff\x7f" + os.urandom(64))
    second = _registry(tmp_path)
    assert set(_names(second)) == {"a"}
    _close(second)


async def test_the_log_is_compacted_into_a_snapshot_and_both_restore(tmp_path):
    first = _registry(tmp_path, snapshot_after=4096)
    names = [f"cm-{i}" for i in range(60)]
    for name in names:
        await _write_some(first, [name])
    rt = _configmaps(first)
    first.delete(rt, "default", "cm-0", DeleteOptions())
    await first.storage.durable()
    _close(first)
    assert (tmp_path / SNAPSHOT).exists()
    assert (tmp_path / LOG).stat().st_size < 4096 * 2

    second = _registry(tmp_path)
    assert set(_names(second)) == set(names[1:])
    _close(second)


async def test_a_data_directory_is_used_by_one_process_at_a_time(tmp_path):
    first = _registry(tmp_path)
    with pytest.raises(StorageError, match="in use by another fakeapi process"):
        DurableStorage(tmp_path)
    _close(first)
    _close(_registry(tmp_path))


def _serve(directory: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--data-dir", str(directory)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("fakeapi serving at "), line
    return process, line.rsplit(" ", 1)[1].strip()


async def test_every_acknowledged_write_survives_a_kill_9(tmp_path):
    process, url = _serve(tmp_path)
    acknowledged: list[str] = []
    enough = asyncio.Event()

    async def writer(number: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            for i in range(10_000):
                name = f"w{number}-{i}"
                try:
                    response = await client.post(
                        "/api/v1/namespaces/default/configmaps",
                        json={"metadata": {"name": name}, "data": {"i": str(i)}},
                    )
                except httpx.TransportError:
                    return  # the server is gone: this write was never acknowledged
                assert response.status_code == 201, response.text
                acknowledged.append(name)
                if len(acknowledged) >= 100:
                    enough.set()

    writers = [asyncio.create_task(writer(n)) for n in range(4)]
    await enough.wait()
    os.kill(process.pid, signal.SIGKILL)  # while the writers are still writing
    await asyncio.gather(*writers)
    process.wait()

    restarted, url = _serve(tmp_path)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            listed = (await client.get("/api/v1/namespaces/default/configmaps")).json()
        stored = {item["metadata"]["name"] for item in listed["items"]}
        assert set(acknowledged) <= stored
        assert len(acknowledged) >= 100
    finally:
        restarted.send_signal(signal.SIGINT)
        restarted.wait(timeout=10)


async def test_a_failed_fsync_acknowledges_nothing_and_the_next_flush_writes_it_again(
    tmp_path, monkeypatch
):
    from fakeapi.storage import journal

    registry = _registry(tmp_path)
    rt = _configmaps(registry)
    fsync = journal.os.fsync
    failures = [OSError(5, "Input/output error")]

    def failing_once(fd: int) -> None:
        if failures:
            raise failures.pop()
        fsync(fd)

    monkeypatch.setattr(journal.os, "fsync", failing_once)
    registry.create(rt, "default", {"metadata": {"name": "first"}}, WRITE)
    with pytest.raises(OSError, match="Input/output error"):
        await registry.storage.durable()
    await _write_some(registry, ["second"])  # durable: the first is written again before it
    _close(registry)

    restored = _registry(tmp_path)
    assert set(_names(restored)) == {"first", "second"}
    _close(restored)
