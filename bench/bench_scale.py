"""Scale benchmark: ``python bench/bench_scale.py [--nodes 5000] [--pods 20000]``.

Kubernetes' scalability envelope is 5000 nodes and 150,000 pods. This runs the API server and
the scheduler in one process (in-process transport, real clock, as ``bench_scheduler.py``), makes
``--nodes`` hand-made Ready nodes (4 CPUs, 32 GiB, 110 pods each; no devices), then creates
``--pods`` plain pods (one container requesting 10m CPU and 16 MiB) while the scheduler binds
them, and prints:

1. pods/s from the first create until the scheduler's informer has seen the last pod bound, and
   the creates alone;
2. the process's resident memory (RSS, after a full collection) with the nodes only and with
   every pod bound, and the difference per 1000 pods: the pods in storage, their watch history,
   the scheduler's informer cache and its node infos.

The driver creates pods in batches of ``--batch`` concurrent requests, so the scheduler works
while pods arrive, as in scheduler_perf. ``--pods 150000`` gives the envelope's figure (several
minutes on two cores). ``--cluster`` runs the whole control plane instead, as ``fakeapi sandbox
--nodes 0`` does (every controller, the scheduler, Events), still in one process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.bootstrap import new_registry
from fakeapi.cli import tune_collector
from fakeapi.client import NODES, PODS, Client, InformerFactory, strip_managed_fields
from fakeapi.clock import RealClock
from fakeapi.scheduler import Scheduler
from fakeapi.server.inprocess import InProcessTransport

NS = "default"


def rss_mib() -> float:
    """Resident memory of this process, after a full collection."""
    gc.collect()
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def node_body(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
            "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod_body(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "containers": [{
                "name": "c",
                "image": "pause",
                "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
            }],
        },
    }


async def run(nodes: int, pods: int, batch: int, *, whole_cluster: bool) -> None:
    cluster = None
    if whole_cluster:
        from fakeapi.cluster.assembler import Cluster
        from fakeapi.controllers import select_controllers

        # as the sandbox without simulated nodes: hand-made nodes renew no Lease, so the node
        # lifecycle controller would taint them
        controllers = select_controllers("*,-node-lifecycle-controller")
        cluster = Cluster(nodes=0, profiles=(), clock="real", controllers=controllers)
        await cluster.start()
        client = cluster.client
    else:
        clock = RealClock()
        registry = new_registry(clock=clock)
        client = Client(InProcessTransport(registry), field_manager="bench")
    started = time.perf_counter()
    for start in range(0, nodes, batch):
        await asyncio.gather(*(client.create(NODES, body=node_body(f"node-{i}"))
                               for i in range(start, min(nodes, start + batch))))
    print(f"{nodes} nodes created in {time.perf_counter() - started:.1f}s")

    if cluster is None:
        scheduler_client = Client(InProcessTransport(registry), field_manager="default-scheduler")
        informers = InformerFactory(scheduler_client, clock=clock, transform=strip_managed_fields)
        scheduler = Scheduler(client=scheduler_client, informers=informers, clock=clock,
                              rng=random.Random(1))
    else:
        assert cluster.scheduler is not None
        scheduler, informers = cluster.scheduler, cluster.informers
    bound: set[str] = set()
    all_bound = asyncio.Event()

    def seen(pod: dict[str, Any]) -> None:
        if (pod.get("spec") or {}).get("nodeName"):
            bound.add(pod["metadata"]["name"])
            if len(bound) >= pods:
                all_bound.set()

    scheduler.pods.add_handler(on_add=seen, on_update=lambda _old, new: seen(new))
    if cluster is None:
        await scheduler.start()
    await informers.wait_for_sync(timeout=600)
    before = rss_mib()
    print(f"RSS with {nodes} nodes and the scheduler synced: {before:,.0f} MiB")

    started = time.perf_counter()
    for start in range(0, pods, batch):
        await asyncio.gather(*(client.create(PODS, body=pod_body(f"pod-{i}"))
                               for i in range(start, min(pods, start + batch))))
    created = time.perf_counter() - started
    await asyncio.wait_for(all_bound.wait(), timeout=3600)
    elapsed = time.perf_counter() - started
    after = rss_mib()
    who = "the whole control plane" if cluster else "the scheduler"
    print(f"{pods} plain pods on {nodes} nodes, {who} in the same process: all bound after "
          f"{elapsed:.1f}s -> {pods / elapsed:,.0f} pods/s (the creates alone took {created:.1f}s,"
          f" {pods / created:,.0f} pods/s)")
    print(f"RSS with every pod bound: {after:,.0f} MiB; {(after - before) / pods * 1000:.1f} MiB "
          "per 1000 pods (storage, watch history, the informers' caches, Events)")
    if cluster is not None:
        await cluster.stop()
        return
    await scheduler.stop()
    await informers.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=50, help="concurrent creates")
    parser.add_argument("--cluster", action="store_true",
                        help="every controller and the scheduler, as `fakeapi sandbox --nodes 0`")
    args = parser.parse_args()
    asyncio.run(run(args.nodes, args.pods, args.batch, whole_cluster=args.cluster))


if __name__ == "__main__":
    # the collector of `fakeapi sandbox` and `fakeapi serve`
    tune_collector()
    main()
