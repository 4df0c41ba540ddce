"""The ReplicaSet and ReplicationController controllers keep N pods that match a selector.

Behaviours from upstream's ``pkg/controller/replicaset`` tests: missing pods are created from the
template with a controller reference (``SuccessfulCreate``), surplus ones deleted cheapest first
(not-ready before ready), orphans the selector matches adopted and relabelled pods released, and
the status counts what exists, is fully labelled, ready and available.
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import EVENTS, PODS, REPLICA_SETS, REPLICATION_CONTROLLERS

from ..support.workloads import make_ready, owned_pods, template


def _rs(name: str, replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": template(name)}}


async def test_a_replica_set_creates_its_pods_and_counts_them(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["replicaset-controller"])
        rs = await cluster.user.create(REPLICA_SETS, body=_rs("web", 3))
        uid = rs["metadata"]["uid"]
        pods = await cluster.eventually(
            lambda: _exactly(cluster.user, uid, 3), message="three pods"
        )
        for pod in pods:
            assert pod["metadata"]["generateName"] == "web-"
            assert pod["metadata"]["labels"] == {"app": "web"}
            assert pod["metadata"]["ownerReferences"] == [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": uid,
                "controller": True, "blockOwnerDeletion": True}]
        for pod in pods[:2]:
            await make_ready(cluster.user, pod)

        async def counted() -> dict[str, Any] | None:
            status = (await cluster.user.get(REPLICA_SETS, name="web",
                                             namespace="default")).get("status", {})
            return status if status.get("readyReplicas") == 2 else None

        status = await cluster.eventually(counted)
        assert status == {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 2,
                          "availableReplicas": 2, "terminatingReplicas": 0,
                          "observedGeneration": 1}
        events = (await cluster.user.list(EVENTS, namespace="default")).items
        assert sum(1 for e in events if e["reason"] == "SuccessfulCreate"
                   and e["message"].startswith("Created pod: web-")) >= 1
    finally:
        await cluster.close()


async def _exactly(client: Any, uid: str, count: int) -> list[dict[str, Any]] | None:
    pods = await owned_pods(client, uid)
    return pods if len(pods) == count else None


async def test_scaling_down_deletes_pods_that_are_not_ready_first(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["replicaset-controller"])
        rs = await cluster.user.create(REPLICA_SETS, body=_rs("web", 3))
        uid = rs["metadata"]["uid"]
        pods = await cluster.eventually(lambda: _exactly(cluster.user, uid, 3))
        ready = sorted(p["metadata"]["name"] for p in pods[:2])
        for pod in pods[:2]:
            await make_ready(cluster.user, pod)
        await cluster.user.patch(REPLICA_SETS, name="web", namespace="default",
                                 patch={"spec": {"replicas": 2}})
        left = await cluster.eventually(lambda: _exactly(cluster.user, uid, 2))
        assert sorted(p["metadata"]["name"] for p in left) == ready
    finally:
        await cluster.close()


async def test_orphans_are_adopted_and_relabelled_pods_released(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["replicaset-controller"])
        orphan = {"metadata": {"name": "orphan", "namespace": "default",
                               "labels": {"app": "web"}},
                  "spec": {"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}}
        await cluster.user.create(PODS, body=orphan)
        rs = await cluster.user.create(REPLICA_SETS, body=_rs("web", 1))
        uid = rs["metadata"]["uid"]
        adopted = await cluster.eventually(lambda: _exactly(cluster.user, uid, 1))
        assert adopted[0]["metadata"]["name"] == "orphan"
        await cluster.settle()
        assert len(await owned_pods(cluster.user, uid)) == 1  # adopted, so none created
        await cluster.user.patch(PODS, name="orphan", namespace="default",
                                 patch={"metadata": {"labels": {"app": "debug"}}})

        async def released() -> bool:
            pod = await cluster.user.get(PODS, name="orphan", namespace="default")
            return not pod["metadata"].get("ownerReferences")

        await cluster.eventually(released)
        replacement = await cluster.eventually(lambda: _exactly(cluster.user, uid, 1))
        assert replacement[0]["metadata"]["name"] != "orphan"
    finally:
        await cluster.close()


async def test_a_replication_controller_selects_by_a_label_map(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["replicationcontroller-controller"])
        rc = await cluster.user.create(REPLICATION_CONTROLLERS, body={
            "metadata": {"name": "legacy", "namespace": "default"},
            "spec": {"replicas": 2, "template": template("legacy")},
        })
        pods = await cluster.eventually(lambda: _exactly(cluster.user, rc["metadata"]["uid"], 2))
        assert pods[0]["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController"

        async def counted() -> bool:
            got = await cluster.user.get(REPLICATION_CONTROLLERS, name="legacy",
                                         namespace="default")
            return got.get("status", {}).get("replicas") == 2

        await cluster.eventually(counted)
    finally:
        await cluster.close()
