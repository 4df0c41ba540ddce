"""A scheduling profile as data, and how the framework turns it into plugins per extension point.

A :class:`Profile` has kube-scheduler's shape (``KubeSchedulerProfile`` after defaulting): per
extension point a :class:`PluginSet` of enabled plugins (in order, Score ones with a weight) and
disabled ones, a ``multiPoint`` set whose plugins join every point they implement, and the
plugins' args (``pluginConfig``). ``fakeapi.scheduler.config`` reads one from a
KubeSchedulerConfiguration and merges it with the default plugins; :func:`plan` is what
upstream's ``NewFramework`` does with it, with the same rules and error messages:

- a plugin enabled at a point must exist and implement that point, and appear once there;
- ``multiPoint`` plugins join each point they implement, unless disabled there (a ``"*"``
  disables every ``multiPoint`` plugin at that point); a plugin enabled at a point explicitly
  *and* through ``multiPoint`` takes its explicit place, first; then come the ``multiPoint``
  plugins, then the rest of the point's explicit ones;
- exactly one QueueSort plugin, at least one Bind plugin;
- a Score plugin's weight is its explicit ``score`` weight, else its ``multiPoint`` weight, else
  1 (a weight of 0 also means 1).

The plan is worked out once, when a scheduler is built; the per-pod path reads plain lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from fakeapi.scheduler.framework.interface import (
    BindPlugin,
    FilterPlugin,
    PermitPlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "ExtensionPoint",
    "PluginConfig",
    "PluginRef",
    "PluginSet",
    "Plugins",
    "Profile",
    "ProfileError",
    "plan",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
#: upstream's MaxTotalScore (math.MaxInt64): the weighted scores of all plugins must fit in it
_MAX_TOTAL_SCORE = 2**63 - 1
_MAX_NODE_SCORE = 100


class ProfileError(ValueError):
    """A profile the framework cannot run (upstream's words)."""


class ExtensionPoint(NamedTuple):
    """One extension point: its key in the configuration (``preFilter``), its attribute of
    :class:`Plugins` (``pre_filter``), the protocol a plugin implements for it and upstream's
    name of that interface (in error messages)."""

    key: str
    attribute: str
    protocol: type
    interface: str


#: the points in the order upstream's framework fills them (which error comes first)
EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("preFilter", "pre_filter", PreFilterPlugin, "PreFilterPlugin"),
    ExtensionPoint("filter", "filter", FilterPlugin, "FilterPlugin"),
    ExtensionPoint("postFilter", "post_filter", PostFilterPlugin, "PostFilterPlugin"),
    ExtensionPoint("reserve", "reserve", ReservePlugin, "ReservePlugin"),
    ExtensionPoint("preScore", "pre_score", PreScorePlugin, "PreScorePlugin"),
    ExtensionPoint("score", "score", ScorePlugin, "ScorePlugin"),
    ExtensionPoint("preBind", "pre_bind", PreBindPlugin, "PreBindPlugin"),
    ExtensionPoint("bind", "bind", BindPlugin, "BindPlugin"),
    ExtensionPoint("postBind", "post_bind", PostBindPlugin, "PostBindPlugin"),
    ExtensionPoint("permit", "permit", PermitPlugin, "PermitPlugin"),
    ExtensionPoint("preEnqueue", "pre_enqueue", PreEnqueuePlugin, "PreEnqueuePlugin"),
    ExtensionPoint("queueSort", "queue_sort", QueueSortPlugin, "QueueSortPlugin"),
)


@dataclass(frozen=True, slots=True)
class PluginRef:
    """A plugin named in a :class:`PluginSet`; ``weight`` counts for Score only (None: unset)."""

    name: str
    weight: int | None = None


@dataclass(frozen=True, slots=True)
class PluginSet:
    """The plugins enabled at one point, in order, and the names disabled there (``"*"``: all
    the default ones)."""

    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


_EMPTY = PluginSet()


@dataclass(frozen=True, slots=True)
class Plugins:
    """A :class:`PluginSet` per extension point, and ``multi_point``."""

    pre_enqueue: PluginSet = _EMPTY
    queue_sort: PluginSet = _EMPTY
    pre_filter: PluginSet = _EMPTY
    filter: PluginSet = _EMPTY
    post_filter: PluginSet = _EMPTY
    pre_score: PluginSet = _EMPTY
    score: PluginSet = _EMPTY
    reserve: PluginSet = _EMPTY
    permit: PluginSet = _EMPTY
    pre_bind: PluginSet = _EMPTY
    bind: PluginSet = _EMPTY
    post_bind: PluginSet = _EMPTY
    multi_point: PluginSet = _EMPTY

    def sets(self) -> Iterable[tuple[str, PluginSet]]:
        """(attribute, set) of every point, ``multi_point`` last."""
        return ((f.name, getattr(self, f.name)) for f in fields(self))

    def enabled_names(self) -> list[str]:
        """Every plugin enabled anywhere, first mention first (upstream ``pluginsNeeded``)."""
        return list(dict.fromkeys(ref.name for _, s in self.sets() for ref in s.enabled))


@dataclass(frozen=True, slots=True)
class PluginConfig:
    """The args of one plugin (``pluginConfig[]``), as given."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Profile:
    """One scheduling profile: its scheduler name, plugins, plugin args, and how many nodes
    Filter looks for (None: upstream's adaptive percentage)."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: Plugins = Plugins()
    plugin_config: tuple[PluginConfig, ...] = ()
    percentage_of_nodes_to_score: int | None = None

    @classmethod
    def multi_point(
        cls,
        *names: str,
        weights: Mapping[str, int] | None = None,
        scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    ) -> Profile:
        """A profile enabling ``names`` at every point each implements, in this order."""
        enabled = tuple(PluginRef(name, (weights or {}).get(name)) for name in names)
        return cls(
            scheduler_name=scheduler_name, plugins=Plugins(multi_point=PluginSet(enabled=enabled))
        )

    def args(self, plugin: str) -> Mapping[str, Any]:
        """The args ``pluginConfig`` gives ``plugin`` (empty when none)."""
        for entry in self.plugin_config:
            if entry.name == plugin:
                return entry.args
        return {}


def _explicit(point: ExtensionPoint, plugins: PluginSet, instances: Mapping[str, Any]) -> list[str]:
    """The point's own enabled plugins (upstream ``updatePluginList``)."""
    chosen: list[str] = []
    for ref in plugins.enabled:
        plugin = instances.get(ref.name)
        if plugin is None:
            raise ProfileError(f'{point.interface} "{ref.name}" does not exist')
        if not isinstance(plugin, point.protocol):
            raise ProfileError(f'plugin "{ref.name}" does not extend {point.interface} plugin')
        if ref.name in chosen:
            raise ProfileError(f'plugin "{ref.name}" already registered as "{point.interface}"')
        chosen.append(ref.name)
    return chosen


def _expand_multi_point(
    point: ExtensionPoint, own: PluginSet, explicit: list[str], multi: PluginSet,
    instances: Mapping[str, Any],
) -> list[str]:
    """The point's plugins once ``multiPoint`` is folded in (``expandMultiPointPlugins``)."""
    if "*" in own.disabled:
        return explicit
    overrides: list[str] = []
    joined: list[str] = []
    for ref in multi.enabled:
        plugin = instances.get(ref.name)
        if plugin is None:
            raise ProfileError(f'{point.interface} "{ref.name}" does not exist')
        if not isinstance(plugin, point.protocol) or ref.name in own.disabled:
            continue
        if ref.name in explicit:
            overrides.append(ref.name)
            continue
        if ref.name in joined:
            raise ProfileError(f'plugin "{ref.name}" already registered as "{point.interface}"')
        joined.append(ref.name)
    first = [name for name in explicit if name in overrides]
    return [*first, *joined, *(name for name in explicit if name not in overrides)]


def _weights(profile: Profile, instances: Mapping[str, Any]) -> dict[str, int]:
    """Score weights: the ``score`` set's first, then ``multiPoint``'s; unset or 0 is 1."""
    weights: dict[str, int] = {}
    total = 0
    refs = (*profile.plugins.score.enabled, *profile.plugins.multi_point.enabled)
    for ref in refs:
        if not isinstance(instances.get(ref.name), ScorePlugin) or ref.name in weights:
            continue
        weight = ref.weight or 1
        if weight * _MAX_NODE_SCORE > _MAX_TOTAL_SCORE - total:
            raise ProfileError("total score of Score plugins could overflow")
        total += weight * _MAX_NODE_SCORE
        weights[ref.name] = weight
    return weights


def plan(
    profile: Profile, instances: Mapping[str, Any]
) -> tuple[dict[str, list[Any]], dict[str, int]]:
    """The plugins of each extension point (by attribute name, in run order) and the Score
    weights, for ``instances`` (the profile's plugins by name). Raises :class:`ProfileError`."""
    plugins = profile.plugins
    names = {
        point.attribute: _explicit(point, getattr(plugins, point.attribute), instances)
        for point in EXTENSION_POINTS
    }
    if plugins.multi_point.enabled:
        for point in EXTENSION_POINTS:
            names[point.attribute] = _expand_multi_point(
                point, getattr(plugins, point.attribute), names[point.attribute],
                plugins.multi_point, instances,
            )
    if len(names["queue_sort"]) != 1:
        raise ProfileError(
            "only one queue sort plugin required for profile with scheduler name "
            f'"{profile.scheduler_name}", but got {len(names["queue_sort"])}'
        )
    if not names["bind"]:
        raise ProfileError(
            "at least one bind plugin is needed for profile with scheduler name "
            f'"{profile.scheduler_name}"'
        )
    weights = _weights(profile, instances)
    for name in names["score"]:
        if name not in weights:
            raise ProfileError(f'score plugin "{name}" is not configured with weight')
    return {attr: [instances[n] for n in chosen] for attr, chosen in names.items()}, weights
