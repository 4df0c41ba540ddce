"""Guard for fakeapi.rules.daemons: which nodes run a DaemonSet's pod.

Cases follow upstream's daemon controller tests (``NodeShouldRunDaemonPod``): the template's node
name, node selector and required node affinity decide eligibility; untolerated NoSchedule taints
keep new pods away while running ones stay, untolerated NoExecute taints send them away; the
daemon tolerations every daemon pod gets keep them on not-ready, unreachable, pressured and
cordoned nodes.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.daemons import daemon_pod_tolerations, node_should_run_daemon_pod


def _node(name: str = "node-1", *, labels: dict[str, str] | None = None,
          taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints or []}}


def _template(**spec: Any) -> dict[str, Any]:
    tolerations = daemon_pod_tolerations(spec.pop("tolerations", []),
                                         host_network=bool(spec.get("hostNetwork")))
    return {"spec": {"containers": [{"name": "c", "image": "i"}], "tolerations": tolerations,
                     **spec}}


AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "gpu", "operator": "In", "values": ["yes"]}]}]}}}

# (description, node, template, should run, may continue)
CASES = [
    ("a plain node", _node(), _template(), True, True),
    ("the template names this node", _node(), _template(nodeName="node-1"), True, True),
    ("the template names another node", _node(), _template(nodeName="node-2"), False, False),
    ("the node selector matches", _node(labels={"gpu": "yes"}),
     _template(nodeSelector={"gpu": "yes"}), True, True),
    ("the node selector does not match", _node(), _template(nodeSelector={"gpu": "yes"}),
     False, False),
    ("required node affinity matches", _node(labels={"gpu": "yes"}),
     _template(affinity=AFFINITY), True, True),
    ("required node affinity does not match", _node(labels={"gpu": "no"}),
     _template(affinity=AFFINITY), False, False),
    ("an untolerated NoSchedule taint: no new pod, the old one stays",
     _node(taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]), _template(),
     False, True),
    ("an untolerated NoExecute taint: the pod goes",
     _node(taints=[{"key": "dedicated", "value": "x", "effect": "NoExecute"}]), _template(),
     False, False),
    ("a PreferNoSchedule taint does not matter",
     _node(taints=[{"key": "dedicated", "effect": "PreferNoSchedule"}]), _template(), True, True),
    ("a tolerated taint",
     _node(taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
     _template(tolerations=[{"key": "dedicated", "operator": "Exists"}]), True, True),
    ("daemon pods tolerate a cordoned node",
     _node(taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]),
     _template(), True, True),
    ("daemon pods tolerate a not-ready node",
     _node(taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]),
     _template(), True, True),
    ("only host-network daemon pods tolerate an unavailable network",
     _node(taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]),
     _template(), False, True),
    ("a host-network daemon pod tolerates an unavailable network",
     _node(taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]),
     _template(hostNetwork=True), True, True),
]


@pytest.mark.parametrize(("description", "node", "template", "run", "stay"), CASES)
def test_which_nodes_run_a_daemon_pod(
    description: str, node: dict[str, Any], template: dict[str, Any], run: bool, stay: bool
) -> None:
    assert node_should_run_daemon_pod(node, template) == (run, stay), description


def test_daemon_tolerations_are_added_once_beside_the_templates() -> None:
    own = {"key": "dedicated", "operator": "Exists"}
    once = daemon_pod_tolerations([own], host_network=False)
    assert once[0] == own
    assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
            "effect": "NoExecute"} in once
    assert daemon_pod_tolerations(once, host_network=False) == once
