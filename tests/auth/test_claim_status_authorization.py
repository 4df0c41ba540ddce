"""Who may write which part of a claim's status (DRAResourceClaimGranularStatusAuthorization),
with the cases of upstream's ``TestAuthorizedForBinding`` and ``TestAuthorizedForDeviceStatus``
and the messages of its strategy tests."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.auth.attributes import Attributes
from fakeapi.auth.authorizer import ALLOWED, Answer, AuthorizerChain, Decision, Rules
from fakeapi.auth.user import NODE_NAME_EXTRA, UserInfo
from fakeapi.registry.kinds.resourceclaim_status_authz import claim_status_authorization_errors

SA = "system:serviceaccount:kube-system:dra-driver"
NODE = "test-node"
DRIVER = "test-driver"
TEST_USER = UserInfo("test-user")


class Granted:
    """Allows exactly the ``verb/resource/subresource/name`` keys it is given; says "denied"."""

    def __init__(self, *keys: str) -> None:
        self.keys = set(keys)

    def authorize(self, attrs: Attributes) -> Answer:
        key = f"{attrs.verb}/{attrs.resource}/{attrs.subresource}/{attrs.name}"
        return ALLOWED if key in self.keys else Answer(Decision.NO_OPINION, "denied")

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        return Rules()


def on_node(node: str) -> dict[str, Any]:
    return {"nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}


def devices(name: str) -> list[dict[str, Any]]:
    return [{"driver": DRIVER, "pool": "pool", "device": name}]


def errors_of(*keys: str, new: dict[str, Any], old: dict[str, Any],
              user: UserInfo = TEST_USER, verb: str = "update") -> list[str]:
    found = claim_status_authorization_errors(
        authorizer=AuthorizerChain([("Test", Granted(*keys))]), user=user, verb=verb,
        namespace="default", new=new, old=old,
    )
    return [f"{error.field}: {error.detail}" for error in found]


BINDING = "update/resourceclaims/binding/"


@pytest.mark.parametrize(("new", "keys", "refused"), [
    ({"devices": devices("dev")}, (), False),  # devices only: the binding is not asked
    ({"allocation": on_node("node-1")}, (BINDING,), False),
    ({"allocation": on_node("node-1")}, (), True),
    ({"reservedFor": [{"resource": "pods", "name": "pod-1", "uid": "uid-1"}]}, (BINDING,), False),
    ({"reservedFor": [{"resource": "pods", "name": "pod-1", "uid": "uid-1"}]}, (), True),
], ids=["no change to the binding", "allocation changed, authorized",
        "allocation changed, not authorized", "reservedFor changed, authorized",
        "reservedFor changed, not authorized"])
def test_allocation_and_reservations_need_the_binding_subresource(
    new: dict[str, Any], keys: tuple[str, ...], refused: bool
) -> None:
    found = [e for e in errors_of(*keys, new=new, old={}) if e.startswith("status:")]
    assert bool(found) is refused
    if refused:
        assert found == [
            'status: changing status.allocation or status.reservedFor requires '
            'resource="resourceclaims/binding", verb="update" permission: '
            'resourceclaims.resource.k8s.io is forbidden: User "test-user" cannot update '
            'resource "resourceclaims/binding" in API group "resource.k8s.io" at the cluster '
            "scope: denied"
        ]


SA_ON_NODE = UserInfo(SA, extra={NODE_NAME_EXTRA: (NODE,)})
ASSOCIATED = f"associated-node:update/resourceclaims/driver/{DRIVER}"
ARBITRARY = f"arbitrary-node:update/resourceclaims/driver/{DRIVER}"
SAME_NODE = ({"allocation": on_node(NODE), "devices": devices("dev-new")},
             {"allocation": on_node(NODE), "devices": devices("dev-old")})
OTHER_NODE = ({"allocation": on_node("other-node"), "devices": devices("dev-new")},
              {"devices": devices("dev-old")})
CONTROLLER = ({"allocation": on_node(NODE), "devices": devices("dev-new")},
              {"devices": devices("dev-old")})
TWO_NODES = {"nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
    {"key": "metadata.name", "operator": "In", "values": ["node-a", "node-b"]}]}]}}

DEVICE_CASES: list[tuple[str, tuple[dict[str, Any], dict[str, Any]], UserInfo, tuple[str, ...],
                         str, bool]] = [
    ("no drivers modified", ({"devices": devices("device")}, {"devices": devices("device")}),
     UserInfo(SA), (), "update", False),
    ("associated-node: SA on same node, allowed by associated-node verb", SAME_NODE, SA_ON_NODE,
     (ASSOCIATED,), "update", False),
    ("associated-node: SA on same node, allowed by arbitrary-node fallback", SAME_NODE,
     SA_ON_NODE, (ARBITRARY,), "update", False),
    ("associated-node: SA on same node, neither verb allowed", SAME_NODE, SA_ON_NODE, (),
     "update", True),
    ("SA on different node, only arbitrary-node checked", OTHER_NODE, SA_ON_NODE, (ARBITRARY,),
     "update", False),
    ("SA on different node, associated-node not checked, denied", OTHER_NODE, SA_ON_NODE,
     (ASSOCIATED,), "update", True),
    ("no node association (controller), only arbitrary-node checked, allowed", CONTROLLER,
     UserInfo(SA), (ARBITRARY,), "update", False),
    ("no node association (controller), denied", CONTROLLER, UserInfo(SA), (), "update", True),
    ("multi-node claim (no single node in selector), only arbitrary-node",
     ({"allocation": TWO_NODES, "devices": devices("dev-new")}, {"devices": devices("dev-old")}),
     UserInfo(SA, extra={NODE_NAME_EXTRA: ("node-a",)}), (ARBITRARY,), "update", False),
    ("patch verb propagated", CONTROLLER, SA_ON_NODE,
     (f"associated-node:patch/resourceclaims/driver/{DRIVER}",), "patch", False),
    ("a kubelet is not a service account", SAME_NODE,
     UserInfo(f"system:node:{NODE}", extra={NODE_NAME_EXTRA: (NODE,)}), (ASSOCIATED,), "update",
     True),
    ("an invalid node name is no association",
     ({"allocation": on_node("invalid_node_name!"), "devices": devices("dev-new")}, {}),
     UserInfo(SA, extra={NODE_NAME_EXTRA: ("invalid_node_name!",)}), (ASSOCIATED,), "update",
     True),
]


@pytest.mark.parametrize(("statuses", "user", "keys", "verb", "refused"),
                         [case[1:] for case in DEVICE_CASES], ids=[c[0] for c in DEVICE_CASES])
def test_device_status_needs_the_driver_subresource_for_each_driver(
    statuses: tuple[dict[str, Any], dict[str, Any]], user: UserInfo, keys: tuple[str, ...],
    verb: str, refused: bool,
) -> None:
    new, old = statuses
    found = [e for e in errors_of(BINDING.replace("update", verb), *keys, new=new, old=old,
                                  user=user, verb=verb)
             if e.startswith("status.devices:")]
    assert bool(found) is refused


def test_the_device_status_refusal_names_the_verbs_asked_and_the_first_refusal() -> None:
    new, old = SAME_NODE
    [error] = errors_of(new=new, old=old, user=SA_ON_NODE)
    assert error == (
        'status.devices: changing status.devices requires resource="resourceclaims/driver", '
        'verb="[associated-node:update arbitrary-node:update]" permission: '
        f'resourceclaims.resource.k8s.io "{DRIVER}" is forbidden: User "{SA}" cannot '
        f'associated-node:update resource "resourceclaims/driver" in API group '
        '"resource.k8s.io" in the namespace "default": denied'
    )
