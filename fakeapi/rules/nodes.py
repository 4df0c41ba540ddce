"""Node conditions as every component reads them (component-helpers ``node/util``).

Mirrors ``nodeutil.GetNodeCondition`` and ``IsNodeReady``. The node lifecycle controller, PodGC,
the kubelet and the API server's printer all ask whether a node is Ready; they read the ``Ready``
condition alike: a node without one is not Ready, and a ``Ready`` condition without a status reads
as ``Unknown`` (the lifecycle controller treats such a node as unreachable).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.objects import as_dict, as_list, text
from fakeapi.rules.conditions import find_status_condition

__all__ = ["NODE_READY", "is_node_ready", "node_condition", "node_ready_status"]

NODE_READY = "Ready"


def node_condition(node: Mapping[str, Any], condition_type: str) -> dict[str, Any] | None:
    """The node's condition of ``condition_type``, or None (``GetNodeCondition``)."""
    conditions = as_list(as_dict(node.get("status")).get("conditions"))
    return find_status_condition(conditions, condition_type)


def node_ready_status(node: Mapping[str, Any]) -> str:
    """The status of the node's ``Ready`` condition (``Unknown`` when blank), ``""`` without
    one."""
    ready = node_condition(node, NODE_READY)
    if ready is None:
        return ""
    return text(ready.get("status")) or "Unknown"


def is_node_ready(node: Mapping[str, Any]) -> bool:
    """Whether the node's ``Ready`` condition is ``True`` (``IsNodeReady``)."""
    ready = node_condition(node, NODE_READY)
    return ready is not None and ready.get("status") == "True"
