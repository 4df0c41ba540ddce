"""Manifests and pod moves for the workload controller tests.

The controller tests run the controllers without scheduler or kubelets, so the tests make pods
move themselves, writing what a kubelet would: Running and Ready (:func:`make_ready`), or
finished (:func:`finish`).
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import PODS, Client

__all__ = [
    "deployment",
    "finish",
    "job",
    "make_ready",
    "owned_pods",
    "template",
]

READY_AT = "2026-01-01T00:00:00Z"


def template(app: str, image: str = "registry.example/app:1.0", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": "app", "image": image}], **spec}}


def deployment(name: str, replicas: int, *, image: str = "registry.example/app:1.0",
               strategy: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": template(name, image), **spec},
    }
    if strategy is not None:
        body["spec"]["strategy"] = strategy
    return body


def job(name: str, *, restart: str = "Never", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"template": {"spec": {"restartPolicy": restart, "containers": [
            {"name": "work", "image": "registry.example/work:1.0"}]}}, **spec},
    }


async def owned_pods(client: Client, owner_uid: str, *, namespace: str = "default",
                     active_only: bool = True) -> list[dict[str, Any]]:
    """The pods ``owner_uid`` controls (by default only those not being deleted)."""
    pods = (await client.list(PODS, namespace=namespace)).items
    return [
        p for p in pods
        if any(r.get("uid") == owner_uid and r.get("controller")
               for r in p["metadata"].get("ownerReferences") or [])
        and (not active_only or not p["metadata"].get("deletionTimestamp"))
    ]


async def make_ready(client: Client, pod: dict[str, Any]) -> None:
    """What a kubelet reports for a started pod: Running, its containers ready."""
    body = {**pod, "status": {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": READY_AT}],
        "containerStatuses": [{"name": c["name"], "image": c["image"], "imageID": "",
                               "ready": True, "restartCount": 0,
                               "state": {"running": {"startedAt": READY_AT}}}
                              for c in pod["spec"]["containers"]],
    }}
    await client.update_status(PODS, body=body)


async def finish(client: Client, pod: dict[str, Any], *, phase: str, exit_code: int = 0,
                 conditions: list[dict[str, Any]] | None = None) -> None:
    """What a kubelet reports for a pod whose containers exited."""
    reason = "Completed" if exit_code == 0 else "Error"
    body = {**pod, "status": {
        "phase": phase,
        "conditions": conditions or [],
        "containerStatuses": [{"name": c["name"], "image": c["image"], "imageID": "",
                               "ready": False, "restartCount": 0,
                               "state": {"terminated": {"exitCode": exit_code,
                                                        "reason": reason}}}
                              for c in pod["spec"]["containers"]],
    }}
    await client.update_status(PODS, body=body)
