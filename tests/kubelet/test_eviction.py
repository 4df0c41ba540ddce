"""pods/eviction: a graceful deletion the kubelet completes, with upstream's replies and bodies."""

from __future__ import annotations

import pytest

from fakeapi.client import PODS, StatusError
from fakeapi.server.protobuf import decode_kubernetes_protobuf

from ..support.protobuf_wire import envelope, ld, vi
from .conftest import Cluster
from .helpers import bind, make_pod


def _eviction(name: str, **delete_options: object) -> dict[str, object]:
    body: dict[str, object] = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": name, "namespace": "default"},
    }
    if delete_options:
        body["deleteOptions"] = delete_options
    return body


async def test_eviction_marks_the_pod_and_its_kubelet_removes_it(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "web")
    await bind(cluster.client, pod, "node-1")

    async def running() -> bool:
        current = await cluster.pod("web")
        return current is not None and current["status"]["phase"] == "Running"

    await cluster.eventually(running, seconds=5)
    reply = await cluster.client.create_subresource(
        PODS, namespace="default", name="web", subresource="eviction", body=_eviction("web")
    )
    assert (reply["kind"], reply["status"], reply["code"]) == ("Status", "Success", 201)
    evicted = await cluster.pod("web")
    assert evicted is not None and evicted["metadata"]["deletionTimestamp"]
    conditions = {c["type"]: c for c in evicted["status"]["conditions"]}
    assert conditions["DisruptionTarget"]["reason"] == "EvictionByEvictionAPI"
    assert conditions["DisruptionTarget"]["lastTransitionTime"]

    async def gone() -> bool:
        return await cluster.pod("web") is None

    await cluster.eventually(gone, seconds=5)


async def test_eviction_of_an_unscheduled_pod_deletes_it_at_once(cluster: Cluster) -> None:
    await make_pod(cluster.client, "pending")
    await cluster.client.create_subresource(
        PODS, namespace="default", name="pending", subresource="eviction",
        body=_eviction("pending"),
    )
    assert await cluster.pod("pending") is None


async def test_eviction_dry_run_changes_nothing(cluster: Cluster) -> None:
    await make_pod(cluster.client, "keep")
    await cluster.client.create_subresource(
        PODS, namespace="default", name="keep", subresource="eviction",
        body=_eviction("keep", dryRun=["All"]),
    )
    kept = await cluster.pod("keep")
    assert kept is not None and "deletionTimestamp" not in kept["metadata"]


async def test_eviction_name_must_match_the_url(cluster: Cluster) -> None:
    await make_pod(cluster.client, "web")
    with pytest.raises(StatusError) as caught:
        await cluster.client.create_subresource(
            PODS, namespace="default", name="web", subresource="eviction",
            body=_eviction("other"),
        )
    assert caught.value.code == 400
    assert "name in URL does not match name in Eviction object" in caught.value.message


async def test_eviction_of_a_missing_pod_is_not_found(cluster: Cluster) -> None:
    with pytest.raises(StatusError) as caught:
        await cluster.client.create_subresource(
            PODS, namespace="default", name="ghost", subresource="eviction",
            body=_eviction("ghost"),
        )
    assert caught.value.code == 404


def test_protobuf_eviction_body_decodes_with_its_delete_options() -> None:
    meta = ld(1, "web") + ld(3, "default")
    delete_options = vi(1, 0) + ld(5, "All")  # gracePeriodSeconds: 0, dryRun: [All]
    body = envelope("policy/v1", "Eviction", ld(1, meta) + ld(2, delete_options))
    assert decode_kubernetes_protobuf(body) == {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "web", "namespace": "default"},
        "deleteOptions": {"gracePeriodSeconds": 0, "dryRun": ["All"]},
    }
