"""API server throughput: GET, LIST (1000 objects), create and watch delivery (100 watchers).

Each figure is also printed as a ratio to a bare aiohttp handler that returns a tiny JSON body,
measured in the same run on the same machine with the same load generator. Servers run in their
own process so the load generator does not share their core.

The bare handler and GET are measured in alternating rounds (``--rounds``, each ``--seconds``
long), and the GET ratio is the median of the rounds' own ratios, with their range: on a shared
machine the cores' speed drifts by 10-30% within a minute, so one figure of each, taken one after
the other, put the same code anywhere between 0.82 and 0.97 of the bare handler. LIST and create
are measured once each, against the median of the bare rounds.

The watch figure counts events as they arrive, in C (``bytes.count`` of frame ends on plain
asyncio connections), and decodes them only after the clock stops to check that every watcher
got every event once and in order; until November 2026 it decoded each event in the aiohttp
client as it came (about 14 µs each), which bounded the figure by the load generator.

    python bench/bench_api.py [--seconds 2] [--rounds 5] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_bare(port: int) -> None:
    from aiohttp import web

    body = b'{"kind":"Status","apiVersion":"v1","status":"Success"}'

    async def handler(_: web.Request) -> web.Response:
        response = web.Response(body=body)
        response.headers["Content-Type"] = "application/json"
        return response

    app = web.Application()
    app.router.add_get("/bare", handler)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


def _run_fakeapi(port: int) -> None:
    from fakeapi.bootstrap import new_registry
    from fakeapi.server.runner import ApiServer

    async def main() -> None:
        server = ApiServer(registry=new_registry(), port=port)
        await server.start()
        await asyncio.Event().wait()

    asyncio.run(main())


async def _wait_ready(url: str) -> None:
    async with aiohttp.ClientSession() as session:
        for _ in range(200):
            try:
                async with session.get(url) as response:
                    if response.status < 500:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
    raise RuntimeError(f"server at {url} did not start")


async def _rate(
    seconds: float, concurrency: int, call: Callable[[aiohttp.ClientSession], Awaitable[None]]
) -> float:
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        await call(session)  # warm up the connection pool and caches
        done = 0
        stop_at = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop_at:
                await call(session)
                done += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done / (time.perf_counter() - start)


_CREATE_LUA = """
counter = 0
request = function()
  counter = counter + 1
  local body = '{"metadata":{"name":"wrk-' .. counter .. '-' .. math.random(1, 1000000000) ..
    '"},"data":{"k":"v"}}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
"""


def _wrk(url: str, seconds: float, connections: int, script: str | None = None) -> float | None:
    """Requests/s measured by wrk (one thread, so the server keeps the other core); None when
    wrk is not installed."""
    wrk = shutil.which("wrk")
    if wrk is None:
        return None
    cmd = [wrk, "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        if script:
            lua.write(script)
    if script:
        cmd += ["-s", lua.name]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    os.unlink(lua.name)
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk saw errors from {url}:\n{out}")
    match = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    return float(match.group(1)) if match else None


def _get(url: str, expect: int = 200) -> Callable[[aiohttp.ClientSession], Awaitable[None]]:
    async def call(session: aiohttp.ClientSession) -> None:
        async with session.get(url) as response:
            await response.read()
            assert response.status == expect, response.status

    return call


async def _post_json(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> int:
    async with session.post(
        url, data=orjson.dumps(body), headers={"Content-Type": "application/json"}
    ) as response:
        await response.read()
        return response.status


async def _setup(base: str, objects: int) -> None:
    async with aiohttp.ClientSession() as session:
        await _post_json(session, f"{base}/api/v1/namespaces", {"metadata": {"name": "bench"}})
        await _post_json(session, f"{base}/api/v1/namespaces", {"metadata": {"name": "watch"}})
        sem = asyncio.Semaphore(32)

        async def one(i: int) -> None:
            async with sem:
                status = await _post_json(
                    session,
                    f"{base}/api/v1/namespaces/bench/configmaps",
                    {
                        "metadata": {"name": f"cm-{i:05d}", "labels": {"app": "bench"}},
                        "data": {"key": "value", "index": str(i)},
                    },
                )
                assert status == 201, status

        await asyncio.gather(*(one(i) for i in range(objects)))


async def _create_rate(base: str, seconds: float, concurrency: int) -> float:
    counter = iter(range(10**9))
    url = f"{base}/api/v1/namespaces/bench/configmaps"

    async def call(session: aiohttp.ClientSession) -> None:
        status = await _post_json(
            session, url, {"metadata": {"name": f"new-{next(counter)}"}, "data": {"k": "v"}}
        )
        assert status == 201, status

    return await _rate(seconds, concurrency, call)


class _WatchStream(asyncio.Protocol):
    """One watch connection that only counts what arrives: a frame ends with ``}\\n`` (the
    encoded object holds no line break), counted in C by ``bytes.count`` with the byte before
    each read kept, so a frame's end split between two reads counts once. The bytes are kept
    and decoded after the clock stops."""

    def __init__(self, request: bytes, events: int, ready: Callable[[], None]) -> None:
        self.request, self.events, self.ready = request, events, ready
        self.chunks: list[bytes] = []
        self.seen = 0
        self.last = b""
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if not self.chunks:
            self.ready()
        self.chunks.append(data)
        self.seen += (self.last + data).count(b"}\n")
        self.last = data[-1:]
        if self.seen >= self.events and not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def resource_versions(self) -> list[int]:
        """The resourceVersions of the events received, in order (the chunked body decoded)."""
        data = b"".join(self.chunks)
        body = data.split(b"\r\n\r\n", 1)[1]
        frames = b""
        while body:
            size_line, _, rest = body.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            frames += rest[:size]
            body = rest[size + 2 :]
        return [
            int(orjson.loads(line)["object"]["metadata"]["resourceVersion"])
            for line in frames.splitlines()
        ]


async def _watch_delivery(base: str, watchers: int, events: int) -> tuple[float, bool]:
    """Events/s delivered to all watchers together, and whether every stream was complete and
    in order.

    The watchers are plain asyncio connections that count frames in C as they arrive
    (:class:`_WatchStream`) and decode them only after the clock stops: a Python client that
    decodes every event (about 14 µs each) would measure itself, not the server's fan-out. The
    clock runs from the first create to the last event at the last watcher, so the figure
    includes the creates (200 of them, 16 at a time, over HTTP) that make the events."""
    host, port = base.removeprefix("http://").split(":")
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=24)
    ) as session:
        async with session.get(f"{base}/api/v1/namespaces/watch/configmaps") as response:
            rv = (await response.json())["metadata"]["resourceVersion"]
        request = (
            f"GET /api/v1/namespaces/watch/configmaps?watch=true&resourceVersion={rv} HTTP/1.1\r\n"
            f"Host: {host}:{port}\r\nAccept: application/json\r\n\r\n"
        ).encode()
        opened = 0
        ready = asyncio.Event()

        def one_ready() -> None:
            nonlocal opened
            opened += 1
            if opened == watchers:
                ready.set()

        connections = [
            await loop.create_connection(
                lambda: _WatchStream(request, events, one_ready), host, int(port)
            )
            for _ in range(watchers)
        ]
        streams = [stream for _, stream in connections]
        await asyncio.wait_for(ready.wait(), 30)  # every stream has its response headers
        start = time.perf_counter()
        sem = asyncio.Semaphore(16)

        async def create(i: int) -> None:
            async with sem:
                await _post_json(
                    session,
                    f"{base}/api/v1/namespaces/watch/configmaps",
                    {"metadata": {"name": f"w-{i:05d}"}},
                )

        await asyncio.gather(*(create(i) for i in range(events)))
        await asyncio.wait_for(asyncio.gather(*(s.done for s in streams)), 120)
        elapsed = time.perf_counter() - start
        for transport, _ in connections:
            transport.close()
    received = [s.resource_versions() for s in streams]
    # every watcher saw the same events, each once, in strictly increasing resourceVersion
    first = received[0]
    ordered = all(a < b for a, b in itertools.pairwise(first))
    complete = ordered and len(first) == events and all(r == first for r in received)
    return watchers * events / elapsed, complete


async def main_async(args: argparse.Namespace) -> None:
    bare_port, api_port = _free_port(), _free_port()
    ctx = multiprocessing.get_context("spawn")
    servers = [
        ctx.Process(target=_run_bare, args=(bare_port,), daemon=True),
        ctx.Process(target=_run_fakeapi, args=(api_port,), daemon=True),
    ]
    for p in servers:
        p.start()
    try:
        bare, base = f"http://127.0.0.1:{bare_port}", f"http://127.0.0.1:{api_port}"
        await _wait_ready(f"{bare}/bare")
        await _wait_ready(f"{base}/readyz")
        await _setup(base, args.objects)
        sec, conc = args.seconds, args.concurrency
        one = f"{base}/api/v1/namespaces/bench/configmaps/cm-00001"
        many = f"{base}/api/v1/namespaces/bench/configmaps"
        use_wrk = shutil.which("wrk") is not None and not args.python_client
        tool = "wrk, 1 thread" if use_wrk else "aiohttp client (install wrk for higher ceilings)"

        async def rate(url: str, connections: int) -> float:
            if use_wrk:
                return _wrk(url, sec, connections) or 0.0
            return await _rate(sec, connections, _get(url))

        rounds = []
        for _ in range(args.rounds):
            rounds.append((await rate(f"{bare}/bare", conc), await rate(one, conc)))
        baseline = statistics.median(b for b, _ in rounds)
        get = statistics.median(g for _, g in rounds)
        get_ratios = sorted(g / b for b, g in rounds)
        lst = await rate(many, 8 if use_wrk else min(conc, 8))
        if use_wrk:
            create = _wrk(many, sec, conc, _CREATE_LUA) or 0.0
        else:
            create = await _create_rate(base, sec, conc)
        watch_rate, complete = await _watch_delivery(base, args.watchers, args.events)
    finally:
        for p in servers:
            p.terminate()
    print(
        f"load generator: {tool}; {conc} connections; {sec:g}s per figure; bare and GET in "
        f"{args.rounds} alternating rounds"
    )
    print(f"bare aiohttp JSON handler : {baseline:10.0f} req/s  (baseline, median of rounds)")
    print(
        f"GET one object            : {get:10.0f} req/s  ratio {statistics.median(get_ratios):5.2f}"
        f"  (median of the rounds' ratios; {get_ratios[0]:.2f}-{get_ratios[-1]:.2f})"
    )
    print(
        f"LIST {args.objects} objects         : {lst:10.1f} req/s  ratio {lst / baseline:7.4f}"
        f"  ({lst * args.objects:,.0f} objects/s)"
    )
    print(f"create                    : {create:10.0f} req/s  ratio {create / baseline:5.2f}")
    print(
        f"watch delivery            : {watch_rate:10.0f} events/s  ratio "
        f"{watch_rate / baseline:5.2f}  ({args.watchers} watchers x {args.events} events; "
        f"complete and in order: {complete})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5,
                        help="alternating rounds of the bare handler and GET")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--python-client", action="store_true",
                        help="measure with the aiohttp client even when wrk is installed")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
