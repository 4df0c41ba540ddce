"""The DynamicResources plugin's structured allocator (kubernetes/dynamic-resource-allocation).

Public surface:

* :class:`DeviceInventory` — long-lived index of slices, classes, taint rules and allocated state,
  updated incrementally (``upsert_slice``, ``mark_allocated``, ``mark_freed`` …);
* :class:`Allocator` — ``prepare(claims=…)`` once per pod, ``allocate(claims=…, node=…)`` per node;
* :func:`allocate` — one-shot functional form on a throwaway inventory;
* :class:`AllocationError` / :class:`FailedAllocationOnNodeError` /
  :class:`AllocationTimeoutError` — upstream's error cases.
"""

from fakeapi.scheduler.plugins.dynamic_resources.allocator import (
    AllocationStats,
    Allocator,
    PreparedClaims,
    allocate,
    as_node,
)
from fakeapi.scheduler.plugins.dynamic_resources.entries import device_id
from fakeapi.scheduler.plugins.dynamic_resources.errors import (
    AllocationError,
    AllocationTimeoutError,
    FailedAllocationOnNodeError,
)
from fakeapi.scheduler.plugins.dynamic_resources.features import DEFAULT_GATES, AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node, node_selector_matches

__all__ = [
    "DEFAULT_GATES",
    "AllocationError",
    "AllocationTimeoutError",
    "AllocationStats",
    "Allocator",
    "AllocatorFeatures",
    "DeviceInventory",
    "FailedAllocationOnNodeError",
    "Node",
    "PreparedClaims",
    "allocate",
    "as_node",
    "device_id",
    "node_selector_matches",
]
