"""How ``kubectl get pods`` shows a pod: Ready, Status, Restarts and the wide columns.

The Status cell is upstream's printer logic, not just the phase: a pod reports the reason of its
first unfinished init container (``Init:1/2``, ``Init:CrashLoopBackOff``), else the last reason
among its containers (``ContainerCreating``, ``Completed``, ``ExitCode:137``), ``SchedulingGated``
while gated and ``Terminating`` while being deleted, so tests can wait on exactly what users see.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.registry.kinds.common import since_cell
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj

__all__ = ["POD_COLUMNS", "pod_status_reason"]

_TERMINAL = ("Succeeded", "Failed")


def pod_status_reason(pod: Obj) -> str:
    """The Status cell of ``kubectl get pods``, following upstream's printer step by step."""
    status = as_dict(pod.get("status"))
    phase = text(status.get("phase"))
    reason = text(status.get("reason")) or phase
    for condition in as_list(status.get("conditions")):
        condition = as_dict(condition)
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    init_specs = as_list(dig(pod, "spec", "initContainers"))
    initializing = False
    for i, entry in enumerate(as_list(status.get("initContainerStatuses"))):
        entry = as_dict(entry)
        terminated = as_dict(dig(entry, "state", "terminated"))
        waiting = as_dict(dig(entry, "state", "waiting"))
        if terminated and terminated.get("exitCode") == 0:
            continue
        if _is_sidecar(init_specs, text(entry.get("name"))) and entry.get("started") is True:
            continue
        if terminated:
            if text(terminated.get("reason")):
                reason = "Init:" + text(terminated.get("reason"))
            elif terminated.get("signal"):
                reason = f"Init:Signal:{terminated.get('signal')}"
            else:
                reason = f"Init:ExitCode:{terminated.get('exitCode')}"
        elif text(waiting.get("reason")) and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + text(waiting.get("reason"))
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break
    if not initializing or _condition_true(status, "Initialized"):
        has_running = False
        for entry in reversed(as_list(status.get("containerStatuses"))):
            entry = as_dict(entry)
            waiting = as_dict(dig(entry, "state", "waiting"))
            terminated = dig(entry, "state", "terminated")
            if text(waiting.get("reason")):
                reason = text(waiting.get("reason"))
            elif isinstance(terminated, dict) and text(terminated.get("reason")):
                reason = text(terminated.get("reason"))
            elif isinstance(terminated, dict):
                if terminated.get("signal"):
                    reason = f"Signal:{terminated.get('signal')}"
                else:
                    reason = f"ExitCode:{terminated.get('exitCode', 0)}"
            elif entry.get("ready") is True and dig(entry, "state", "running") is not None:
                has_running = True
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status, "Ready") else "NotReady"
    if dig(pod, "metadata", "deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in _TERMINAL:
            reason = "Terminating"
    return reason


def _is_sidecar(init_specs: list[Any], name: str) -> bool:
    return any(
        as_dict(c).get("name") == name and as_dict(c).get("restartPolicy") == "Always"
        for c in init_specs
    )


def _condition_true(status: dict[str, Any], kind: str) -> bool:
    return any(
        as_dict(c).get("type") == kind and as_dict(c).get("status") == "True"
        for c in as_list(status.get("conditions"))
    )


def _ready_cell(pod: Obj, _now: datetime) -> str:
    spec = as_dict(pod.get("spec"))
    init_specs = as_list(spec.get("initContainers"))
    total = len(as_list(spec.get("containers")))
    total += sum(1 for c in init_specs if as_dict(c).get("restartPolicy") == "Always")
    ready = 0
    status = as_dict(pod.get("status"))
    for entry in as_list(status.get("initContainerStatuses")):
        entry = as_dict(entry)
        sidecar = _is_sidecar(init_specs, text(entry.get("name")))
        if sidecar and entry.get("started") is True and entry.get("ready") is True:
            ready += 1
    for entry in as_list(status.get("containerStatuses")):
        entry = as_dict(entry)
        if entry.get("ready") is True and dig(entry, "state", "running") is not None:
            ready += 1
    return f"{ready}/{total}"


def _restarts_cell(pod: Obj, now: datetime) -> str:
    status = as_dict(pod.get("status"))
    restarts = 0
    last: str = ""
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in as_list(status.get(key)):
            entry = as_dict(entry)
            count = entry.get("restartCount")
            if isinstance(count, int):
                restarts += count
            finished = text(dig(entry, "lastState", "terminated", "finishedAt"))
            if count and finished and finished > last:
                last = finished
    if restarts and last:
        return f"{restarts} ({since_cell(last, now)} ago)"
    return str(restarts)


def _readiness_gates_cell(pod: Obj, _now: datetime) -> str:
    gates = [
        text(as_dict(g).get("conditionType")) for g in as_list(dig(pod, "spec", "readinessGates"))
    ]
    if not gates:
        return "<none>"
    status = as_dict(pod.get("status"))
    ready = sum(1 for gate in gates if _condition_true(status, gate))
    return f"{ready}/{len(gates)}"


def _or_none(value: Any) -> str:
    return text(value) or "<none>"


POD_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column(
        "Ready",
        _ready_cell,
        description="The aggregate readiness state of this pod for accepting traffic.",
    ),
    Column(
        "Status",
        lambda obj, _now: pod_status_reason(obj),
        description="The aggregate status of the containers in this pod.",
    ),
    Column(
        "Restarts",
        _restarts_cell,
        description="The number of times the containers in this pod have been restarted and "
        "when the last container in this pod has restarted.",
    ),
    AGE_COLUMN,
    Column(
        "IP",
        lambda obj, _now: _or_none(dig(obj, "status", "podIP")),
        description="IP address allocated to the pod. Routable at least within the cluster. "
        "Empty if not yet allocated.",
        priority=1,
    ),
    Column(
        "Node",
        lambda obj, _now: _or_none(dig(obj, "spec", "nodeName")),
        description="NodeName is a request to schedule this pod onto a specific node.",
        priority=1,
    ),
    Column(
        "Nominated Node",
        lambda obj, _now: _or_none(dig(obj, "status", "nominatedNodeName")),
        description="nominatedNodeName is set when this pod preempts other pods on the node, "
        "but it cannot be scheduled right away as preemption victims receive their graceful "
        "termination periods.",
        priority=1,
    ),
    Column(
        "Readiness Gates",
        _readiness_gates_cell,
        description="If specified, all readiness gates will be evaluated for pod readiness.",
        priority=1,
    ),
)
