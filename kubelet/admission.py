"""Pod admission: may this pod, bound to this node, run here and use its resource claims?

First the node must have room for it (upstream's resource admission, :func:`resource_fit_error`):
the pods, cpu, memory and extended resources the pods already admitted here request plus the
pod's own must fit the node's allocatable, else the pod is rejected for good (``Failed``, reason
``OutOfcpu``...). Extended resources the node does not advertise at all are left out (served by
DRA through the scheduler's claim, or by nothing), as upstream's kubelet leaves them out.

Then the kubelet runs a pod only when every claim it references resolves to an existing claim that
is

1. **allocated** (``status.allocation`` set),
2. **allocated for this node** — ``allocation.nodeSelector`` absent or matching the node, and
3. **reserved for the pod** — ``status.reservedFor`` lists the pod's UID; or lists a PodGroup
   whose name is the pod's group (``spec.workloadRef.podGroupName``, or upstream's
   ``spec.schedulingGroup.podGroupName``; KEP-5729); or ``status.allocation.reservedForAnyPod``
   is true (KEP-5194).

Which claim an entry names, ownership (the claim's controller is the pod), reservation and node
selection are the shared rules of :mod:`fakeapi.rules` the scheduler applies too.

The checks are pure functions of the objects, so the kubelet re-runs them whenever a claim or the
pod changes; :class:`NotAdmittedError` carries the reason reported in the Warning event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi.objects import Obj, is_controlled_by, meta, text
from fakeapi.rules.claims import ClaimNameError, is_reserved_for_pod, pod_claim_name
from fakeapi.rules.nodeaffinity import node_selector
from fakeapi.rules.podrequests import Resource, pod_requests

__all__ = [
    "ClaimRef",
    "NotAdmittedError",
    "check_claim",
    "extended_claim_name",
    "pod_claim_refs",
    "resource_fit_error",
]



class NotAdmittedError(Exception):
    """The pod may not run (yet); the message says why."""


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """One entry of ``spec.resourceClaims`` and the ResourceClaim it resolves to (or the
    extended-resource claim, under its own name)."""

    pod_claim: str
    claim_name: str  # "" when no claim is needed (a template entry the controller skipped)
    #: generated from a template for this pod: the claim must be owned by the pod
    must_check_owner: bool = False


def pod_claim_refs(pod: Obj, *, pod_group_claim: Callable[[str], str | None]) -> list[ClaimRef]:
    """Resolve every ``spec.resourceClaims`` entry; NotAdmittedError when one cannot be yet.

    ``pod_group_claim(name)`` answers the claim name of the pod's PodGroup claim ``name`` (the
    kubelet looks the PodGroup up), or None when it is not known.
    """
    spec = pod.get("spec") or {}
    pod_meta = meta(pod)
    generated = {
        str(s.get("name")): s.get("resourceClaimName")
        for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    }
    refs = []
    for entry in spec.get("resourceClaims") or []:
        name = str(entry.get("name"))
        if entry.get("resourceClaimName") or entry.get("resourceClaimTemplateName"):
            try:
                claim_name, must_check_owner = pod_claim_name(pod, entry)
            except ClaimNameError as exc:
                raise NotAdmittedError(str(exc)) from None
            refs.append(ClaimRef(name, claim_name or "", must_check_owner=must_check_owner))
            continue
        # a PodGroup claim (KEP-5729): recorded in the pod's status, or named by the group
        resolved = str(generated.get(name) or "") if name in generated else None
        if resolved is None and entry.get("podGroupResourceClaim"):
            resolved = pod_group_claim(str(entry["podGroupResourceClaim"])) or None
        if resolved is None:
            raise NotAdmittedError(
                f'pod "{pod_meta.get("namespace")}/{pod_meta.get("name")}": '
                "ResourceClaim not created yet"
            )
        refs.append(ClaimRef(name, resolved))
    extended = extended_claim_name(pod)
    if extended:  # the scheduler's claim for extended resources backed by DRA, pod-owned
        refs.append(ClaimRef(extended, extended, must_check_owner=True))
    return refs


def extended_claim_name(pod: Obj) -> str:
    """The claim the scheduler made for the pod's extended resources backed by DRA, if any."""
    status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    return str(status.get("resourceClaimName") or "")


def check_claim(*, pod: Obj, claim: Obj | None, ref: ClaimRef, node: Obj) -> None:
    """NotAdmittedError unless ``claim`` may be used by ``pod`` on ``node``.

    The checks and messages follow the kubelet's DRA manager, in its order: the claim exists,
    a template-generated claim is owned by the pod, the claim is reserved for the pod, it is
    allocated; fakeapi adds that the allocation is for this node.
    """
    pod_meta = pod.get("metadata") or {}
    namespace = pod_meta.get("namespace")
    name = ref.claim_name
    if claim is None:
        raise NotAdmittedError(
            f'fetch ResourceClaim {name}: resourceclaims.resource.k8s.io "{name}" not found'
        )
    claim_meta = claim.get("metadata") or {}
    if ref.must_check_owner and not is_controlled_by(claim, owner_uid=pod_meta.get("uid") or ""):
        raise NotAdmittedError(
            f"ResourceClaim {namespace}/{name} was not created for pod "
            f"{namespace}/{pod_meta.get('name')} (pod is not owner)"
        )
    status = claim.get("status") or {}
    allocation = status.get("allocation") or {}
    if not is_reserved_for_pod(pod, claim):
        raise NotAdmittedError(
            f"pod {pod_meta.get('name')} ({pod_meta.get('uid')}) is not allowed to use "
            f"ResourceClaim {name} ({claim_meta.get('uid')})"
        )
    if not allocation:
        raise NotAdmittedError(f"ResourceClaim {name}: not allocated")
    selector = allocation.get("nodeSelector")
    node_meta = meta(node)
    if selector is not None and not node_selector(selector).matches(
        name=text(node_meta.get("name")), labels=node_meta.get("labels") or {}
    ):
        raise NotAdmittedError(
            f"ResourceClaim {name}: allocated for other nodes, not for node "
            f'"{node_meta.get("name")}"'
        )


def resource_fit_error(
    pod: Obj, *, allocatable: Mapping[str, Any], used: Resource, pods_admitted: int
) -> tuple[str, str] | None:
    """Why the node has no room for ``pod``, as upstream's kubelet rejects it: (reason, message)
    of the first shortfall (``OutOfpods``, ``OutOfcpu``, ``OutOfmemory``, ``OutOf<resource>``),
    or None when it fits. ``used``: what the pods already admitted here request."""
    wanted, _ = pod_requests(pod.get("spec") or {})
    have = Resource.from_list(allocatable)
    checks: list[tuple[str, int, int, int]] = [("pods", 1, pods_admitted, have.pods)]
    if wanted.milli_cpu:
        checks.append(("cpu", wanted.milli_cpu, used.milli_cpu, have.milli_cpu))
    if wanted.memory:
        checks.append(("memory", wanted.memory, used.memory, have.memory))
    if wanted.ephemeral_storage:
        checks.append(("ephemeral-storage", wanted.ephemeral_storage, used.ephemeral_storage,
                       have.ephemeral_storage))
    for name in sorted(wanted.scalar):
        if name not in have.scalar and "/" in name:
            continue  # an extended resource the node does not advertise: not the kubelet's
        checks.append((name, wanted.scalar[name], used.scalar.get(name, 0),
                       have.scalar.get(name, 0)))
    for name, requested, in_use, capacity in checks:
        if requested and in_use + requested > capacity:
            return f"OutOf{name}", (
                f"Node didn't have enough resource: {name}, requested: {requested}, "
                f"used: {in_use}, capacity: {capacity}"
            )
    return None
