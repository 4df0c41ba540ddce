"""Cluster start-up benchmark: ``python bench/bench_cluster.py [--runs N]``.

Prints what a test and a sandbox user wait for:

1. per-test set-up and tear-down of an in-process cluster (``fakeapi.fixtures.cluster.Cluster``,
   what ``fakeapi_cluster`` starts in an async test, HTTP included), for the API server alone, the
   control plane without nodes, and 4 simulated GPU nodes (Ready, slices published); the first
   cluster of the process (imports, schema compilation) is reported on its own;
2. the same through ``SyncCluster`` (a sync test's cluster, on its own loop thread);
3. ``fakeapi sandbox`` as a subprocess: from launch to the banner, which it prints once every node
   is Ready and has published its slices (checked over HTTP afterwards), and to exit after SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.client import NODES, RESOURCE_SLICES, Client, HttpTransport
from fakeapi.fixtures.cluster import Cluster
from fakeapi.fixtures.sync import SyncCluster
from fakeapi.kubeconfig import load_kubeconfig

SHAPES: dict[str, dict[str, Any]] = {
    "API server only": {"components": ()},
    "control plane, no nodes": {},
    "4 GPU nodes": {"nodes": 4},
}


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    return f"median {statistics.median(values) * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms"


async def _cycle(options: dict[str, Any]) -> tuple[float, float]:
    cluster = Cluster(http=True, **options)
    started = time.perf_counter()
    await cluster.start()
    ready = time.perf_counter()
    await cluster.stop()
    return ready - started, time.perf_counter() - ready


async def bench_in_process(runs: int) -> None:
    first_up, first_down = await _cycle({"nodes": 4})
    print(f"first cluster of the process (4 nodes): set-up {first_up * 1000:.0f} ms, "
          f"tear-down {first_down * 1000:.1f} ms")
    for name, options in SHAPES.items():
        ups, downs = [], []
        for _ in range(runs):
            up, down = await _cycle(options)
            ups.append(up)
            downs.append(down)
        print(f"  {name:<24} set-up    {_ms(ups)}")
        print(f"  {'':<24} tear-down {_ms(downs)}")


def bench_sync(runs: int) -> None:
    for name, options in SHAPES.items():
        ups, downs = [], []
        for _ in range(runs):
            started = time.perf_counter()
            cluster = SyncCluster(lambda options=options: Cluster(http=True, **options)).start()
            ready = time.perf_counter()
            cluster.stop()
            ups.append(ready - started)
            downs.append(time.perf_counter() - ready)
        print(f"  {name:<24} set-up    {_ms(ups)}")
        print(f"  {'':<24} tear-down {_ms(downs)}")


async def _ready_nodes(kubeconfig: Path) -> tuple[int, int]:
    access = load_kubeconfig(kubeconfig)
    async with Client(HttpTransport(access.server)) as client:
        nodes = (await client.list(NODES)).items
        slices = (await client.list(RESOURCE_SLICES)).items
    ready = sum(
        1
        for node in nodes
        for condition in (node.get("status") or {}).get("conditions") or []
        if condition.get("type") == "Ready" and condition.get("status") == "True"
    )
    return ready, len(slices)


def _wait_line(process: subprocess.Popen[str], prefix: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"fakeapi sandbox exited with {process.wait()}")
        if line.startswith(prefix):
            return line
    raise TimeoutError(f"no line starting with {prefix!r} in {timeout}s")


def bench_sandbox(runs: int, nodes: int) -> None:
    launches, exits = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            kubeconfig = Path(tmp) / "kubeconfig"
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", str(nodes),
                 "--port", "0", "--kubeconfig", str(kubeconfig)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            try:
                banner = _wait_line(process, "fakeapi sandbox ready", 60)
                launches.append(time.perf_counter() - started)
                ready, slices = asyncio.run(_ready_nodes(kubeconfig))
                if ready != nodes:
                    raise RuntimeError(f"{ready}/{nodes} nodes Ready after: {banner}")
                stopping = time.perf_counter()
                process.send_signal(signal.SIGINT)
                process.wait(30)
                exits.append(time.perf_counter() - stopping)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    print(f"  launch to {nodes} nodes Ready ({slices} slices)   {_ms(launches)}")
    print(f"  SIGINT to exit                              {_ms(exits)}")
    own = banner.split(" in ")[-1].split(":")[0]
    print(f"  (the sandbox's own figure, from its command's start: {own})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="clusters per shape (default 20)")
    parser.add_argument("--sandbox-runs", type=int, default=3)
    parser.add_argument("--sandbox-nodes", type=int, default=4)
    args = parser.parse_args(argv)
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("in-process cluster per test (async tests)",
         lambda: asyncio.run(bench_in_process(args.runs))),
        ("in-process cluster per test (sync tests, own loop thread)",
         lambda: bench_sync(args.runs)),
        ("fakeapi sandbox (subprocess)",
         lambda: bench_sandbox(args.sandbox_runs, args.sandbox_nodes)),
    ]
    for title, step in steps:
        print(title)
        step()


if __name__ == "__main__":
    main()
