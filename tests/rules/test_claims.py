"""Guard for fakeapi.rules.claims: upstream's resourceclaim tables over the shared rules.

Cases come from k8s.io/dynamic-resource-allocation ``resourceclaim/resourceclaim_test.go``
(TestName, TestIsReservedForPod, TestResourceClaimIsFor, TestBindTo's consumer shapes); the
reservations the seed designs add (any pod, KEP-5194) and the generated names are fakeapi's own.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from fakeapi.objects import is_controlled_by
from fakeapi.rules.claims import (
    MAX_RESERVED_FOR,
    ClaimNameError,
    can_be_reserved,
    generated_claim_base,
    generated_claim_name,
    is_pod_group_reference,
    is_reserved_for,
    is_reserved_for_any_pod,
    is_reserved_for_pod,
    pod_claim_name,
    pod_group_reference,
    pod_reference,
    reserved_for_uids,
)

Obj = dict[str, Any]


def _pod(name: str = "test-pod", uid: str = "", *, group: str = "", **status: Any) -> Obj:
    pod: Obj = {"metadata": {"namespace": "default", "name": name, "uid": uid}, "spec": {}}
    if group:
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    if status:
        pod["status"] = status
    return pod


# TestName: (description, pod, pod claim, name, must check owner, error)
NAME_CASES = [
    ("resource-claim-name-set", _pod(), {"name": "c", "resourceClaimName": "existing-claim"},
     "existing-claim", False, None),
    ("resource-claim-template-name-set-and-status-found",
     _pod(resourceClaimStatuses=[{"name": "template-claim",
                                  "resourceClaimName": "created-claim"}]),
     {"name": "template-claim", "resourceClaimTemplateName": "template-claim-template"},
     "created-claim", True, None),
    ("resource-claim-template-name-set-but-status-not-found",
     _pod(resourceClaimStatuses=[{"name": "other-claim",
                                  "resourceClaimName": "other-created-claim"}]),
     {"name": "template-claim", "resourceClaimTemplateName": "template-claim-template"},
     None, False, 'pod "default/test-pod": ResourceClaim not created yet'),
    ("neither-resource-claim-name-nor-template-name-set", _pod(), {"name": "invalid-claim"},
     None, False,
     'pod "default/test-pod", spec.resourceClaim "invalid-claim": '
     "none of the supported fields are set"),
    ("template entry the controller decided needs no claim",
     _pod(resourceClaimStatuses=[{"name": "template-claim"}]),
     {"name": "template-claim", "resourceClaimTemplateName": "t"}, None, True, None),
]


@pytest.mark.parametrize(("description", "pod", "entry", "name", "check", "error"), NAME_CASES)
def test_pod_claim_names_follow_upstreams_table(
    description: str, pod: Obj, entry: Obj, name: str | None, check: bool, error: str | None
) -> None:
    if error is not None:
        with pytest.raises(ClaimNameError) as raised:
            pod_claim_name(pod, entry)
        assert str(raised.value) == error
        return
    assert pod_claim_name(pod, entry) == (name, check), description


def _claim(*reserved: Obj, any_pod: bool = False, owners: list[Obj] | None = None) -> Obj:
    claim: Obj = {"metadata": {"namespace": "default", "name": "c", "uid": "claim"},
                  "status": {}}
    if reserved:
        claim["status"]["reservedFor"] = list(reserved)
    if any_pod:
        claim["status"]["allocation"] = {"reservedForAnyPod": True}
    if owners is not None:
        claim["metadata"]["ownerReferences"] = owners
    return claim


POD_RESERVED = {"uid": "1"}
POD_OTHER = {"uid": "2"}
GROUP_RESERVED = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups",
                  "name": "podGroupReserved", "uid": "g1"}
GROUP_OTHER = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups",
               "name": "podGroupOtherReserved", "uid": "g2"}

# TestIsReservedForPod (fakeapi always accepts PodGroup reservations: the seed KEP-5729 is on)
RESERVED_CASES = [
    ("not-reserved", _pod("podNotReserved", "9"), _claim(), False),
    ("reserved-for-pod", _pod("podReserved", "1"), _claim(POD_RESERVED), True),
    ("reserved-for-other-pod", _pod("podNotReserved", "9"), _claim(POD_RESERVED), False),
    ("multiple-reservations-including-pod", _pod("podReserved", "1"),
     _claim(POD_RESERVED, POD_OTHER), True),
    ("multiple-reservations-excluding-pod", _pod("podNotReserved", "9"),
     _claim(POD_RESERVED, POD_OTHER), False),
    ("reserved-for-podgroup", _pod("podNotReserved", "9", group="podGroupReserved"),
     _claim(GROUP_RESERVED), True),
    ("reserved-for-pod-and-podgroup", _pod("podReserved", "1", group="podGroupReserved"),
     _claim(POD_RESERVED, {"uid": "g1"}), True),
    ("reserved-for-other-podgroup", _pod("podNotReserved", "9", group="podGroupNotReserved"),
     _claim(POD_RESERVED), False),
    ("multiple-reservations-including-podgroup",
     _pod("podNotReserved", "9", group="podGroupReserved"),
     _claim(GROUP_RESERVED, GROUP_OTHER), True),
    ("multiple-reservations-excluding-podgroup",
     _pod("podNotReserved", "9", group="podGroupNotReserved"),
     _claim(GROUP_RESERVED, GROUP_OTHER), False),
    ("reserved for any pod (KEP-5194)", _pod("anyone", "9"), _claim(any_pod=True), True),
    ("a pod without a uid matches no entry without one", _pod("new", ""), _claim({"uid": ""}),
     False),
]


@pytest.mark.parametrize(("description", "pod", "claim", "reserved"), RESERVED_CASES)
def test_reservations_follow_upstreams_table(
    description: str, pod: Obj, claim: Obj, reserved: bool
) -> None:
    assert is_reserved_for_pod(pod, claim) is reserved, description


def test_reservations_by_uid_by_group_and_for_any_pod() -> None:
    claim = _claim(POD_RESERVED, GROUP_RESERVED)
    assert reserved_for_uids(claim) == ["1", "g1"]
    assert is_reserved_for(claim, uid="g1") and not is_reserved_for(claim, uid="3")
    assert not is_reserved_for(claim, uid="")
    assert is_pod_group_reference(GROUP_RESERVED, name="podGroupReserved")
    assert not is_pod_group_reference(GROUP_RESERVED, name="podGroupOtherReserved")
    assert not is_pod_group_reference({"resource": "pods", "name": "podGroupReserved"},
                                      name="podGroupReserved")
    assert is_reserved_for_any_pod(_claim(any_pod=True))
    assert not is_reserved_for_any_pod(claim)


def test_a_claim_has_room_for_256_consumers() -> None:
    full = _claim(*({"uid": str(i)} for i in range(MAX_RESERVED_FOR)))
    assert not can_be_reserved(full)
    assert can_be_reserved(_claim(*({"uid": str(i)} for i in range(MAX_RESERVED_FOR - 1))))


# TestResourceClaimIsFor, the Pod rows: a claim is the pod's when the pod is its controller
OWNER = {"uid": "owner", "controller": True}
IS_FOR_CASES = [
    ("owned", _claim(owners=[OWNER]), "owner", True),
    ("other-pod", _claim(owners=[OWNER]), "not-owner", False),
    ("no-owner", _claim(), "owner", False),
    ("an owner, but not the controller", _claim(owners=[{"uid": "owner"}]), "owner", False),
]


@pytest.mark.parametrize(("description", "claim", "pod_uid", "is_for"), IS_FOR_CASES)
def test_a_claim_is_for_the_pod_that_controls_it(
    description: str, claim: Obj, pod_uid: str, is_for: bool
) -> None:
    assert is_controlled_by(claim, owner_uid=pod_uid) is is_for, description


def test_consumer_references_have_upstreams_shapes() -> None:
    """TestBindTo: a pod is bound by resource, name and UID, a PodGroup with its API group."""
    pod = _pod("p", "u1")
    group = {"metadata": {"namespace": "default", "name": "workers", "uid": "g"}}
    assert pod_reference(pod) == {"resource": "pods", "name": "p", "uid": "u1"}
    assert pod_group_reference(group) == {
        "apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "workers", "uid": "g"}


def test_generated_names_cut_both_parts_in_proportion() -> None:
    assert generated_claim_base(owner="web", claim="gpu") == "web-gpu-"
    # 82 characters: 60 * 57 // 82 of the owner, 20 * 57 // 82 of the claim
    assert generated_claim_base(owner="p" * 60, claim="c" * 20) == "p" * 41 + "-" + "c" * 13
    name = generated_claim_name(owner="web", claim="gpu", rng=random.Random(1))
    assert name.startswith("web-gpu-") and len(name) == len("web-gpu-") + 5
    assert not set(name[len("web-gpu-"):]) & set("aeiou013")
