"""Which ResourceClaims a pod uses, and whom a claim is reserved for.

A pod reaches a claim in one of three ways (``spec.resourceClaims[]``):

* ``resourceClaimName`` — an existing claim, by name;
* ``resourceClaimTemplateName`` — the claim the resourceclaim controller generated for the pod,
  named in ``pod.status.resourceClaimStatuses`` and owned by the pod;
* ``podGroupResourceClaim`` (KEP-5729, seed), or an entry identical to one of its PodGroup's
  (upstream's KEP-5729; :func:`fakeapi.rules.podgroups.group_claim_entries`) — a claim of the
  pod's PodGroup
  (``spec.workloadRef.podGroupName``): the PodGroup entry names the claim or a template; the
  generated claim's name is recorded in the pod's (or the PodGroup's) ``resourceClaimStatuses``
  and the claim is owned by the PodGroup.

Reservation (``status.reservedFor``) follows the seed designs: a pod entry; or, for a claim reached
through the PodGroup, one PodGroup entry shared by every member; or, when the claim names its
consumer in ``spec.reservedFor`` (KEP-5194), that reference with
``status.allocation.reservedForAnyPod: true`` and no pod entries at all. Whom a claim is reserved
for, the claim a template entry names and the consumer references are the shared rules of
:mod:`fakeapi.rules.claims`, which the kubelet and the claim controller read alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi.objects import Obj, is_controlled_by
from fakeapi.rules.claims import (
    ClaimNameError,
    pod_claim_name,
    pod_group_reference,
    pod_reference,
)
from fakeapi.rules.podgroups import group_claim_entries, may_use_group_claims, pod_group_name

__all__ = [
    "ClaimNotReadyError",
    "PodClaim",
    "consumer_for",
    "resolve_pod_claims",
]


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
    metadata = pod.get("metadata") or {}
    namespace = metadata.get("namespace", "")
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses")
    out: list[PodClaim] = []
    entries = (pod.get("spec") or {}).get("resourceClaims") or ()
    group_name = pod_group_name(pod)
    if pod_group_claims and group_name and may_use_group_claims(pod):
        # an entry identical to one of the group's is the group's claim (upstream KEP-5729)
        group = get_pod_group(namespace, group_name)
        if group is None:
            raise ClaimNotReadyError(
                f'pod "{_pod_ref(pod)}": PodGroup "{namespace}/{group_name}" not found'
            )
        entries = group_claim_entries(pod, group)
    for entry in entries:
        entry_name = entry.get("name", "")
        owner_uid = ""
        via_group = False
        if entry.get("resourceClaimName"):
            name: str | None = entry["resourceClaimName"]
        elif entry.get("resourceClaimTemplateName"):
            try:
                name, _ = pod_claim_name(pod, entry)
            except ClaimNameError as exc:
                raise ClaimNotReadyError(str(exc)) from None
            owner_uid = metadata.get("uid", "")
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
                found, name = _status_name(statuses, entry_name)
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
        if owner_uid and not is_controlled_by(claim, owner_uid=owner_uid):
            owner = "pod" if not via_group else "PodGroup"
            raise ClaimNotReadyError(
                f"ResourceClaim {namespace}/{name} was not created for {owner} "
                f"{_pod_ref(pod) if not via_group else namespace + '/' + pod_group_name(pod)} "
                f"({owner} is not owner)"
            )
        out.append(PodClaim(entry_name, claim, via_group))
    return out


def consumer_for(
    *, pod: Obj, claim: Obj, via_group: bool, pod_group: Obj | None, reserved_for_workloads: bool
) -> tuple[dict[str, Any], bool]:
    """(the reference to add to ``reservedFor``, whether it stands for any pod)."""
    spec_ref = (claim.get("spec") or {}).get("reservedFor") if reserved_for_workloads else None
    if spec_ref:
        return {k: v for k, v in spec_ref.items() if v}, True
    if via_group and pod_group is not None:
        return pod_group_reference(pod_group), False
    return pod_reference(pod), False
