"""Indexes that more than one controller keeps on the shared informers, defined once.

The controllers share one informer per resource (the manager's factory), so an index two of them
need is one index: it has one name here and one function, and whichever controller registers it
first (through :func:`ensure_index`) makes it for both — the
informer computes it once per object, not once per controller.

Pools are keyed ``<driver>|<pool>``: a ResourceSlice indexes under the pool it publishes into, a
ResourceClaim under every pool its allocation results point into.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakeapi.client import Informer
from fakeapi.client.informer import IndexFunc
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.podgroups import pod_group_name

__all__ = [
    "CLAIM_POOL_INDEX",
    "OWNER_UID_INDEX",
    "POD_CLAIMS_INDEX",
    "POD_GROUP_INDEX",
    "SLICE_POOL_INDEX",
    "allocated_pools",
    "allocation_results",
    "ensure_index",
    "pod_claim_keys",
    "pod_group_keys",
    "pool_key",
    "slice_pools",
]

#: ResourceSlices by the ``<driver>|<pool>`` they publish into
SLICE_POOL_INDEX = "controllers/slice-pool"
#: ResourceClaims by every ``<driver>|<pool>`` their allocation uses
CLAIM_POOL_INDEX = "controllers/allocated-pools"
#: Pods by the ``ns/claim`` they name in spec or status
POD_CLAIMS_INDEX = "controllers/pod-claims"
#: Pods by the ``ns/podgroup`` they belong to
POD_GROUP_INDEX = "controllers/pod-group"
#: any object by the uids its owner references name (:func:`fakeapi.objects.owner_uids`)
OWNER_UID_INDEX = "controllers/owner-uid"


def ensure_index(informer: Informer, name: str, index: IndexFunc) -> None:
    """Add an index unless one of that name exists (a restarted controller re-registers it on
    the same shared informer)."""
    with contextlib.suppress(ValueError):
        informer.add_index(name, index)


def pool_key(driver: str, pool: str) -> str:
    return f"{driver}|{pool}"


def slice_pools(slice_obj: Obj) -> list[str]:
    """Index: the one pool a ResourceSlice publishes into."""
    spec = as_dict(slice_obj.get("spec"))
    return [pool_key(text(spec.get("driver")), text(as_dict(spec.get("pool")).get("name")))]


def allocation_results(claim: Obj) -> list[dict[str, Any]]:
    """``status.allocation.devices.results`` of a claim; empty when it is not allocated."""
    allocation = as_dict(as_dict(claim.get("status")).get("allocation"))
    return [as_dict(r) for r in as_list(as_dict(allocation.get("devices")).get("results"))]


def allocated_pools(claim: Obj) -> list[str]:
    """Index: every pool the claim's allocation results point into."""
    return sorted(
        {pool_key(text(r.get("driver")), text(r.get("pool"))) for r in allocation_results(claim)}
    )


def pod_claim_keys(pod: Obj) -> list[str]:
    """Index: ``ns/claim`` for the claims a pod names in its spec (``resourceClaimName``) or its
    status (``resourceClaimStatuses``, where generated claims are recorded)."""
    ns = text(meta(pod).get("namespace"))
    names = {
        text(as_dict(e).get("resourceClaimName"))
        for e in as_list(as_dict(pod.get("spec")).get("resourceClaims"))
    }
    names |= {
        text(as_dict(s).get("resourceClaimName"))
        for s in as_list(as_dict(pod.get("status")).get("resourceClaimStatuses"))
        if as_dict(s).get("name")
    }
    return sorted(f"{ns}/{n}" for n in names if n)


def pod_group_keys(pod: Obj) -> list[str]:
    """Index: ``ns/podgroup`` of the PodGroup the pod belongs to, if any."""
    group = pod_group_name(pod)
    return [f"{text(meta(pod).get('namespace'))}/{group}"] if group else []
