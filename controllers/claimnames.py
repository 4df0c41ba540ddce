"""Names and references the resourceclaim controller shares with the scheduler and kubelets.

Generated claim names follow upstream: ``<owner>-<claim>-`` plus five random characters from
apimachinery's alphabet (no vowels, no 0/1/3, so no words and no look-alikes). When the base is
longer than 57 characters both parts are cut in proportion to their length, so a long pod name
does not swallow the claim name (upstream's resourceclaim controller does the same before
handing the base to ``generateName``). The random part comes from the injected ``random.Random``
so a seeded cluster names its claims the same way on every run.
"""

from __future__ import annotations

import random
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list, meta

__all__ = [
    "DELETE_PROTECTION_FINALIZER",
    "EXTENDED_RESOURCE_ANNOTATION",
    "POD_CLAIM_ANNOTATION",
    "PODGROUP_CLAIM_ANNOTATION",
    "SCHEDULING_GROUP",
    "admin_access",
    "claim_source",
    "generated_claim_base",
    "generated_claim_name",
    "pod_group_reference",
    "pod_reference",
]

DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
PODGROUP_CLAIM_ANNOTATION = "resource.kubernetes.io/podgroup-claim-name"
EXTENDED_RESOURCE_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SCHEDULING_GROUP = "scheduling.k8s.io"

#: apimachinery's utilrand alphabet
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_BASE = 57
#: what the apiserver keeps of a generateName (63 minus the 5 random characters)
_MAX_GENERATED_BASE = 58


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


def pod_reference(pod: Obj) -> dict[str, Any]:
    m = meta(pod)
    return {"resource": "pods", "name": m.get("name"), "uid": m.get("uid")}


def pod_group_reference(group: Obj) -> dict[str, Any]:
    m = meta(group)
    return {
        "apiGroup": SCHEDULING_GROUP,
        "resource": "podgroups",
        "name": m.get("name"),
        "uid": m.get("uid"),
    }


def claim_source(claim: Obj) -> str:
    """The ``source`` label of the claim metrics."""
    annotations = as_dict(meta(claim).get("annotations"))
    if POD_CLAIM_ANNOTATION in annotations or PODGROUP_CLAIM_ANNOTATION in annotations:
        return "resource_claim_template"
    if annotations.get(EXTENDED_RESOURCE_ANNOTATION) == "true":
        return "extended_resource"
    return ""


def admin_access(claim: Obj) -> bool:
    """Whether any request of the claim asks for admin access."""
    requests = as_list(as_dict(as_dict(claim.get("spec")).get("devices")).get("requests"))
    return any(as_dict(as_dict(r).get("exactly")).get("adminAccess") is True for r in requests)
