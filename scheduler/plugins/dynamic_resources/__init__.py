"""The DynamicResources plugin's structured allocator (kubernetes/dynamic-resource-allocation).

Public surface:

* :class:`DeviceInventory` — long-lived index of slices, classes, taint rules and allocated state,
  updated incrementally (``upsert_slice``, ``mark_allocated``, ``mark_freed`` …);
* :class:`Allocator` — ``prepare(claims=…)`` once per pod, ``allocate(claims=…, node=…)`` per node;
* :func:`allocate` — one-shot functional form on a throwaway inventory;
* :class:`AllocationError` / :class:`FailedAllocationOnNodeError` /
  :class:`AllocationTimeoutError` — upstream's error cases.
"""

from .allocator import AllocationStats, Allocator, PreparedClaims, allocate, as_node
from .entries import device_id
from .errors import AllocationError, AllocationTimeoutError, FailedAllocationOnNodeError
from .features import DEFAULT_GATES, AllocatorFeatures
from .inventory import DeviceInventory
from .nodeaffinity import Node, node_selector_matches

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
