"""Controller benchmark: ``python bench/bench_controllers.py [pods]``.

Prints how fast the resourceclaim controller turns pods with a ``resourceClaimTemplateName`` into
claims recorded in pod status (claims/s, in-process, one event loop), against the rate at which
the same client can create bare claims with no controller involved — the controller's own
overhead is the difference. Then the same for PodGroups (one shared claim per group), and the
time the garbage collector needs to remove all of those claims once their owners are deleted.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.bootstrap import new_registry
from fakeapi.cli import tune_collector
from fakeapi.client import (
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    Client,
    InformerFactory,
    strip_managed_fields,
)
from fakeapi.clock import FakeClock
from fakeapi.controllers import ControllerManager
from fakeapi.server.inprocess import InProcessTransport

SPEC = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}


def _pod(i: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"pod-{i}", "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
        },
    }


def _group(i: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"group-{i}", "namespace": "default"},
        "spec": {
            "workloadRef": {"name": "w"},
            "podGroupTemplateRef": {"name": "t"},
            "policy": {"basic": {}},
            "resourceClaims": [{"name": "shared", "resourceClaimTemplateName": "tmpl"}],
        },
    }


async def _until(check: Any) -> None:
    while not await check():
        await asyncio.sleep(0.05)


async def main(count: int) -> None:
    clock = FakeClock()
    registry = new_registry(clock=clock)
    user = Client(InProcessTransport(registry), field_manager="bench")
    client = Client(InProcessTransport(registry), field_manager="kube-controller-manager")

    start = time.perf_counter()
    for i in range(count):
        await user.create(
            RESOURCE_CLAIMS,
            body={"metadata": {"name": f"bare-{i}", "namespace": "default"}, "spec": SPEC},
        )
    bare = count / (time.perf_counter() - start)
    await user.delete_collection(RESOURCE_CLAIMS, namespace="default")

    informers = InformerFactory(client, clock=clock, transform=strip_managed_fields)
    manager = ControllerManager(
        client=client,
        informers=informers,
        clock=clock,
        rng=random.Random(1),
        controllers=["garbage-collector-controller", "resourceclaim-controller"],
    )
    await manager.start()
    await user.create(
        RESOURCE_CLAIM_TEMPLATES,
        body={"metadata": {"name": "tmpl", "namespace": "default"}, "spec": {"spec": SPEC}},
    )

    async def recorded() -> bool:
        pods = (await user.list(PODS, namespace="default")).items
        return (
            sum(bool((p.get("status") or {}).get("resourceClaimStatuses")) for p in pods) == count
        )

    start = time.perf_counter()
    for i in range(count):
        await user.create(PODS, body=_pod(i))
    await _until(recorded)
    pods_rate = count / (time.perf_counter() - start)

    async def claims(n: int) -> bool:
        return len((await user.list(RESOURCE_CLAIMS, namespace="default")).items) == n

    start = time.perf_counter()
    for i in range(count):
        await user.create(POD_GROUPS, body=_group(i))
    await _until(lambda: claims(2 * count))
    groups_rate = count / (time.perf_counter() - start)

    start = time.perf_counter()
    await user.delete_collection(PODS, namespace="default")
    await user.delete_collection(POD_GROUPS, namespace="default")
    await _until(lambda: claims(0))
    collect = time.perf_counter() - start

    await manager.stop()
    await informers.stop()
    print(f"bare claim creates (no controller):   {bare:8.0f} claims/s")
    print(
        f"pod template claims, recorded:        {pods_rate:8.0f} claims/s "
        f"({pods_rate / bare:.2f}x of bare creates)"
    )
    print(f"PodGroup template claims:             {groups_rate:8.0f} claims/s")
    print(f"garbage collection of {2 * count} claims:     {collect:8.2f} s")


if __name__ == "__main__":
    # the collector of `fakeapi sandbox` and `fakeapi serve`
    tune_collector()
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
