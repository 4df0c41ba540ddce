"""KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``): the parts that apply here.

kube-scheduler reads its profile from a configuration file; so does fakeapi's scheduler
(``fakeapi sandbox --scheduler-config FILE``, ``Cluster(scheduler_config=...)``). The file is
decoded strictly (an unknown field is an error), validated with upstream's messages, and merged
with the default plugins as upstream's defaulting does (``mergePlugins``): per extension point,
``disabled`` names drop default plugins (``"*"`` all of them), an ``enabled`` plugin that is
also a default one takes the default's place (with its new weight), and the others follow the
defaults in the order given. What the merged profile means at run time is the framework's
(``framework/profile.py``).

What applies: one profile (``schedulerName``, ``plugins`` with every per-point set and
``multiPoint``, ``pluginConfig``, ``percentageOfNodesToScore``) and the global
``percentageOfNodesToScore``. ``pluginConfig`` takes the args fakeapi implements: those of
DynamicResources (``filterTimeout``, ``bindingTimeout``, checked against the feature gates as
upstream checks them) and, for out-of-tree plugins, anything (a plugin reads its own with
``handle.plugin_args(name)``). Fields about the process (``leaderElection``,
``clientConnection``, ``parallelism``, profiling) are accepted and have no effect. Refused, since
fakeapi would silently not do them: a second profile, extenders, the placement extension
points, args of the other in-tree plugins, and backoffs other than the queue's 1 s to 10 s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fakeapi.features import enabled as gate_enabled
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.profile import (
    DEFAULT_SCHEDULER_NAME,
    PluginConfig,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
)
from fakeapi.scheduler.framework.registry import PluginFactory
from fakeapi.scheduler.plugins import default_profile
from fakeapi.scheduler.queue import INITIAL_BACKOFF, MAX_BACKOFF
from fakeapi.validation import field

__all__ = [
    "API_VERSION",
    "KIND",
    "SchedulerConfigError",
    "configured_registry",
    "enable_out_of_tree",
    "load_scheduler_config",
    "merge_plugins",
    "profile_from_config",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

_TOP = frozenset({
    "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "enableProfiling",
    "enableContentionProfiling", "percentageOfNodesToScore", "percentageOfPlacementsToScore",
    "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
    "delayCacheUntilActive",
})
_PROFILE = frozenset({
    "schedulerName", "percentageOfNodesToScore", "percentageOfPlacementsToScore", "plugins",
    "pluginConfig",
})
#: configuration key -> attribute of Plugins
_POINTS = {
    "preEnqueue": "pre_enqueue", "queueSort": "queue_sort", "preFilter": "pre_filter",
    "filter": "filter", "postFilter": "post_filter", "preScore": "pre_score", "score": "score",
    "reserve": "reserve", "permit": "permit", "preBind": "pre_bind", "bind": "bind",
    "postBind": "post_bind", "multiPoint": "multi_point",
}
#: upstream's workload-scheduling points, which fakeapi's scheduler does not have
_PLACEMENT_POINTS = ("placementGenerate", "placementScore", "placementFeasible",
                     "podGroupPostFilter")
#: plugins removed from the v1 configuration (upstream ``invalidPluginsByVersion``)
_INVALID_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
#: in-tree plugins with args upstream that fakeapi's take none of
_ARGLESS = ("DefaultPreemption", "InterPodAffinity", "NodeAffinity",
            "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread")
_DYNAMIC_RESOURCES = "DynamicResources"


class SchedulerConfigError(ValueError):
    """A configuration kube-scheduler (or fakeapi) refuses, in upstream's words."""


def _aggregate(errors: Sequence[object]) -> str:
    """``utilerrors.NewAggregate``: one message alone, several in brackets."""
    texts = [str(e) for e in errors]
    return texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"


class _Decoder:
    """Strict decoding: unknown fields and wrong types are collected, with their paths."""

    def __init__(self) -> None:
        self.unknown: list[str] = []

    def mapping(self, value: Any, path: str, allowed: frozenset[str]) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise SchedulerConfigError(f"decoding {path or 'the configuration'}: expected an "
                                       f"object, got {type(value).__name__}")
        prefix = f"{path}." if path else ""
        self.unknown += [f'unknown field "{prefix}{key}"' for key in value if key not in allowed]
        return value

    @staticmethod
    def sequence(value: Any, path: str) -> Sequence[Any]:
        if value is None:
            return ()
        if not isinstance(value, list):
            raise SchedulerConfigError(f"decoding {path}: expected a list, got "
                                       f"{type(value).__name__}")
        return value

    @staticmethod
    def integer(value: Any, path: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchedulerConfigError(f"decoding {path}: expected an integer, got {value!r}")
        return value

    @staticmethod
    def text(value: Any, path: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise SchedulerConfigError(f"decoding {path}: expected a string, got {value!r}")
        return value

    def plugin_set(self, value: Any, path: str) -> PluginSet:
        data = self.mapping(value, path, frozenset({"enabled", "disabled"}))
        enabled = []
        for i, item in enumerate(self.sequence(data.get("enabled"), f"{path}.enabled")):
            where = f"{path}.enabled[{i}]"
            entry = self.mapping(item, where, frozenset({"name", "weight"}))
            name = self.text(entry.get("name"), f"{where}.name") or ""
            enabled.append(PluginRef(name, self.integer(entry.get("weight"), f"{where}.weight")))
        disabled = []
        for i, item in enumerate(self.sequence(data.get("disabled"), f"{path}.disabled")):
            where = f"{path}.disabled[{i}]"
            entry = self.mapping(item, where, frozenset({"name", "weight"}))
            disabled.append(self.text(entry.get("name"), f"{where}.name") or "")
        return PluginSet(enabled=tuple(enabled), disabled=tuple(disabled))

    def plugins(self, value: Any, path: str) -> tuple[Plugins, list[str]]:
        """The plugin sets, and the placement points that were given (refused later)."""
        data = self.mapping(value, path, frozenset(_POINTS) | frozenset(_PLACEMENT_POINTS))
        sets = {attr: self.plugin_set(data.get(key), f"{path}.{key}")
                for key, attr in _POINTS.items()}
        placement = [key for key in _PLACEMENT_POINTS if data.get(key)]
        return Plugins(**sets), placement


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """One point of upstream's ``mergePlugins`` (``mergePluginSet``)."""
    disabled = (*custom.disabled, *default.disabled)
    custom_by_name = {ref.name: (i, ref) for i, ref in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled:
        for ref in default.enabled:
            if ref.name in disabled:
                continue
            if ref.name in custom_by_name:  # re-configured: in the default's place
                index, ref = custom_by_name[ref.name]
                replaced.add(index)
            enabled.append(ref)
    enabled += [ref for i, ref in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(enabled=tuple(enabled), disabled=disabled)


def merge_plugins(defaults: Plugins, custom: Plugins) -> Plugins:
    """The default plugins with a configuration's sets merged in (upstream ``mergePlugins``)."""
    return Plugins(**{
        attr: merge_plugin_set(getattr(defaults, attr), getattr(custom, attr))
        for attr in _POINTS.values()
    })


def _duration(value: Any, where: str) -> float:
    """A ``metav1.Duration`` ("10s", "1m30s") in seconds."""
    from fakeapi.cel.errors import EvalError  # Go's ParseDuration lives with CEL's durations
    from fakeapi.cel.time_library import parse_duration

    if not isinstance(value, str):
        raise SchedulerConfigError(f"decoding {where}: expected a duration string, got {value!r}")
    try:
        return parse_duration(value).nanos / 1e9
    except EvalError as exc:
        message = str(exc)
        message = message if message.startswith("time:") else f"time: {message}"
        raise SchedulerConfigError(f"decoding {where}: {message}") from None


def dynamic_resources_args(
    args: Mapping[str, Any], *, path: str, feature_gates: Mapping[str, bool] | None
) -> tuple[dict[str, float], list[field.FieldError]]:
    """DynamicResourcesArgs as the plugin's settings (``filter_timeout``, ``binding_timeout``
    seconds) and upstream's ``ValidateDynamicResourcesArgs`` errors."""
    decoder = _Decoder()
    decoder.mapping(args, "", frozenset({"apiVersion", "kind", "filterTimeout", "bindingTimeout"}))
    if decoder.unknown:
        raise SchedulerConfigError(
            f"decoding .{path}: strict decoding error: {', '.join(decoder.unknown)}"
        )
    gates = feature_gates or {}
    settings: dict[str, float] = {}
    errors: list[field.FieldError] = []
    args_path = field.Path(f"{path}.args")
    if "filterTimeout" in args:
        text = args["filterTimeout"]
        seconds = _duration(text, f".{path}.args.filterTimeout")
        if not gate_enabled(gates, "DRASchedulerFilterTimeout"):
            errors.append(field.forbidden(args_path.child("filterTimeout"),
                                          "DRASchedulingFilterTimeout feature gate is disabled"))
        elif seconds < 0:
            errors.append(field.invalid(args_path.child("filterTimeout"), text,
                                        "must be zero or positive"))
        settings["filter_timeout"] = seconds
    if "bindingTimeout" in args:
        text = args["bindingTimeout"]
        seconds = _duration(text, f".{path}.args.bindingTimeout")
        if not (gate_enabled(gates, "DRADeviceBindingConditions")
                and gate_enabled(gates, "DRAResourceClaimDeviceStatus")):
            errors.append(field.forbidden(
                args_path.child("bindingTimeout"),
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is "
                "disabled",
            ))
        elif seconds < 1:
            errors.append(field.invalid(args_path.child("bindingTimeout"), text,
                                        "must be at least 1 second"))
        settings["binding_timeout"] = seconds
    return settings, errors


def _check_plugin_config(
    entries: Sequence[PluginConfig], path: field.Path, feature_gates: Mapping[str, bool] | None
) -> list[field.FieldError]:
    errors: list[field.FieldError] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = path.child("pluginConfig").index(i)
        if entry.name in seen:
            errors.append(field.duplicate(where, entry.name))
        seen.add(entry.name)
        given = {k: v for k, v in entry.args.items() if k not in ("apiVersion", "kind")}
        if entry.name in _INVALID_PLUGINS:
            errors.append(field.invalid(where, entry.name, _invalid_in_v1()))
        elif entry.name == _DYNAMIC_RESOURCES:
            errors += dynamic_resources_args(entry.args, path=str(where),
                                             feature_gates=feature_gates)[1]
        elif entry.name in _ARGLESS and given:
            errors.append(field.forbidden(where.child("args"),
                                          f"fakeapi's {entry.name} takes no args"))
    return errors


def _invalid_in_v1() -> str:
    return f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version ' \
           f'"{API_VERSION}")'


def _check_plugins(plugins: Plugins, path: field.Path) -> list[field.FieldError]:
    errors: list[field.FieldError] = []
    for key, attr in _POINTS.items():
        if key == "multiPoint":
            continue
        for i, ref in enumerate(getattr(plugins, attr).enabled):
            if ref.name in _INVALID_PLUGINS:
                errors.append(field.invalid(path.child("plugins", key, "enabled").index(i),
                                            ref.name, _invalid_in_v1()))
    if len(plugins.queue_sort.enabled) > 1:
        errors.append(field.invalid(path.child("plugins", "queueSort", "Enabled"),
                                    len(plugins.queue_sort.enabled),
                                    "only one queue sort plugin can be enabled"))
    return errors


def _percentage(value: int | None, path: field.Path) -> list[field.FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [field.invalid(path, value, "not in valid range [0-100]")]
    return []


def _check_type(data: Mapping[str, Any]) -> None:
    kind = data.get("kind")
    version = data.get("apiVersion")
    if not kind:
        raise SchedulerConfigError("Object 'Kind' is missing in the scheduler configuration")
    if kind != KIND or version != API_VERSION:
        raise SchedulerConfigError(
            f'no kind "{kind}" is registered for version "{version}" (fakeapi reads '
            f'{KIND} of {API_VERSION})'
        )


def profile_from_config(
    data: Any, *, feature_gates: Mapping[str, bool] | None = None
) -> Profile:
    """The profile a KubeSchedulerConfiguration (as loaded from YAML) gives, merged with the
    default plugins. Raises :class:`SchedulerConfigError` with upstream's messages."""
    decoder = _Decoder()
    top = decoder.mapping(data, "", _TOP)
    _check_type(top)
    errors: list[field.FieldError] = []
    parallelism = decoder.integer(top.get("parallelism"), "parallelism")
    if parallelism is not None and parallelism <= 0:
        errors.append(field.invalid("parallelism", parallelism,
                                    "should be an integer value greater than zero"))
    global_percentage = decoder.integer(top.get("percentageOfNodesToScore"),
                                        "percentageOfNodesToScore")
    errors += _percentage(global_percentage, field.Path("percentageOfNodesToScore"))
    initial = decoder.integer(top.get("podInitialBackoffSeconds"), "podInitialBackoffSeconds")
    maximum = decoder.integer(top.get("podMaxBackoffSeconds"), "podMaxBackoffSeconds")
    initial_s = INITIAL_BACKOFF if initial is None else initial
    maximum_s = MAX_BACKOFF if maximum is None else maximum
    if initial_s <= 0:
        errors.append(field.invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if maximum_s < initial_s:
        errors.append(field.invalid("podMaxBackoffSeconds", maximum,
                                    "must be greater than or equal to PodInitialBackoffSeconds"))
    elif initial_s > 0 and (initial_s, maximum_s) != (INITIAL_BACKOFF, MAX_BACKOFF):
        errors.append(field.forbidden(
            "podInitialBackoffSeconds" if initial_s != INITIAL_BACKOFF else "podMaxBackoffSeconds",
            f"fakeapi's scheduling queue backs off from {INITIAL_BACKOFF:g}s to "
            f"{MAX_BACKOFF:g}s",
        ))
    if decoder.sequence(top.get("extenders"), "extenders"):
        errors.append(field.forbidden("extenders", "fakeapi's scheduler has no extenders"))
    profiles = decoder.sequence(top.get("profiles"), "profiles") or [{}]
    if len(profiles) > 1:
        errors.append(field.forbidden(
            "profiles", f"fakeapi's scheduler runs one profile, not {len(profiles)}"
        ))
    path = field.Path("profiles").index(0)
    raw = decoder.mapping(profiles[0], str(path), _PROFILE)
    name = decoder.text(raw.get("schedulerName"), f"{path}.schedulerName")
    if name == "":
        errors.append(field.required(path.child("schedulerName")))
    percentage = decoder.integer(raw.get("percentageOfNodesToScore"),
                                 f"{path}.percentageOfNodesToScore")
    errors += _percentage(percentage, path.child("percentageOfNodesToScore"))
    custom, placement = decoder.plugins(raw.get("plugins"), f"{path}.plugins")
    for key in placement:
        errors.append(field.forbidden(path.child("plugins", key),
                                      "fakeapi's scheduler has no such extension point"))
    entries = []
    for i, item in enumerate(decoder.sequence(raw.get("pluginConfig"), f"{path}.pluginConfig")):
        where = f"{path}.pluginConfig[{i}]"
        entry = decoder.mapping(item, where, frozenset({"name", "args"}))
        args = entry.get("args") or {}  # each plugin decodes its own args
        if not isinstance(args, Mapping):
            raise SchedulerConfigError(f"decoding {where}.args: expected an object")
        entries.append(PluginConfig(decoder.text(entry.get("name"), f"{where}.name") or "",
                                    dict(args)))
    if decoder.unknown:
        raise SchedulerConfigError(f"strict decoding error: {', '.join(decoder.unknown)}")
    errors += _check_plugin_config(entries, path, feature_gates)
    errors += _check_plugins(custom, path)
    if errors:
        raise SchedulerConfigError(_aggregate(errors))
    defaults = default_profile().plugins
    chosen = percentage if percentage is not None else global_percentage
    return Profile(
        scheduler_name=name or DEFAULT_SCHEDULER_NAME,
        plugins=merge_plugins(defaults, custom),
        plugin_config=tuple(entries),
        percentage_of_nodes_to_score=chosen or None,
    )


def load_scheduler_config(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    feature_gates: Mapping[str, bool] | None = None,
) -> Profile:
    """The profile of a KubeSchedulerConfiguration file (a path) or mapping; see
    :func:`profile_from_config`. A file that cannot be read or parsed says so."""
    if isinstance(source, Mapping):
        return profile_from_config(source, feature_gates=feature_gates)
    import yaml  # late: only a configuration file needs it

    path = Path(source)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchedulerConfigError(f"{path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise SchedulerConfigError(f"{path}: {exc}") from None
    try:
        return profile_from_config(data, feature_gates=feature_gates)
    except SchedulerConfigError as exc:
        raise SchedulerConfigError(f"{path}: {exc}") from None


def enable_out_of_tree(profile: Profile, names: Sequence[str]) -> Profile:
    """The profile with each of ``names`` that it enables nowhere added to ``multiPoint``,
    after what is there: an out-of-tree plugin runs at every point it implements, unless the
    profile places it (or disables it at a point) itself."""
    placed = set(profile.plugins.enabled_names())
    added = tuple(PluginRef(name) for name in names if name not in placed)
    if not added:
        return profile
    multi = profile.plugins.multi_point
    plugins = Plugins(**{
        **{attr: getattr(profile.plugins, attr) for attr in _POINTS.values()},
        "multi_point": PluginSet(enabled=(*multi.enabled, *added), disabled=multi.disabled),
    })
    return Profile(
        scheduler_name=profile.scheduler_name,
        plugins=plugins,
        plugin_config=profile.plugin_config,
        percentage_of_nodes_to_score=profile.percentage_of_nodes_to_score,
    )


def _with_settings(factory: PluginFactory, settings: Mapping[str, float]) -> PluginFactory:
    """DynamicResources built with its args applied (the plugin reads them as attributes)."""

    def build(handle: Handle) -> Any:
        plugin = factory(handle)
        if "filter_timeout" in settings:
            plugin.filter_timeout = settings["filter_timeout"]
        if "binding_timeout" in settings:
            plugin.writer.binding_timeout = settings["binding_timeout"]
        return plugin

    return build


def configured_registry(
    registry: Mapping[str, PluginFactory],
    profile: Profile,
    *,
    feature_gates: Mapping[str, bool] | None,
) -> dict[str, Callable[[Handle], Any]]:
    """``registry`` with the in-tree plugins' ``pluginConfig`` args applied as they are built;
    out-of-tree plugins read theirs from the handle. Invalid args raise
    :class:`SchedulerConfigError`."""
    built = dict(registry)
    for i, entry in enumerate(profile.plugin_config):
        if entry.name == _DYNAMIC_RESOURCES and entry.name in built:
            settings, errors = dynamic_resources_args(
                entry.args, path=f"profiles[0].pluginConfig[{i}]", feature_gates=feature_gates
            )
            if errors:
                raise SchedulerConfigError(_aggregate(errors))
            built[entry.name] = _with_settings(built[entry.name], settings)
    return built
