"""What each step of a stage does to a pod's status: the interpreters of the step vocabulary.

:mod:`fakeapi.kubelet.stages` says what a stage is and when it fires; this module says what its
steps do once it has. :func:`apply_steps` runs a stage's steps in order on a copy of the pod's
status and returns a :class:`StageOutcome` (the new status, the events, whether to delete the
pod). It is a pure function of the pod and a :class:`StageContext` (the time, the node's
addresses, the kubelet's crash-loop back-off), so golden files pin what each stage does and the
kubelet alone writes the outcome through the API.

- ``network`` — ``startTime`` (once), the node's ``hostIP(s)`` and the pod's ``podIP(s)``.
- ``containers`` — every container moved to ``state``: ``running`` (init containers completed,
  sidecars running), ``waiting`` (with ``reason``), ``terminated`` (only running ones; with
  ``sidecars: true`` the running sidecars after them) or ``restart`` (the exited containers the
  ``restartPolicy`` restarts, or wait in ``CrashLoopBackOff`` while their back-off lasts).
- ``conditions`` — conditions as given, or ``FromContainers``: the conditions the kubelet
  generates (:func:`~fakeapi.kubelet.podstatus.kubelet_conditions`).
- ``phase`` — a phase as given; ``FromContainers``: upstream's ``getPhase``
  (:func:`~fakeapi.kubelet.podstatus.pod_phase`); ``Terminal``: the pod is finished, its
  containers not yet terminated are reported as the status manager's ``TerminatePod`` does. A
  pod never leaves a terminal phase.
- ``event`` — events about the pod, or with ``perContainer`` about each container (as the
  kubelet reports them, with ``fieldPath``), with ``containerState`` only about those the stage
  moved into that state.
- ``delete`` — the kubelet deletes the pod after writing its status.

How a container status looks in each state (IDs, ``lastState``, the reasons) and what phase and
conditions follow from it are upstream's rules, in :mod:`fakeapi.kubelet.podstatus`.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.kubelet.backoff import message
from fakeapi.kubelet.podstatus import (
    CRASH_LOOP_BACK_OFF,
    TERMINAL_PHASES,
    container_names,
    default_container_status,
    exit_code,
    is_sidecar,
    kubelet_conditions,
    last_terminated,
    pod_phase,
    state_kind,
    statuses_by_name,
)
from fakeapi.kubelet.stages import FROM_CONTAINERS, Stage, text_of
from fakeapi.objects import Obj

__all__ = ["StageContext", "StageOutcome", "apply_steps"]




@dataclass(frozen=True, slots=True)
class StageContext:
    """What steps may use besides the pod: the time, the node's addresses and the kubelet's
    crash-loop back-off (``back_off``: container name -> (delay, seconds left) for each
    container that must still wait before it restarts)."""

    now: str
    node_name: str
    host_ip: str
    pod_ip: str
    runtime: str = "containerd"
    back_off: Mapping[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(slots=True)
class StageOutcome:
    """What a fired stage does: the new status, events to record, whether to delete."""

    status: Obj
    events: list[dict[str, str]] = field(default_factory=list)
    delete: bool = False


def _image_id(entry: Mapping[str, Any]) -> str:
    image = str(entry.get("image") or "")
    return f"{image.split(':')[0]}@sha256:{'0' * 64}" if image else ""


def _events(
    pod: Obj, spec: Mapping[str, Any], stage: Stage, ctx: StageContext, status: Obj
) -> list[dict[str, str]]:
    """The events of an ``event`` step: one about the pod, or with ``perContainer`` one about
    each container (``fieldPath: spec.containers{NAME}``, as the kubelet reports them) — with
    ``containerState`` only those the stage so far moved into that state, init containers
    (``spec.initContainers{NAME}``) included."""
    meta = pod.get("metadata") or {}
    fields = {
        "containers": ", ".join(container_names(pod)),
        "node": ctx.node_name,
        "pod": meta.get("name"),
        "namespace": meta.get("namespace"),
        "uid": meta.get("uid"),
    }
    base = {"type": str(spec.get("type", "Normal")), "reason": str(spec.get("reason", stage.name))}
    note = str(spec.get("note", ""))
    if not spec.get("perContainer"):
        return [{**base, "note": note.format(**fields)}]
    pod_spec = pod.get("spec") or {}
    wanted = spec.get("containerState")
    targets = [("containers", c) for c in pod_spec.get("containers") or []]
    if wanted:
        before = statuses_by_name(pod.get("status") or {})
        after = statuses_by_name(status)
        inits = [("initContainers", c) for c in pod_spec.get("initContainers") or []]
        # init containers start first; sidecars are stopped after the main containers
        ordered = targets + inits if wanted == "terminated" else inits + targets
        targets = [
            (key, c)
            for key, c in ordered
            if state_kind(after.get(str(c.get("name")))) == wanted
            and state_kind(before.get(str(c.get("name")))) != wanted
        ]
    events = []
    for key, container in targets:
        name = container.get("name")
        text = note.format(**fields, container=name, image=container.get("image"))
        events.append({**base, "note": text, "fieldPath": f"spec.{key}{{{name}}}"})
    return events


def _container_id(ctx: StageContext, pod: Obj, name: str, restarts: int) -> str:
    uid = str((pod.get("metadata") or {}).get("uid") or "")
    digest = zlib.crc32(f"{uid}/{name}/{restarts}".encode())
    return f"{ctx.runtime}://{uid.replace('-', '')[:24]}{digest:08x}"


def _start(entry: Obj, pod: Obj, ctx: StageContext, *, ready: bool) -> None:
    entry["state"] = {"running": {"startedAt": ctx.now}}
    entry["ready"] = ready
    entry["started"] = True
    entry["imageID"] = entry.get("imageID") or _image_id(entry)
    entry["containerID"] = _container_id(ctx, pod, str(entry["name"]), int(entry["restartCount"]))


def _init_containers_done(pod: Obj, status: Obj, ctx: StageContext) -> None:
    """Init containers as a started pod shows them: completed, or running for sidecars
    (``restartPolicy: Always``); those already past that are left alone."""
    inits = (pod.get("spec") or {}).get("initContainers") or []
    if not inits:
        return
    existing = {e.get("name"): e for e in status.get("initContainerStatuses") or []}
    out = []
    for container in inits:
        name = str(container.get("name"))
        current = existing.get(name)
        if current is not None and state_kind(current) in ("running", "terminated"):
            out.append(current)
            continue
        entry = dict(current) if current is not None else default_container_status(
            pod, name, key="initContainers", waiting_reason="PodInitializing")
        _start(entry, pod, ctx, ready=True)
        if not is_sidecar(container):
            entry.update(started=False, state={"terminated": {
                "exitCode": 0, "reason": "Completed", "startedAt": ctx.now,
                "finishedAt": ctx.now, "containerID": entry["containerID"]}})
        out.append(entry)
    status["initContainerStatuses"] = out


def _terminate(entry: Obj, pod: Obj, ctx: StageContext, args: Mapping[str, Any]) -> Obj:
    entry = dict(entry)
    started = (entry.get("state") or {}).get("running", {}).get("startedAt", ctx.now)
    entry["state"] = {
        "terminated": {
            "exitCode": int(args.get("exitCode", 0)),
            "reason": str(args.get("reason", "Completed")),
            "startedAt": started,
            "finishedAt": ctx.now,
            "containerID": entry.get("containerID")
            or _container_id(ctx, pod, str(entry["name"]), int(entry.get("restartCount", 0))),
        }
    }
    entry["ready"] = False
    entry["started"] = False
    return entry


def _restarts(policy: str, entry: Mapping[str, Any]) -> bool:
    """Whether the kubelet restarts this exited container (``ShouldContainerBeRestarted``); a
    container waiting in CrashLoopBackOff was already found to."""
    kind = state_kind(entry)
    if kind == "waiting":
        return ((entry.get("state") or {}).get("waiting") or {}).get(
            "reason") == CRASH_LOOP_BACK_OFF and last_terminated(entry) is not None
    if kind != "terminated":
        return False
    if policy == "OnFailure":
        return exit_code(entry["state"]["terminated"]) != 0
    return policy != "Never"


def _restart(entry: Obj, pod: Obj, ctx: StageContext, args: Mapping[str, Any]) -> Obj:
    """An exited container restarts — or, while the kubelet's back-off for it lasts, waits in
    ``CrashLoopBackOff`` with upstream's message."""
    entry = dict(entry)
    name = str(entry["name"])
    last = entry["state"].get("terminated") or last_terminated(entry)
    entry["lastState"] = {"terminated": last}
    delay, left = ctx.back_off.get(name, (0.0, 0.0))
    if left > 0:
        meta = pod.get("metadata") or {}
        entry["state"] = {"waiting": {"reason": CRASH_LOOP_BACK_OFF, "message": message(
            delay, container=name, pod=str(meta.get("name")),
            namespace=str(meta.get("namespace")), uid=str(meta.get("uid")))}}
        entry["ready"] = False
        entry["started"] = False
        return entry
    entry["restartCount"] = int(entry.get("restartCount", 0)) + 1
    _start(entry, pod, ctx, ready=bool(args.get("ready", True)))
    return entry


def _step_containers(pod: Obj, status: Obj, args: Mapping[str, Any], ctx: StageContext) -> None:
    state = args.get("state")
    spec = pod.get("spec") or {}
    if state == "running":
        _init_containers_done(pod, status, ctx)
    elif state == "terminated" and args.get("sidecars"):  # stopped after the main containers
        status["initContainerStatuses"] = [
            _terminate(e, pod, ctx, args) if state_kind(e) == "running" else e
            for e in status.get("initContainerStatuses") or []
        ]
    existing = {c.get("name"): c for c in status.get("containerStatuses") or []}
    policy = str(spec.get("restartPolicy") or "Always")
    out = []
    for name in container_names(pod):
        current = existing.get(name)
        kind = state_kind(current)
        if state == "running":
            entry = dict(current) if current is not None else default_container_status(
                pod, name, key="containers", waiting_reason="ContainerCreating")
            if kind == "running":
                entry["ready"] = bool(args.get("ready", True))
            else:
                _start(entry, pod, ctx, ready=bool(args.get("ready", True)))
        elif current is None:
            continue  # never started: nothing to stop or restart
        elif state == "waiting":
            entry = dict(current)
            entry["state"] = {"waiting": {"reason": str(args.get("reason", "ContainerCreating"))}}
            entry["ready"] = False
        elif state == "terminated" and kind == "running":  # only running containers stop
            entry = _terminate(current, pod, ctx, args)
        elif state == "restart" and _restarts(policy, current):
            entry = _restart(current, pod, ctx, args)
        else:
            entry = current
        out.append(entry)
    for name, entry in existing.items():  # keep statuses of containers the step skipped
        if name not in {e["name"] for e in out}:
            out.append(entry)
    order = {n: i for i, n in enumerate(container_names(pod))}
    status["containerStatuses"] = sorted(out, key=lambda e: order.get(e["name"], len(order)))


def _step_conditions(status: Obj, args: Mapping[str, Any], ctx: StageContext) -> None:
    conditions = {c.get("type"): dict(c) for c in status.get("conditions") or []}
    for kind, spec in args.items():
        wanted = spec if isinstance(spec, Mapping) else {"status": spec}
        value = text_of(wanted.get("status", "True"))
        value = {"true": "True", "false": "False"}.get(value, value)
        old = conditions.get(kind)
        entry: Obj = {"type": kind, "status": value, "lastProbeTime": None}
        if old is not None and old.get("status") == value:
            entry["lastTransitionTime"] = old.get("lastTransitionTime", ctx.now)
        else:
            entry["lastTransitionTime"] = ctx.now
        if wanted.get("reason"):
            entry["reason"] = str(wanted["reason"])
        if wanted.get("message"):
            entry["message"] = str(wanted["message"])
        conditions[kind] = entry
    status["conditions"] = list(conditions.values())


_UNKNOWN_TERMINATION = {
    "exitCode": 137,
    "reason": "ContainerStatusUnknown",
    "message": "The container could not be located when the pod was terminated",
}


def _finished_state(entry: Obj) -> Obj:
    """A container's status once its pod is finished: as it was if terminated; one waiting to
    restart shows its last termination again (a finished pod's containers are not restarted,
    so nothing waits); any other is reported as the status manager's ``TerminatePod`` reports
    it, terminated with an unknown outcome (exit code 137)."""
    if state_kind(entry) == "terminated":
        return entry
    last = last_terminated(entry) if state_kind(entry) == "waiting" else None
    out = {k: v for k, v in entry.items() if not (last is not None and k == "lastState")}
    out.update(state={"terminated": dict(last or _UNKNOWN_TERMINATION)}, ready=False,
               started=False)
    return out


def _terminate_pod(status: Obj) -> None:
    for key in ("initContainerStatuses", "containerStatuses"):
        if status.get(key):
            status[key] = [_finished_state(e) for e in status[key]]


def _step_phase(pod: Obj, status: Obj, args: Any) -> None:
    current = str((pod.get("status") or {}).get("phase") or "")
    if args not in (FROM_CONTAINERS, "Terminal"):
        status["phase"] = str(args)
        return
    if current in TERMINAL_PHASES:
        status["phase"] = current  # pods never leave a terminal phase
        return
    if args == "Terminal":
        _terminate_pod(status)
        phase = pod_phase(pod, status, terminal=True)
        status["phase"] = phase if phase in TERMINAL_PHASES else "Failed"
        return
    status["phase"] = pod_phase(pod, status, terminal=False)


def apply_steps(pod: Obj, stage: Stage, ctx: StageContext) -> StageOutcome:
    """The effect of ``stage`` on ``pod``: a new status (``pod`` is not changed)."""
    status: Obj = {
        k: (list(v) if isinstance(v, list) else v) for k, v in (pod.get("status") or {}).items()
    }
    outcome = StageOutcome(status=status)
    for step in stage.steps:
        kind, args = next(iter(step.items()))
        if kind == "network":
            status.setdefault("startTime", ctx.now)
            status["hostIP"] = ctx.host_ip
            status["hostIPs"] = [{"ip": ctx.host_ip}]
            if ctx.pod_ip:
                status["podIP"] = ctx.pod_ip
                status["podIPs"] = [{"ip": ctx.pod_ip}]
        elif kind == "containers":
            _step_containers(pod, status, args if isinstance(args, Mapping) else {}, ctx)
        elif kind == "conditions":
            if args == FROM_CONTAINERS:
                status["conditions"] = kubelet_conditions(pod, status, now=ctx.now)
            else:
                _step_conditions(status, args if isinstance(args, Mapping) else {}, ctx)
        elif kind == "phase":
            _step_phase(pod, status, args)
        elif kind == "event":
            spec = args if isinstance(args, Mapping) else {}
            outcome.events.extend(_events(pod, spec, stage, ctx, status))
        elif kind == "delete":
            outcome.delete = bool(args)
    return outcome
