"""Fault injection over the API: annotations on the Node that its kubelet obeys.

The same faults are available from Python as methods of :class:`~fakeapi.kubelet.Kubelet`; the
annotations let a test or a user with kubectl inject them into a running sandbox::

    kubectl annotate node node-1 \\
        fakeapi.dev/fault-unhealthy-devices='gpu.example.com/gpu-0=ECC errors'

The annotations are *level-based*: they state the faults that should be in force now, and
removing one (or a device from the list) undoes it. Values are comma-separated:

``fakeapi.dev/fault-unhealthy-devices``  ``<driver>/<device>[=<message>]`` reported Unhealthy
``fakeapi.dev/fault-silenced-drivers``   drivers that stop streaming health (stay registered)
``fakeapi.dev/fault-stopped-drivers``    drivers that unregister (slices removed, devices Unknown)
``fakeapi.dev/fault-node-stopped``       ``"true"``: the kubelet is cut off from the API: no
                                         Lease, no node status (the node goes NotReady) and no
                                         writes for its pods (deleted ones stay Terminating),
                                         until removed
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ANNOTATION_NODE_STOPPED",
    "ANNOTATION_SILENCED_DRIVERS",
    "ANNOTATION_STOPPED_DRIVERS",
    "ANNOTATION_UNHEALTHY_DEVICES",
    "NodeFaults",
    "faults_from_node",
]

ANNOTATION_UNHEALTHY_DEVICES = "fakeapi.dev/fault-unhealthy-devices"
ANNOTATION_SILENCED_DRIVERS = "fakeapi.dev/fault-silenced-drivers"
ANNOTATION_STOPPED_DRIVERS = "fakeapi.dev/fault-stopped-drivers"
ANNOTATION_NODE_STOPPED = "fakeapi.dev/fault-node-stopped"


@dataclass(frozen=True)
class NodeFaults:
    """The faults the Node's annotations ask for."""

    #: (driver, device) -> message
    unhealthy: Mapping[tuple[str, str], str] = field(default_factory=dict)
    silenced: frozenset[str] = frozenset()
    stopped: frozenset[str] = frozenset()
    node_stopped: bool = False


def _items(value: Any) -> list[str]:
    return [part.strip() for part in str(value or "").split(",") if part.strip()]


def faults_from_node(node: Mapping[str, Any]) -> NodeFaults:
    annotations = (node.get("metadata") or {}).get("annotations") or {}
    unhealthy: dict[tuple[str, str], str] = {}
    for item in _items(annotations.get(ANNOTATION_UNHEALTHY_DEVICES)):
        target, _, message = item.partition("=")
        driver, _, device = target.strip().rpartition("/")
        if driver and device:
            unhealthy[(driver, device)] = message.strip()
    return NodeFaults(
        unhealthy=unhealthy,
        silenced=frozenset(_items(annotations.get(ANNOTATION_SILENCED_DRIVERS))),
        stopped=frozenset(_items(annotations.get(ANNOTATION_STOPPED_DRIVERS))),
        node_stopped=str(annotations.get(ANNOTATION_NODE_STOPPED, "")).lower() == "true",
    )
