"""Scheduler benchmark: the scheduler_perf DRA shapes in one process.

``python bench/bench_scheduler.py [--scale 0.2] [--duration 10] [--only NAME] [--profile]``
``python bench/bench_scheduler.py --black-box [one|split|both] [--pods 5000] [--nodes 500]
[--baseline DIR] [--where]``

Workloads (upstream test/integration/scheduler_perf/dra, at full scale):

* SchedulingWithResourceClaimTemplate/5000pods_500nodes — 500 nodes with 10 devices each,
  2500 initial pods, then 2500 measured pods, one claim each from a template;
* SteadyStateClusterResourceClaimTemplate empty/half/full_500nodes — 0 / 2500 / 4990 devices
  already allocated; create 10 pods, wait until they are bound, delete them, repeat;
* SchedulingWithResourceClaim (shared claims) — 500 nodes with 2 devices, 500 claims each
  shared by 5 pods (2500 measured pods);
* SharedPodGroupResourceClaim — 50 nodes, 100 PodGroups of 50 pods, each group sharing one
  claim through ``podGroupResourceClaim``.

Everything runs in one process over the in-process transport: the API server, the scheduler and
this driver share one event loop. No resourceclaim controller runs here, so **the benchmark
creates template claims itself, as the controller would** (owned by the pod, recorded in the
pod's ``status.resourceClaimStatuses``), and cleans up claims after pods in the steady-state
runs (in the background, as that controller would, while the next pods are scheduled). The
driver learns that pods are bound from a handler on the scheduler's own pod informer, as
scheduler_perf does. Throughput is as scheduler_perf measures it: measured pods divided by the
time from the first measured pod's creation until the last one is bound.

The breakdown shows where the time went, two ways. First the event loop's time by actor: every
callback the loop runs is timed and charged to the task it steps (the scheduling loop, the
binding cycles, the informers, the Event writer, this driver), garbage collection is counted
apart, and what is left of the wall time is the loop waiting or between callbacks. These add up
to the wall time, so they show what a faster API server or scheduler could win. Then inclusive
timers inside the scheduling cycle (Filter with the allocator, scoring, the queue) and around
the API server's own work for every writer (``registry writes``).

``--black-box`` measures instead as a user meets it (``bench/blackbox.py``): a ``fakeapi
sandbox --nodes 0`` process (or, with ``split``, its ``--split`` mode: API server and components
in two processes), pods created over HTTP by 8 client threads, the sandbox's own resourceclaim
controller and scheduler; the in-process API-write ceiling is measured first in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import gc
import pstats
import random
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fakeapi.bootstrap import new_registry
from fakeapi.cli import tune_collector
from fakeapi.client import (
    DEVICE_CLASSES,
    NODES,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    EventRecorder,
    InformerFactory,
    strip_managed_fields,
)
from fakeapi.clock import RealClock
from fakeapi.registry.store import GenericStore
from fakeapi.rules.claims import DELETE_PROTECTION_FINALIZER
from fakeapi.scheduler import Scheduler
from fakeapi.scheduler.plugins.dynamic_resources import Allocator
from fakeapi.scheduler.queue import SchedulingQueue
from fakeapi.server import inprocess
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.timefmt import format_time

DRIVER = "test-driver.cdi.k8s.io"
CLASS = "test-class"
NS = "default"
TIMERS: dict[str, float] = defaultdict(float)
#: the CPU time of the timers (``time.thread_time``; only timers that do not wait, see
#: ``instrument``): unlike their wall time, it
#: does not grow when other processes take the machine's cores, so before/after comparisons of
#: one phase hold on a busy machine
CPU_TIMERS: dict[str, float] = defaultdict(float)
#: the process's CPU time when measuring started (``start_measuring``)
CPU_START = [0.0]
#: the task coroutines of the components, by the actor their loop time is charged to
ACTORS = {
    "Scheduler._run": "scheduling loop (cycles, queue)",
    "Scheduler._binding_cycle": "binding cycles (claim writes, pods/binding)",
    "Informer._run": "informers (watch events, handlers)",
    "EventRecorder._write_all": "Event writes",
}
DRIVER_ACTOR = "this driver (pods, claims, as the controller would)"
#: template pods the ceiling writes before its clock starts (see ``api_ceiling``)
WARM_UP_PODS = 10


class LoopTime:
    """The event loop's time, charged to the actor whose task each callback steps.

    Measurement only: it wraps ``asyncio.Handle._run``, the one place every callback of the
    loop passes through (an implementation detail of CPython's asyncio, unchanged since 3.7).
    Time the garbage collector takes inside a callback is charged to the collector instead.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._collecting = 0.0
        self._collected = 0.0
        original = asyncio.events.Handle._run

        def run(handle: asyncio.Handle) -> None:
            start = time.perf_counter()
            collected = self._collected
            try:
                original(handle)
            finally:
                spent = time.perf_counter() - start - (self._collected - collected)
                self.seconds[self._actor(handle)] += spent

        asyncio.events.Handle._run = run  # type: ignore[method-assign,assignment]
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._collecting = time.perf_counter()
        else:
            spent = time.perf_counter() - self._collecting
            self._collected += spent
            self.seconds["garbage collector"] += spent

    @staticmethod
    def _actor(handle: asyncio.Handle) -> str:
        callback = getattr(handle, "_callback", None)
        task = getattr(callback, "__self__", None)  # a task's step or wake-up
        if not isinstance(task, asyncio.Task):
            return "callbacks outside tasks"
        name = getattr(task.get_coro(), "__qualname__", "")
        return ACTORS.get(name) or (DRIVER_ACTOR if "." not in name else name)

    def reset(self) -> None:
        self.seconds.clear()


LOOP = LoopTime()


def start_measuring() -> float:
    """Forget what the timers and the loop accounting saw so far; the start time."""
    TIMERS.clear()
    CPU_TIMERS.clear()
    LOOP.reset()
    CPU_START[0] = time.process_time()
    return time.perf_counter()


def timed(owner: Any, name: str, label: str, *, cpu: bool = False) -> None:
    """Time ``owner.name`` under ``label``; with ``cpu``, its CPU time too (a system call
    more per call, so only where it is read)."""
    original = getattr(owner, name)
    clock = time.thread_time if cpu else _no_clock
    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            start, used = time.perf_counter(), clock()
            try:
                return await original(*args, **kwargs)
            finally:
                TIMERS[label] += time.perf_counter() - start
                CPU_TIMERS[label] += clock() - used

        setattr(owner, name, async_wrapper)
        return

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start, used = time.perf_counter(), clock()
        try:
            return original(*args, **kwargs)
        finally:
            TIMERS[label] += time.perf_counter() - start
            CPU_TIMERS[label] += clock() - used

    setattr(owner, name, wrapper)


def _no_clock() -> float:
    return 0.0


_CLASSES_TIMED = False


def instrument() -> None:
    """Time the scheduler's phases and the API server's writes (once per process).

    Only timers that do not wait are kept: a binding cycle's writes yield to the loop, so
    timers around them would count other tasks' time too (the loop accounting charges it
    right).
    """
    global _CLASSES_TIMED
    if _CLASSES_TIMED:
        return
    _CLASSES_TIMED = True
    timed(Scheduler, "schedule_one", "scheduling cycles (PreFilter..Permit)", cpu=True)
    timed(Allocator, "allocate", "allocator (Filter)")
    timed(Scheduler, "_find_feasible", "Filter, all nodes (incl. allocator)")
    timed(Scheduler, "_prioritize", "PreScore + Score")
    for method in ("add", "update", "on_event", "add_unschedulable_if_not_present", "done"):
        timed(SchedulingQueue, method, "queue")
    # every write the in-process transport serves (delete_collection deletes one by one)
    for method in ("create", "update", "post_subresource", "delete"):
        timed(GenericStore, method, "registry writes (every writer)")
    timed(inprocess, "apply_patch_request", "registry writes (every writer)")


class Bench:
    def __init__(self, *, gates: dict[str, bool] | None = None) -> None:
        self.clock = RealClock()
        self.registry = new_registry(clock=self.clock, feature_gates=gates)
        self.client = Client(InProcessTransport(self.registry), field_manager="bench")
        self.gates = gates
        self.scheduler: Scheduler | None = None
        self.bound: set[str] = set()
        self.bound_changed = asyncio.Event()
        self.cleanups: set[asyncio.Task[None]] = set()

    async def start(self) -> Scheduler:
        client = Client(InProcessTransport(self.registry), field_manager="default-scheduler")
        informers = InformerFactory(client, clock=self.clock, transform=strip_managed_fields)
        instrument()
        self.scheduler = Scheduler(
            client=client,
            informers=informers,
            clock=self.clock,
            rng=random.Random(1),
            feature_gates=self.gates,
        )
        self.scheduler.pods.add_handler(
            on_add=lambda pod: self._seen(pod), on_update=lambda old, new: self._seen(new)
        )
        await self.scheduler.start()
        return self.scheduler

    def _seen(self, pod: dict[str, Any]) -> None:
        if (pod.get("spec") or {}).get("nodeName"):
            self.bound.add(pod["metadata"]["name"])
            self.bound_changed.set()

    async def stop(self) -> None:
        await asyncio.gather(*self.cleanups)
        if self.scheduler is not None:
            await self.scheduler.stop()
            await self.scheduler.informers.stop()

    async def nodes(self, count: int, devices: int) -> None:
        await self.client.create(
            DEVICE_CLASSES,
            body={
                "metadata": {"name": CLASS},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
            },
        )
        for i in range(count):
            name = f"scheduler-perf-dra-{i}"
            await self.client.create(
                NODES,
                body={
                    "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                    "status": {
                        "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                        "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                    },
                },
            )
            await self.client.create(
                RESOURCE_SLICES,
                body={
                    "metadata": {"name": name},
                    "spec": {
                        "driver": DRIVER,
                        "nodeName": name,
                        "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": f"instance-{d}"} for d in range(devices)],
                    },
                },
            )

    async def template_pod(self, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """A pod using the claim template, plus what the resourceclaim controller would do;
        returns the pod and its claim."""
        pod = await self.plain_pod(
            name, [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]
        )
        claim = await self.client.create(
            RESOURCE_CLAIMS, body=claim_body(f"{name}-resource", owner=pod)
        )
        await self.client.patch(
            PODS,
            name=name,
            namespace=NS,
            subresource="status",
            patch={
                "status": {
                    "resourceClaimStatuses": [
                        {"name": "resource", "resourceClaimName": claim["metadata"]["name"]}
                    ]
                }
            },
        )
        return pod, claim

    async def plain_pod(
        self, name: str, resource_claims: list[dict[str, Any]], **spec: Any
    ) -> dict[str, Any]:
        """A pod whose one container uses the claim named ``resource``."""
        return await self.client.create(
            PODS,
            body={
                "metadata": {"name": name, "namespace": NS},
                "spec": {
                    "containers": [
                        {
                            "name": "c",
                            "image": "pause",
                            "resources": {"claims": [{"name": "resource"}]},
                        }
                    ],
                    "resourceClaims": resource_claims,
                    **spec,
                },
            },
        )

    async def wait_bound(self, names: list[str], timeout: float = 600.0) -> None:
        """Until every named pod has been seen bound by the scheduler's pod informer."""
        pending = [n for n in names if n not in self.bound]
        while pending:
            self.bound_changed.clear()
            try:
                await asyncio.wait_for(self.bound_changed.wait(), timeout)
            except TimeoutError:
                raise TimeoutError(f"{len(pending)} pods not bound, e.g. {pending[0]}") from None
            pending = [n for n in pending if n not in self.bound]

    async def delete_pod_and_claim(self, name: str) -> None:
        """The pod is gone; do what the resourceclaim controller and GC would."""
        await self.client.delete(PODS, name=name, namespace=NS, grace_period_seconds=0)
        await self.release_claim(name)

    async def release_claim(self, name: str) -> None:
        """Deallocate and delete a deleted pod's claim, as the resourceclaim controller would."""
        claim_name = f"{name}-resource"
        claim = await self.client.get(RESOURCE_CLAIMS, name=claim_name, namespace=NS)
        claim["status"] = {}
        claim = await self.client.update_status(RESOURCE_CLAIMS, body=claim)
        claim["metadata"]["finalizers"] = []
        await self.client.update(RESOURCE_CLAIMS, body=claim)
        await self.client.delete(RESOURCE_CLAIMS, name=claim_name, namespace=NS)


def claim_body(name: str, *, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS}
    if owner is not None:
        meta["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "controller": True,
                "name": owner["metadata"]["name"],
                "uid": owner["metadata"]["uid"],
            }
        ]
    return {
        "metadata": meta,
        "spec": {
            "devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": CLASS}}]}
        },
    }


def allocation(node: str, device: str) -> dict[str, Any]:
    """The allocation of one device of a node's pool to the claim's request, as the scheduler
    writes it (a node-local device: the node selector names the node)."""
    return {
        "devices": {
            "results": [{"request": "req-0", "driver": DRIVER, "pool": node, "device": device}]
        },
        "nodeSelector": {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
            ]
        },
    }


def report(name: str, pods: int, seconds: float) -> None:
    cpu = time.process_time() - CPU_START[0]
    print(f"{name}: {pods} pods in {seconds:.2f}s -> {pods / seconds:,.0f} pods/s")
    print(
        f"    CPU per pod: {1000 * cpu / pods:.3f} ms for the whole process, "
        f"{1000 * CPU_TIMERS.get('scheduling cycles (PreFilter..Permit)', 0.0) / pods:.3f} ms "
        "in scheduling cycles"
    )
    cycles = TIMERS.get("scheduling cycles (PreFilter..Permit)", 0.0)
    if cycles:
        print(
            f"    scheduling cycles alone: {pods / cycles:,.0f} pods/s "
            "(the rest is API server work, shared with this driver, in the same process)"
        )
    def line(label: str, value: float) -> None:
        print(f"      {label:<52} {value:7.2f}s  ({100 * value / seconds:4.0f}% of wall)")

    print("    the event loop's time by actor:")
    other = 0.0
    for label, value in sorted(LOOP.seconds.items(), key=lambda kv: -kv[1]):
        if value < 0.005 * seconds:
            other += value
        else:
            line(label, value)
    line("other tasks and callbacks", other)
    line("waiting, or between callbacks", max(0.0, seconds - sum(LOOP.seconds.values())))
    print("    inclusive timers:")
    for label, value in sorted(TIMERS.items(), key=lambda kv: -kv[1]):
        line(label, value)
    TIMERS.clear()
    CPU_TIMERS.clear()
    LOOP.reset()


async def api_ceiling(scale: float, *, nodes: int | None = None, count: int | None = None) -> float:
    """What the API writes of a template pod allow on their own: the driver's three, then the
    four a scheduler makes (claim finalizer, claim allocation and reservation, ``pods/binding``,
    a ``Scheduled`` Event), written in turn by one client with no scheduling at all, while a
    scheduler-like client's informers watch pods and claims. The scheduled workloads cannot be
    faster than this in this process; their pods/s over it is how much the scheduler adds."""
    nodes = nodes if nodes is not None else max(1, int(500 * scale))
    count = count if count is not None else max(10, int(1000 * scale))
    bench = Bench()
    await bench.nodes(nodes, 10)
    client = Client(InProcessTransport(bench.registry), field_manager="default-scheduler")
    informers = InformerFactory(client, clock=bench.clock, transform=strip_managed_fields)
    informers.informer(PODS)
    informers.informer(RESOURCE_CLAIMS)
    informers.start()
    await informers.wait_for_sync(timeout=60)
    recorder = EventRecorder(client, component="default-scheduler", clock=bench.clock)

    async def seven_writes(name: str, i: int) -> None:
        pod, claim = await bench.template_pod(name)
        node = f"scheduler-perf-dra-{(i // 10) % nodes}"
        # the bodies the scheduler sends: the finalizer added to the claim as its informer
        # holds it (no managedFields), then the allocation with its timestamp and the
        # reservation on the reply, then a binding that names the pod's uid
        held = strip_managed_fields(claim)  # a copy of the top level and metadata
        held["metadata"]["finalizers"] = [DELETE_PROTECTION_FINALIZER]
        claim = dict(await client.update(RESOURCE_CLAIMS, body=held))
        claim["status"] = {
            "allocation": {
                **allocation(node, f"instance-{i % 10}"),
                "allocationTimestamp": format_time(bench.clock.now()),
            },
            "reservedFor": [
                {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
            ],
        }
        await client.update_status(RESOURCE_CLAIMS, body=claim)
        await client.create_subresource(
            PODS,
            name=pod["metadata"]["name"],
            namespace=NS,
            subresource="binding",
            body={
                "apiVersion": "v1",
                "kind": "Binding",
                "metadata": {
                    "name": pod["metadata"]["name"],
                    "namespace": NS,
                    "uid": pod["metadata"]["uid"],
                },
                "target": {"apiVersion": "v1", "kind": "Node", "name": node},
            },
        )
        recorder.event(
            regarding={"apiVersion": "v1", "kind": "Pod", "metadata": pod["metadata"]},
            type="Normal",
            reason="Scheduled",
            action="Binding",
            note=f"Successfully assigned {NS}/{pod['metadata']['name']} to {node}",
        )

    # Warm up first, as the template workloads' measured pods come after 2500 initial ones: the
    # first writes of a kind import its model and compile its schema (tens of milliseconds once
    # per process), which is no cost of a write.
    for i in range(WARM_UP_PODS):
        await seven_writes(f"warm-up-{i}", i)
    await recorder.flush()
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(count):
        await seven_writes(f"ceiling-{i}", WARM_UP_PODS + i)
    await recorder.flush()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"API writes alone (a template pod's seven, no scheduling; {nodes} nodes): "
        f"{count} pods in {seconds:.2f}s -> {count / seconds:,.0f} pods/s, the ceiling of the "
        f"template workloads below in this process ({1000 * cpu / count:.3f} ms CPU per pod)"
    )
    await recorder.close()
    await informers.stop()
    return count / seconds


async def scheduling_with_template(scale: float) -> None:
    nodes, initial, measured = max(1, int(500 * scale)), int(2500 * scale), int(2500 * scale)
    bench = Bench()
    await bench.nodes(nodes, 10)
    await bench.start()
    for i in range(initial):
        await bench.template_pod(f"init-{i}")
    await bench.wait_bound([f"init-{i}" for i in range(initial)])
    start = start_measuring()
    for i in range(measured):
        await bench.template_pod(f"pod-{i}")
    await bench.wait_bound([f"pod-{i}" for i in range(measured)])
    report(
        f"SchedulingWithResourceClaimTemplate/{measured + initial}pods_{nodes}nodes",
        measured,
        time.perf_counter() - start,
    )
    # The same load with the driver out of the way: the measured pods are removed again (with
    # their claims, as the controller would), and a fresh scheduler finds the next pods already
    # created, so only its own work and writes are timed.
    await bench.stop()
    for i in range(measured):
        await bench.delete_pod_and_claim(f"pod-{i}")
    for i in range(measured):
        await bench.template_pod(f"later-{i}")
    started = time.perf_counter()
    await bench.start()
    start = start_measuring()
    await bench.wait_bound([f"later-{i}" for i in range(measured)])
    report(
        f"  same again, the {measured} pods created before a fresh scheduler starts "
        f"(timed once its informers have synced, which took {start - started:.2f}s)",
        measured,
        time.perf_counter() - start,
    )
    await bench.stop()


async def steady_state(scale: float, duration: float, fill: str) -> None:
    nodes = max(1, int(500 * scale))
    devices = nodes * 10
    allocated = {"empty": 0, "half": devices // 2, "full": devices - 10}[fill]
    bench = Bench()
    await bench.nodes(nodes, 10)
    for i in range(allocated):
        node = f"scheduler-perf-dra-{i // 10}"
        claim = await bench.client.create(RESOURCE_CLAIMS, body=claim_body(f"filler-{i}"))
        claim["status"] = {"allocation": allocation(node, f"instance-{i % 10}")}
        await bench.client.update_status(RESOURCE_CLAIMS, body=claim)
    await bench.start()
    start = start_measuring()
    done = 0
    round_ = 0
    loop = asyncio.get_running_loop()
    while time.perf_counter() - start < duration:
        names = [f"steady-{round_}-{i}" for i in range(10)]
        for name in names:
            await bench.template_pod(name)
        await bench.wait_bound(names)
        done += len(names)
        # as scheduler_perf: delete the batch at once (grace 0) and go on with the next one; the
        # claims are released in the background, as the resourceclaim controller would
        await bench.client.delete_collection(PODS, namespace=NS, grace_period_seconds=0)
        task = loop.create_task(release_claims(bench, names))
        bench.cleanups.add(task)
        task.add_done_callback(bench.cleanups.discard)
        round_ += 1
    report(
        f"SteadyStateClusterResourceClaimTemplate/{fill}_{nodes}nodes "
        f"({allocated} devices pre-allocated; create 10, wait, delete)",
        done,
        time.perf_counter() - start,
    )
    await bench.stop()


async def release_claims(bench: Bench, names: list[str]) -> None:
    for name in names:
        await bench.release_claim(name)


async def shared_claims(scale: float) -> None:
    nodes, claims = max(1, int(500 * scale)), max(1, int(500 * scale))
    bench = Bench()
    await bench.nodes(nodes, 2)
    await bench.start()
    for c in range(claims):
        await bench.client.create(RESOURCE_CLAIMS, body=claim_body(f"shared-{c}"))
    start = start_measuring()
    names = []
    for c in range(claims):
        for p in range(5):
            names.append(f"shared-{c}-{p}")
            await bench.plain_pod(
                names[-1], [{"name": "resource", "resourceClaimName": f"shared-{c}"}]
            )
    await bench.wait_bound(names)
    report(
        f"SchedulingWithResourceClaim/{len(names)}pods_{nodes}nodes ({claims} claims, 5 pods each)",
        len(names),
        time.perf_counter() - start,
    )
    await bench.stop()


async def pod_groups(scale: float) -> None:
    nodes, groups, per_group = max(1, int(50 * scale)), max(1, int(100 * scale)), 50
    bench = Bench()
    await bench.nodes(nodes, 10)
    await bench.start()
    for g in range(groups):
        await bench.client.create(RESOURCE_CLAIMS, body=claim_body(f"group-{g}-claim"))
        await bench.client.create(
            POD_GROUPS,
            body={
                "metadata": {"name": f"group-{g}", "namespace": NS},
                "spec": {
                    "workloadRef": {"name": "workload"},
                    "podGroupTemplateRef": {"name": "template"},
                    "resourceClaims": [{"name": "shared", "resourceClaimName": f"group-{g}-claim"}],
                },
            },
        )
    start = start_measuring()
    names = []
    for g in range(groups):
        for p in range(per_group):
            names.append(f"group-{g}-{p}")
            await bench.plain_pod(
                names[-1],
                [{"name": "resource", "podGroupResourceClaim": "shared"}],
                workloadRef={"name": "workload", "podGroupName": f"group-{g}"},
            )
    await bench.wait_bound(names)
    report(
        f"SharedPodGroupResourceClaim/{groups}podgroups_{len(names)}pods ({nodes} nodes)",
        len(names),
        time.perf_counter() - start,
    )
    await bench.stop()


def black_box(modes: str, *, pods: int, nodes: int, baseline: str | None, where: bool) -> None:
    """The black-box runs, after the in-process ceiling (each run prints its own lines); with
    ``baseline`` (another checkout), each mode runs first with that checkout's sandbox."""
    from blackbox import run_black_box

    ceiling = asyncio.run(api_ceiling(1.0, nodes=nodes, count=max(10, min(pods, 1000))))
    rates = {}
    for split in {"one": (False,), "split": (True,), "both": (False, True)}[modes]:
        if baseline:
            before = run_black_box(nodes=nodes, pods=pods, split=split, tree=baseline,
                                   where=where)
        rates[split] = run_black_box(nodes=nodes, pods=pods, split=split, where=where)
        if baseline:
            print(f"    this checkout / baseline: {rates[split] / before:.2f}x")
    print("black-box summary: " + ", ".join(
        f"{'split' if split else 'one process'} {rate:,.0f} pods/s "
        f"({rate / ceiling:.2f} of the in-process ceiling)" for split, rate in rates.items()
    ) + (f"; split/one {rates[True] / rates[False]:.2f}x" if len(rates) == 2 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="shrink every workload")
    parser.add_argument("--duration", type=float, default=10.0, help="steady-state seconds")
    parser.add_argument("--only", default="", help="run workloads whose name contains this")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    parser.add_argument(
        "--black-box", nargs="?", const="both", choices=("one", "split", "both"),
        help="the template workload against a `fakeapi sandbox` process over HTTP: in one "
        "process, split (--split), or both (the default)",
    )
    parser.add_argument("--pods", type=int, default=5000, help="black-box pods")
    parser.add_argument("--nodes", type=int, default=500, help="black-box nodes")
    parser.add_argument(
        "--baseline", metavar="DIR",
        help="black-box: run each mode first with the sandbox of another checkout (e.g. a "
        "`git worktree` of the commit before), for before/after figures from one run",
    )
    parser.add_argument(
        "--where", action="store_true",
        help="black-box: sample each sandbox process with py-spy and print its time by actor",
    )
    args = parser.parse_args()
    if args.black_box:
        black_box(args.black_box, pods=args.pods, nodes=args.nodes, baseline=args.baseline,
                  where=args.where)
        return
    if not args.only:
        print(
            "Template claims are created by this benchmark the way the resourceclaim controller "
            "would (no controller runs here). Each workload runs in a fresh process."
        )
    workloads: list[tuple[str, Callable[[], Any]]] = [
        ("ceiling", lambda: api_ceiling(args.scale)),
        ("template", lambda: scheduling_with_template(args.scale)),
        ("steady-empty", lambda: steady_state(args.scale, args.duration, "empty")),
        ("steady-half", lambda: steady_state(args.scale, args.duration, "half")),
        ("steady-full", lambda: steady_state(args.scale, args.duration, "full")),
        ("shared", lambda: shared_claims(args.scale)),
        ("podgroup", lambda: pod_groups(args.scale)),
    ]
    chosen = [(name, run) for name, run in workloads if args.only in name]
    if len(chosen) > 1 and not args.profile:
        # each workload in a fresh process, as scheduler_perf starts a fresh cluster for each:
        # what one leaves in memory (objects, caches) would tax the collector in the next
        for name, _ in chosen:
            command = [sys.executable, __file__, "--only", name, "--scale", str(args.scale)]
            subprocess.run([*command, "--duration", str(args.duration)], check=True)
        return
    profiler = cProfile.Profile() if args.profile else None
    for _, run in chosen:
        if profiler is not None:
            profiler.enable()
        asyncio.run(run())
        if profiler is not None:
            profiler.disable()
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


if __name__ == "__main__":
    # the collector of `fakeapi sandbox` and `fakeapi serve`
    tune_collector()
    main()
