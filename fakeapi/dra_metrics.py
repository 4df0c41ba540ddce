"""Metrics that several DRA components record under one name.

Upstream keeps these in a package of their own that kube-controller-manager and kube-scheduler
both register (since 1.37, ``dynamic_resource_allocation_*``), the component being one more
dimension of the scrape. Here every component of a cluster shares the cluster's one registry, so
the counter exists once per registry: whichever component asks first registers it, the others
get the same object, and it outlives a component's restart as it outlives nothing upstream.
"""

from __future__ import annotations

import weakref

from prometheus_client import CollectorRegistry, Counter

__all__ = ["resourceclaim_creates"]

_CREATES: weakref.WeakKeyDictionary[CollectorRegistry, Counter] = weakref.WeakKeyDictionary()


def resourceclaim_creates(registry: CollectorRegistry) -> Counter:
    """``dynamic_resource_allocation_resourceclaim_creates_total{status, admin_access}``: the
    ResourceClaims the resourceclaim controller (from templates) and the scheduler (for
    extended resources) asked to create, by ``success``/``failure`` and admin access."""
    counter = _CREATES.get(registry)
    if counter is None:
        counter = _CREATES[registry] = Counter(
            "dynamic_resource_allocation_resourceclaim_creates",
            "Number of ResourceClaims creation requests, categorized by creation status and "
            "admin access",
            ["status", "admin_access"],
            registry=registry,
        )
    return counter
