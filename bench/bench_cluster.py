"""Cluster start-up benchmark: ``python bench/bench_cluster.py [--runs N]``.

Prints what a test and a sandbox user wait for:

0. the cold start of a fresh interpreter, by phase: the interpreter itself, importing the assembler
   (aiohttp, the registry, the client), the first registry (the core models load here), an API
   server, the controllers and scheduler (their modules and the CEL library load with them), and
   4 simulated nodes Ready with their slices published — what ``fakeapi sandbox`` and the first
   test of a session pay once;
1. per-test set-up and tear-down of an in-process cluster (``fakeapi.cluster.assembler.Cluster``,
   what ``fakeapi_cluster`` starts in an async test, HTTP included), for the API server alone, the
   control plane without nodes, and 4 simulated GPU nodes (Ready, slices published); the first
   cluster of the process (imports, schema compilation) is reported on its own;
2. the same through ``SyncCluster`` (a sync test's cluster, on its own loop thread);
3. ``fakeapi sandbox`` as a subprocess: from launch to the banner, which it prints once every node
   is Ready and has published its slices (checked over HTTP afterwards), and to exit after SIGINT.

Where the environment keeps Python from caching bytecode (``PYTHONDONTWRITEBYTECODE``), every
fresh process compiles fakeapi's modules again; the cold figures are then also given with a
temporary bytecode cache, which is what an installed fakeapi (pip compiles on install) gets.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.client import NODES, RESOURCE_SLICES, Client, HttpTransport
from fakeapi.cluster.assembler import Cluster
from fakeapi.cluster.sync import SyncCluster
from fakeapi.kubeconfig import load_kubeconfig

SHAPES: dict[str, dict[str, Any]] = {
    "API server only": {"components": ()},
    "control plane, no nodes": {},
    "4 GPU nodes": {"nodes": 4},
}


COLD_PHASES = ("interpreter", "imports", "first registry", "API server only",
               "controllers + scheduler", "4 nodes Ready")


#: run by a fresh interpreter: times each first-time phase, prints them on one line
_COLD_START_CHILD = """
import asyncio, sys, time
laps, last = [], (time.perf_counter(), time.process_time())
def lap(*, restart=False):
    global last
    now = (time.perf_counter(), time.process_time())
    if not restart:
        laps.append(f"{now[0] - last[0]:.6f},{now[1] - last[1]:.6f}")
    last = now
sys.path.insert(0, sys.argv[1])
import fakeapi.cluster.assembler, fakeapi.server.runner
lap()
from fakeapi.bootstrap import new_registry
new_registry()
lap()

async def clusters():
    for options in ({"components": ()}, {}, {"nodes": 4}):
        cluster = fakeapi.cluster.assembler.Cluster(http=True, **options)
        lap(restart=True)
        await cluster.start()
        lap()
        await cluster.stop()

asyncio.run(clusters())
print(" ".join(laps))
"""
_ROOT = str(Path(__file__).resolve().parents[1])


def _cold_start_child(env: dict[str, str]) -> str:
    return subprocess.run([sys.executable, "-c", _COLD_START_CHILD, _ROOT], env=env,
                          capture_output=True, text=True, check=True).stdout


def _interpreter_seconds(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c pass``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def bench_cold_start(runs: int, env: dict[str, str]) -> None:
    """Median wall time of each phase, and (on a shared machine, the steadier figure) CPU time."""
    walls: list[list[float]] = [[] for _ in COLD_PHASES]
    cpus: list[list[float]] = [[] for _ in COLD_PHASES]
    for _ in range(runs):
        laps = [_interpreter_seconds(env)]
        laps += [(float(w), float(c)) for w, c in
                 (pair.split(",") for pair in _cold_start_child(env).split())]
        for wall, cpu, (w, c) in zip(walls, cpus, laps, strict=True):
            wall.append(w)
            cpu.append(c)
    total_wall = [sum(run) for run in zip(*walls, strict=True)]
    total_cpu = [sum(run) for run in zip(*cpus, strict=True)]
    for name, wall, cpu in [*zip(COLD_PHASES, walls, cpus, strict=True),
                            ("total", total_wall, total_cpu)]:
        print(f"  {name:<26} median {statistics.median(wall) * 1000:7.1f} ms"
              f"   CPU {statistics.median(cpu) * 1000:7.1f} ms")


def _bytecode_cached() -> bool:
    return not os.environ.get("PYTHONDONTWRITEBYTECODE")


@contextmanager
def _bytecode_cache() -> Iterator[dict[str, str]]:
    """An environment whose processes cache bytecode in a temporary directory (warmed once)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        _cold_start_child(env)
        yield env


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
            cluster = SyncCluster(functools.partial(Cluster, http=True, **options)).start()
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


def bench_sandbox(runs: int, nodes: int, env: dict[str, str] | None = None) -> None:
    launches, exits = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            kubeconfig = Path(tmp) / "kubeconfig"
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", str(nodes),
                 "--port", "0", "--kubeconfig", str(kubeconfig)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env={**(env or os.environ), "PYTHONUNBUFFERED": "1"},
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
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh interpreters (default 5)")
    args = parser.parse_args(argv)
    cached = _bytecode_cached()
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("cold start of a fresh interpreter, by phase"
         + ("" if cached else " (PYTHONDONTWRITEBYTECODE: every module compiled)"),
         lambda: bench_cold_start(args.cold_runs, dict(os.environ))),
        ("in-process cluster per test (async tests)",
         lambda: asyncio.run(bench_in_process(args.runs))),
        ("in-process cluster per test (sync tests, own loop thread)",
         lambda: bench_sync(args.runs)),
        ("fakeapi sandbox (subprocess)"
         + ("" if cached else " (PYTHONDONTWRITEBYTECODE: every module compiled)"),
         lambda: bench_sandbox(args.sandbox_runs, args.sandbox_nodes)),
    ]
    if not cached:
        def with_bytecode_cache() -> None:
            with _bytecode_cache() as env:
                print("  cold start, by phase:")
                bench_cold_start(args.cold_runs, env)
                print("  fakeapi sandbox:")
                bench_sandbox(args.sandbox_runs, args.sandbox_nodes, env)

        steps.append(("with a bytecode cache, as an installed fakeapi starts",
                      with_bytecode_cache))
    for title, step in steps:
        print(title)
        step()


if __name__ == "__main__":
    main()
