"""Which nodes run a DaemonSet's pod, and the tolerations those pods get.

Upstream's daemon controller decides with ``NodeShouldRunDaemonPod``: a node runs the pod when
the template's ``nodeName`` (if any) names it, its required node affinity and node selector
match (the shared rule :mod:`fakeapi.rules.nodeaffinity`), and every ``NoSchedule`` and
``NoExecute`` taint is tolerated (:mod:`fakeapi.rules.taints`). A pod already there may stay
when only ``NoSchedule`` taints are untolerated. The tolerations checked are the template's plus
the ones the controller adds to every daemon pod (``AddOrUpdateDaemonPodTolerations``), so
daemons keep running on nodes that are not ready, unreachable, under pressure or cordoned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakeapi.objects import as_dict, as_list, meta, text
from fakeapi.rules.nodeaffinity import required_node_affinity
from fakeapi.rules.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated_taint

__all__ = [
    "DAEMON_SET_TEMPLATE_GENERATION",
    "daemon_pod_tolerations",
    "node_should_run_daemon_pod",
]

#: the annotation a DaemonSet keeps its template generation in (apps/v1 has no such field):
#: the server bumps it when the template changes, the controller labels its pods with it
DAEMON_SET_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"

_NO_EXECUTE_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
_NO_SCHEDULE_TAINTS = (
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/unschedulable",
)
_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


def daemon_pod_tolerations(
    tolerations: Sequence[Mapping[str, Any]], *, host_network: bool
) -> list[dict[str, Any]]:
    """The template's tolerations plus the daemon ones it lacks (an ``Exists`` toleration of
    each taint key and effect; ``network-unavailable`` only for host-network pods)."""
    out = [dict(t) for t in tolerations]
    wanted = [(key, NO_EXECUTE) for key in _NO_EXECUTE_TAINTS]
    wanted += [(key, NO_SCHEDULE) for key in _NO_SCHEDULE_TAINTS]
    if host_network:
        wanted.append((_NETWORK_UNAVAILABLE, NO_SCHEDULE))
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        if toleration not in out:
            out.append(toleration)
    return out


def node_should_run_daemon_pod(
    node: Mapping[str, Any], template: Mapping[str, Any]
) -> tuple[bool, bool]:
    """``(should run, should continue running)`` of a daemon pod made from ``template`` (whose
    tolerations already include the daemon ones) on ``node``."""
    spec = as_dict(template.get("spec"))
    name = text(meta(node).get("name"))
    wanted_node = text(spec.get("nodeName"))
    if wanted_node and wanted_node != name:
        return False, False
    labels = {k: text(v) for k, v in as_dict(meta(node).get("labels")).items()}
    if not required_node_affinity(template).matches(name=name, labels=labels):
        return False, False
    taints = [as_dict(t) for t in as_list(as_dict(node.get("spec")).get("taints"))]
    tolerations = [as_dict(t) for t in as_list(spec.get("tolerations"))]
    if find_untolerated_taint(taints, tolerations, effects=frozenset((NO_SCHEDULE, NO_EXECUTE))):
        untolerated = find_untolerated_taint(taints, tolerations, effects=frozenset((NO_EXECUTE,)))
        return False, untolerated is None
    return True, True
