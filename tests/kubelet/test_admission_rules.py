"""The admission rules as pure functions: claim resolution, ownership, reservation, node."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kubelet.admission import (
    ClaimRef,
    NotAdmittedError,
    check_claim,
    pod_claim_refs,
)

Obj = dict[str, Any]
NODE = {"metadata": {"name": "node-1", "labels": {"zone": "a", "gpus": "8"}}}


def _pod(**status: Any) -> Obj:
    return {
        "metadata": {"name": "web", "namespace": "default", "uid": "pod-uid"},
        "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]},
        "status": status,
    }


def _claim(*, owner: str = "pod-uid", reserved: str = "pod-uid", selector: Obj | None = None
           ) -> Obj:
    allocation: Obj = {"devices": {"results": []}}
    if selector is not None:
        allocation["nodeSelector"] = selector
    return {
        "metadata": {"name": "web-gpu-abcde", "uid": "claim-uid",
                     "ownerReferences": [{"kind": "Pod", "name": "web", "uid": owner,
                                          "controller": True}]},
        "status": {"allocation": allocation,
                   "reservedFor": [{"resource": "pods", "name": "web", "uid": reserved}]},
    }


def test_template_claim_not_created_yet() -> None:
    with pytest.raises(NotAdmittedError, match='pod "default/web": ResourceClaim not created yet'):
        pod_claim_refs(_pod(), pod_group_claim=lambda _: None)


def test_template_claim_resolves_through_pod_status_and_must_be_owned() -> None:
    pod = _pod(resourceClaimStatuses=[{"name": "gpu", "resourceClaimName": "web-gpu-abcde"}])
    (ref,) = pod_claim_refs(pod, pod_group_claim=lambda _: None)
    assert ref == ClaimRef("gpu", "web-gpu-abcde", must_check_owner=True)
    check_claim(pod=pod, claim=_claim(), ref=ref, node=NODE)
    with pytest.raises(NotAdmittedError, match=r"was not created for pod default/web \(pod is"):
        check_claim(pod=pod, claim=_claim(owner="someone-else"), ref=ref, node=NODE)


def test_a_template_claim_the_pod_owns_but_does_not_control_is_refused() -> None:
    """As upstream's IsForPod (and the scheduler): the pod must be the claim's controller."""
    pod = _pod(resourceClaimStatuses=[{"name": "gpu", "resourceClaimName": "web-gpu-abcde"}])
    (ref,) = pod_claim_refs(pod, pod_group_claim=lambda _: None)
    claim = _claim()
    claim["metadata"]["ownerReferences"][0]["controller"] = False
    with pytest.raises(NotAdmittedError, match=r"\(pod is not owner\)"):
        check_claim(pod=pod, claim=claim, ref=ref, node=NODE)


def test_claim_reserved_for_another_pod_is_refused() -> None:
    ref = ClaimRef("gpu", "web-gpu-abcde")
    with pytest.raises(NotAdmittedError, match=r"pod web \(pod-uid\) is not allowed to use"):
        check_claim(pod=_pod(), claim=_claim(reserved="other"), ref=ref, node=NODE)


def test_claim_allocated_for_another_node_is_refused() -> None:
    selector = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]}
    with pytest.raises(NotAdmittedError, match='not for node "node-1"'):
        check_claim(pod=_pod(), claim=_claim(selector=selector),
                    ref=ClaimRef("gpu", "web-gpu-abcde"), node=NODE)
