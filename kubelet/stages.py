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
:func:`apply_steps` as a pure function of the pod, so golden files pin what each stage does.
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

__all__ = [
    "STEP_KINDS",
    "Delay",
    "Requirement",
    "Stage",
    "StageContext",
    "StageError",
    "StageOutcome",
    "apply_steps",
    "evaluate_path",
    "parse_stages",
]

Obj = dict[str, Any]
Operator = Literal["In", "NotIn", "Exists", "DoesNotExist"]
STEP_KINDS = ("network", "containers", "conditions", "phase", "event", "delete")
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
    """``seconds`` (or the number at ``from_path``) plus uniform jitter below ``jitter``."""

    seconds: float = 0.0
    jitter: float = 0.0
    from_path: str = ""

    def draw(self, pod: Obj, rng: random.Random) -> float:
        base = self.seconds
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
    delay_data = data.get("delay") or {}
    if not isinstance(delay_data, Mapping):
        raise StageError(f"{where}.delay: must be a mapping")
    delay = Delay(
        seconds=float(delay_data.get("seconds", 0.0)),
        jitter=float(delay_data.get("jitterSeconds", 0.0)),
        from_path=str(delay_data.get("fromPath") or ""),
    )
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


def _check_event(spec: Any, where: str) -> None:
    """An event step's placeholders must be known: a stage fails when parsed, not when fired."""
    if not isinstance(spec, Mapping):
        raise StageError(f"{where}: must be a mapping")
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
    """What steps may use besides the pod: the time and the node's addresses."""

    now: str
    node_name: str
    host_ip: str
    pod_ip: str
    runtime: str = "containerd"


@dataclass(slots=True)
class StageOutcome:
    """What a fired stage does: the new status, events to record, whether to delete."""

    status: Obj
    events: list[dict[str, str]] = field(default_factory=list)
    delete: bool = False


def _container_names(pod: Obj) -> list[str]:
    return [str(c.get("name")) for c in (pod.get("spec") or {}).get("containers") or []]


def _events(
    pod: Obj, spec: Mapping[str, Any], stage: Stage, ctx: StageContext
) -> list[dict[str, str]]:
    """The events of an ``event`` step: one about the pod, or with ``perContainer`` one about
    each container (``fieldPath: spec.containers{NAME}``, as the kubelet reports them)."""
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
    events = []
    for container in (pod.get("spec") or {}).get("containers") or []:
        name = container.get("name")
        text = note.format(**fields, container=name, image=container.get("image"))
        events.append({**base, "note": text, "fieldPath": f"spec.containers{{{name}}}"})
    return events


def _container_status(
    pod: Obj, name: str, existing: Obj | None, ctx: StageContext, *, key: str = "containers"
) -> Obj:
    if existing is not None:
        return dict(existing)
    image = ""
    for container in (pod.get("spec") or {}).get(key) or []:
        if container.get("name") == name:
            image = str(container.get("image") or "")
    return {
        "name": name,
        "image": image,
        "imageID": f"{image.split(':')[0]}@sha256:{'0' * 64}" if image else "",
        "ready": False,
        "restartCount": 0,
        "started": False,
        "state": {"waiting": {"reason": "ContainerCreating"}},
    }


def _container_id(ctx: StageContext, pod: Obj, name: str, restarts: int) -> str:
    uid = str((pod.get("metadata") or {}).get("uid") or "")
    digest = zlib.crc32(f"{uid}/{name}/{restarts}".encode())
    return f"{ctx.runtime}://{uid.replace('-', '')[:24]}{digest:08x}"


def _init_containers_done(pod: Obj, status: Obj, ctx: StageContext) -> None:
    """Init containers as a started pod shows them: completed, or running for sidecars
    (``restartPolicy: Always``)."""
    inits = (pod.get("spec") or {}).get("initContainers") or []
    if not inits or status.get("initContainerStatuses"):
        return
    out = []
    for container in inits:
        name = str(container.get("name"))
        entry = _container_status(pod, name, None, ctx, key="initContainers")
        entry["containerID"] = _container_id(ctx, pod, name, 0)
        if container.get("restartPolicy") == "Always":
            entry.update(ready=True, started=True, state={"running": {"startedAt": ctx.now}})
        else:
            entry.update(ready=True, started=False, state={"terminated": {
                "exitCode": 0, "reason": "Completed", "startedAt": ctx.now,
                "finishedAt": ctx.now, "containerID": entry["containerID"]}})
        out.append(entry)
    status["initContainerStatuses"] = out


def _step_containers(pod: Obj, status: Obj, args: Mapping[str, Any], ctx: StageContext) -> None:
    state = args.get("state")
    if state == "running":
        _init_containers_done(pod, status, ctx)
    existing = {c.get("name"): c for c in status.get("containerStatuses") or []}
    out = []
    for name in _container_names(pod):
        current = existing.get(name)
        if state in ("terminated", "restart") and current is None:
            continue  # never started: nothing to stop or restart
        entry = _container_status(pod, name, current, ctx)
        if state == "running":
            entry["state"] = {"running": {"startedAt": ctx.now}}
            entry["ready"] = bool(args.get("ready", True))
            entry["started"] = True
            entry["containerID"] = _container_id(ctx, pod, name, int(entry["restartCount"]))
        elif state == "waiting":
            entry["state"] = {"waiting": {"reason": str(args.get("reason", "ContainerCreating"))}}
            entry["ready"] = False
        elif state == "terminated" and "terminated" not in (entry.get("state") or {}):
            started = (entry.get("state") or {}).get("running", {}).get("startedAt", ctx.now)
            entry["state"] = {
                "terminated": {
                    "exitCode": int(args.get("exitCode", 0)),
                    "reason": str(args.get("reason", "Completed")),
                    "startedAt": started,
                    "finishedAt": ctx.now,
                    "containerID": entry.get("containerID")
                    or _container_id(ctx, pod, name, int(entry["restartCount"])),
                }
            }
            entry["ready"] = False
            entry["started"] = False
        elif state == "restart" and "terminated" in (entry.get("state") or {}):
            entry["lastState"] = entry["state"]
            entry["restartCount"] = int(entry.get("restartCount", 0)) + 1
            entry["state"] = {"running": {"startedAt": ctx.now}}
            entry["ready"] = True
            entry["started"] = True
            entry["containerID"] = _container_id(ctx, pod, name, entry["restartCount"])
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
        conditions[kind] = entry
    status["conditions"] = list(conditions.values())


def _phase_from_containers(pod: Obj, status: Obj, *, terminal: bool) -> str:
    codes = [
        int(c["state"]["terminated"].get("exitCode", 0))
        for c in status.get("containerStatuses") or []
        if "terminated" in (c.get("state") or {})
    ]
    running = len(codes) < len(_container_names(pod))
    if terminal:
        return "Succeeded" if codes and all(c == 0 for c in codes) and not running else "Failed"
    if running:
        return "Running"
    policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
    failed = any(c != 0 for c in codes)
    if policy == "Always" or (policy == "OnFailure" and failed):
        return "Running"  # the containers will restart
    return "Failed" if failed else "Succeeded"


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
            _step_conditions(status, args if isinstance(args, Mapping) else {}, ctx)
        elif kind == "phase":
            if args in ("FromContainers", "Terminal"):
                status["phase"] = _phase_from_containers(pod, status, terminal=args == "Terminal")
            else:
                status["phase"] = str(args)
        elif kind == "event":
            spec = args if isinstance(args, Mapping) else {}
            outcome.events.extend(_events(pod, spec, stage, ctx))
        elif kind == "delete":
            outcome.delete = bool(args)
    return outcome
