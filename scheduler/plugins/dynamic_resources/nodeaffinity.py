"""The node an allocation is attempted for, and the allocator's strict node selector check.

Slices, devices and allocations name their nodes with core/v1 ``NodeSelector`` objects, matched
by the shared rule of :mod:`fakeapi.rules.nodeaffinity`. The allocator reads them as upstream's
does, through ``NewNodeSelector``: a selector with a term that does not parse (an unknown
operator, bad values) is an error, reported as fatal, not a node that merely does not match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakeapi.rules.nodeaffinity import NodeSelectorError, node_selector
from fakeapi.scheduler.plugins.dynamic_resources.errors import AllocationError

__all__ = ["Node", "NodeLike", "node_selector_matches"]


class NodeLike(Protocol):
    """What selector matching reads of a node (the allocator's :class:`Node`, the scheduler's
    NodeInfo)."""

    @property
    def name(self) -> str: ...

    @property
    def labels(self) -> Mapping[str, str]: ...


@dataclass(frozen=True, slots=True)
class Node:
    """The node an allocation is attempted for."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def node_selector_matches(selector: Mapping[str, Any], node: NodeLike) -> bool:
    """True when any term of ``selector`` (a ``NodeSelector`` dict) matches ``node``;
    AllocationError when a term does not parse."""
    parsed = node_selector(selector)
    try:
        parsed.check()
    except NodeSelectorError as exc:
        raise AllocationError(f"failed to parse node selector: {exc}") from None
    return parsed.matches(name=node.name, labels=node.labels)
