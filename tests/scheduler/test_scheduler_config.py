"""Profiles as data: merging a configuration with the default plugins, the framework's reading of a
profile (multiPoint expansion, order, weights), and KubeSchedulerConfiguration decoding and
validation. The table cases are upstream's (``TestMergePlugins`` in
``pkg/scheduler/apis/config/v1/default_plugins_test.go``; ``TestNewFrameworkMultiPointExpansion``
in ``pkg/scheduler/framework/runtime/framework_test.go``), messages included."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from fakeapi.clock import FakeClock
from fakeapi.cluster import Cluster
from fakeapi.scheduler import SchedulerConfigError, default_profile, profile_from_config
from fakeapi.scheduler.config import configured_registry, enable_out_of_tree, merge_plugins
from fakeapi.scheduler.framework import (
    ActionType,
    EventResource,
    Framework,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
    ProfileError,
)
from fakeapi.scheduler.plugins import DEFAULT_PLUGINS, DEFAULT_SCORE_WEIGHTS, in_tree_registry


def refs(*entries: str | tuple[str, int]) -> tuple[PluginRef, ...]:
    return tuple(PluginRef(e) if isinstance(e, str) else PluginRef(*e) for e in entries)


def pset(enabled: Sequence[str | tuple[str, int]] = (), disabled: Sequence[str] = ()) -> PluginSet:
    return PluginSet(enabled=refs(*enabled), disabled=tuple(disabled))


# --- mergePlugins ------------------------------------------------------------------------------
MERGE_CASES = {
    "AppendCustomPlugin": (
        Plugins(filter=pset(["CustomPlugin"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])),
    ),
    "InsertAfterDefaultPlugins2": (
        Plugins(filter=pset(["CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=pset(["DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"],
                            ["DefaultPlugin2"])),
    ),
    "InsertBeforeAllPlugins": (
        Plugins(filter=pset(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=pset(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])),
    ),
    "ReorderDefaultPlugins": (
        Plugins(filter=pset(["DefaultPlugin2", "DefaultPlugin1"], ["*"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=pset(["DefaultPlugin2", "DefaultPlugin1"], ["*"])),
    ),
    "ApplyNilCustomPlugin": (
        Plugins(),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=pset(["DefaultPlugin1", "DefaultPlugin2"])),
    ),
    "CustomPluginOverrideDefaultPlugin": (
        Plugins(filter=pset([("Plugin1", 2), ("Plugin3", 3)])),
        Plugins(filter=pset(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=pset([("Plugin1", 2), "Plugin2", ("Plugin3", 3)])),
    ),
    "OrderPreserveAfterOverride": (
        Plugins(filter=pset([("Plugin2", 2), ("Plugin1", 1)])),
        Plugins(filter=pset(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=pset([("Plugin1", 1), ("Plugin2", 2), "Plugin3"])),
    ),
    "RepeatedCustomPlugin": (
        Plugins(filter=pset(["Plugin1", ("Plugin2", 2), "Plugin3", ("Plugin2", 4)])),
        Plugins(filter=pset(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=pset(["Plugin1", ("Plugin2", 4), "Plugin3", ("Plugin2", 2)])),
    ),
    "Append custom MultiPoint plugin": (
        Plugins(multi_point=pset(["CustomPlugin"])),
        Plugins(multi_point=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(multi_point=pset(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])),
    ),
    "Append disabled Multipoint plugins": (
        Plugins(multi_point=pset(["CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
                score=pset(disabled=["CustomPlugin2"])),
        Plugins(multi_point=pset(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(multi_point=pset(["DefaultPlugin1", "CustomPlugin", "CustomPlugin2"],
                                 ["DefaultPlugin2"]),
                score=pset(disabled=["CustomPlugin2"])),
    ),
    "override default MultiPoint plugins with custom value": (
        Plugins(multi_point=pset([("DefaultPlugin", 5)])),
        Plugins(multi_point=pset(["DefaultPlugin"])),
        Plugins(multi_point=pset([("DefaultPlugin", 5)])),
    ),
    "disabled MultiPoint plugin in default set": (
        Plugins(multi_point=pset(["CustomPlugin"])),
        Plugins(multi_point=pset(["DefaultPlugin"], ["DefaultPlugin2"])),
        Plugins(multi_point=pset(["DefaultPlugin", "CustomPlugin"], ["DefaultPlugin2"])),
    ),
    "disabled MultiPoint plugin in default set for specific extension point": (
        Plugins(multi_point=pset(["CustomPlugin"])),
        Plugins(multi_point=pset(["DefaultPlugin"]), score=pset(disabled=["DefaultPlugin2"])),
        Plugins(multi_point=pset(["DefaultPlugin", "CustomPlugin"]),
                score=pset(disabled=["DefaultPlugin2"])),
    ),
    "multipoint with only disabled gets merged": (
        Plugins(multi_point=pset(disabled=["DefaultPlugin"])),
        Plugins(multi_point=pset(["DefaultPlugin"])),
        Plugins(multi_point=pset(disabled=["DefaultPlugin"])),
    ),
}


@pytest.mark.parametrize("case", MERGE_CASES, ids=list(MERGE_CASES))
def test_a_configuration_merges_with_the_default_plugins_as_upstreams(case: str) -> None:
    custom, defaults, expected = MERGE_CASES[case]
    assert merge_plugins(defaults, custom) == expected


# --- the framework's reading of a profile -------------------------------------------------------
class _Base:
    name = ""

    def __init__(self, handle: Any) -> None:
        pass


class EveryPoint(_Base):
    """Implements every extension point (upstream's ``testPlugin``)."""

    name = "TestPlugin"

    def less(self, a: Any, b: Any) -> bool:
        return False

    def pre_enqueue(self, pod: Any) -> None:
        return None

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> tuple[None, None]:
        return None, None

    def filter(self, state: Any, pod: Any, node: Any) -> None:
        return None

    async def post_filter(self, state: Any, pod: Any, statuses: Any) -> tuple[None, None]:
        return None, None

    def pre_score(self, state: Any, pod: Any, nodes: Any) -> None:
        return None

    def score(self, state: Any, pod: Any, node: Any) -> tuple[int, None]:
        return 0, None

    def reserve(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    async def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    def permit(self, state: Any, pod: Any, node_name: str) -> tuple[None, float]:
        return None, 0.0

    async def pre_bind(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    async def bind(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    def post_bind(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    def events_to_register(self) -> list[Any]:
        return []


class ScorePlugin1(_Base):
    name = "score-plugin-1"

    def pre_score(self, state: Any, pod: Any, nodes: Any) -> None:
        return None

    def score(self, state: Any, pod: Any, node: Any) -> tuple[int, None]:
        return 0, None


class ScorePlugin2(ScorePlugin1):
    name = "score-plugin-2"


class ScoreWithNormalize(_Base):
    name = "score-with-normalize-plugin-1"

    def score(self, state: Any, pod: Any, node: Any) -> tuple[int, None]:
        return 0, None

    def normalize_score(self, state: Any, pod: Any, scores: Any) -> None:
        return None


class QueueSort(_Base):
    name = "queue-sort-plugin"

    def less(self, a: Any, b: Any) -> bool:
        return False


class Binder(_Base):
    name = "bind-plugin"

    async def bind(self, state: Any, pod: Any, node_name: str) -> None:
        return None


REGISTRY = {p.name: p for p in (EveryPoint, ScorePlugin1, ScorePlugin2, ScoreWithNormalize,
                                QueueSort, Binder)}
T, S1, S2, SN = EveryPoint.name, ScorePlugin1.name, ScorePlugin2.name, ScoreWithNormalize.name
Q, B = QueueSort.name, Binder.name
EVERY_POINT_BUT_SCORES = {
    "queue_sort": [T], "pre_filter": [T], "filter": [T], "post_filter": [T], "reserve": [T],
    "permit": [T], "pre_bind": [T], "bind": [T], "post_bind": [T], "pre_enqueue": [T],
}


class _Handle:
    clock = FakeClock()


def _plan(plugins: Plugins) -> tuple[dict[str, list[str]], dict[str, int]]:
    framework = Framework(handle=_Handle(),  # type: ignore[arg-type]
                          registry=REGISTRY, profile=Profile(plugins=plugins))
    points = {
        attr: [p.name for p in getattr(framework, attr)]
        for attr in ("pre_enqueue", "pre_filter", "filter", "post_filter", "pre_score", "score",
                     "reserve", "permit", "pre_bind", "bind", "post_bind")
    }
    points["queue_sort"] = [framework.queue_sort.name]
    return {k: v for k, v in points.items() if v}, framework.weights


EXPANSION_CASES: dict[str, tuple[Plugins, dict[str, list[str]], dict[str, int]]] = {
    "plugin expansion": (
        Plugins(multi_point=pset([(T, 5)])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T], "score": [T]}, {T: 5},
    ),
    "disable MultiPoint plugin at some extension points": (
        Plugins(multi_point=pset([T]), pre_score=pset(disabled=[T]), score=pset(disabled=[T])),
        EVERY_POINT_BUT_SCORES, {T: 1},
    ),
    "Multiple MultiPoint plugins": (
        Plugins(multi_point=pset([T, S1])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T, S1], "score": [T, S1]}, {T: 1, S1: 1},
    ),
    "disable MultiPoint extension": (
        Plugins(multi_point=pset([T, S1]), pre_score=pset(disabled=["*"])),
        {**EVERY_POINT_BUT_SCORES, "score": [T, S1]}, {T: 1, S1: 1},
    ),
    "Reorder MultiPoint plugins (specified extension takes precedence)": (
        Plugins(multi_point=pset([SN, T, S1]), score=pset([S1, T])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T, S1], "score": [S1, T, SN]},
        {S1: 1, T: 1, SN: 1},
    ),
    "Reorder MultiPoint plugins (specified extension only takes precedence when it exists in "
    "MultiPoint)": (
        Plugins(multi_point=pset([T, S1]), score=pset([SN, S1, T])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T, S1], "score": [S1, T, SN]},
        {S1: 1, T: 1, SN: 1},
    ),
    "Override MultiPoint plugins weights": (
        Plugins(multi_point=pset([T, S1]), score=pset([(S1, 5), (T, 3)])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T, S1], "score": [S1, T]}, {S1: 5, T: 3},
    ),
    "disable and enable MultiPoint plugins with '*'": (
        Plugins(multi_point=pset([Q, B, S1], ["*"])),
        {"queue_sort": [Q], "pre_score": [S1], "score": [S1], "bind": [B]}, {S1: 1},
    ),
    "disable and enable MultiPoint plugin by name": (
        Plugins(multi_point=pset([B, Q, S1], [S1])),
        {"queue_sort": [Q], "pre_score": [S1], "score": [S1], "bind": [B]}, {S1: 1},
    ),
    "Override MultiPoint plugins weights and avoid a plugin being loaded multiple times": (
        Plugins(multi_point=pset([T, S1]), score=pset([(S1, 5), (S2, 5), (T, 3)])),
        {**EVERY_POINT_BUT_SCORES, "pre_score": [T, S1], "score": [S1, T, S2]},
        {S1: 5, S2: 5, T: 3},
    ),
}


@pytest.mark.parametrize("case", EXPANSION_CASES, ids=list(EXPANSION_CASES))
def test_multi_point_plugins_expand_as_upstreams(case: str) -> None:
    plugins, points, weights = EXPANSION_CASES[case]
    assert _plan(plugins) == (points, weights)


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        (Plugins(multi_point=pset([T, T])), 'plugin "TestPlugin" already registered as '
                                             '"PreFilterPlugin"'),
        (Plugins(multi_point=pset([Q, B]), filter=pset(["Nope"])), 'FilterPlugin "Nope" does '
                                                                    "not exist"),
        (Plugins(multi_point=pset([Q, B]), filter=pset([B])), 'plugin "bind-plugin" does not '
                                                              "extend FilterPlugin plugin"),
        (Plugins(multi_point=pset([Q, B]), filter=pset([T, T])), 'plugin "TestPlugin" already '
                                                                  'registered as "FilterPlugin"'),
        (Plugins(multi_point=pset([B])), "only one queue sort plugin required for profile with "
                                         'scheduler name "default-scheduler", but got 0'),
        (Plugins(multi_point=pset([Q])), "at least one bind plugin is needed for profile with "
                                         'scheduler name "default-scheduler"'),
    ],
)
def test_a_profile_the_framework_cannot_run_is_refused_in_upstreams_words(
    plugins: Plugins, message: str
) -> None:
    with pytest.raises(ProfileError) as caught:
        _plan(plugins)
    assert str(caught.value) == message


def test_a_plugin_must_call_itself_by_its_registered_name() -> None:
    with pytest.raises(ProfileError, match='plugin "alias" names itself \'bind-plugin\''):
        Framework(handle=_Handle(),  # type: ignore[arg-type]
                  registry={**REGISTRY, "alias": Binder},
                  profile=Profile(plugins=Plugins(multi_point=pset([Q, "alias"]))))


class SilentFilter(_Base):
    name = "SilentFilter"

    def filter(self, state: Any, pod: Any, node: Any) -> None:
        return None


def test_a_plugin_that_may_reject_pods_without_registering_events_hears_every_event() -> None:
    framework = Framework(handle=_Handle(),  # type: ignore[arg-type]
                          registry={**REGISTRY, SilentFilter.name: SilentFilter},
                          profile=Profile(plugins=Plugins(multi_point=pset([Q, B, "SilentFilter",
                                                                            S1]))))
    [registration] = framework.events["SilentFilter"]
    assert registration.event.resource is EventResource.WILDCARD
    assert registration.event.action == ActionType.ALL
    assert registration.hint is None
    assert S1 not in framework.events  # a Score plugin rejects nobody


# --- KubeSchedulerConfiguration -----------------------------------------------------------------
HEAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def test_a_configuration_without_profiles_is_the_default_profile() -> None:
    profile = profile_from_config(HEAD)
    assert profile.plugins == default_profile().plugins
    assert [r.name for r in profile.plugins.multi_point.enabled] == list(DEFAULT_PLUGINS)
    weights = {r.name: r.weight for r in profile.plugins.multi_point.enabled if r.weight}
    assert weights == DEFAULT_SCORE_WEIGHTS
    assert profile.scheduler_name == "default-scheduler"


def test_a_profile_reads_name_percentage_plugins_and_args() -> None:
    profile = profile_from_config({
        **HEAD,
        "percentageOfNodesToScore": 30,
        "profiles": [{
            "schedulerName": "gpu-scheduler",
            "plugins": {"score": {"disabled": [{"name": "ImageLocality"}],
                                  "enabled": [{"name": "TaintToleration", "weight": 9}]}},
            "pluginConfig": [{"name": "DynamicResources", "args": {"filterTimeout": "2s"}}],
        }],
    })
    assert profile.scheduler_name == "gpu-scheduler"
    assert profile.percentage_of_nodes_to_score == 30
    assert profile.plugins.score == pset([("TaintToleration", 9)], ["ImageLocality"])
    assert profile.args("DynamicResources") == {"filterTimeout": "2s"}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
          "kind": "KubeSchedulerConfiguration"},
         'no kind "KubeSchedulerConfiguration" is registered for version '
         '"kubescheduler.config.k8s.io/v1beta3" (fakeapi reads KubeSchedulerConfiguration of '
         "kubescheduler.config.k8s.io/v1)"),
        ({"apiVersion": "kubescheduler.config.k8s.io/v1"},
         "Object 'Kind' is missing in the scheduler configuration"),
        ({**HEAD, "profile": []}, 'strict decoding error: unknown field "profile"'),
        ({**HEAD, "profiles": [{"plugins": {"filter": {"enabeld": []}}}]},
         'strict decoding error: unknown field "profiles[0].plugins.filter.enabeld"'),
        ({**HEAD, "parallelism": 0},
         "parallelism: Invalid value: 0: should be an integer value greater than zero"),
        ({**HEAD, "percentageOfNodesToScore": 101},
         "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
        ({**HEAD, "profiles": [{"schedulerName": "", "percentageOfNodesToScore": -1}]},
         "[profiles[0].schedulerName: Required value, profiles[0].percentageOfNodesToScore: "
         "Invalid value: -1: not in valid range [0-100]]"),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources"},
                                                 {"name": "DynamicResources"}]}]},
         'profiles[0].pluginConfig[1]: Duplicate value: "DynamicResources"'),
        ({**HEAD, "profiles": [{"plugins": {"queueSort": {"enabled": [{"name": "A"},
                                                                      {"name": "B"}]}}}]},
         "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin "
         "can be enabled"),
        ({**HEAD, "profiles": [{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}}]},
         'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in '
         'version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
         '"kubescheduler.config.k8s.io/v1")'),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                                  "args": {"filterTimeout": "-1s"}}]}]},
         'profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: "-1s": must be zero or '
         "positive"),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                                  "args": {"bindingTimeout": "500ms"}}]}]},
         'profiles[0].pluginConfig[0].args.bindingTimeout: Invalid value: "500ms": must be at '
         "least 1 second"),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                                  "args": {"filterTimeot": "1s"}}]}]},
         'decoding .profiles[0].pluginConfig[0]: strict decoding error: unknown field '
         '"filterTimeot"'),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources",
                                                  "args": {"filterTimeout": "soon"}}]}]},
         'decoding .profiles[0].pluginConfig[0].args.filterTimeout: time: invalid duration '
         '"soon"'),
        ({**HEAD, "podMaxBackoffSeconds": 0},
         "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
         "PodInitialBackoffSeconds"),
        ({**HEAD, "profiles": [{}, {"schedulerName": "second"}]},
         "profiles: Forbidden: fakeapi's scheduler runs one profile, not 2"),
        ({**HEAD, "extenders": [{"urlPrefix": "http://extender"}]},
         "extenders: Forbidden: fakeapi's scheduler has no extenders"),
        ({**HEAD, "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "scoringStrategy": {"type": "MostAllocated"}}}]}]},
         "profiles[0].pluginConfig[0].args: Forbidden: fakeapi's NodeResourcesFit takes no "
         "args"),
    ],
)
def test_a_configuration_is_refused_in_upstreams_words(config: Any, message: str) -> None:
    with pytest.raises(SchedulerConfigError) as caught:
        profile_from_config(config)
    assert str(caught.value) == message


def test_dynamic_resources_args_need_their_feature_gates() -> None:
    config = {**HEAD, "profiles": [{"pluginConfig": [{"name": "DynamicResources", "args": {
        "filterTimeout": "1s", "bindingTimeout": "60s"}}]}]}
    gates = {"DRASchedulerFilterTimeout": False, "DRADeviceBindingConditions": False}
    with pytest.raises(SchedulerConfigError) as caught:
        profile_from_config(config, feature_gates=gates)
    assert str(caught.value) == (
        "[profiles[0].pluginConfig[0].args.filterTimeout: Forbidden: DRASchedulingFilterTimeout "
        "feature gate is disabled, profiles[0].pluginConfig[0].args.bindingTimeout: Forbidden: "
        "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled]"
    )


async def test_dynamic_resources_args_reach_the_plugin_of_a_running_scheduler() -> None:
    config = {**HEAD, "profiles": [{"pluginConfig": [
        {"name": "DynamicResources", "args": {"filterTimeout": "2500ms", "bindingTimeout": "1m"}},
    ]}]}
    async with Cluster(components=("scheduler",), profiles=(), scheduler_config=config) as cluster:
        assert cluster.scheduler is not None
        plugin = cluster.scheduler.framework.plugins_by_name["DynamicResources"]
        assert (plugin.filter_timeout, plugin.writer.binding_timeout) == (2.5, 60.0)
        assert cluster.scheduler.plugin_args("DynamicResources")["filterTimeout"] == "2500ms"


def test_the_in_tree_registry_is_wrapped_only_for_plugins_with_args() -> None:
    registry = configured_registry(in_tree_registry(), default_profile(), feature_gates={})
    assert registry == in_tree_registry()


def test_out_of_tree_plugins_join_multi_point_unless_the_profile_places_them() -> None:
    placed = profile_from_config({**HEAD, "profiles": [{"plugins": {
        "filter": {"enabled": [{"name": "Placed"}]}}}]})
    profile = enable_out_of_tree(placed, ["Placed", "Joined"])
    assert [r.name for r in profile.plugins.multi_point.enabled] == [*DEFAULT_PLUGINS, "Joined"]
    assert profile.plugins.filter == pset(["Placed"])


async def test_an_out_of_tree_plugin_may_not_take_an_in_tree_name() -> None:
    cluster = Cluster(components=("scheduler",), profiles=(),
                      scheduler_plugins={"NodeName": ScorePlugin1})
    with pytest.raises(ValueError, match="a plugin named NodeName already exists"):
        await cluster.start()


async def test_the_scheduler_is_named_in_one_place() -> None:
    config = {**HEAD, "profiles": [{"schedulerName": "gpu-scheduler"}]}
    async with Cluster(components=(), profiles=(), scheduler_config=config) as cluster:
        with pytest.raises(ValueError, match="scheduler_name 'other' differs from the profile's "
                                             "schedulerName 'gpu-scheduler'"):
            await cluster.start_component("scheduler", scheduler_name="other")
        await cluster.start_component("scheduler", scheduler_name="gpu-scheduler")
        assert cluster.scheduler is not None
        assert cluster.scheduler.scheduler_name == "gpu-scheduler"
