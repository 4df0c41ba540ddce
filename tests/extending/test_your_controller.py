"""A controller of your own inside the cluster, as a user's suite would run it: it labels each pod
with how many ResourceClaims it got, on the cluster's loop, informers and clock.

Everything here goes through the documented surface only: ``fakeapi.cluster.ComponentContext``,
the ``fakeapi.client`` toolkit and the ``fakeapi`` marker's ``extra_components``.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import PODS, WorkQueue, is_conflict, is_not_found
from fakeapi.cluster import ComponentContext, eventually

LABEL = "example.com/claims"

POD = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: app
    image: registry.example/train:1.0
    resources: {claims: [{name: gpu}]}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
"""
PLAIN_POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: registry.example/web:1.0}]
"""


def labelled(count: str) -> Any:
    def check(pod: dict[str, Any]) -> bool:
        return (pod["metadata"].get("labels") or {}).get(LABEL) == count

    check.__name__ = f"label {LABEL}={count}"
    return check


class ClaimLabeller:
    """Labels every pod whose claims have been made with how many it has (level-based: it reads
    the pod from the informer on each reconcile, and retries on conflicts)."""

    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx
        self.pods = ctx.informers.informer(PODS)
        self.queue: WorkQueue[str] = WorkQueue(clock=ctx.clock, name=ctx.name)
        self.pods.add_handler(on_add=self._enqueue, on_update=lambda _old, new: self._enqueue(new))
        self.labelled: list[str] = []

    def _enqueue(self, pod: dict[str, Any]) -> None:
        meta = pod["metadata"]
        self.queue.add(f"{meta['namespace']}/{meta['name']}")

    async def start(self) -> None:
        self.ctx.informers.start()
        await self.ctx.informers.wait_for_sync(self.pods)
        self.ctx.spawn(self._work(), name="worker")

    async def stop(self) -> None:
        self.queue.shutdown()

    async def _work(self) -> None:
        while (key := await self.queue.get()) is not None:
            try:
                await self._reconcile(key)
            except Exception as exc:
                if not (is_conflict(exc) or is_not_found(exc)):
                    self.ctx.log.exception("reconciling %s", key)
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
            finally:
                self.queue.done(key)

    async def _reconcile(self, key: str) -> None:
        pod = self.pods.get(key)
        claims = ((pod or {}).get("status") or {}).get("resourceClaimStatuses") or []
        if pod is None or not claims:
            return
        count = str(len(claims))
        if (pod["metadata"].get("labels") or {}).get(LABEL) == count:
            return
        namespace, name = key.split("/")
        await self.ctx.client.patch(
            PODS, name=name, namespace=namespace, patch={"metadata": {"labels": {LABEL: count}}}
        )
        self.ctx.recorder.event(regarding=pod, type="Normal", reason="Labelled",
                                action="Label", note=f"{count} claim(s)")


@pytest.mark.fakeapi(nodes=1, extra_components=[ClaimLabeller])
async def test_the_controller_labels_a_pod_once_its_claim_is_made(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(POD)

    pod = await fakeapi_cluster.wait_for("pods", "trainer", condition=labelled("1"))

    managers = {entry["manager"] for entry in pod["metadata"]["managedFields"]}
    assert "claim-labeller" in managers  # the component writes under its own name

    async def labelled_events() -> list[dict[str, Any]]:
        return [e for e in await fakeapi_cluster.recent_events() if e["reason"] == "Labelled"]

    [event] = await eventually(labelled_events)  # events are written in the background
    assert event["reportingComponent"] == "claim-labeller"


@pytest.mark.fakeapi(extra_components={"labeller": ClaimLabeller})
async def test_a_pod_without_claims_keeps_its_labels(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(PLAIN_POD)
    await fakeapi_cluster.apply_yaml(POD.replace("trainer", "marker"))  # handled after "web"

    await fakeapi_cluster.wait_for("pods", "marker", condition=labelled("1"))
    web = await fakeapi_cluster.client.get("pods", name="web")
    assert LABEL not in (web["metadata"].get("labels") or {})


@pytest.mark.fakeapi(nodes=1, extra_components=[ClaimLabeller])
def test_a_sync_test_gets_the_controller_too(fakeapi_cluster: Any) -> None:
    fakeapi_cluster.apply_yaml(POD)

    pod = fakeapi_cluster.wait_for("pods", "trainer", condition=labelled("1"))
    assert pod["status"]["resourceClaimStatuses"][0]["name"] == "gpu"
