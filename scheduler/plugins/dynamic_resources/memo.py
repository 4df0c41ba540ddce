"""The DynamicResources plugin's per-node filter memo: allocator answers reused while they hold.

Filter asks the allocator, for every node, whether the pod's unallocated claims fit there. Pods
made from one template ask the same question (the same requests) of the same nodes, and the
answer for a node only changes when something the allocator reads for that node changes. So each
answer is remembered by the requests' signature (their JSON) and the node's name, and dropped:

- all at once when slices, DeviceClasses or DeviceTaintRules change (their versions differ from
  the ones the answers were made with), or when more than ``limit`` answers pile up;
- per pool when an allocation in that pool changes (:meth:`FilterMemo.forget_pool`, called by
  the claim tracker): only the answers of the nodes that see the pool go;
- per node when its labels change or it goes (:meth:`FilterMemo.forget_node`, called by the
  plugin's handler on the scheduler's node informer, which runs in the same dispatch of the
  node's event as the cache's handler, so no scheduling cycle ever sees new labels with an
  answer made for the old ones).

Besides the answers themselves, whether each answer allocates is kept per requests in a plain
dict by node name (:meth:`FilterMemo.fits`): Filter reads it for hundreds of nodes per pod,
and one dict lookup per node is what keeps that walk cheap.

Answers that allocate a shared device (``shareID``) are not remembered: each allocation of a
shared device gets a fresh share ID.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi.scheduler.framework.types import NodeInfo
from fakeapi.scheduler.plugins.dynamic_resources.allocator import Allocator, PreparedClaims
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory, NodeView
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node

__all__ = ["MEMO_SIZE", "FilterMemo", "MemoEntry"]

#: remembered allocator answers kept at most (all are dropped when there would be more)
MEMO_SIZE = 50_000

Answer = list[dict[str, Any]] | None


@dataclass(slots=True)
class MemoEntry:
    """An allocator answer for one node and one set of requests."""

    result: Answer


class FilterMemo:
    """The allocator behind Filter, with its answers remembered per requests and node."""

    def __init__(
        self,
        *,
        inventory: DeviceInventory,
        allocator: Allocator,
        monotonic: Callable[[], float],
        filter_timeout: float,
        limit: int = MEMO_SIZE,
    ) -> None:
        self.inventory = inventory
        self.allocator = allocator
        self.monotonic = monotonic
        #: seconds one node's allocation may take (0 waits for ever)
        self.filter_timeout = filter_timeout
        self.limit = limit
        #: counters for benchmarks and tests: allocator runs and remembered answers used
        self.allocate_calls = 0
        self.hits = 0
        self._classes_version = 0
        #: requests signature → node name → answer
        self._memo: dict[bytes, dict[str, MemoEntry]] = {}
        #: requests signature → node name → whether that answer allocates (the same entries)
        self._fits: dict[bytes, dict[str, bool]] = {}
        #: which answers each pool's allocations invalidate
        self._by_pool: dict[tuple[str, str], set[tuple[bytes, str]]] = {}
        #: slice, class and taint-rule versions the remembered answers were made with
        self._versions = (-1, -1, -1)
        self._size = 0
        self._nodes: dict[str, Node] = {}

    def classes_changed(self) -> None:
        """A DeviceClass was added, changed or removed: no answer holds any more."""
        self._classes_version += 1

    def node(self, node: NodeInfo) -> Node:
        """The allocator's view of a node, rebuilt only when the node's labels change."""
        cached = self._nodes.get(node.name)
        if cached is None or cached.labels is not node.labels:
            cached = self._nodes[node.name] = Node(node.name, node.labels)
        return cached

    def remembered(self, signature: bytes) -> Mapping[str, MemoEntry]:
        """The remembered answers for these requests, by node name."""
        self._check_versions()
        return self._memo.get(signature) or {}

    def fits(self, signature: bytes) -> Mapping[str, bool]:
        """Whether the remembered answer for these requests allocates, by node name (a node
        with no remembered answer is missing)."""
        self._check_versions()
        return self._fits.get(signature) or {}

    def _check_versions(self) -> None:
        inventory = self.inventory
        versions = (inventory.slice_version, self._classes_version, inventory.taint_rule_version)
        if versions != self._versions:
            self._forget_all(versions)

    def allocate(self, prepared: PreparedClaims, signature: bytes, node: Node) -> Answer:
        """The allocator's answer for this node, reused while its inputs are unchanged."""
        view = self.inventory.node_view(node)
        memo = self.remembered(signature).get(node.name)
        if memo is not None:
            self.hits += 1
            return memo.result
        self.allocate_calls += 1
        deadline = self.monotonic() + self.filter_timeout if self.filter_timeout > 0 else None
        result = self.allocator.allocate(
            claims=prepared, node=node, deadline=deadline, now=self.monotonic
        )
        if result is None or not any(
            "shareID" in r for a in result for r in (a.get("devices") or {}).get("results") or ()
        ):
            self._remember(signature, node, view, result)
        return result

    def forget_pool(self, pool: tuple[str, str]) -> None:
        """An allocation in ``pool`` changed: drop the answers of the nodes that see it."""
        for signature, node_name in self._by_pool.pop(pool, ()):
            self._forget(signature, node_name)

    def forget_node(self, name: str) -> None:
        """The node's labels changed, or it is gone: drop its answers."""
        self._nodes.pop(name, None)
        for signature in list(self._memo):
            self._forget(signature, name)

    def _forget(self, signature: bytes, node_name: str) -> None:
        by_node = self._memo.get(signature)
        if by_node is not None and by_node.pop(node_name, None) is not None:
            self._size -= 1
            del self._fits[signature][node_name]

    def _remember(self, signature: bytes, node: Node, view: NodeView, result: Answer) -> None:
        if self._size >= self.limit:
            self._forget_all(self._versions)
        self._memo.setdefault(signature, {})[node.name] = MemoEntry(result)
        self._fits.setdefault(signature, {})[node.name] = result is not None
        self._size += 1
        for pool in view.pools:
            self._by_pool.setdefault(pool.key, set()).add((signature, node.name))

    def _forget_all(self, versions: tuple[int, int, int]) -> None:
        self._memo.clear()
        self._fits.clear()
        self._by_pool.clear()
        self._size = 0
        self._versions = versions
