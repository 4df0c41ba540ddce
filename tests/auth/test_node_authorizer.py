"""The Node authorizer and NodeRestriction for DRA, with the cases of upstream's
node_authorizer_test.go (``TestNodeAuthorizer``, selector authorization on, as since 1.32) and
noderestriction's ``TestAdmitResourceSlice``, and upstream's reasons and messages."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.auth.attributes import Attributes
from fakeapi.auth.authorizer import Decision
from fakeapi.auth.node import NodeAuthorizer
from fakeapi.auth.policy import node_rules
from fakeapi.auth.user import UserInfo, node_user, service_account_user
from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    NAMESPACES,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    StatusError,
)
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError as CoreStatusError
from fakeapi.registry.admission.interface import Attributes as AdmissionAttributes
from fakeapi.registry.admission.node_restriction import NodeRestriction
from fakeapi.registry.store import GenericStore
from fakeapi.server.inprocess import InProcessTransport

NODE0 = node_user("node0")
UNREGISTERED = node_user("nodeunregistered")
RES = "resource.k8s.io"
COORD = "coordination.k8s.io"
NO_RELATIONSHIP = "no relationship found between node 'node0' and this object"


def _pod(name: str, node: str, claim: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns0"},
            "spec": {"nodeName": node,
                     "containers": [{"name": "app", "image": "registry.example/app:1",
                                     "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}]}}


def _slice(name: str, node: str) -> dict[str, Any]:
    return {"metadata": {"name": name},
            "spec": {"driver": "gpu.example.com", "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0"}]}}


async def _cluster_objects() -> tuple[GenericStore, Client]:
    """Two nodes, each with a pod using a claim by name, node0's other pod using a claim made
    from a template (recorded in its status), and one ResourceSlice per node."""
    registry = new_registry(clock=FakeClock(), authorization=("Node", "RBAC"))
    admin = Client(InProcessTransport(registry), field_manager="test")
    await admin.create(NAMESPACES, body={"metadata": {"name": "ns0"}})
    for node in ("node0", "node1"):
        await admin.create(NODES, body={"metadata": {"name": node}})
        await admin.create(PODS, body=_pod(f"pod0-{node}", node, f"claim0-pod0-{node}-ns0"))
        await admin.create(RESOURCE_SLICES, body=_slice(f"slice-{node}", node))
    templated = _pod("pod1-node0", "node0", "unused")
    templated["spec"]["resourceClaims"] = [{"name": "gpu",
                                            "resourceClaimTemplateName": "one-gpu"}]
    pod = await admin.create(PODS, body=templated)
    pod["status"] = {"resourceClaimStatuses": [
        {"name": "gpu", "resourceClaimName": "generated-claim-pod1-node0-ns0-0"}]}
    await admin.update_status(PODS, body=pod)
    return registry, admin


def _node_authorizer(registry: GenericStore) -> NodeAuthorizer:
    def store(group: str, plural: str) -> Any:
        rt = registry.resources.lookup(group, "v1", plural)
        assert rt is not None
        return rt.store(registry.storage)

    return NodeAuthorizer(pods=store("", "pods"), resource_slices=store(RES, "resourceslices"),
                          node_rules=node_rules())


def _req(verb: str, resource: str, *, group: str = "", name: str = "", namespace: str = "",
         sub: str = "", selector: str = "", user: UserInfo = NODE0) -> Attributes:
    terms = tuple(tuple(term.split("=", 1)) for term in selector.split(",") if term)
    return Attributes(user=user, verb=verb, api_group=group, resource=resource, name=name,
                      namespace=namespace, subresource=sub,
                      field_selector=tuple((f, "=", v) for f, v in terms))


ALLOW, NO = Decision.ALLOW, Decision.NO_OPINION
NODE_CASES: list[tuple[str, Attributes, Decision, str]] = [
    # resource claims
    ("allowed resource claim",
     _req("get", "resourceclaims", group=RES, name="claim0-pod0-node0-ns0", namespace="ns0"),
     ALLOW, ""),
    ("allowed resource claim with template",
     _req("get", "resourceclaims", group=RES, name="generated-claim-pod1-node0-ns0-0",
          namespace="ns0"), ALLOW, ""),
    ("disallowed resource claim, other node",
     _req("get", "resourceclaims", group=RES, name="claim0-pod0-node1-ns0", namespace="ns0"),
     NO, NO_RELATIONSHIP),
    ("disallowed resource claim in another namespace",
     _req("get", "resourceclaims", group=RES, name="claim0-pod0-node0-ns0", namespace="ns1"),
     NO, NO_RELATIONSHIP),
    ("disallowed list of resource claims",
     _req("list", "resourceclaims", group=RES, namespace="ns0"), NO,
     "can only get individual resources of this type"),
    ("disallowed update of a related resource claim's status",
     _req("update", "resourceclaims", group=RES, name="claim0-pod0-node0-ns0", namespace="ns0",
          sub="status"), NO, "can only get individual resources of this type"),
    # resource slices
    ("create any resource slice (NodeRestriction checks it)",
     _req("create", "resourceslices", group=RES), ALLOW, ""),
    ("get own resource slice", _req("get", "resourceslices", group=RES, name="slice-node0"),
     ALLOW, ""),
    ("update own resource slice",
     _req("update", "resourceslices", group=RES, name="slice-node0"), ALLOW, ""),
    ("get other node's resource slice",
     _req("get", "resourceslices", group=RES, name="slice-node1"), NO, NO_RELATIONSHIP),
    ("delete other node's resource slice",
     _req("delete", "resourceslices", group=RES, name="slice-node1"), NO, NO_RELATIONSHIP),
    ("list own resource slices",
     _req("list", "resourceslices", group=RES, selector="spec.nodeName=node0"), ALLOW, ""),
    ("deletecollection own resource slices",
     _req("deletecollection", "resourceslices", group=RES, selector="spec.nodeName=node0"),
     ALLOW, ""),
    ("list all resource slices", _req("watch", "resourceslices", group=RES), NO,
     "can only list/watch/deletecollection resourceslices with nodeName field selector"),
    ("list other node's resource slices",
     _req("list", "resourceslices", group=RES, selector="spec.nodeName=node1"), NO,
     "can only list/watch/deletecollection resourceslices with nodeName field selector"),
    ("resource slice subresource",
     _req("get", "resourceslices", group=RES, name="slice-node0", sub="status"), NO,
     "cannot authorize ResourceSlice subresources"),
    ("other verb on resource slices",
     _req("escalate", "resourceslices", group=RES, name="slice-node0"), NO,
     "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, "
     "update, patch, delete, deletecollection"),
    # pods
    ("get related pod", _req("get", "pods", name="pod0-node0", namespace="ns0"), ALLOW, ""),
    ("get unrelated pod", _req("get", "pods", name="pod0-node1", namespace="ns0"), NO,
     NO_RELATIONSHIP),
    ("list related pods", _req("list", "pods", selector="spec.nodeName=node0"), ALLOW, ""),
    ("list single related pod", _req("list", "pods", name="pod0-node0", namespace="ns0"),
     ALLOW, ""),
    ("list unrelated pods", _req("list", "pods"), NO,
     "can only list/watch pods with spec.nodeName field selector"),
    ("create unnamed pod", _req("create", "pods", namespace="ns0"), ALLOW, ""),
    ("create pod proxy subresource forbidden",
     _req("create", "pods", namespace="ns0", sub="proxy"), NO, ""),
    ("delete unrelated pod (NodeRestriction checks it)",
     _req("delete", "pods", name="pod0-node1", namespace="ns0"), ALLOW, ""),
    ("update unrelated pod status (NodeRestriction checks it)",
     _req("update", "pods", name="pod0-node1", namespace="ns0", sub="status"), ALLOW, ""),
    ("get pod status", _req("get", "pods", name="pod0-node0", namespace="ns0", sub="status"),
     NO, ""),
    ("create related pod eviction",
     _req("create", "pods", name="pod0-node0", namespace="ns0", sub="eviction"), ALLOW, ""),
    # nodes
    ("get related unregistered node",
     _req("get", "nodes", name="nodeunregistered", user=UNREGISTERED), ALLOW, ""),
    ("get related node", _req("get", "nodes", name="node0"), ALLOW, ""),
    ("get unrelated node", _req("get", "nodes", name="node1"), NO,
     "node 'node0' cannot read 'node1', only its own Node object"),
    ("list all nodes", _req("list", "nodes"), NO,
     "node 'node0' cannot read all nodes, only its own Node object"),
    ("create node", _req("create", "nodes"), ALLOW, ""),
    ("update unrelated node (NodeRestriction checks it)",
     _req("update", "nodes", name="node1"), ALLOW, ""),
    ("patch related node status", _req("patch", "nodes", name="node0", sub="status"),
     ALLOW, ""),
    # leases
    ("get node lease", _req("get", "leases", group=COORD, name="node0",
                            namespace="kube-node-lease"), ALLOW, ""),
    ("get another node's lease", _req("get", "leases", group=COORD, name="node1",
                                      namespace="kube-node-lease"), NO,
     "can only access node lease with the same name as the requesting node"),
    ("lease in namespace other than kube-node-lease",
     _req("create", "leases", group=COORD, name="node0", namespace="foo"), NO,
     'can only access leases in the "kube-node-lease" system namespace'),
    ("list node leases", _req("list", "leases", group=COORD, namespace="kube-node-lease"), NO,
     "can only get, create, update, patch, or delete a node lease"),
    # the node rules, for every node alike
    ("events by the node rules", _req("create", "events", namespace="ns0"), ALLOW, ""),
    # not a node
    ("not a node", _req("get", "resourceclaims", group=RES, name="claim0-pod0-node0-ns0",
                        namespace="ns0", user=UserInfo("jane")), NO, ""),
    ("a node without a name",
     _req("get", "nodes", name="node0", user=UserInfo("kubelet", groups=("system:nodes",))),
     NO, 'unknown node for user "kubelet"'),
]


@pytest.fixture(scope="module")
def node_authorizer() -> NodeAuthorizer:
    import asyncio

    registry, _ = asyncio.run(_cluster_objects())
    return _node_authorizer(registry)


@pytest.mark.parametrize(("attrs", "decision", "reason"), [c[1:] for c in NODE_CASES],
                         ids=[c[0] for c in NODE_CASES])
def test_node_authorizer_decides_as_upstream(
    node_authorizer: NodeAuthorizer, attrs: Attributes, decision: Decision, reason: str
) -> None:
    answer = node_authorizer.authorize(attrs)
    assert (answer.decision, answer.reason) == (decision, reason)


async def test_a_claim_is_readable_exactly_while_a_pod_on_the_node_uses_it() -> None:
    registry, admin = await _cluster_objects()
    authz = _node_authorizer(registry)
    ask = _req("get", "resourceclaims", group=RES, name="claim0-pod0-node1-ns0", namespace="ns0",
               user=node_user("node1"))
    assert authz.authorize(ask).allowed
    await admin.delete(PODS, namespace="ns0", name="pod0-node1",
                       grace_period_seconds=0)
    assert not authz.authorize(ask).allowed


# --- NodeRestriction (TestAdmitResourceSlice) -------------------------------------------------
MYNODE = node_user("mynode")
CREATE_ERR = "can only create ResourceSlice with the same NodeName as the requesting node"
DELETE_ERR = "can only delete ResourceSlice with the same NodeName as the requesting node"
SLICE_NODE = {"metadata": {"name": "something"}, "spec": {"nodeName": "mynode"}}
SLICE_OTHER = {"metadata": {"name": "something"}, "spec": {"nodeName": "mynode-other"}}
SLICE_NO_NODE = {"metadata": {"name": "something"}, "spec": {"nodeName": ""}}

ADMIT_CASES: list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None, str]] = [
    ("create allowed", "CREATE", SLICE_NODE, None, ""),
    ("create disallowed", "CREATE", SLICE_OTHER, None, CREATE_ERR),
    ("create disallowed, no node name", "CREATE", SLICE_NO_NODE, None, CREATE_ERR),
    ("update allowed, same node", "UPDATE", SLICE_NODE, SLICE_NODE, ""),
    ("update allowed, other node", "UPDATE", SLICE_OTHER, SLICE_OTHER, ""),
    ("update allowed, no node", "UPDATE", SLICE_NO_NODE, SLICE_NO_NODE, ""),
    ("delete allowed", "DELETE", None, SLICE_NODE, ""),
    ("delete disallowed", "DELETE", None, SLICE_OTHER, DELETE_ERR),
    ("delete disallowed, no node name", "DELETE", None, SLICE_NO_NODE, DELETE_ERR),
]


@pytest.mark.parametrize(("operation", "obj", "old", "error"), [c[1:] for c in ADMIT_CASES],
                         ids=[c[0] for c in ADMIT_CASES])
def test_node_restriction_admits_resource_slices_as_upstream(
    operation: Any, obj: dict[str, Any] | None, old: dict[str, Any] | None, error: str
) -> None:
    attrs = AdmissionAttributes(group=RES, resource="resourceslices", kind="ResourceSlice",
                                operation=operation, obj=obj or old or {}, old=old, name="foo",
                                user=MYNODE)
    plugin = NodeRestriction()
    assert plugin.handles(attrs)
    if not error:
        plugin.admit(attrs)
        return
    with pytest.raises(CoreStatusError) as refused:
        plugin.admit(attrs)
    assert refused.value.code == 403
    assert refused.value.message == (
        f'resourceslices.resource.k8s.io "foo" is forbidden: {error}'
    )


def test_node_restriction_leaves_other_users_alone() -> None:
    attrs = AdmissionAttributes(group=RES, resource="resourceslices", kind="ResourceSlice",
                                operation="CREATE", obj=SLICE_OTHER,
                                user=service_account_user("kube-system", "driver"))
    assert not NodeRestriction().handles(attrs)


async def test_a_node_publishes_its_own_slices_only_through_the_api() -> None:
    """Authorizer and admission together, as a kubelet's client meets them."""
    registry, _ = await _cluster_objects()
    node0 = Client(InProcessTransport(registry, user=NODE0), field_manager="kubelet")
    await node0.create(RESOURCE_SLICES, body=_slice("new-node0", "node0"))
    with pytest.raises(StatusError) as refused:
        await node0.create(RESOURCE_SLICES, body=_slice("new-node1", "node1"))
    assert refused.value.code == 403
    assert refused.value.message == (
        f'resourceslices.resource.k8s.io "new-node1" is forbidden: {CREATE_ERR}'
    )
    with pytest.raises(StatusError) as refused:
        await node0.delete(RESOURCE_SLICES, name="slice-node1")
    assert refused.value.message == (
        'resourceslices.resource.k8s.io "slice-node1" is forbidden: User "system:node:node0" '
        'cannot delete resource "resourceslices" in API group "resource.k8s.io" at the cluster '
        f"scope: {NO_RELATIONSHIP}"
    )
    with pytest.raises(StatusError) as refused:
        await node0.get(RESOURCE_CLAIMS, namespace="ns0", name="claim0-pod0-node1-ns0")
    assert refused.value.code == 403
