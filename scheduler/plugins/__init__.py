"""The in-tree plugins, one module each, and the default profile that enables them.

Order matters: it is the order plugins run at each extension point, as in kube-scheduler's
default configuration (PodTopologySpread and InterPodAffinity after NodeResourcesFit,
DynamicResources after them and before DefaultPreemption, so that deallocating a claim is tried
before preemption is considered). Score weights are upstream's defaults.
"""

from __future__ import annotations

from fakeapi.scheduler.framework.profile import Profile
from fakeapi.scheduler.framework.registry import PluginFactory
from fakeapi.scheduler.plugins import (
    default_binder,
    default_preemption,
    gang,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    priority_sort,
    scheduling_gates,
    taint_toleration,
)
from fakeapi.scheduler.plugins.dynamic_resources import plugin as dra_plugin

__all__ = ["DEFAULT_PLUGINS", "DEFAULT_SCORE_WEIGHTS", "default_profile", "in_tree_registry"]

DEFAULT_PLUGINS: tuple[str, ...] = (
    scheduling_gates.NAME,
    priority_sort.NAME,
    node_unschedulable.NAME,
    node_name.NAME,
    taint_toleration.NAME,
    node_affinity.NAME,
    node_resources_fit.NAME,
    pod_topology_spread.NAME,
    inter_pod_affinity.NAME,
    dra_plugin.NAME,
    gang.NAME,
    default_preemption.NAME,
    node_resources_balanced_allocation.NAME,
    image_locality.NAME,
    default_binder.NAME,
)
DEFAULT_SCORE_WEIGHTS = {
    taint_toleration.NAME: 3,
    node_affinity.NAME: 2,
    node_resources_fit.NAME: 1,
    pod_topology_spread.NAME: 2,
    inter_pod_affinity.NAME: 2,
    dra_plugin.NAME: 1,
    node_resources_balanced_allocation.NAME: 1,
    image_locality.NAME: 1,
}


def in_tree_registry() -> dict[str, PluginFactory]:
    return {
        scheduling_gates.NAME: scheduling_gates.SchedulingGates,
        priority_sort.NAME: priority_sort.PrioritySort,
        node_unschedulable.NAME: node_unschedulable.NodeUnschedulable,
        node_name.NAME: node_name.NodeName,
        taint_toleration.NAME: taint_toleration.TaintToleration,
        node_affinity.NAME: node_affinity.NodeAffinity,
        node_resources_fit.NAME: node_resources_fit.NodeResourcesFit,
        pod_topology_spread.NAME: pod_topology_spread.PodTopologySpread,
        inter_pod_affinity.NAME: inter_pod_affinity.InterPodAffinity,
        dra_plugin.NAME: dra_plugin.DynamicResources,
        gang.NAME: gang.GangScheduling,
        default_preemption.NAME: default_preemption.DefaultPreemption,
        node_resources_balanced_allocation.NAME: (
            node_resources_balanced_allocation.NodeResourcesBalancedAllocation
        ),
        image_locality.NAME: image_locality.ImageLocality,
        default_binder.NAME: default_binder.DefaultBinder,
    }


def default_profile(*, scheduler_name: str = "default-scheduler") -> Profile:
    """Upstream's default plugins, as ``multiPoint`` with their weights."""
    return Profile.multi_point(
        *DEFAULT_PLUGINS, weights=DEFAULT_SCORE_WEIGHTS, scheduler_name=scheduler_name
    )
