"""``GET /metrics``: the cluster's Prometheus registry in the text exposition format.

Every component of one cluster (the controllers' work queues and gauges, the scheduler, the
kubelets) registers its metrics in one ``prometheus_client.CollectorRegistry`` handed to it by
the assembler; the API server serves that registry, as kube-apiserver and kube-controller-manager
each serve theirs. Never the process-wide default registry: many clusters live in one test
process, and each must count only its own work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric

__all__ = ["METRICS", "add_metrics_route"]

METRICS = web.AppKey("metrics", CollectorRegistry)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class _WithoutCreated:
    """``registry`` as Kubernetes components expose theirs: without prometheus-client's
    ``*_created`` series (Go's client has none), leaving the process-wide switch alone."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        for family in self.registry.collect():
            created = family.name + "_created"
            if any(sample.name == created for sample in family.samples):
                family.samples = [s for s in family.samples if s.name != created]
            yield family


def add_metrics_route(
    app: web.Application,
    registry: CollectorRegistry,
    *,
    served: Callable[[Handler], Handler] = lambda handler: handler,
) -> None:
    """Serve ``registry`` at ``/metrics`` (collected at request time), its handler wrapped in
    ``served`` (the app's wrapper of every route)."""
    app[METRICS] = registry
    view = _WithoutCreated(registry)

    async def metrics(_: web.Request) -> web.Response:
        body = generate_latest(view)  # type: ignore[arg-type]
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/metrics", served(metrics))
