"""The claim gauge of the resourceclaim controller, computed from the claim cache when scraped.

``dynamic_resource_allocation_resource_claims`` is upstream's gauge (its name since 1.37, before
that ``resourceclaim_controller_resource_claims``), split by ``allocated``, ``admin_access`` and
``source`` (``resource_claim_template`` for generated claims, ``extended_resource`` for the
scheduler's extended-resource claims, empty otherwise). Counting at scrape time from the informer
cache means the figures are always exactly what the cache holds: there is no increment or
decrement to get wrong across missed events and restarts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from fakeapi.client import Informer
from fakeapi.objects import Obj, as_dict, meta
from fakeapi.rules.claims import (
    EXTENDED_RESOURCE_ANNOTATION,
    POD_CLAIM_ANNOTATION,
    PODGROUP_CLAIM_ANNOTATION,
    admin_access,
)

__all__ = ["ClaimCollector", "claim_source"]

_CLAIMS = "dynamic_resource_allocation_resource_claims"
_CLAIMS_HELP = (
    "Number of ResourceClaims, categorized by allocation status, admin access, and source. "
    "Source can be 'resource_claim_template' (created from a template), "
    "'extended_resource' (extended resources), or empty (manually created by a user)."
)
_LABELS = ["allocated", "admin_access", "source"]



def claim_source(claim: Obj) -> str:
    """The ``source`` label of the claim metrics."""
    annotations = as_dict(meta(claim).get("annotations"))
    if POD_CLAIM_ANNOTATION in annotations or PODGROUP_CLAIM_ANNOTATION in annotations:
        return "resource_claim_template"
    if annotations.get(EXTENDED_RESOURCE_ANNOTATION) == "true":
        return "extended_resource"
    return ""

class ClaimCollector(Collector):
    def __init__(self, claims: Informer) -> None:
        self.claims = claims

    def collect(self) -> Iterator[GaugeMetricFamily]:
        counts: Counter[tuple[str, str, str]] = Counter()
        for claim in self.claims.list():
            allocated = as_dict(claim.get("status")).get("allocation") is not None
            counts[
                (str(allocated).lower(), str(admin_access(claim)).lower(), claim_source(claim))
            ] += 1
        claims = GaugeMetricFamily(_CLAIMS, _CLAIMS_HELP, labels=_LABELS)
        for labels, count in sorted(counts.items()):
            claims.add_metric(list(labels), count)
        yield claims

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(_CLAIMS, _CLAIMS_HELP, labels=_LABELS)
