"""Objects the kubelet tests create by hand, as the scheduler and controllers would."""

from __future__ import annotations

from typing import Any

from fakeapi.client import PODS, RESOURCE_CLAIMS, Client

Obj = dict[str, Any]


def node_selector_for(node: str) -> Obj:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        ]
    }


async def make_claim(client: Client, name: str, *, namespace: str = "default") -> Obj:
    return await client.create(
        RESOURCE_CLAIMS,
        namespace=namespace,
        body={
            "metadata": {"name": name},
            "spec": {
                "devices": {
                    "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]
                }
            },
        },
    )


async def allocate(
    client: Client,
    claim: Obj,
    *,
    node: str,
    devices: list[str],
    driver: str = "gpu.example.com",
    pool: str | None = None,
    reserved_for: list[Obj] | None = None,
    any_pod: bool = False,
) -> Obj:
    """Write status.allocation (and reservedFor) as the scheduler would."""
    claim = await client.get(
        RESOURCE_CLAIMS, namespace=claim["metadata"]["namespace"], name=claim["metadata"]["name"]
    )
    allocation: Obj = {
        "devices": {
            "results": [
                {"request": "gpu", "driver": driver, "pool": pool or node, "device": d}
                for d in devices
            ]
        },
        "nodeSelector": node_selector_for(node),
    }
    if any_pod:
        allocation["reservedForAnyPod"] = True
    claim["status"] = {"allocation": allocation}
    if reserved_for:
        claim["status"]["reservedFor"] = reserved_for
    return await client.update_status(RESOURCE_CLAIMS, body=claim)


def pod_ref(pod: Obj) -> Obj:
    return {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}


async def make_pod(
    client: Client,
    name: str,
    *,
    claim: str | None = None,
    namespace: str = "default",
    annotations: dict[str, str] | None = None,
    restart_policy: str = "Always",
    extra_spec: Obj | None = None,
) -> Obj:
    spec: Obj = {
        "restartPolicy": restart_policy,
        "containers": [{"name": "app", "image": "registry.example/app:1.0"}],
        **(extra_spec or {}),
    }
    if claim is not None:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
        spec["containers"][0].setdefault("resources", {"claims": [{"name": "gpu"}]})
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return await client.create(PODS, namespace=namespace, body={"metadata": meta, "spec": spec})


async def bind(client: Client, pod: Obj, node: str) -> None:
    await client.create_subresource(
        PODS,
        namespace=pod["metadata"]["namespace"],
        name=pod["metadata"]["name"],
        subresource="binding",
        body={
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": pod["metadata"]["name"]},
            "target": {"kind": "Node", "name": node},
        },
    )


async def schedule_with_claim(
    client: Client, name: str, *, claim: str, device: str, node: str = "node-1", **pod: Any
) -> Obj:
    """Pod ``name`` using a new claim ``claim``, then what the scheduler would write: the claim
    allocated ``device`` on ``node`` and reserved for the pod, the pod bound there. The keyword
    arguments in ``pod`` go to :func:`make_pod`."""
    created = await make_claim(client, claim)
    made = await make_pod(client, name, claim=claim, **pod)
    await allocate(client, created, node=node, devices=[device], reserved_for=[pod_ref(made)])
    await bind(client, made, node)
    return made
