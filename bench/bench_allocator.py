"""Structured-allocator benchmark: ``python bench/bench_allocator.py``.

Prints three figures, each with a baseline measured in the same run:

1. allocations per second for a one-device claim on one node with 10 devices (warm inventory),
   against the one-shot functional ``allocate()`` that rebuilds everything per call;
2. the per-node cost with 128 devices and a 2-clause request selector, warm (selector results
   memoised) against cold (fresh slice versions, so every device is evaluated by CEL);
3. the time to check 500 nodes of 10 devices each for one pod when half of the nodes are full,
   against the same cluster with every node free.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeapi.scheduler.plugins.dynamic_resources import (
    Allocator,
    DeviceInventory,
    Node,
    allocate,
)

DRIVER = "test-driver.cdi.k8s.io"
SELECTOR = (
    f'device.attributes["{DRIVER}"].driverVersion.major() >= 1 && '
    f'device.capacity["{DRIVER}"].memory.isGreaterThan(quantity("1Mi"))'
)


def make_slice(node: str, devices: int, *, generation: int = 1) -> dict[str, Any]:
    return {
        "metadata": {"name": node, "resourceVersion": str(generation)},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
            "nodeName": node,
            "devices": [
                {
                    "name": f"instance-{i}",
                    "attributes": {"driverVersion": {"version": "1.2.3"}},
                    "capacity": {"memory": {"value": "1Gi"}},
                }
                for i in range(devices)
            ],
        },
    }


DEVICE_CLASS = {
    "metadata": {"name": "test-class"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
}


def make_claim(selector: str | None = None) -> dict[str, Any]:
    exactly: dict[str, Any] = {
        "deviceClassName": "test-class",
        "allocationMode": "ExactCount",
        "count": 1,
    }
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {
        "metadata": {"namespace": "default", "name": "claim"},
        "spec": {"devices": {"requests": [{"name": "req-0", "exactly": exactly}]}},
    }


def timed(fn: Callable[[], object], *, repeat: int, rounds: int = 5) -> float:
    """Best-of-rounds mean seconds per call."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        samples.append((time.perf_counter() - start) / repeat)
    return min(samples)


def bench_single_node() -> None:
    inventory = DeviceInventory()
    inventory.upsert_class(DEVICE_CLASS)
    inventory.upsert_slice(make_slice("node-0", 10))
    allocator = Allocator(inventory=inventory)
    node = Node("node-0")
    claims = [make_claim()]
    prepared = allocator.prepare(claims=claims)

    def warm() -> object:
        return allocator.allocate(claims=prepared, node=node)

    def warm_with_prepare() -> object:
        return allocator.allocate(claims=allocator.prepare(claims=claims), node=node)

    slices = [make_slice("node-0", 10)]

    def one_shot() -> object:
        return allocate(claims=claims, node=node, classes=[DEVICE_CLASS], slices=slices)

    assert warm() is not None and one_shot() is not None
    t_warm = timed(warm, repeat=2000)
    t_prep = timed(warm_with_prepare, repeat=2000)
    t_base = timed(one_shot, repeat=200)
    print("1. one-device claim, one node with 10 devices")
    print(f"   warm, prepared claims: {1 / t_warm:9,.0f} allocs/s ({t_warm * 1e6:6.1f} us)")
    print(f"   warm, prepare per call: {1 / t_prep:9,.0f} allocs/s ({t_prep * 1e6:6.1f} us)")
    print(f"   baseline one-shot allocate(): {1 / t_base:9,.0f} allocs/s ({t_base * 1e6:6.1f} us)")
    print(f"   ratio warm / baseline: {t_base / t_warm:10.1f}x")


def bench_128_devices() -> None:
    node = Node("node-0")
    claims = [make_claim(SELECTOR)]

    def fresh(generation: int) -> tuple[Allocator, Any]:
        inventory = DeviceInventory()
        inventory.upsert_class(DEVICE_CLASS)
        inventory.upsert_slice(make_slice("node-0", 128, generation=generation))
        # Everything but the last device is taken: the search walks all 128 devices.
        inventory.mark_devices_allocated(
            claim_key="others", device_ids=[f"{DRIVER}/node-0/instance-{i}" for i in range(127)]
        )
        allocator = Allocator(inventory=inventory)
        return allocator, allocator.prepare(claims=claims)

    allocator, prepared = fresh(1)
    assert allocator.allocate(claims=prepared, node=node) is not None
    t_warm = timed(lambda: allocator.allocate(claims=prepared, node=node), repeat=500)

    free_inventory = DeviceInventory()
    free_inventory.upsert_class(DEVICE_CLASS)
    free_inventory.upsert_slice(make_slice("node-0", 128))
    free_allocator = Allocator(inventory=free_inventory)
    free_prepared = free_allocator.prepare(claims=claims)
    free_allocator.allocate(claims=free_prepared, node=node)
    t_free = timed(lambda: free_allocator.allocate(claims=free_prepared, node=node), repeat=2000)

    # Cold: a new slice version per call, so selectors run on the one free device and the pools
    # are gathered again (what happens once after every slice update).
    cold_samples = []
    for generation in range(2, 42):
        allocator, prepared = fresh(generation)
        start = time.perf_counter()
        allocator.allocate(claims=prepared, node=node)
        cold_samples.append(time.perf_counter() - start)
    t_cold = statistics.median(cold_samples)

    all_cold = []
    for generation in range(2, 12):
        inventory = DeviceInventory()
        inventory.upsert_class(DEVICE_CLASS)
        inventory.upsert_slice(make_slice("node-0", 128, generation=generation))
        selectors = [inventory.compiler.compile(f'device.driver == "{DRIVER}"')]
        selectors.append(inventory.compiler.compile(SELECTOR))
        view = inventory.node_view(node)
        start = time.perf_counter()
        for device in view.candidates:  # CEL on every device: class + request selector
            for selector in selectors:
                selector.matches(device.view)
        all_cold.append(time.perf_counter() - start)
    t_all_cold = statistics.median(all_cold)

    print("2. one node with 128 devices, class selector + 2-clause request selector")
    print(f"   warm, first device free: {t_free * 1e6:8.1f} us per node")
    print(f"   warm, only the last device free: {t_warm * 1e6:8.1f} us per node")
    print(f"   baseline cold (new slice version): {t_cold * 1e6:8.1f} us per node")
    print(
        f"   CEL on all 128 devices, cold: {t_all_cold * 1e6:8.1f} us "
        f"({t_all_cold / 128 * 1e6:.1f} us/device)"
    )
    print(f"   ratio cold / warm: {t_cold / t_warm:8.1f}x")


def bench_500_nodes() -> None:
    claims = [make_claim()]
    nodes = [Node(f"node-{i}") for i in range(500)]

    def cluster(full_fraction: float) -> tuple[Allocator, Any]:
        inventory = DeviceInventory()
        inventory.upsert_class(DEVICE_CLASS)
        for i, node in enumerate(nodes):
            inventory.upsert_slice(make_slice(node.name, 10))
            if i < int(len(nodes) * full_fraction):
                inventory.mark_devices_allocated(
                    claim_key=node.name,
                    device_ids=[f"{DRIVER}/{node.name}/instance-{d}" for d in range(10)],
                )
        allocator = Allocator(inventory=inventory)
        return allocator, allocator.prepare(claims=claims)

    def check_all(allocator: Allocator, prepared: Any) -> int:
        return sum(allocator.allocate(claims=prepared, node=node) is not None for node in nodes)

    half, half_prepared = cluster(0.5)
    start = time.perf_counter()
    fitting = check_all(half, half_prepared)
    t_first = time.perf_counter() - start
    assert fitting == 250
    t_half = timed(lambda: check_all(half, half_prepared), repeat=3)

    def per_pod() -> int:
        return check_all(half, half.prepare(claims=claims))

    t_pod = timed(per_pod, repeat=3)
    free, free_prepared = cluster(0.0)
    check_all(free, free_prepared)
    t_free = timed(lambda: check_all(free, free_prepared), repeat=3)

    print("3. one pod against 500 nodes x 10 devices, half of the nodes full")
    print(f"   first pass (gathers pools, runs CEL) : {t_first * 1e3:8.2f} ms")
    print(f"   warm, 500 nodes: {t_half * 1e3:8.2f} ms ({t_half / 500 * 1e6:.1f} us/node)")
    print(
        f"   warm, incl. prepare per pod: {t_pod * 1e3:8.2f} ms -> at most {1 / t_pod:,.0f} pods/s"
    )
    print(f"   baseline, all nodes free: {t_free * 1e3:8.2f} ms ({t_free / 500 * 1e6:.1f} us/node)")
    print(f"   ratio free / half full: {t_free / t_half:8.2f}x")


def main() -> None:
    print(f"python {sys.version.split()[0]}")
    bench_single_node()
    bench_128_devices()
    bench_500_nodes()


if __name__ == "__main__":
    main()
