"""ResourceClaims as pods reach and reserve them (dynamic-resource-allocation ``resourceclaim``).

Mirrors upstream's ``resourceclaim`` package — ``Name`` (:func:`pod_claim_name`),
``IsReservedForPod`` (:func:`is_reserved_for_pod`), ``IsForPod`` (ownership, through
:func:`fakeapi.objects.is_controlled_by`), ``CanBeReserved`` and the consumer references
``BindTo`` builds — with the names and annotations the resourceclaim controller, the scheduler
and the kubelet must agree on: the ``delete-protection`` finalizer, the annotations of generated
claims and how those claims are named.

Reservation follows the seed designs fakeapi serves: a claim is reserved for a pod when
``status.reservedFor`` lists the pod's UID (upstream matches the UID alone); or lists the pod's
PodGroup by API group, resource and name (a pod does not know its group's UID; KEP-5729); or when
its allocation is for any pod (``status.allocation.reservedForAnyPod``, KEP-5194, the claim names
its consumer in ``spec.reservedFor``).

Generated claim names follow upstream: ``<owner>-<claim>-`` plus five random characters from
apimachinery's alphabet (no vowels, no 0/1/3, so no words and no look-alikes). When the base is
longer than 57 characters both parts are cut in proportion to their length, so a long pod name
does not swallow the claim name (upstream's resourceclaim controller does the same before
handing the base to ``generateName``). The random part comes from the caller's ``random.Random``
so a seeded cluster names its claims the same way on every run.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from fakeapi.objects import as_dict, as_list, meta, text
from fakeapi.rules.podgroups import pod_group_name

__all__ = [
    "DELETE_PROTECTION_FINALIZER",
    "EXTENDED_RESOURCE_ANNOTATION",
    "MAX_RESERVED_FOR",
    "POD_CLAIM_ANNOTATION",
    "PODGROUP_CLAIM_ANNOTATION",
    "SCHEDULING_GROUP",
    "ClaimNameError",
    "admin_access",
    "can_be_reserved",
    "generated_claim_base",
    "generated_claim_name",
    "is_pod_group_reference",
    "is_reserved_for",
    "is_reserved_for_any_pod",
    "is_reserved_for_pod",
    "pod_claim_name",
    "pod_group_reference",
    "pod_reference",
    "reserved_for_uids",
]

#: the scheduler's mark that it allocated the claim: only the claim controller deallocates it
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"
#: on a claim generated for a pod: the pod's ``spec.resourceClaims`` entry it serves
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
#: on a claim generated for a PodGroup: the group's ``spec.resourceClaims`` entry (KEP-5729)
PODGROUP_CLAIM_ANNOTATION = "resource.kubernetes.io/podgroup-claim-name"
#: on the claim the scheduler makes for a pod's extended resources backed by DRA ("true")
EXTENDED_RESOURCE_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
#: the API group of PodGroup consumer references
SCHEDULING_GROUP = "scheduling.k8s.io"
#: resource.k8s.io/v1 ``ResourceClaimReservedForMaxSize``
MAX_RESERVED_FOR = 256

#: apimachinery's utilrand alphabet
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_BASE = 57
#: what the apiserver keeps of a generateName (63 minus the 5 random characters)
_MAX_GENERATED_BASE = 58


class ClaimNameError(Exception):
    """A pod's claim entry names no claim yet, or in no way this library knows (``Name``'s
    errors); ``str()`` is upstream's message."""


def pod_claim_name(pod: Mapping[str, Any], pod_claim: Mapping[str, Any]) -> tuple[str | None, bool]:
    """``resourceclaim.Name``: the claim ``pod_claim`` (a ``spec.resourceClaims`` entry) names,
    and whether it must be checked to be the pod's own (generated from a template).

    None for a template entry the controller decided needs no claim. :class:`ClaimNameError`
    when the generated claim is not recorded yet, or the entry uses neither field (a
    ``podGroupResourceClaim`` entry is resolved through the PodGroup instead).
    """
    pod_meta = meta(pod)
    where = f"{pod_meta.get('namespace', '')}/{pod_meta.get('name', '')}"
    if pod_claim.get("resourceClaimName"):
        return text(pod_claim.get("resourceClaimName")), False
    if pod_claim.get("resourceClaimTemplateName"):
        name = pod_claim.get("name")
        for status in as_list(as_dict(pod.get("status")).get("resourceClaimStatuses")):
            if as_dict(status).get("name") == name:
                return text(status.get("resourceClaimName")) or None, True
        raise ClaimNameError(f'pod "{where}": ResourceClaim not created yet')
    raise ClaimNameError(
        f'pod "{where}", spec.resourceClaim "{text(pod_claim.get("name"))}": '
        "none of the supported fields are set"
    )


def generated_claim_base(*, owner: str, claim: str) -> str:
    """The ``generateName`` of the claim generated for ``owner``'s entry ``claim``."""
    base = f"{owner}-{claim}-"
    if len(base) > _MAX_BASE:
        base = (
            owner[: len(owner) * _MAX_BASE // len(base)]
            + "-"
            + claim[: len(claim) * _MAX_BASE // len(base)]
        )
    return base


def generated_claim_name(*, owner: str, claim: str, rng: random.Random) -> str:
    """A name for that claim as the apiserver makes one of its ``generateName``."""
    base = generated_claim_base(owner=owner, claim=claim)[:_MAX_GENERATED_BASE]
    return base + "".join(rng.choice(_ALPHABET) for _ in range(5))


def pod_reference(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The ``reservedFor`` entry of a pod (``BindTo``'s pod consumer)."""
    m = meta(pod)
    return {"resource": "pods", "name": m.get("name", ""), "uid": m.get("uid", "")}


def pod_group_reference(group: Mapping[str, Any]) -> dict[str, Any]:
    """The ``reservedFor`` entry of a PodGroup (``BindTo``'s PodGroup consumer)."""
    m = meta(group)
    return {
        "apiGroup": SCHEDULING_GROUP,
        "resource": "podgroups",
        "name": m.get("name", ""),
        "uid": m.get("uid", ""),
    }


def is_pod_group_reference(ref: Mapping[str, Any], *, name: str) -> bool:
    """Whether a consumer reference names the PodGroup ``name`` (by group, resource, name)."""
    return (
        bool(name)
        and ref.get("apiGroup") == SCHEDULING_GROUP
        and ref.get("resource") == "podgroups"
        and ref.get("name") == name
    )


def reserved_for_uids(claim: Mapping[str, Any]) -> list[str]:
    """The UIDs ``status.reservedFor`` lists (an informer index)."""
    return [
        text(as_dict(ref).get("uid"))
        for ref in as_list(as_dict(claim.get("status")).get("reservedFor"))
    ]


def is_reserved_for(claim: Mapping[str, Any], *, uid: str) -> bool:
    """Whether ``status.reservedFor`` lists the consumer with ``uid``."""
    if not uid:
        return False
    for ref in as_list(as_dict(claim.get("status")).get("reservedFor")):
        if as_dict(ref).get("uid") == uid:
            return True
    return False


def is_reserved_for_any_pod(claim: Mapping[str, Any]) -> bool:
    """Whether the claim's allocation is for any pod (KEP-5194 ``reservedForAnyPod``)."""
    allocation = as_dict(as_dict(claim.get("status")).get("allocation"))
    return allocation.get("reservedForAnyPod") is True


def is_reserved_for_pod(pod: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """Whether ``pod`` may use the allocated ``claim`` without a new reservation: it is listed
    itself (by UID), its PodGroup is listed (by name), or the allocation is for any pod."""
    status = as_dict(claim.get("status"))
    if as_dict(status.get("allocation")).get("reservedForAnyPod") is True:
        return True
    uid = meta(pod).get("uid")
    group = pod_group_name(pod)
    for ref in as_list(status.get("reservedFor")):
        ref = as_dict(ref)
        if uid and ref.get("uid") == uid:
            return True
        if group and is_pod_group_reference(ref, name=group):
            return True
    return False


def can_be_reserved(claim: Mapping[str, Any]) -> bool:
    """Whether ``status.reservedFor`` has room for another consumer."""
    return len(as_list(as_dict(claim.get("status")).get("reservedFor"))) < MAX_RESERVED_FOR


def admin_access(claim: Mapping[str, Any]) -> bool:
    """Whether any request of the claim asks for admin access."""
    requests = as_list(as_dict(as_dict(claim.get("spec")).get("devices")).get("requests"))
    return any(as_dict(as_dict(r).get("exactly")).get("adminAccess") is True for r in requests)
