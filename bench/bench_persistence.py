"""Writes per second with and without a data directory: ``python bench/bench_persistence.py``.

Three figures each way:

- ``HTTP create``: ConfigMap creates over HTTP from ``--concurrency`` clients (the server in its
  own process, so the load generator does not share its core); with ``--data-dir`` each answer
  waits for its batch's fsync, and concurrent writers share one fsync per batch;
- ``HTTP create, one client``: the same from one client at a time, the worst case for a data
  directory (every write pays a whole fsync);
- ``in-process create``: creates through the registry, then one durability wait at the end
  (what the in-process components cost: they do not wait for the disk).

Then the storage choice behind ``--data-dir``: the same records group-committed to the
append-only log and to SQLite in WAL mode (``synchronous=FULL``, one transaction per batch), per
batch size, in records per second. The log wins or ties at every batch size here and needs no
second encoding, which is why fakeapi uses it (``fakeapi.storage.journal``).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import socket
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

URL = "/api/v1/namespaces/default/configmaps"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_server(port: int, data_dir: str | None) -> None:
    from fakeapi.bootstrap import new_registry
    from fakeapi.server.runner import ApiServer
    from fakeapi.storage.durable import DurableStorage

    async def main() -> None:
        storage = DurableStorage(data_dir) if data_dir else None
        server = ApiServer(registry=new_registry(storage=storage), port=port)
        await server.start()
        await asyncio.Event().wait()

    asyncio.run(main())


async def _http_creates(port: int, *, seconds: float, concurrency: int, prefix: str) -> float:
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession(base) as session:
        for _ in range(100):
            try:
                async with session.get("/readyz") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
        done = 0
        deadline = time.perf_counter() + seconds

        async def worker(number: int) -> None:
            nonlocal done
            i = 0
            while time.perf_counter() < deadline:
                body = orjson.dumps({"metadata": {"name": f"{prefix}-{number}-{i}"},
                                     "data": {"key": "value" * 20}})
                async with session.post(
                    URL, data=body, headers={"Content-Type": "application/json"}
                ) as response:
                    assert response.status == 201, await response.text()
                done += 1
                i += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(concurrency)))
        return done / (time.perf_counter() - started)


def _http_figure(data_dir: str | None, *, seconds: float, concurrency: int) -> tuple[float, float]:
    port = _free_port()
    process = multiprocessing.Process(target=_run_server, args=(port, data_dir), daemon=True)
    process.start()
    try:
        many = asyncio.run(
            _http_creates(port, seconds=seconds, concurrency=concurrency, prefix="many")
        )
        one = asyncio.run(_http_creates(port, seconds=seconds, concurrency=1, prefix="one"))
        return many, one
    finally:
        process.terminate()
        process.join()


def _in_process_figure(data_dir: str | None, *, count: int) -> float:
    from fakeapi.bootstrap import new_registry
    from fakeapi.registry.options import WriteOptions
    from fakeapi.storage.durable import DurableStorage

    storage = DurableStorage(data_dir) if data_dir else None
    registry = new_registry(storage=storage)
    configmaps = registry.resources.lookup("", "v1", "configmaps")
    assert configmaps is not None
    options = WriteOptions(field_manager="bench")

    async def run() -> float:
        started = time.perf_counter()
        for i in range(count):
            body = {"metadata": {"name": f"cm-{i}"}, "data": {"key": "value" * 20}}
            registry.create(configmaps, "default", body, options)
            if i % 64 == 63:  # the flusher runs while the writes go on, as in a server
                await asyncio.sleep(0)
        await registry.storage.durable()
        return count / (time.perf_counter() - started)

    rate = asyncio.run(run())
    if storage is not None:
        storage.close()
    return rate


def _log_vs_sqlite(directory: Path, *, records: int, batch: int) -> tuple[float, float]:
    from fakeapi.storage.journal import encode_record

    raw = orjson.dumps({"metadata": {"name": "x" * 20}, "data": {"key": "value" * 20}})
    started = time.perf_counter()
    with open(directory / f"log-{batch}", "ab") as log:
        for start in range(0, records, batch):
            chunk = b"".join(
                encode_record(rv, "A", "configmaps", f"default/cm-{rv}", raw)
                for rv in range(start, start + batch)
            )
            log.write(chunk)
            log.flush()
            os.fsync(log.fileno())
    log_rate = records / (time.perf_counter() - started)

    db = sqlite3.connect(directory / f"db-{batch}.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE objects (resource TEXT, key TEXT, rv INTEGER, raw BLOB,"
               " PRIMARY KEY (resource, key))")
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER)")
    started = time.perf_counter()
    for start in range(0, records, batch):
        db.execute("BEGIN")
        db.executemany(
            "INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?)",
            [("configmaps", f"default/cm-{rv}", rv, raw) for rv in range(start, start + batch)],
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('rv', ?)", (start + batch,))
        db.execute("COMMIT")
    sqlite_rate = records / (time.perf_counter() - started)
    db.close()
    return log_rate, sqlite_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--count", type=int, default=5000, help="in-process creates")
    args = parser.parse_args()

    print(f"{'writes/s':<34}{'in memory':>12}{'--data-dir':>12}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        memory_many, memory_one = _http_figure(
            None, seconds=args.seconds, concurrency=args.concurrency
        )
        disk_many, disk_one = _http_figure(
            a, seconds=args.seconds, concurrency=args.concurrency
        )
        # best of three fresh registries each (the machine is shared; the best is the least
        # disturbed)
        memory_local = max(_in_process_figure(None, count=args.count) for _ in range(3))
        disk_local = max(
            _in_process_figure(str(Path(b) / str(n)), count=args.count) for n in range(3)
        )
    rows = [
        (f"HTTP create, {args.concurrency} clients", memory_many, disk_many),
        ("HTTP create, one client", memory_one, disk_one),
        ("in-process create", memory_local, disk_local),
    ]
    for name, memory, disk in rows:
        print(f"{name:<34}{memory:>12.0f}{disk:>12.0f}{disk / memory:>8.2f}")

    print()
    print(f"{'records/s, fsync per batch':<34}{'log':>12}{'sqlite WAL':>12}")
    with tempfile.TemporaryDirectory() as scratch:
        for batch in (1, 8, 64):
            log_rate, sqlite_rate = _log_vs_sqlite(
                Path(scratch), records=min(64 * 40, 400 * batch), batch=batch
            )
            print(f"{'batch of ' + str(batch):<34}{log_rate:>12.0f}{sqlite_rate:>12.0f}")


if __name__ == "__main__":
    main()
