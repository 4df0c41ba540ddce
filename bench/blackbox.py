"""The template workload black-box, as a user meets it: ``bench_scheduler.py --black-box``.

``fakeapi sandbox --nodes 0`` runs as its own process (with ``--split``, as two: the API server
and the components). Over HTTP this driver makes the DeviceClass, the claim template and
500 nodes with 10 devices each (``--nodes``), then 8 client threads create 5000 pods (``--pods``)
that use the template, each thread on its own keep-alive connection (``http.client``, the
cheapest Python client there is, so that the load generator takes as little of the two cores as
it can). The sandbox's own resourceclaim controller makes the claims and its scheduler binds the
pods; a watch on pods counts the bound ones. Throughput is pods divided by the time from the
first create until the watch has seen the last pod bound.

Where the time goes: the CPU seconds of each process in the measured window (the sandbox's
processes from ``/proc``, this driver's own threads), as a share of the wall time — a process
at 100% is one core full — then what other processes on the machine took and what was left
idle (``/proc/stat``): a split sandbox needs both cores, and on a shared machine another user's
work is what it waits for. A timeline of the pods as a watch sees them (created, with their
claim, bound) shows which stage lags, and how long the creates alone took.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import where

__all__ = ["run_black_box"]

DRIVER = "test-driver.cdi.k8s.io"
CLASS = "test-class"
NS = "default"
THREADS = 8
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _machine_seconds() -> tuple[float, float]:
    """(busy, idle) CPU seconds of the whole machine so far, every core summed."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / TICKS, idle / TICKS


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Connection:
    """One keep-alive HTTP/1.1 connection to the sandbox."""

    def __init__(self, host: str, port: int) -> None:
        self.http = http.client.HTTPConnection(host, port, timeout=120)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        self.http.request(method, path, body=data, headers=headers)
        response = self.http.getresponse()
        payload = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:300]!r}")
        return orjson.loads(payload)


def _setup(conn: Connection, nodes: int) -> None:
    conn.call("POST", "/apis/resource.k8s.io/v1/deviceclasses", {
        "metadata": {"name": CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    })
    conn.call("POST", f"/apis/resource.k8s.io/v1/namespaces/{NS}/resourceclaimtemplates", {
        "metadata": {"name": "test-claim-template", "namespace": NS},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "req-0", "exactly": {"deviceClassName": CLASS}}
        ]}}},
    })
    for i in range(nodes):
        name = f"scheduler-perf-dra-{i}"
        conn.call("POST", "/api/v1/nodes", {
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {
                "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        })
        conn.call("POST", "/apis/resource.k8s.io/v1/resourceslices", {
            "metadata": {"name": name},
            "spec": {
                "driver": DRIVER,
                "nodeName": name,
                "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": f"instance-{d}"} for d in range(10)],
            },
        })


def _pod(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "containers": [
                {"name": "c", "image": "pause", "resources": {"claims": [{"name": "resource"}]}}
            ],
            "resourceClaims": [
                {"name": "resource", "resourceClaimTemplateName": "test-claim-template"}
            ],
        },
    }


class BoundWatch(threading.Thread):
    """Watches pods from a resourceVersion and notes when each is first seen created, with its
    claim (``status.resourceClaimStatuses``, the claim controller's work) and bound."""

    def __init__(self, host: str, port: int, resource_version: str, expected: int) -> None:
        super().__init__(daemon=True)
        self.host, self.port, self.rv, self.expected = host, port, resource_version, expected
        self.created: dict[str, float] = {}
        self.claimed: dict[str, float] = {}
        self.bound: dict[str, float] = {}
        self.done = threading.Event()
        self.last_bound = 0.0

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=600)
        path = (f"/api/v1/namespaces/{NS}/pods?watch=true&resourceVersion={self.rv}"
                "&allowWatchBookmarks=false")
        conn.request("GET", path, headers={"Accept": "application/json"})
        response = conn.getresponse()
        while len(self.bound) < self.expected:
            line = response.readline()
            if not line:
                break
            obj = orjson.loads(line).get("object") or {}
            name, now = obj["metadata"]["name"], time.perf_counter()
            self.created.setdefault(name, now)
            if (obj.get("status") or {}).get("resourceClaimStatuses"):
                self.claimed.setdefault(name, now)
            if (obj.get("spec") or {}).get("nodeName") and name not in self.bound:
                self.bound[name] = self.last_bound = now
        self.done.set()
        conn.close()

    def timeline(self, start: float, end: float, *, points: int = 6) -> None:
        """Cumulative counts of each stage at a few moments of the run: the stage that lags is
        where the pipeline waits."""
        print("    pipeline, as a watch on pods sees it (cumulative):")
        for i in range(1, points + 1):
            moment = start + (end - start) * i / points
            counts = [sum(1 for t in stage.values() if t <= moment)
                      for stage in (self.created, self.claimed, self.bound)]
            print(f"      at {moment - start:6.2f}s: {counts[0]:6d} created, {counts[1]:6d} with "
                  f"their claim, {counts[2]:6d} bound")


def _writes(conn: Connection, since: int, pods: int) -> None:
    """Writes per pod in the window: resourceVersions are one per write, so the current one
    less the one the run started from counts every write (Events told apart)."""
    now = int(conn.call("GET", "/api/v1/namespaces/default/pods?limit=1")["metadata"]
              ["resourceVersion"])
    events = len(conn.call("GET", "/apis/events.k8s.io/v1/events")["items"])
    print(f"    writes: {(now - since) / pods:.2f} per pod ({now - since} in all, {events} of "
          "them Events)")


def _launch(split: bool, kubeconfig: str,
            tree: str | None = None) -> tuple[subprocess.Popen[str], str, int]:
    command = [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "0", "--port", "0",
               "--kubeconfig", kubeconfig]
    if split:
        command.append("--split")
    # another checkout's fakeapi (a baseline) comes first on the path of the sandbox and its
    # child (``python -m`` puts the working directory first of all)
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
    assert process.stdout is not None
    for line in process.stdout:
        match = re.search(r"ready at http://([0-9.]+):(\d+)", line)
        if match:
            # keep reading its output so that it never blocks on a full pipe
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, match.group(1), int(match.group(2))
    raise RuntimeError(f"the sandbox exited with {process.wait()} before it was ready")


def run_black_box(*, nodes: int, pods: int, split: bool, tree: str | None = None,
                  where: bool = False) -> float:
    """Runs the workload against a fresh sandbox (``tree``: of another checkout); prints and
    returns pods/s. ``where``: sample each sandbox process with py-spy (``bench/where.py``)."""
    pods = max(THREADS, pods)
    with tempfile.TemporaryDirectory() as tmp:
        process, host, port = _launch(split, os.path.join(tmp, "kubeconfig"), tree)
        try:
            if tree:
                print(f"[baseline: the sandbox of {tree}]")
            return _measure(process.pid, host, port, nodes, pods, split,
                            Path(tmp) if where else None)
        finally:
            process.terminate()
            process.wait(30)


def _measure(pid: int, host: str, port: int, nodes: int, pods: int, split: bool,
             samples: Path | None) -> float:
    conn = Connection(host, port)
    _setup(conn, nodes)
    rv = conn.call("GET", f"/api/v1/namespaces/{NS}/pods")["metadata"]["resourceVersion"]
    watch = BoundWatch(host, port, rv, pods)
    watch.start()
    time.sleep(0.5)  # the watch is open (it starts at rv, so nothing is missed either way)
    processes = {"sandbox" if not split else "API server (sandbox)": pid}
    for child in _children(pid):
        processes[f"components (pid {child})"] = child
    samplers = {}
    if samples is not None and where.available():
        samplers = {name: where.Sampler(p, samples / f"{p}.raw") for name, p in processes.items()}
        time.sleep(0.5)  # py-spy has attached
    cpu_before = {name: _cpu_seconds(p) for name, p in processes.items()}
    own_before = time.process_time()
    machine_before = _machine_seconds()
    names = [f"pod-{i}" for i in range(pods)]
    creates_done: list[float] = []
    errors: list[BaseException] = []

    def create(part: list[str]) -> None:
        try:
            client = Connection(host, port)
            for name in part:
                client.call("POST", f"/api/v1/namespaces/{NS}/pods", _pod(name))
            creates_done.append(time.perf_counter())
        except BaseException as exc:  # told after the run
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(names[i::THREADS],))
               for i in range(THREADS)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    if not watch.done.wait(600):
        raise TimeoutError(f"{pods - len(watch.bound)} pods not bound")
    end = watch.last_bound
    for sampler in samplers.values():
        sampler.stop()
    wall = end - start
    cpu = {name: _cpu_seconds(p) - cpu_before[name] for name, p in processes.items()}
    own = time.process_time() - own_before
    rate = pods / wall
    mode = "split: API server and components in two processes" if split else "one process"
    print(f"black-box template workload ({mode}): {pods} pods on {nodes} nodes, created over "
          f"HTTP by {THREADS} client threads, claim controller and scheduler in the sandbox: "
          f"{wall:.2f}s -> {rate:,.0f} pods/s")
    watch.timeline(start, end)
    print(f"    creates alone took {max(creates_done) - start:.2f}s "
          f"({pods / (max(creates_done) - start):,.0f} pods/s)")
    print("    CPU in the measured window (100% is one core):")
    for name, p in processes.items():
        print(f"      {name:<40} {cpu[name]:6.2f}s ({100 * cpu[name] / wall:4.0f}%)  "
              f"RSS {_rss_mib(p):6.0f} MiB")
    print(f"      {'this driver (8 creators + the watch)':<40} {own:6.2f}s "
          f"({100 * own / wall:4.0f}%)")
    machine_after = _machine_seconds()
    busy, idle = machine_after[0] - machine_before[0], machine_after[1] - machine_before[1]
    others = max(0.0, busy - sum(cpu.values()) - own)
    print(f"      {'other processes on this machine':<40} {others:6.2f}s "
          f"({100 * others / wall:4.0f}%)")
    print(f"      {'the cores left idle':<40} {idle:6.2f}s ({100 * idle / wall:4.0f}%)  "
          f"[{os.cpu_count()} cores]")
    _writes(conn, int(rv), pods)
    for name, sampler in samplers.items():
        sampler.report(name)
    if samples is not None and not samplers:
        print("    (install py-spy for where each process's time goes)")
    return rate


