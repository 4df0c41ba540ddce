"""``GET /metrics``: the cluster's Prometheus registry in the text exposition format.

Every component of one cluster (the controllers' work queues and gauges, the scheduler, the
kubelets) registers its metrics in one ``prometheus_client.CollectorRegistry`` handed to it by
the assembler; the API server serves that registry, as kube-apiserver and kube-controller-manager
each serve theirs. Never the process-wide default registry: many clusters live in one test
process, and each must count only its own work.
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

__all__ = ["METRICS", "add_metrics_route"]

METRICS = web.AppKey("metrics", CollectorRegistry)


def add_metrics_route(app: web.Application, registry: CollectorRegistry) -> None:
    """Serve ``registry`` at ``/metrics`` (collected at request time)."""
    app[METRICS] = registry

    async def metrics(_: web.Request) -> web.Response:
        body = generate_latest(registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/metrics", metrics)
