"""Simulated-node benchmark: ``python bench/bench_kubelet.py [--nodes 500] [--pods 2000]``.

Starts N simulated kubelets with the GPU driver profile in one process (in-process API, real
clock) and prints:

1. the start-up time of the nodes (registered, Lease, slices published);
2. pods per second from creation to Running, for P pods each using one GPU through its own
   ResourceClaim;
3. the process memory (RSS) per 1000 running pods.

Two modes (``--mode``):

``scheduled`` (default) — the whole path: pods with a ResourceClaimTemplate, the resourceclaim
controller creating and reserving their claims, the scheduler allocating and binding, the kubelets
admitting, preparing and starting them.

``prebound`` — kubelets only: pods are created already bound (``spec.nodeName``) and their claims
allocated by hand beforehand (``reservedForAnyPod``, so the allocation does not need the pod's
UID), which is what a scheduler would have left behind.

In both, the kubelets run the default lifecycle stages with their delays set to zero, so the
figure is throughput (API writes, admission, prepare), not simulated container start-up time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.bootstrap import new_registry
from fakeapi.cli import tune_collector
from fakeapi.client import (
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    InformerFactory,
    strip_managed_fields,
)
from fakeapi.clock import RealClock
from fakeapi.cluster.profiles import load_profile
from fakeapi.kubelet import Kubelet, default_stages
from fakeapi.server.inprocess import InProcessTransport

GPUS_PER_NODE = 8


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE")


def zero_delay_stages() -> Any:
    import dataclasses

    from fakeapi.kubelet.stages import Delay

    return tuple(dataclasses.replace(stage, delay=Delay()) for stage in default_stages())


def claim_body(name: str, node: str, device: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
            "deviceClassName": "gpu.example.com"}}]}},
    }


def allocation(node: str, device: str) -> dict[str, Any]:
    return {
        "allocation": {
            "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                     "pool": node, "device": device}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]},
            "reservedForAnyPod": True,
        }
    }


def pod_body(name: str, node: str, claim: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "nodeName": node,
            "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}],
            "containers": [{"name": "app", "image": "registry.example/app:1.0",
                            "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }


def template_pod_body(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
            "containers": [{"name": "app", "image": "registry.example/app:1.0",
                            "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }


async def start_control_plane(client: Client, informers: InformerFactory, clock: Any) -> list[Any]:
    """DeviceClass and template, then the resourceclaim controller and the scheduler."""
    from fakeapi.client import DEVICE_CLASSES, RESOURCE_CLAIM_TEMPLATES
    from fakeapi.controllers import ControllerManager
    from fakeapi.scheduler import Scheduler

    await client.create(DEVICE_CLASSES, body={
        "metadata": {"name": "gpu.example.com"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    })
    await client.create(RESOURCE_CLAIM_TEMPLATES, namespace="default", body={
        "metadata": {"name": "one-gpu"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
    })
    controllers = ControllerManager(client=client, informers=informers, clock=clock,
                                    rng=random.Random(1),
                                    controllers=["resourceclaim-controller"])
    scheduler = Scheduler(client=client, informers=informers, clock=clock, rng=random.Random(2))
    await controllers.start()
    await scheduler.start()
    return [controllers, scheduler]


async def run(nodes: int, pods: int, mode: str) -> None:
    if pods > nodes * GPUS_PER_NODE:
        raise SystemExit(f"at most {nodes * GPUS_PER_NODE} pods fit on {nodes} nodes")
    clock = RealClock()
    registry = new_registry(clock=clock)
    client = Client(InProcessTransport(registry), field_manager="bench")
    informers = InformerFactory(client, clock=clock, transform=strip_managed_fields)
    profile = load_profile("gpu")
    stages = zero_delay_stages()
    names = [f"node-{i}" for i in range(1, nodes + 1)]
    kubelets = [
        Kubelet(client=client, informers=informers, clock=clock, rng=random.Random(i),
                node_name=name, node_index=i, drivers=[profile], stages=stages)
        for i, name in enumerate(names, 1)
    ]
    started = time.perf_counter()
    await asyncio.gather(*(k.start() for k in kubelets))
    while len((await client.list(RESOURCE_SLICES)).items) < nodes:
        await asyncio.sleep(0.05)
    startup = time.perf_counter() - started
    print(f"nodes: {nodes} kubelets with the gpu profile ready in {startup:.2f} s "
          f"({nodes / startup:.0f} nodes/s)")

    placements = [(names[i % nodes], f"gpu-{i // nodes}") for i in range(pods)]
    if mode == "prebound":
        for i, (node, device) in enumerate(placements):
            claim = await client.create(
                RESOURCE_CLAIMS, body=claim_body(f"claim-{i}", node, device)
            )
            claim["status"] = allocation(node, device)
            await client.update_status(RESOURCE_CLAIMS, body=claim)
    else:
        components = await start_control_plane(client, informers, clock)
    pods_informer = informers.informer(PODS)
    components: list[Any] = []
    running: set[str] = set()
    done = asyncio.Event()

    def observe(pod: dict[str, Any]) -> None:
        if (pod.get("status") or {}).get("phase") == "Running":
            running.add(pod["metadata"]["name"])
            if len(running) >= pods:
                done.set()

    pods_informer.add_handler(on_add=observe, on_update=lambda _old, new: observe(new))
    informers.start()
    await informers.wait_for_sync(pods_informer)
    gc.collect()
    rss_before = rss_bytes()
    started = time.perf_counter()
    for i, (node, _device) in enumerate(placements):
        if mode == "prebound":
            await client.create(PODS, body=pod_body(f"pod-{i}", node, f"claim-{i}"))
        else:
            await client.create(PODS, body=template_pod_body(f"pod-{i}"))
    created = time.perf_counter() - started
    await asyncio.wait_for(done.wait(), timeout=600)
    elapsed = time.perf_counter() - started
    gc.collect()
    rss_after = rss_bytes()
    if mode == "prebound":
        print("mode prebound: no scheduler (pods created bound to their nodes, claims allocated "
              "by hand with reservedForAnyPod); stage delays set to 0")
    else:
        print("mode scheduled: resourceclaim controller + scheduler + kubelets, pods with a "
              "claim template; stage delays set to 0")
    print(f"pods: {pods} created in {created:.2f} s, all Running after {elapsed:.2f} s: "
          f"{pods / elapsed:.0f} pods/s from creation to Running")
    per_thousand = (rss_after - rss_before) / pods * 1000 / 2**20
    print(f"memory: RSS {rss_before / 2**20:.0f} MiB before the pods, {rss_after / 2**20:.0f} MiB "
          f"with them Running: {per_thousand:.1f} MiB per 1000 pods (pods, claims, events, "
          f"watch history, informer caches)")
    for component in reversed(components):
        await component.stop()
    for kubelet in kubelets:
        await kubelet.stop()
    await informers.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--mode", choices=("scheduled", "prebound"), default="scheduled")
    args = parser.parse_args()
    asyncio.run(run(args.nodes, args.pods, args.mode))


if __name__ == "__main__":
    # the collector of `fakeapi sandbox` and `fakeapi serve`
    tune_collector()
    main()
