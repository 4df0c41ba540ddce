"""The assembler's options: what each may be, checked when a cluster is made and resolved when it
starts.

:class:`~fakeapi.cluster.assembler.Cluster`, the pytest marker and ``fakeapi sandbox`` share
these rules, so a bad option says the same thing wherever it was given, and says it before
anything starts. Checking is cheap (names, files that exist); the parsing that needs the
components' packages (stages, driver profiles, a scheduler configuration) waits until the
cluster starts what uses it, for start-up time: a cluster of the API server alone loads none of
them.

User code comes in as objects or as ``module:attribute`` names (the sandbox's flags, a YAML
profile's ``behavior``), imported with :func:`pkgutil.resolve_name`.
"""

from __future__ import annotations

import functools
import os
import pkgutil
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakeapi.clock import Clock, FakeClock, RealClock

if TYPE_CHECKING:
    from fakeapi.cluster.extensions import ComponentFactory
    from fakeapi.kubelet import DriverProfile, Stage
    from fakeapi.scheduler.framework import PluginFactory, Profile

__all__ = [
    "AVAILABLE_COMPONENTS",
    "TRANSPORTS",
    "check_components",
    "check_profiles",
    "check_scheduler_config",
    "check_stages",
    "component_name",
    "driver_profile",
    "load_object",
    "resolve_clock",
    "resolve_extra_components",
    "resolve_scheduler_plugins",
    "scheduler_profile",
    "stages_of",
]

#: the components this build can run, in start order
AVAILABLE_COMPONENTS: tuple[str, ...] = ("controllers", "scheduler", "kubelets")
#: how components may reach the API server
TRANSPORTS: tuple[str, ...] = ("inprocess", "http")
_STAGE_KEYWORDS = ("realistic", "fast")
_PROFILE_SUFFIXES = (".yaml", ".yml", ".json")


def load_object(ref: str, *, what: str) -> Any:
    """The object ``module:attribute`` names; ValueError saying what ``what`` could not load."""
    if ":" not in ref:
        raise ValueError(f"{what} {ref!r}: name it as module:attribute")
    try:
        return pkgutil.resolve_name(ref)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"{what} {ref!r}: {exc}") from None


def check_components(names: Sequence[str], *, extra: Collection[str] = ()) -> None:
    unknown = [c for c in names if c not in AVAILABLE_COMPONENTS and c not in extra]
    if unknown:
        offered = ", ".join([*AVAILABLE_COMPONENTS, *extra]) or "none yet"
        raise ValueError(
            f"component(s) {', '.join(unknown)} not available in this build "
            f"(available: {offered})"
        )


def resolve_clock(clock: Clock | str | None) -> Clock:
    if clock == "fake":
        return FakeClock()
    if clock == "real" or clock is None:
        return RealClock()
    if isinstance(clock, str):
        raise ValueError(f'clock must be "real", "fake" or a Clock, not {clock!r}')
    return clock


# --- driver profiles --------------------------------------------------------------------------
def _is_profile_file(entry: str | os.PathLike[str]) -> bool:
    text = os.fspath(entry)
    return not isinstance(entry, str) or text.endswith(_PROFILE_SUFFIXES) or os.sep in text


def check_profiles(profiles: Any) -> tuple[Any, ...]:
    """The profiles as a tuple (one given alone is one); shipped names must exist, and files
    too. Parsed :class:`~fakeapi.kubelet.DriverProfile` objects pass as they are."""
    if isinstance(profiles, str | os.PathLike):
        profiles = (profiles,)
    from fakeapi.cluster.profiles import PROFILE_NAMES  # late for start-up time

    unknown = []
    for entry in profiles:
        if not isinstance(entry, str | os.PathLike):
            continue
        if isinstance(entry, str) and entry in PROFILE_NAMES:
            continue
        if _is_profile_file(entry):
            if not Path(entry).is_file():
                raise ValueError(f"driver profile file {os.fspath(entry)} does not exist")
            continue
        unknown.append(str(entry))
    if unknown:
        raise ValueError(
            f"unknown driver profile(s) {', '.join(unknown)}; known: {', '.join(PROFILE_NAMES)} "
            "(or a profile's YAML file)"
        )
    return tuple(profiles)


@functools.cache
def _shipped_profile(name: str) -> DriverProfile:
    # late for start-up time, as the other kubelet imports here
    from fakeapi.cluster.profiles import profile_text
    from fakeapi.kubelet import DriverProfile

    return DriverProfile.from_mapping(_yaml(profile_text(name)))


def driver_profile(entry: Any) -> DriverProfile:
    """The parsed profile of a checked entry; a bad file raises ValueError naming it, as does a
    ``behavior`` class that cannot be imported."""
    from fakeapi.kubelet import DriverProfile, ProfileError

    if isinstance(entry, DriverProfile):
        profile = entry
    elif isinstance(entry, str) and not _is_profile_file(entry):
        profile = _shipped_profile(entry)
    else:
        path = Path(entry)
        try:
            profile = DriverProfile.from_mapping(_yaml(path.read_text(encoding="utf-8")))
        except (ProfileError, OSError) as exc:
            raise ValueError(f"driver profile {path}: {exc}") from None
    try:
        profile.behavior_factory()
    except ProfileError as exc:
        raise ValueError(f"driver profile {profile.name}: {exc}") from None
    return profile


def _yaml(text: str) -> Any:
    """Load YAML with libyaml when PyYAML has it: start-up parses a few hundred lines, and the
    pure-Python loader costs a tenth of a second for them."""
    import yaml  # late for start-up time: the pytest plugin imports the assembler

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # a safe loader either way


# --- kubelet stages ---------------------------------------------------------------------------
def _is_stage_text(option: str) -> bool:
    return "\n" in option or option.lstrip().startswith(("-", "[", "{"))


def check_stages(option: Any) -> Any:
    """A stages option as given; a file or directory must exist."""
    is_path = isinstance(option, os.PathLike) or (
        isinstance(option, str) and option not in _STAGE_KEYWORDS and not _is_stage_text(option)
    )
    if is_path and not Path(option).exists():
        raise ValueError(f"stages: no stage file or directory {os.fspath(option)}")
    return option


@functools.cache
def _default_stages() -> tuple[Stage, ...]:
    """The kubelets' default lifecycle stages, parsed once per process."""
    # components load when a cluster runs them, for start-up time (a server-only cluster skips
    # the kubelet, scheduler and controllers)
    from fakeapi.kubelet import default_stages

    return default_stages()


@functools.cache
def _fast_stages() -> tuple[Stage, ...]:
    """The default stages without their fixed delays and jitter: a pod runs as soon as it is
    admitted. Delays a pod asks for itself (``fromPath``, e.g. its run-seconds annotation) and
    the crash-loop back-off (``fromBackOff``) stay."""
    import dataclasses

    return tuple(
        stage
        if stage.delay.from_path or stage.delay.from_back_off
        else dataclasses.replace(stage, delay=type(stage.delay)())
        for stage in _default_stages()
    )


def stages_of(option: Any) -> Sequence[Stage]:
    """The parsed stages: ``"realistic"``, ``"fast"``, stage YAML text, a YAML file or a
    directory of them (``fakeapi.kubelet.load_stages``), or stages already parsed."""
    if option == "realistic":
        return _default_stages()
    if option == "fast":
        return _fast_stages()
    from fakeapi.kubelet import load_stages, parse_stages  # late, as _default_stages

    if isinstance(option, os.PathLike) or (isinstance(option, str) and not _is_stage_text(option)):
        return load_stages(option)
    if isinstance(option, str):
        return parse_stages(option)
    return tuple(option)


# --- user components --------------------------------------------------------------------------
def component_name(factory: Any) -> str:
    """A factory's component name: its ``component_name``, else its own name in kebab case
    (``PodLabeller`` and ``pod_labeller`` are ``pod-labeller``)."""
    given = getattr(factory, "component_name", None)
    if isinstance(given, str) and given:
        return given
    target = getattr(factory, "func", factory)  # a functools.partial names its function
    name = getattr(target, "__name__", None)
    if not isinstance(name, str) or name == "<lambda>":
        raise ValueError(
            f"cannot name component {factory!r}: give it a component_name, or pass "
            "extra_components as a mapping of names to factories"
        )
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).replace("_", "-").lower()
    return name.strip("-")


def resolve_extra_components(option: Any) -> tuple[tuple[str, ComponentFactory], ...]:
    """(name, factory) of each user component; factories may be given as ``module:attribute``
    names. Names must be unique and leave the built-in components' names alone."""
    entries: list[tuple[str | None, Any]]
    if isinstance(option, Mapping):
        entries = [(str(name), factory) for name, factory in option.items()]
    else:
        entries = [(None, factory) for factory in option or ()]
    named: list[tuple[str, ComponentFactory]] = []
    for name, factory in entries:
        if isinstance(factory, str):
            factory = load_object(factory, what="component")
        if not callable(factory):
            raise ValueError(f"component {factory!r} is not callable: give a factory(ctx)")
        named.append((name or component_name(factory), factory))
    seen: set[str] = set()
    for name, _ in named:
        if name in AVAILABLE_COMPONENTS:
            raise ValueError(f"component name {name!r} is a built-in component's")
        if name in seen:
            raise ValueError(f"two components are named {name!r}: name them apart")
        if not name or len(name) > 128:
            raise ValueError(f"component name {name!r} must have 1 to 128 characters")
        seen.add(name)
    return tuple(named)


# --- the scheduler ----------------------------------------------------------------------------
def resolve_scheduler_plugins(option: Any) -> dict[str, PluginFactory]:
    """Out-of-tree plugin factories by name: a mapping, or factories (or ``module:attribute``
    names of them) whose ``name`` attribute names the plugin, as a plugin class's does."""
    entries: list[tuple[str | None, Any]]
    if isinstance(option, Mapping):
        entries = list(option.items())
    else:
        entries = [(None, factory) for factory in option or ()]
    plugins: dict[str, PluginFactory] = {}
    for name, factory in entries:
        if isinstance(factory, str):
            factory = load_object(factory, what="scheduler plugin")
        if not callable(factory):
            raise ValueError(f"scheduler plugin {factory!r} is not callable: give a "
                             "factory(handle)")
        if name is None:
            name = getattr(factory, "name", None)
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"scheduler plugin {factory!r} has no name: give the class a name "
                    "attribute, or pass scheduler_plugins as a mapping of names to factories"
                )
        if name in plugins:
            raise ValueError(f"two scheduler plugins are named {name!r}")
        plugins[str(name)] = factory
    return plugins


def scheduler_profile(
    option: Any, *, feature_gates: Mapping[str, bool] | None
) -> Profile | None:
    """The profile a KubeSchedulerConfiguration option gives (None: none was given)."""
    if option is None:
        return None
    from fakeapi.scheduler.config import load_scheduler_config  # late: loads the scheduler

    return load_scheduler_config(option, feature_gates=feature_gates)


def check_scheduler_config(option: Any) -> Any:
    """A scheduler configuration as given; a file must exist (it is read when the scheduler
    starts, with the scheduler's feature gates)."""
    if option is None or isinstance(option, Mapping):
        return option
    if not isinstance(option, str | os.PathLike) or not Path(option).is_file():
        raise ValueError(f"scheduler configuration file {option!r} does not exist")
    return option
