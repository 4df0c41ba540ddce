"""Upstream's kubelet pod-status rules, as pure functions of a pod and a status.

What the kubelet reports about a pod follows from its container statuses by fixed rules, and those
rules are upstream's. They live here, apart from the stages that decide *when* containers start
and stop (:mod:`fakeapi.kubelet.stages`) and the steps that change container statuses
(:mod:`fakeapi.kubelet.steps`), so the steps, the pod reconciler (:mod:`fakeapi.kubelet.pods`)
and the golden files all read a pod the same way:

- :func:`pod_phase` is the kubelet's ``getPhase`` (``pkg/kubelet/kubelet_pods.go``): sidecars
  count as running, a container waiting after a failure as stopped, and ``restartPolicy`` says
  whether stopped containers make the pod Succeeded, Failed or still Running.
- :func:`kubelet_conditions` generates the conditions the kubelet owns as
  ``generateAPIPodStatus`` does with ``pkg/kubelet/status/generate.go``: ``Initialized``
  (``ContainersNotInitialized``, ``containers with incomplete status: [init]``),
  ``ContainersReady`` and ``Ready`` (``ContainersNotReady``, ``containers with unready status:
  [app]``, then the readiness gates), ``PodCompleted`` only when Succeeded, ``PodFailed`` when
  Failed, no reason when True, and ``PodReadyToStartContainers`` from the simulated sandbox.
- :func:`pending_status` is the status written for a pod the kubelet takes on, before it
  prepares the pod's devices: containers waiting with ``convertToAPIContainerStatuses``'
  defaults (:func:`default_container_status`).
- :func:`status_patch` and :func:`hold_terminal_phase` are the status manager's
  (``pkg/kubelet/status/status_manager.go``): a two-way merge patch of the fields the kubelet
  owns, and ``mergePodStatus``' rule that no terminal phase is reported while the pod may still
  hold resources.

Statuses are plain dicts as the API serves them; nothing here reads a clock (callers pass
``now``) or the API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.objects import Obj

__all__ = [
    "CRASH_LOOP_BACK_OFF",
    "KUBELET_CONDITIONS",
    "READY_CONDITIONS",
    "TERMINAL_PHASES",
    "conditions_while_held",
    "container_names",
    "default_container_status",
    "exit_code",
    "hold_terminal_phase",
    "is_sidecar",
    "kubelet_conditions",
    "last_terminated",
    "pending_status",
    "pod_phase",
    "state_kind",
    "status_patch",
    "statuses_by_name",
]


#: the pod conditions the kubelet owns and generates (``kubetypes.PodConditionByKubelet``), in
#: the order ``generateAPIPodStatus`` appends them
KUBELET_CONDITIONS = (
    "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"
)
#: the pod conditions that follow container readiness
READY_CONDITIONS = ("Ready", "ContainersReady")
TERMINAL_PHASES = ("Succeeded", "Failed")
#: the waiting reason of a container the kubelet will restart once its back-off is over
CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
#: the status fields a kubelet owns and writes
_STATUS_KEYS = (
    "phase",
    "reason",
    "message",
    "conditions",
    "containerStatuses",
    "initContainerStatuses",
    "hostIP",
    "hostIPs",
    "podIP",
    "podIPs",
    "startTime",
    "allocatedResourcesStatus",
)


# --- container statuses --------------------------------------------------------------------------


def container_names(pod: Obj) -> list[str]:
    """The names of the pod's regular containers, in spec order."""
    return [str(c.get("name")) for c in (pod.get("spec") or {}).get("containers") or []]


def is_sidecar(container: Mapping[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``, KEP-753)."""
    return container.get("restartPolicy") == "Always"


def state_kind(entry: Mapping[str, Any] | None) -> str:
    """``running``, ``terminated``, ``waiting`` or "" for a container status (or None)."""
    state = (entry or {}).get("state") or {}
    for kind in ("running", "terminated", "waiting"):
        if state.get(kind) is not None:
            return kind
    return ""


def statuses_by_name(status: Mapping[str, Any]) -> dict[str, Obj]:
    """Every container status of ``status`` (init containers first) by container name."""
    out: dict[str, Obj] = {}
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in status.get(key) or []:
            out.setdefault(str(entry.get("name")), entry)
    return out


def last_terminated(entry: Mapping[str, Any]) -> Obj | None:
    """The ``lastState.terminated`` of a container status, if it has one."""
    last = (entry.get("lastState") or {}).get("terminated")
    return last if isinstance(last, dict) else None


def exit_code(terminated: Mapping[str, Any] | None) -> int:
    """The exit code of a ``terminated`` state (0 when it names none)."""
    return int((terminated or {}).get("exitCode", 0) or 0)


def _any_regular_started(pod: Obj, statuses: Mapping[str, Obj]) -> bool:
    """``kubecontainer.HasAnyRegularContainerStarted``."""
    started = ("running", "terminated")
    return any(state_kind(statuses.get(name)) in started for name in container_names(pod))


# --- phase ---------------------------------------------------------------------------------------


def pod_phase(pod: Obj, status: Mapping[str, Any], *, terminal: bool) -> str:
    """The phase upstream's ``getPhase`` gives the pod's container statuses; ``terminal``: the
    kubelet has finished with the pod (its containers will not restart whatever the policy)."""
    spec = pod.get("spec") or {}
    statuses = statuses_by_name(status)
    pending_init = failed_init = 0
    unknown = running = waiting = stopped = succeeded = 0
    for container in spec.get("initContainers") or []:
        entry = statuses.get(str(container.get("name")))
        kind = state_kind(entry)
        if is_sidecar(container):
            if entry is None:
                unknown += 1
            elif kind == "running":
                pending_init += 0 if entry.get("started") else 1
                running += 1
            elif kind == "waiting" and last_terminated(entry) is None:
                pending_init += 1
                waiting += 1
            elif kind not in ("terminated", "waiting"):
                pending_init += 1
                unknown += 1
            continue
        if entry is None or kind in ("running", ""):
            pending_init += 1
        elif kind == "terminated":
            failed_init += exit_code(entry["state"]["terminated"]) != 0
        else:  # waiting: after a failure, or not started yet
            last = last_terminated(entry)
            if last is None:
                pending_init += 1
            else:
                failed_init += exit_code(last) != 0
    for name in container_names(pod):
        entry = statuses.get(name)
        kind = state_kind(entry)
        if entry is None or not kind:
            unknown += 1
        elif kind == "running":
            running += 1
        elif kind == "terminated":
            stopped += 1
            succeeded += exit_code(entry["state"]["terminated"]) == 0
        elif last_terminated(entry) is not None:
            stopped += 1
        else:
            waiting += 1
    policy = spec.get("restartPolicy") or "Always"
    if failed_init and policy == "Never":
        return "Failed"
    if (pending_init and not _any_regular_started(pod, statuses)) or waiting:
        return "Pending"
    if running and not unknown:
        return "Running"
    if not running and stopped and not unknown:
        if terminal:
            return "Succeeded" if stopped == succeeded else "Failed"
        if policy == "Always":
            return "Running"  # the containers are restarting
        if stopped == succeeded:
            return "Succeeded"
        return "Failed" if policy == "Never" else "Running"
    return "Pending"


# --- conditions ----------------------------------------------------------------------------------


def _go_list(names: list[str]) -> str:
    """A Go ``[]string`` formatted with ``%s``: ``[app proxy]``."""
    return "[" + " ".join(names) + "]"


def _ready_condition(pod: Obj, statuses: Mapping[str, Obj], phase: str) -> tuple[str, str, str]:
    """(status, reason, message) of ContainersReady, as ``GenerateContainersReadyCondition``."""
    if not statuses:
        return "False", "UnknownContainerStatuses", ""
    spec = pod.get("spec") or {}
    unknown: list[str] = []
    unready: list[str] = []
    names = [str(c.get("name")) for c in spec.get("initContainers") or [] if is_sidecar(c)]
    for name in names + container_names(pod):
        entry = statuses.get(name)
        if entry is None:
            unknown.append(name)
        elif not entry.get("ready"):
            unready.append(name)
    if phase == "Succeeded" and not unknown:
        return "False", "PodCompleted", ""
    if phase == "Failed":
        return "False", "PodFailed", ""
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if unready:
        messages.append(f"containers with unready status: {_go_list(unready)}")
    if messages:
        return "False", "ContainersNotReady", ", ".join(messages)
    return "True", "", ""


def _pod_ready(
    pod: Obj, conditions: list[Obj], containers_ready: tuple[str, str, str]
) -> tuple[str, str, str]:
    """``GeneratePodReadyCondition``: ContainersReady's verdict, then the readiness gates."""
    if containers_ready[0] != "True":
        return containers_ready
    by_type = {c.get("type"): c for c in conditions}
    messages = []
    for gate in (pod.get("spec") or {}).get("readinessGates") or []:
        kind = str(gate.get("conditionType"))
        found = by_type.get(kind)
        if found is None:
            messages.append(
                f'corresponding condition of pod readiness gate "{kind}" does not exist.'
            )
        elif found.get("status") != "True":
            messages.append(f'the status of pod readiness gate "{kind}" is not "True", '
                            f'but {found.get("status")}')
    if messages:
        return "False", "ReadinessGatesNotReady", ", ".join(messages)
    return "True", "", ""


def _initialized(pod: Obj, statuses: Mapping[str, Obj], phase: str) -> tuple[str, str, str]:
    """``GeneratePodInitializedCondition``."""
    inits = (pod.get("spec") or {}).get("initContainers") or []
    if not statuses and inits:
        return "False", "UnknownContainerStatuses", ""
    unknown: list[str] = []
    incomplete: list[str] = []
    for container in inits:
        name = str(container.get("name"))
        entry = statuses.get(name)
        if entry is None:
            unknown.append(name)
        elif not (entry.get("started") if is_sidecar(container) else entry.get("ready")):
            incomplete.append(name)
    if phase == "Succeeded" and not unknown:
        return "True", "PodCompleted", ""
    if _any_regular_started(pod, statuses):
        return "True", "", ""
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if incomplete:
        messages.append(f"containers with incomplete status: {_go_list(incomplete)}")
    if messages:
        return "False", "ContainersNotInitialized", ", ".join(messages)
    return "True", "", ""


def _sandbox_ready(pod: Obj, status: Mapping[str, Any]) -> bool:
    """Whether the simulated pod sandbox (its network) exists: set up by the ``network`` step,
    gone once the pod is terminal or its containers were stopped for deletion."""
    if not status.get("podIP") or status.get("phase") in TERMINAL_PHASES:
        return False
    deleting = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    return not deleting or any(
        state_kind(e) == "running" for e in statuses_by_name(status).values()
    )


def kubelet_conditions(pod: Obj, status: Mapping[str, Any], *, now: str) -> list[Obj]:
    """The pod's conditions with those the kubelet owns generated from ``status`` (its phase
    and container statuses) as upstream's status generator does; others are kept. A condition
    whose status is unchanged keeps its ``lastTransitionTime``; a True one has no reason."""
    statuses = statuses_by_name(status)
    phase = str(status.get("phase") or "Pending")
    current = [dict(c) for c in status.get("conditions") or []]
    containers_ready = _ready_condition(pod, statuses, phase)
    generated = {
        "PodReadyToStartContainers": ("True" if _sandbox_ready(pod, status) else "False", "", ""),
        "Initialized": _initialized(pod, statuses, phase),
        "Ready": _pod_ready(pod, current, containers_ready),
        "ContainersReady": containers_ready,
        "PodScheduled": ("True", "", ""),
    }
    generation = (pod.get("metadata") or {}).get("generation")
    old = {c.get("type"): c for c in current}

    def condition(kind: str) -> Obj:
        value, reason, message = generated[kind]
        entry: Obj = {"type": kind, "status": value, "lastProbeTime": None}
        if isinstance(generation, int):
            entry["observedGeneration"] = generation
        previous = old.get(kind)
        if previous is not None and previous.get("status") == value:
            entry["lastTransitionTime"] = previous.get("lastTransitionTime", now)
        else:
            entry["lastTransitionTime"] = now
        if reason:
            entry["reason"] = reason
        if message:
            entry["message"] = message
        return entry

    out = [condition(c["type"]) if c.get("type") in generated else c for c in current]
    out += [condition(kind) for kind in KUBELET_CONDITIONS if kind not in old]
    return out


def conditions_while_held(pod: Obj, status: Mapping[str, Any], *, now: str) -> list[Obj]:
    """The kubelet's conditions for ``status``, from the phase its containers give before the
    pod is finished (upstream generates them so while its status manager holds a terminal phase
    back)."""
    phase = pod_phase(pod, status, terminal=False)
    return kubelet_conditions(pod, {**status, "phase": phase}, now=now)


# --- a pod the kubelet takes on ------------------------------------------------------------------


def default_container_status(pod: Obj, name: str, *, key: str, waiting_reason: str) -> Obj:
    """A container's status before it ever ran, as ``convertToAPIContainerStatuses`` defaults
    it (no image ID yet, not started)."""
    image = ""
    for container in (pod.get("spec") or {}).get(key) or []:
        if container.get("name") == name:
            image = str(container.get("image") or "")
    return {
        "name": name,
        "image": image,
        "imageID": "",
        "ready": False,
        "restartCount": 0,
        "started": False,
        "state": {"waiting": {"reason": waiting_reason}},
    }


def pending_status(pod: Obj, *, now: str, host_ip: str) -> Obj:
    """The status the kubelet writes for a pod it takes on, before preparing its devices and
    starting it (``generateAPIPodStatus`` ahead of ``SyncPod``): each container waiting
    (``ContainerCreating``, or ``PodInitializing`` when the pod has init containers), the host
    IPs, ``startTime`` and the kubelet's conditions; the phase stays Pending."""
    status: Obj = dict(pod.get("status") or {})
    spec = pod.get("spec") or {}
    reason = "PodInitializing" if spec.get("initContainers") else "ContainerCreating"
    for key, spec_key in (("initContainerStatuses", "initContainers"),
                          ("containerStatuses", "containers")):
        existing = {e.get("name"): e for e in status.get(key) or []}
        entries = [
            existing.get(str(c.get("name")))
            or default_container_status(
                pod, str(c.get("name")), key=spec_key, waiting_reason=reason
            )
            for c in spec.get(spec_key) or []
        ]
        if entries:
            status[key] = entries
    status.setdefault("startTime", now)
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    status["phase"] = "Pending"
    status["conditions"] = kubelet_conditions(pod, status, now=now)
    return status


# --- the status manager --------------------------------------------------------------------------


def hold_terminal_phase(pod: Obj, *, current: Obj, new: Obj, now: str) -> Obj:
    """``new`` without its terminal phase, for a pod that may still hold resources (the status
    manager's ``mergePodStatus``): the phase, reason and message stay as in ``current``; the
    containers' states are reported all the same, with the conditions generated for the phase
    they give while not yet terminal."""
    status = {k: v for k, v in new.items() if k not in ("phase", "reason", "message")}
    status.update({k: current[k] for k in ("phase", "reason", "message") if k in current})
    status["conditions"] = conditions_while_held(pod, status, now=now)
    return status


def _conditions_patch(current: list[Obj], new: list[Obj]) -> list[Obj]:
    """The changed conditions (merged by ``type``), each with ``null`` for the fields it lost:
    a strategic merge of ``{type: Ready, status: "True"}`` would keep a stale reason."""
    old = {c.get("type"): c for c in current}
    out = []
    for condition in new:
        previous = old.get(condition.get("type"))
        if previous == condition:
            continue
        item = dict(condition)
        for gone in set(previous or {}) - set(condition):
            item[gone] = None
        out.append(item)
    return out


def status_patch(current: Obj, new: Obj) -> Obj:
    """The strategic-merge patch of the kubelet's status fields that turns ``current`` into
    ``new`` (upstream's status manager sends a two-way merge patch too): changed fields, ``null``
    for fields ``new`` dropped, and for conditions only the changed ones, with ``null`` for the
    fields they lost."""
    patch: Obj = {}
    for key in _STATUS_KEYS:
        if key not in new:
            if current.get(key) is not None:
                patch[key] = None
            continue
        if new[key] == current.get(key):
            continue
        if key == "conditions" and isinstance(new[key], list):
            changed = _conditions_patch(list(current.get(key) or []), new[key])
            if changed:
                patch[key] = changed
            continue
        patch[key] = new[key]
    return patch
