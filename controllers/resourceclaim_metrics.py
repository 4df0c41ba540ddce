"""The claim gauges of the resourceclaim controller, computed from the claim cache when scraped.

KEP-4381 names them ``resourceclaim_controller_resource_claims`` and
``resourceclaim_controller_allocated_resource_claims``; like upstream's newer
``dynamic_resource_allocation_resource_claims`` they are split by ``admin_access`` and by
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
from fakeapi.controllers.claimnames import admin_access, claim_source
from fakeapi.controllers.objects import as_dict

__all__ = ["ClaimCollector"]

_LABELS = ["admin_access", "source"]


class ClaimCollector(Collector):
    def __init__(self, claims: Informer) -> None:
        self.claims = claims

    def collect(self) -> Iterator[GaugeMetricFamily]:
        total: Counter[tuple[str, str]] = Counter()
        allocated: Counter[tuple[str, str]] = Counter()
        for claim in self.claims.list():
            labels = (str(admin_access(claim)).lower(), claim_source(claim))
            total[labels] += 1
            if as_dict(claim.get("status")).get("allocation") is not None:
                allocated[labels] += 1
        claims = GaugeMetricFamily(
            "resourceclaim_controller_resource_claims",
            "Number of ResourceClaims",
            labels=_LABELS,
        )
        allocated_claims = GaugeMetricFamily(
            "resourceclaim_controller_allocated_resource_claims",
            "Number of allocated ResourceClaims",
            labels=_LABELS,
        )
        for labels, count in sorted(total.items()):
            claims.add_metric(list(labels), count)
        for labels, count in sorted(allocated.items()):
            allocated_claims.add_metric(list(labels), count)
        yield claims
        yield allocated_claims

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "resourceclaim_controller_resource_claims", "Number of ResourceClaims", labels=_LABELS
        )
        yield GaugeMetricFamily(
            "resourceclaim_controller_allocated_resource_claims",
            "Number of allocated ResourceClaims",
            labels=_LABELS,
        )
