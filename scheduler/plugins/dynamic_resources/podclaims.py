"""Which ResourceClaims a pod uses, and whom a claim is reserved for.

A pod reaches a claim in one of three ways (``spec.resourceClaims[]``):

* ``resourceClaimName`` — an existing claim, by name;
* ``resourceClaimTemplateName`` — the claim the resourceclaim controller generated for the pod,
  named in ``pod.status.resourceClaimStatuses`` and owned by the pod;
* ``podGroupResourceClaim`` (KEP-5729, seed) — a claim of the pod's PodGroup
  (``spec.workloadRef.podGroupName``): the PodGroup entry names the claim or a template; the
  generated claim's name is recorded in the pod's (or the PodGroup's) ``resourceClaimStatuses``
  and the claim is owned by the PodGroup.

Reservation (``status.reservedFor``) follows the seed designs: a pod entry; or, for a claim reached
through the PodGroup, one PodGroup entry shared by every member; or, when the claim names its
consumer in ``spec.reservedFor`` (KEP-5194), that reference with
``status.allocation.reservedForAnyPod: true`` and no pod entries at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi.objects import Obj
from fakeapi.podgroups import pod_group_name

__all__ = [
    "MAX_RESERVED_FOR",
    "PODGROUPS_REF",
    "ClaimNotReadyError",
    "PodClaim",
    "can_be_reserved",
    "consumer_for",
    "is_reserved_for_pod",
    "resolve_pod_claims",
]

MAX_RESERVED_FOR = 256
PODGROUPS_REF = ("scheduling.k8s.io", "podgroups")


class ClaimNotReadyError(Exception):
    """The pod cannot be scheduled until its claims exist (message as upstream)."""


@dataclass(frozen=True, slots=True)
class PodClaim:
    pod_claim_name: str
    claim: Obj
    #: reached through ``podGroupResourceClaim``: reserved for the PodGroup
    via_group: bool


def _status_name(statuses: Any, name: str) -> tuple[bool, str | None]:
    for entry in statuses or ():
        if entry.get("name") == name:
            return True, entry.get("resourceClaimName")
    return False, None


def _owned_by(claim: Obj, uid: str) -> bool:
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("uid") == uid and ref.get("controller"):
            return True
    return False


def _pod_ref(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def resolve_pod_claims(
    pod: Obj,
    *,
    get_claim: Callable[[str, str], Obj | None],
    get_pod_group: Callable[[str, str], Obj | None],
    pod_group_claims: bool = True,
) -> list[PodClaim]:
    """The pod's claims in spec order; raises :class:`ClaimNotReadyError` when one is missing,
    being deleted or not the pod's own (upstream ``foreachPodResourceClaim``)."""
    meta = pod.get("metadata") or {}
    namespace = meta.get("namespace", "")
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses")
    out: list[PodClaim] = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
        pod_claim_name = entry.get("name", "")
        owner_uid = ""
        via_group = False
        if entry.get("resourceClaimName"):
            name: str | None = entry["resourceClaimName"]
        elif entry.get("resourceClaimTemplateName"):
            found, name = _status_name(statuses, pod_claim_name)
            if not found:
                raise ClaimNotReadyError(f'pod "{_pod_ref(pod)}": ResourceClaim not created yet')
            owner_uid = meta.get("uid", "")
        elif entry.get("podGroupResourceClaim") and pod_group_claims:
            via_group = True
            group_name = pod_group_name(pod)
            group = get_pod_group(namespace, group_name) if group_name else None
            if group is None:
                raise ClaimNotReadyError(
                    f'pod "{_pod_ref(pod)}": PodGroup "{namespace}/{group_name}" not found'
                )
            wanted = entry["podGroupResourceClaim"]
            group_entry = next(
                (
                    c
                    for c in (group.get("spec") or {}).get("resourceClaims") or ()
                    if c.get("name") == wanted
                ),
                None,
            )
            if group_entry is None:
                raise ClaimNotReadyError(
                    f'pod "{_pod_ref(pod)}": PodGroup {namespace}/{group_name} has no '
                    f'resource claim "{wanted}"'
                )
            if group_entry.get("resourceClaimName"):
                name = group_entry["resourceClaimName"]
            else:
                found, name = _status_name(statuses, pod_claim_name)
                if not found:
                    found, name = _status_name(
                        (group.get("status") or {}).get("resourceClaimStatuses"), wanted
                    )
                if not found:
                    raise ClaimNotReadyError(
                        f'pod "{_pod_ref(pod)}": ResourceClaim not created yet'
                    )
                owner_uid = (group.get("metadata") or {}).get("uid", "")
        else:
            continue
        if not name:
            continue  # the controller decided no claim is needed
        claim = get_claim(namespace, name)
        if claim is None:
            raise ClaimNotReadyError(f'resourceclaim "{name}" not found')
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            raise ClaimNotReadyError(f'resourceclaim "{name}" is being deleted')
        if owner_uid and not _owned_by(claim, owner_uid):
            owner = "pod" if not via_group else "PodGroup"
            raise ClaimNotReadyError(
                f"ResourceClaim {namespace}/{name} was not created for {owner} "
                f"{_pod_ref(pod) if not via_group else namespace + '/' + pod_group_name(pod)} "
                f"({owner} is not owner)"
            )
        out.append(PodClaim(pod_claim_name, claim, via_group))
    return out


def is_reserved_for_pod(pod: Obj, claim: Obj) -> bool:
    """The pod may use the allocated claim without a new entry: listed itself, its PodGroup is
    listed (by name), or the allocation is for any pod."""
    status = claim.get("status") or {}
    if (status.get("allocation") or {}).get("reservedForAnyPod"):
        return True
    uid = (pod.get("metadata") or {}).get("uid")
    group = pod_group_name(pod)
    for ref in status.get("reservedFor") or ():
        if ref.get("resource") == "pods" and not ref.get("apiGroup") and ref.get("uid") == uid:
            return True
        if (
            group
            and (ref.get("apiGroup"), ref.get("resource")) == PODGROUPS_REF
            and ref.get("name") == group
        ):
            return True
    return False


def can_be_reserved(claim: Obj) -> bool:
    return len((claim.get("status") or {}).get("reservedFor") or ()) < MAX_RESERVED_FOR


def consumer_for(
    *, pod: Obj, claim: Obj, via_group: bool, pod_group: Obj | None, reserved_for_workloads: bool
) -> tuple[dict[str, Any], bool]:
    """(the reference to add to ``reservedFor``, whether it stands for any pod)."""
    spec_ref = (claim.get("spec") or {}).get("reservedFor") if reserved_for_workloads else None
    if spec_ref:
        return {k: v for k, v in spec_ref.items() if v}, True
    if via_group and pod_group is not None:
        meta = pod_group.get("metadata") or {}
        return {
            "apiGroup": PODGROUPS_REF[0],
            "resource": PODGROUPS_REF[1],
            "name": meta.get("name", ""),
            "uid": meta.get("uid", ""),
        }, False
    meta = pod.get("metadata") or {}
    return {"resource": "pods", "name": meta.get("name", ""), "uid": meta.get("uid", "")}, False
