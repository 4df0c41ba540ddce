"""Fault injection over the API: annotations on the Node that its kubelet obeys.

The same faults are available from Python as methods of :class:`~fakeapi.kubelet.Kubelet`; the
annotations let a test or a user with kubectl inject them into a running sandbox::

    kubectl annotate node node-1 \\
        fakeapi.dev/fault-unhealthy-devices='gpu.example.com/gpu-0=ECC errors'

The annotations are *level-based*: they state the faults that should be in force now, and
removing one (or a device from the list) undoes it. Values are comma-separated:

``fakeapi.dev/fault-unhealthy-devices``  ``<driver>/<device>[=<message>]`` reported Unhealthy
``fakeapi.dev/fault-silenced-drivers``   drivers that stop streaming health (stay registered)
``fakeapi.dev/fault-stopped-drivers``    drivers that unregister (slices removed, devices Unknown);
                                         an external driver's registration socket is lost
``fakeapi.dev/fault-node-stopped``       ``"true"``: the kubelet is cut off from the API: no
                                         Lease, no node status (the node goes NotReady) and no
                                         writes for its pods (deleted ones stay Terminating),
                                         until removed
``fakeapi.dev/fault-prepare``            ``<namespace>/<claim>=<fault>``: the kubelet's
                                         NodePrepareResources calls for the claim are delayed
                                         (``delay:5s``) or fail (``fail:<message>``)
``fakeapi.dev/fault-unprepare``          the same for NodeUnprepareResources

One annotation is an event rather than a level: ``fakeapi.dev/restart-kubelet`` restarts the
node's kubelet each time its value changes (any value, e.g. a timestamp, as ``kubectl rollout
restart`` does with its annotation); the value the kubelet finds when it starts restarts nothing.

A value the kubelet cannot read (an item of ``fault-unhealthy-devices`` without a driver, a
call fault that does not parse, a ``fault-node-stopped`` other than true or false) or an unknown
``fakeapi.dev/fault-`` annotation is not silently dropped: :attr:`NodeFaults.problems` names
each, and the kubelet records a Warning event (reason ``InvalidFaultAnnotation``) on the Node for
it; the readable rest still applies.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.kubelet.dra.callfaults import CallFault, parse_call_fault

__all__ = [
    "ANNOTATION_NODE_STOPPED",
    "ANNOTATION_PREFIX",
    "ANNOTATION_PREPARE_FAULTS",
    "ANNOTATION_RESTART_KUBELET",
    "ANNOTATION_SILENCED_DRIVERS",
    "ANNOTATION_STOPPED_DRIVERS",
    "ANNOTATION_UNHEALTHY_DEVICES",
    "ANNOTATION_UNPREPARE_FAULTS",
    "NODE_FAULT_ANNOTATIONS",
    "NodeFaults",
    "faults_from_node",
]

log = logging.getLogger("fakeapi.kubelet")

ANNOTATION_UNHEALTHY_DEVICES = "fakeapi.dev/fault-unhealthy-devices"
ANNOTATION_SILENCED_DRIVERS = "fakeapi.dev/fault-silenced-drivers"
ANNOTATION_STOPPED_DRIVERS = "fakeapi.dev/fault-stopped-drivers"
ANNOTATION_NODE_STOPPED = "fakeapi.dev/fault-node-stopped"
ANNOTATION_PREPARE_FAULTS = "fakeapi.dev/fault-prepare"
ANNOTATION_UNPREPARE_FAULTS = "fakeapi.dev/fault-unprepare"
ANNOTATION_RESTART_KUBELET = "fakeapi.dev/restart-kubelet"
#: what every fault annotation starts with
ANNOTATION_PREFIX = "fakeapi.dev/fault-"
#: the fault annotations a Node may carry
NODE_FAULT_ANNOTATIONS = (
    ANNOTATION_UNHEALTHY_DEVICES,
    ANNOTATION_SILENCED_DRIVERS,
    ANNOTATION_STOPPED_DRIVERS,
    ANNOTATION_NODE_STOPPED,
    ANNOTATION_PREPARE_FAULTS,
    ANNOTATION_UNPREPARE_FAULTS,
)


@dataclass(frozen=True)
class NodeFaults:
    """The faults the Node's annotations ask for."""

    #: (driver, device) -> message
    unhealthy: Mapping[tuple[str, str], str] = field(default_factory=dict)
    silenced: frozenset[str] = frozenset()
    stopped: frozenset[str] = frozenset()
    node_stopped: bool = False
    #: claim (namespace/name) -> the fault of the kubelet's calls for it, per call
    prepare: Mapping[str, CallFault] = field(default_factory=dict)
    unprepare: Mapping[str, CallFault] = field(default_factory=dict)
    #: the value of the restart annotation ("" when there is none)
    restart_token: str = ""
    #: what could not be read, one message per problem (the rest is applied)
    problems: tuple[str, ...] = ()


def _items(value: Any) -> list[str]:
    return [part.strip() for part in str(value or "").split(",") if part.strip()]


def faults_from_node(node: Mapping[str, Any]) -> NodeFaults:
    annotations = (node.get("metadata") or {}).get("annotations") or {}
    problems = [
        f"annotation {key}: not a fault annotation (known: {', '.join(NODE_FAULT_ANNOTATIONS)})"
        for key in sorted(annotations)
        if key.startswith(ANNOTATION_PREFIX) and key not in NODE_FAULT_ANNOTATIONS
    ]
    unhealthy: dict[tuple[str, str], str] = {}
    for item in _items(annotations.get(ANNOTATION_UNHEALTHY_DEVICES)):
        target, _, message = item.partition("=")
        driver, _, device = target.strip().rpartition("/")
        if driver and device:
            unhealthy[(driver, device)] = message.strip()
        else:
            problems.append(
                f"annotation {ANNOTATION_UNHEALTHY_DEVICES}: item {item!r} is not "
                "<driver>/<device>[=<message>]; ignored"
            )
    stopped_value = str(annotations.get(ANNOTATION_NODE_STOPPED, "")).strip().lower()
    if stopped_value not in ("", "true", "false"):
        problems.append(
            f"annotation {ANNOTATION_NODE_STOPPED}: {annotations[ANNOTATION_NODE_STOPPED]!r} is "
            'neither "true" nor "false"; the node is not stopped'
        )
    return NodeFaults(
        unhealthy=unhealthy,
        silenced=frozenset(_items(annotations.get(ANNOTATION_SILENCED_DRIVERS))),
        stopped=frozenset(_items(annotations.get(ANNOTATION_STOPPED_DRIVERS))),
        node_stopped=stopped_value == "true",
        prepare=_call_faults(annotations, ANNOTATION_PREPARE_FAULTS, problems),
        unprepare=_call_faults(annotations, ANNOTATION_UNPREPARE_FAULTS, problems),
        restart_token=str(annotations.get(ANNOTATION_RESTART_KUBELET) or ""),
        problems=tuple(problems),
    )


def _call_faults(
    annotations: Mapping[str, Any], key: str, problems: list[str]
) -> dict[str, CallFault]:
    """``<namespace>/<claim>=<fault>`` items; an item that does not parse is left out, and
    named in ``problems``."""
    faults: dict[str, CallFault] = {}
    for item in _items(annotations.get(key)):
        claim, _, spec = item.partition("=")
        try:
            fault = parse_call_fault(spec)
        except ValueError as exc:
            log.warning("ignoring call fault %r: %s", item, exc)
            problems.append(f"annotation {key}: item {item!r}: {exc}; ignored")
            continue
        if "/" in claim.strip():
            faults[claim.strip()] = fault
        else:
            problems.append(
                f"annotation {key}: item {item!r} is not <namespace>/<claim>=<fault>; ignored"
            )
    return faults
