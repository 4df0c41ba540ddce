"""The stage language: pod lifecycle stages as data (kwok-like), parsed into :class:`Stage` s.

A kubelet does not hard-code how pods move from Pending to Running to Succeeded; it runs a list of
stages. This module is their contract: what the fields mean, when a stage fires, and how stage
data is read — :func:`parse_stages` from YAML text or loaded data, :func:`load_stages` from a
YAML file or a directory of them (the default lifecycle is such a directory, shipped as package
data and read by :func:`~fakeapi.kubelet.default_stages.default_stages`; docs/kubelet.md
documents the format). What each step does is :mod:`fakeapi.kubelet.steps`; the timing is
:class:`~fakeapi.kubelet.engine.StageEngine`; the pod-status rules the steps follow are
upstream's, in :mod:`fakeapi.kubelet.podstatus`.

**When a stage fires.** The kubelet evaluates the stages for a pod each time it reconciles it
(any change to the pod, or a timer it set). A stage *matches* when every requirement of its
``selector`` holds for the pod as the kubelet sees it now; a pod that is not being deleted is only
considered once the kubelet has admitted it (its claims checked and prepared). Among the matching
stages one is picked at random in proportion to ``weight`` (from the kubelet's injected
``random.Random``, over the stages in their order), and its delay is drawn. The stage fires when
that much clock time has passed *and it still matches the pod*; if the pod stopped matching
meanwhile, the choice is dropped and made afresh from the stages that match then. A fired stage
applies its ``steps`` in order, in one status write (then events, then the deletion, if any). The
steps must leave the pod no longer matching the same stage, unless looping is the point (a
crash-looping container restarts again and again).

**Fields** of a stage (a YAML mapping):

- ``name`` — required, unique among the stages; ``description`` — free text.
- ``selector`` — a list of ``{key, operator, values}``: ``key`` is a path into the pod
  (``.status.phase``, ``.metadata.annotations["fakeapi.dev/finish"]``,
  ``.status.containerStatuses[*].state.running``; ``[*]`` every element, ``[0]`` one),
  ``operator`` one of ``In``, ``NotIn`` (both need ``values``), ``Exists``, ``DoesNotExist``. A
  path may yield several values: ``In`` and ``Exists`` hold when any value qualifies, ``NotIn``
  and ``DoesNotExist`` when none does. Values compare as strings (``true``/``false`` for
  booleans, :func:`text_of`). An empty selector matches every pod.
- ``delay`` — ``seconds`` (or the number found at the path ``fromPath`` on the pod, when there
  is one; or with ``fromBackOff: true`` what is left of the crash-loop back-off of the pod's
  waiting containers, which the kubelet keeps) plus a uniform jitter in ``[0, jitterSeconds)``.
  ``fromPath`` and ``fromBackOff`` exclude each other. No delay: the stage fires at once.
- ``weight`` — a non-negative integer, 1 by default: the relative chance among the stages that
  match at the same time (all weights 0: an even chance).
- ``steps`` — a non-empty list of one-key mappings from :data:`STEP_KINDS`: ``network``,
  ``containers``, ``conditions``, ``phase``, ``event``, ``delete``. Their arguments are checked
  here, so a stage fails when parsed, not when fired: ``containers.state`` is one of
  :data:`CONTAINER_STATES` or ``restart``, ``conditions`` a mapping or ``FromContainers``, an
  ``event`` a mapping whose ``note`` uses only known placeholders (``{containers}``, ``{node}``,
  ``{pod}``, ``{namespace}``, ``{uid}``, with ``perContainer`` also ``{container}`` and
  ``{image}``) and whose ``containerState`` comes with ``perContainer``.

**Files.** A stage file holds a list of stages, or a mapping with ``stages:``; YAML anchors may
share steps between the stages of one file. A directory of stage files is read in file-name order,
each file's stages in their order, and the names must be unique across the files. Errors are
:class:`StageError` s that name the file, the stage and the field.
"""

from __future__ import annotations

import functools
import os
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

import yaml

from fakeapi.objects import Obj

__all__ = [
    "CONTAINER_STATES",
    "FROM_CONTAINERS",
    "STEP_KINDS",
    "Delay",
    "Requirement",
    "Stage",
    "StageError",
    "evaluate_path",
    "load_stages",
    "parse_stages",
    "text_of",
]

Operator = Literal["In", "NotIn", "Exists", "DoesNotExist"]
STEP_KINDS = ("network", "containers", "conditions", "phase", "event", "delete")
CONTAINER_STATES = ("running", "waiting", "terminated")
#: the argument of ``phase`` and ``conditions`` steps that derives them from the containers
FROM_CONTAINERS = "FromContainers"
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


def text_of(value: Any) -> str:
    """A value as selectors compare it: its string, ``true``/``false`` for booleans."""
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
        texts = {text_of(v) for v in found}
        hit = bool(texts & set(self.values))
        return hit if self.operator == "In" else not hit

    @classmethod
    def parse(cls, data: Any, where: str) -> Requirement:
        if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
            raise StageError(f"{where}: a requirement needs a key")
        operator = data.get("operator")
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise StageError(f"{where}.operator: must be In, NotIn, Exists or DoesNotExist")
        values = tuple(text_of(v) for v in data.get("values") or ())
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


def _safe_load(text: str) -> Any:
    """YAML with libyaml's safe loader when PyYAML has it (start-up reads a few hundred lines of
    stages and profiles; the pure-Python loader costs a tenth of a second for them)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # a safe loader either way


def _check_unique(stages: Sequence[Stage]) -> None:
    names = [s.name for s in stages]
    if len(set(names)) != len(names):
        raise StageError("stage names must be unique")


def parse_stages(source: str | Sequence[Any]) -> tuple[Stage, ...]:
    """Stages from YAML text (a list, or a mapping with ``stages:``) or already-loaded data."""
    data: Any = _safe_load(source) if isinstance(source, str) else source
    if isinstance(data, Mapping):
        data = data.get("stages")
    if not isinstance(data, list) or not data:
        raise StageError("expected a non-empty list of stages")
    stages = tuple(_parse_stage(item, i) for i, item in enumerate(data))
    _check_unique(stages)
    return stages


def load_stages(source: Traversable | str | os.PathLike[str]) -> tuple[Stage, ...]:
    """Stages from a YAML file, or from every ``*.yaml`` file of a directory in file-name order
    (a path, or a package resource from :func:`importlib.resources.files`)."""
    path = Path(source) if isinstance(source, (str, os.PathLike)) else source
    if path.is_dir():
        files = sorted(
            (f for f in path.iterdir() if f.name.endswith(".yaml") and f.is_file()),
            key=lambda f: f.name,
        )
        if not files:
            raise StageError(f"{path}: no *.yaml stage files")
    else:
        files = [path]
    stages: list[Stage] = []
    for file in files:
        try:
            stages += parse_stages(_safe_load(file.read_text(encoding="utf-8")))
        except (StageError, yaml.YAMLError, OSError) as exc:
            raise StageError(f"{file.name}: {exc}") from None
    _check_unique(stages)
    return tuple(stages)
