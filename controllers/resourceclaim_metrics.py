"""The claim gauges of the resourceclaim controller, computed from the claim cache when scraped.

``resourceclaim_controller_resource_claims`` is upstream's gauge, split by ``allocated``,
``admin_access`` and ``source`` (``resource_claim_template`` for generated claims,
``extended_resource`` for the scheduler's extended-resource claims, empty otherwise);
``resourceclaim_controller_allocated_resource_claims`` (KEP-4381's name) counts the allocated
ones by ``admin_access`` and ``source``. Counting at scrape time from the informer
cache means the figures are always exactly what the cache holds: there is no increment or
decrement to get wrong across missed events and restarts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from fakeapi.client import Informer
from fakeapi.controllers.claimnames import admin_access, claim_source
from fakeapi.controllers.objects import as_dict

__all__ = ["ClaimCollector"]

_CLAIMS = "resourceclaim_controller_resource_claims"
_CLAIMS_HELP = (
    "Number of ResourceClaims, categorized by allocation status, admin access, and source. "
    "Source can be 'resource_claim_template' (created from a template), "
    "'extended_resource' (extended resources), or empty (manually created by a user)."
)
_ALLOCATED = "resourceclaim_controller_allocated_resource_claims"
_ALLOCATED_HELP = "Number of allocated ResourceClaims, categorized by admin access and source."


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
        claims = GaugeMetricFamily(
            _CLAIMS, _CLAIMS_HELP, labels=["allocated", "admin_access", "source"]
        )
        allocated_claims = GaugeMetricFamily(
            _ALLOCATED, _ALLOCATED_HELP, labels=["admin_access", "source"]
        )
        by_source: Counter[tuple[str, str]] = Counter()
        for (is_allocated, admin, source), count in sorted(counts.items()):
            claims.add_metric([is_allocated, admin, source], count)
            if is_allocated == "true":
                by_source[(admin, source)] += count
        for labels, count in sorted(by_source.items()):
            allocated_claims.add_metric(list(labels), count)
        yield claims
        yield allocated_claims

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            _CLAIMS, _CLAIMS_HELP, labels=["allocated", "admin_access", "source"]
        )
        yield GaugeMetricFamily(_ALLOCATED, _ALLOCATED_HELP, labels=["admin_access", "source"])
