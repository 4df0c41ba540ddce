"""Pod lifecycle stages as data: selector, delay with jitter, weight, steps (kwok-like).

A kubelet does not hard-code how pods move from Pending to Running to Succeeded; it runs a list of
:class:`Stage` s, parsed from YAML (:data:`~fakeapi.kubelet.default_stages.DEFAULT_STAGES_YAML`
ships the default lifecycle; docs/kubelet.md documents the format).

**When a stage fires.** The kubelet evaluates the stages for a pod each time it reconciles it
(any change to the pod, or a timer it set). A stage *matches* when every requirement of its
``selector`` holds for the pod as the kubelet sees it now; a pod that is not being deleted is only
considered once the kubelet has admitted it (its claims checked and prepared). Among the matching
stages one is picked at random in proportion to ``weight`` (from the kubelet's injected
``random.Random``), and its delay is drawn: ``delay.seconds`` (or the number found at
``delay.fromPath`` on the pod, when present) plus a uniform jitter in ``[0, delay.jitterSeconds)``.
The stage fires when that much clock time has passed *and it still matches the pod*; if the pod
stopped matching meanwhile, the choice is dropped and made afresh from the stages that match
then. A fired stage applies its ``steps`` in order, in one status write (then events, then the
deletion, if any). The steps must leave the pod no longer matching the same stage, unless looping
is the point (a crash-looping container restarts again and again).

**Selectors** are lists of ``{key, operator, values}``: ``key`` is a path into the pod
(``.status.phase``, ``.metadata.annotations["fakeapi.dev/finish"]``,
``.status.containerStatuses[*].state.running``), ``operator`` one of ``In``, ``NotIn``,
``Exists``, ``DoesNotExist``. A path may yield several values (``[*]``): ``In`` and ``Exists``
hold when any value qualifies, ``NotIn`` and ``DoesNotExist`` when none does. Values compare as
strings (``true``/``false`` for booleans).

**Steps** form a small vocabulary, each a one-key mapping (see :data:`STEP_KINDS`): ``network``,
``containers``, ``conditions``, ``phase``, ``event``, ``delete``. Their effect is computed by
:func:`apply_steps` as a pure function of the pod and a :class:`StageContext` (the time, the
node's addresses, the kubelet's crash-loop back-off), so golden files pin what each stage does.

**The kubelet's status rules** are upstream's, in pure functions the steps and the kubelet share:
:func:`pod_phase` is ``getPhase`` (``pkg/kubelet/kubelet_pods.go``: sidecars count as running,
a container waiting after a failure as stopped), :func:`kubelet_conditions` the conditions
``generateAPIPodStatus`` sets with ``pkg/kubelet/status/generate.go`` (``Initialized``,
``Ready``/``ContainersReady`` with ``ContainersNotReady`` and ``containers with unready status:
[app]``, ``PodCompleted`` only when Succeeded, ``PodFailed`` when Failed, no reason when True),
and :func:`pending_status` the status the kubelet writes before it prepares a pod's devices.
"""

from __future__ import annotations

import functools
import random
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from fakeapi.kubelet.backoff import message
from fakeapi.objects import Obj

__all__ = [
    "CONTAINER_STATES",
    "KUBELET_CONDITIONS",
    "STEP_KINDS",
    "Delay",
    "Requirement",
    "Stage",
    "StageContext",
    "StageError",
    "StageOutcome",
    "apply_steps",
    "evaluate_path",
    "is_sidecar",
    "kubelet_conditions",
    "parse_stages",
    "pending_status",
    "pod_phase",
    "state_kind",
]

Operator = Literal["In", "NotIn", "Exists", "DoesNotExist"]
STEP_KINDS = ("network", "containers", "conditions", "phase", "event", "delete")
CONTAINER_STATES = ("running", "waiting", "terminated")
#: the pod conditions the kubelet owns and generates (``kubetypes.PodConditionByKubelet``), in
#: the order ``generateAPIPodStatus`` appends them
KUBELET_CONDITIONS = (
    "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"
)
FROM_CONTAINERS = "FromContainers"
TERMINAL_PHASES = ("Succeeded", "Failed")
CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
_PATH_TOKEN = re.compile(r'\.([A-Za-z0-9_]+)|\["([^"]*)"\]|\[(\*|\d+)\]')


class StageError(ValueError):
    """Stage data that cannot be used; the message names the stage and field."""


# --- paths and selectors -------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _tokens(path: str) -> tuple[str | int | None, ...]:
    """``.a["b.c"][*][0]`` → ("a", "b.c", None, 0) (None = every element)."""
    out: list[str | int | None] = []
    pos = 0
    while pos < len(path):
        found = _PATH_TOKEN.match(path, pos)
        if found is None:
            raise StageError(f"cannot parse path {path!r} at {path[pos:]!r}")
        name, quoted, index = found.groups()
        if name is not None:
            out.append(name)
        elif quoted is not None:
            out.append(quoted)
        else:
            out.append(None if index == "*" else int(index))
        pos = found.end()
    return tuple(out)


def evaluate_path(obj: Any, path: str) -> list[Any]:
    """Every value found at ``path`` in ``obj`` (absent and null values are left out)."""
    values = [obj]
    for token in _tokens(path):
        following: list[Any] = []
        for value in values:
            if token is None:
                if isinstance(value, list):
                    following.extend(value)
            elif isinstance(token, int):
                if isinstance(value, list) and token < len(value):
                    following.append(value[token])
            elif isinstance(value, dict) and token in value:
                following.append(value[token])
        values = [v for v in following if v is not None]
    return values


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True, slots=True)
class Requirement:
    """One selector requirement on a path of the pod."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    def matches(self, pod: Obj) -> bool:
        found = evaluate_path(pod, self.key)
        if self.operator == "Exists":
            return bool(found)
        if self.operator == "DoesNotExist":
            return not found
        texts = {_as_text(v) for v in found}
        hit = bool(texts & set(self.values))
        return hit if self.operator == "In" else not hit

    @classmethod
    def parse(cls, data: Any, where: str) -> Requirement:
        if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
            raise StageError(f"{where}: a requirement needs a key")
        operator = data.get("operator")
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise StageError(f"{where}.operator: must be In, NotIn, Exists or DoesNotExist")
        values = tuple(_as_text(v) for v in data.get("values") or ())
        if operator in ("In", "NotIn") and not values:
            raise StageError(f"{where}.values: required for {operator}")
        _tokens(data["key"])
        return cls(data["key"], operator, values)


# --- stages ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Delay:
    """``seconds`` (or the number at ``from_path``, or with ``from_back_off`` what is left of
    the crash-loop back-off of the pod's waiting containers) plus uniform jitter below
    ``jitter``."""

    seconds: float = 0.0
    jitter: float = 0.0
    from_path: str = ""
    from_back_off: bool = False

    def draw(self, pod: Obj, rng: random.Random, *, back_off: float = 0.0) -> float:
        """The delay for ``pod``; ``back_off``: the seconds left of its back-off (the kubelet
        knows them, the pod does not)."""
        base = max(0.0, back_off) if self.from_back_off else self.seconds
        if self.from_path:
            for value in evaluate_path(pod, self.from_path):
                try:
                    base = max(0.0, float(value))
                except (TypeError, ValueError):
                    continue
                break
        return base + (rng.uniform(0.0, self.jitter) if self.jitter > 0 else 0.0)


@dataclass(frozen=True, slots=True)
class Stage:
    """One transition of the pod lifecycle; see the module docstring for when it fires."""

    name: str
    selector: tuple[Requirement, ...]
    steps: tuple[Mapping[str, Any], ...]
    delay: Delay = field(default_factory=Delay)
    weight: int = 1
    description: str = ""

    def matches(self, pod: Obj) -> bool:
        return all(requirement.matches(pod) for requirement in self.selector)


def _parse_stage(data: Any, index: int) -> Stage:
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        raise StageError(f"stages[{index}]: a stage needs a name")
    where = f"stage {data['name']}"
    selector = tuple(
        Requirement.parse(item, f"{where}.selector[{i}]")
        for i, item in enumerate(data.get("selector") or [])
    )
    steps = data.get("steps") or []
    if not isinstance(steps, list) or not steps:
        raise StageError(f"{where}.steps: at least one step is required")
    for i, step in enumerate(steps):
        if not isinstance(step, Mapping) or len(step) != 1 or next(iter(step)) not in STEP_KINDS:
            raise StageError(f"{where}.steps[{i}]: must be one of {', '.join(STEP_KINDS)}")
        if "event" in step:
            _check_event(step["event"], f"{where}.steps[{i}].event")
        if "conditions" in step and not (
            isinstance(step["conditions"], Mapping) or step["conditions"] == FROM_CONTAINERS
        ):
            raise StageError(f"{where}.steps[{i}].conditions: a mapping or {FROM_CONTAINERS}")
        if "containers" in step:
            _check_containers(step["containers"], f"{where}.steps[{i}].containers")
    delay_data = data.get("delay") or {}
    if not isinstance(delay_data, Mapping):
        raise StageError(f"{where}.delay: must be a mapping")
    delay = Delay(
        seconds=float(delay_data.get("seconds", 0.0)),
        jitter=float(delay_data.get("jitterSeconds", 0.0)),
        from_path=str(delay_data.get("fromPath") or ""),
        from_back_off=bool(delay_data.get("fromBackOff", False)),
    )
    if delay.from_path and delay.from_back_off:
        raise StageError(f"{where}.delay: fromPath and fromBackOff exclude each other")
    if delay.from_path:
        _tokens(delay.from_path)
    weight = data.get("weight", 1)
    if not isinstance(weight, int) or weight < 0:
        raise StageError(f"{where}.weight: must be a non-negative integer")
    return Stage(
        name=data["name"],
        selector=selector,
        steps=tuple(dict(s) for s in steps),
        delay=delay,
        weight=weight,
        description=str(data.get("description") or ""),
    )


_POD_FIELDS = ("containers", "node", "pod", "namespace", "uid")
_CONTAINER_FIELDS = ("container", "image")


def _check_containers(spec: Any, where: str) -> None:
    if not isinstance(spec, Mapping):
        raise StageError(f"{where}: must be a mapping")
    if spec.get("state") not in (*CONTAINER_STATES, "restart"):
        raise StageError(f"{where}.state: must be running, waiting, terminated or restart")


def _check_event(spec: Any, where: str) -> None:
    """An event step's placeholders must be known: a stage fails when parsed, not when fired."""
    if not isinstance(spec, Mapping):
        raise StageError(f"{where}: must be a mapping")
    wanted = spec.get("containerState")
    if wanted is not None and (wanted not in CONTAINER_STATES or not spec.get("perContainer")):
        raise StageError(
            f"{where}.containerState: one of {', '.join(CONTAINER_STATES)}, with perContainer"
        )
    known = _POD_FIELDS + (_CONTAINER_FIELDS if spec.get("perContainer") else ())
    try:
        str(spec.get("note", "")).format(**dict.fromkeys(known, ""))
    except (KeyError, IndexError, ValueError) as exc:
        raise StageError(
            f"{where}.note: {exc!s} is not a placeholder here (known: {', '.join(known)})"
        ) from None


def parse_stages(source: str | Sequence[Any]) -> tuple[Stage, ...]:
    """Stages from YAML text (a list, or a mapping with ``stages:``) or already-loaded data."""
    data: Any = yaml.safe_load(source) if isinstance(source, str) else source
    if isinstance(data, Mapping):
        data = data.get("stages")
    if not isinstance(data, list) or not data:
        raise StageError("expected a non-empty list of stages")
    stages = tuple(_parse_stage(item, i) for i, item in enumerate(data))
    names = [s.name for s in stages]
    if len(set(names)) != len(names):
        raise StageError("stage names must be unique")
    return stages


# --- steps ---------------------------------------------------------------------------------------


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


def _container_names(pod: Obj) -> list[str]:
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


def _statuses_by_name(status: Mapping[str, Any]) -> dict[str, Obj]:
    out: dict[str, Obj] = {}
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in status.get(key) or []:
            out.setdefault(str(entry.get("name")), entry)
    return out


def _last_terminated(entry: Mapping[str, Any]) -> Obj | None:
    last = (entry.get("lastState") or {}).get("terminated")
    return last if isinstance(last, dict) else None


def _exit_code(terminated: Mapping[str, Any] | None) -> int:
    return int((terminated or {}).get("exitCode", 0) or 0)


def _any_regular_started(pod: Obj, statuses: Mapping[str, Obj]) -> bool:
    """``kubecontainer.HasAnyRegularContainerStarted``."""
    started = ("running", "terminated")
    return any(state_kind(statuses.get(name)) in started for name in _container_names(pod))


def pod_phase(pod: Obj, status: Mapping[str, Any], *, terminal: bool) -> str:
    """The phase upstream's ``getPhase`` gives the pod's container statuses; ``terminal``: the
    kubelet has finished with the pod (its containers will not restart whatever the policy)."""
    spec = pod.get("spec") or {}
    statuses = _statuses_by_name(status)
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
            elif kind == "waiting" and _last_terminated(entry) is None:
                pending_init += 1
                waiting += 1
            elif kind not in ("terminated", "waiting"):
                pending_init += 1
                unknown += 1
            continue
        if entry is None or kind in ("running", ""):
            pending_init += 1
        elif kind == "terminated":
            failed_init += _exit_code(entry["state"]["terminated"]) != 0
        else:  # waiting: after a failure, or not started yet
            last = _last_terminated(entry)
            if last is None:
                pending_init += 1
            else:
                failed_init += _exit_code(last) != 0
    for name in _container_names(pod):
        entry = statuses.get(name)
        kind = state_kind(entry)
        if entry is None or not kind:
            unknown += 1
        elif kind == "running":
            running += 1
        elif kind == "terminated":
            stopped += 1
            succeeded += _exit_code(entry["state"]["terminated"]) == 0
        elif _last_terminated(entry) is not None:
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
    for name in names + _container_names(pod):
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
        state_kind(e) == "running" for e in _statuses_by_name(status).values()
    )


def kubelet_conditions(pod: Obj, status: Mapping[str, Any], *, now: str) -> list[Obj]:
    """The pod's conditions with those the kubelet owns generated from ``status`` (its phase
    and container statuses) as upstream's status generator does; others are kept. A condition
    whose status is unchanged keeps its ``lastTransitionTime``; a True one has no reason."""
    statuses = _statuses_by_name(status)
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


def _default_status(pod: Obj, name: str, *, key: str, waiting_reason: str) -> Obj:
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


def _image_id(entry: Mapping[str, Any]) -> str:
    image = str(entry.get("image") or "")
    return f"{image.split(':')[0]}@sha256:{'0' * 64}" if image else ""


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
            or _default_status(pod, str(c.get("name")), key=spec_key, waiting_reason=reason)
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


def _events(
    pod: Obj, spec: Mapping[str, Any], stage: Stage, ctx: StageContext, status: Obj
) -> list[dict[str, str]]:
    """The events of an ``event`` step: one about the pod, or with ``perContainer`` one about
    each container (``fieldPath: spec.containers{NAME}``, as the kubelet reports them) — with
    ``containerState`` only those the stage so far moved into that state, init containers
    (``spec.initContainers{NAME}``) included."""
    meta = pod.get("metadata") or {}
    fields = {
        "containers": ", ".join(_container_names(pod)),
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
        before = _statuses_by_name(pod.get("status") or {})
        after = _statuses_by_name(status)
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
        entry = dict(current) if current is not None else _default_status(
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
            "reason") == CRASH_LOOP_BACK_OFF and _last_terminated(entry) is not None
    if kind != "terminated":
        return False
    if policy == "OnFailure":
        return _exit_code(entry["state"]["terminated"]) != 0
    return policy != "Never"


def _restart(entry: Obj, pod: Obj, ctx: StageContext, args: Mapping[str, Any]) -> Obj:
    """An exited container restarts — or, while the kubelet's back-off for it lasts, waits in
    ``CrashLoopBackOff`` with upstream's message."""
    entry = dict(entry)
    name = str(entry["name"])
    last = entry["state"].get("terminated") or _last_terminated(entry)
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
    for name in _container_names(pod):
        current = existing.get(name)
        kind = state_kind(current)
        if state == "running":
            entry = dict(current) if current is not None else _default_status(
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
    order = {n: i for i, n in enumerate(_container_names(pod))}
    status["containerStatuses"] = sorted(out, key=lambda e: order.get(e["name"], len(order)))


def _step_conditions(status: Obj, args: Mapping[str, Any], ctx: StageContext) -> None:
    conditions = {c.get("type"): dict(c) for c in status.get("conditions") or []}
    for kind, spec in args.items():
        wanted = spec if isinstance(spec, Mapping) else {"status": spec}
        value = _as_text(wanted.get("status", "True"))
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
    last = _last_terminated(entry) if state_kind(entry) == "waiting" else None
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
