"""The Deployment controller rolls pod templates out through ReplicaSets.

Behaviours from upstream's ``pkg/controller/deployment`` tests and e2e: the new ReplicaSet is
named with the pod-template hash and carries the revision; a rolling update never exceeds
desired + maxSurge pods nor drops below desired - maxUnavailable available ones; Recreate
removes the old pods before the new ReplicaSet grows; the Progressing and Available conditions
carry upstream's reasons and messages, including ProgressDeadlineExceeded; going back to an old
template reuses its ReplicaSet under the next revision.
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import DEPLOYMENTS, EVENTS, REPLICA_SETS

from ..support.workloads import deployment, make_ready, owned_pods

SURGE_ONE = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}


async def _sets(client: Any) -> dict[str, dict[str, Any]]:
    items = (await client.list(REPLICA_SETS, namespace="default")).items
    return {rs["metadata"]["name"]: rs for rs in items}


async def _deployment(client: Any, name: str = "web") -> dict[str, Any]:
    return await client.get(DEPLOYMENTS, name=name, namespace="default")


async def _ready_all(cluster: Any, rs: dict[str, Any]) -> None:
    for pod in await owned_pods(cluster.user, rs["metadata"]["uid"]):
        if pod.get("status", {}).get("phase") != "Running":
            await make_ready(cluster.user, pod)


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in obj["status"].get("conditions", []) if c["type"] == kind)


async def test_a_deployment_rolls_out_a_hashed_replica_set(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["deployment-controller", "replicaset-controller"])
        await cluster.user.create(DEPLOYMENTS, body=deployment("web", 2))
        sets = await cluster.eventually(lambda: _sets(cluster.user))
        (name, rs), = sets.items()
        hashed = rs["metadata"]["labels"]["pod-template-hash"]
        assert name == f"web-{hashed}"
        assert rs["spec"]["selector"]["matchLabels"] == {"app": "web",
                                                        "pod-template-hash": hashed}
        assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
        assert rs["spec"]["replicas"] == 2
        pods = await cluster.eventually(lambda: _count(cluster.user, rs, 2))
        for pod in pods:
            await make_ready(cluster.user, pod)

        async def complete() -> dict[str, Any] | None:
            d = await _deployment(cluster.user)
            status = d.get("status", {})
            done = status.get("availableReplicas") == 2 and _progress(d) == "NewReplicaSetAvailable"
            return d if done else None

        d = await cluster.eventually(complete)
        assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
        assert {k: d["status"][k] for k in ("replicas", "updatedReplicas", "readyReplicas",
                                            "availableReplicas", "unavailableReplicas")} == {
            "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2,
            "unavailableReplicas": 0}
        available = _condition(d, "Available")
        assert (available["status"], available["reason"], available["message"]) == (
            "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        assert _condition(d, "Progressing")["message"] == (
            f'ReplicaSet "{name}" has successfully progressed.')
        events = (await cluster.user.list(EVENTS, namespace="default")).items
        assert any(e["reason"] == "ScalingReplicaSet"
                   and e["message"] == f"Scaled up replica set {name} from 0 to 2"
                   for e in events)
    finally:
        await cluster.close()


def _progress(d: dict[str, Any]) -> str:
    for condition in d.get("status", {}).get("conditions", []):
        if condition["type"] == "Progressing":
            return str(condition["reason"])
    return ""


async def _count(client: Any, rs: dict[str, Any], count: int) -> list[dict[str, Any]] | None:
    pods = await owned_pods(client, rs["metadata"]["uid"])
    return pods if len(pods) == count else None


async def test_a_rolling_update_stays_within_surge_and_unavailability(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["deployment-controller", "replicaset-controller"])
        await cluster.user.create(DEPLOYMENTS, body=deployment("web", 2, strategy=SURGE_ONE))
        (first,) = (await cluster.eventually(lambda: _sets(cluster.user))).values()
        await cluster.eventually(lambda: _count(cluster.user, first, 2))
        await _ready_all(cluster, first)
        await cluster.user.patch(DEPLOYMENTS, name="web", namespace="default", patch={
            "spec": {"template": {"spec": {"containers": [
                {"name": "app", "image": "registry.example/app:2.0"}]}}}})

        async def two_sets() -> dict[str, dict[str, Any]] | None:
            sets = await _sets(cluster.user)
            return sets if len(sets) == 2 else None

        sets = await cluster.eventually(two_sets)
        new = next(rs for name, rs in sets.items() if name != first["metadata"]["name"])
        assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
        await cluster.settle()
        sizes = {n: rs["spec"]["replicas"] for n, rs in (await _sets(cluster.user)).items()}
        assert sizes == {first["metadata"]["name"]: 2, new["metadata"]["name"]: 1}
        # the old pods stay until new ones are available (maxUnavailable 0)
        while True:
            await _ready_all(cluster, new)
            d = await cluster.eventually(lambda: _settled(cluster))
            if d["status"].get("updatedReplicas") == 2 and d["status"].get("replicas") == 2:
                break
            sets = await _sets(cluster.user)
            total = sum(rs["spec"]["replicas"] for rs in sets.values())
            assert total <= 3  # desired + maxSurge
        sizes = {n: rs["spec"]["replicas"] for n, rs in (await _sets(cluster.user)).items()}
        assert sizes == {first["metadata"]["name"]: 0, new["metadata"]["name"]: 2}
        d = await _deployment(cluster.user)
        assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    finally:
        await cluster.close()


async def _settled(cluster: Any) -> dict[str, Any] | None:
    await cluster.settle(rounds=20)
    d = await _deployment(cluster.user)
    return d if d.get("status", {}).get("observedGeneration") == d["metadata"]["generation"] \
        else None


async def test_recreate_removes_old_pods_before_new_ones_start(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["deployment-controller", "replicaset-controller"])
        await cluster.user.create(DEPLOYMENTS, body=deployment(
            "web", 2, strategy={"type": "Recreate"}))
        (first,) = (await cluster.eventually(lambda: _sets(cluster.user))).values()
        await cluster.eventually(lambda: _count(cluster.user, first, 2))
        await cluster.user.patch(DEPLOYMENTS, name="web", namespace="default", patch={
            "spec": {"template": {"metadata": {"labels": {"app": "web", "v": "2"}}}}})

        async def replaced() -> dict[str, dict[str, Any]] | None:
            sets = await _sets(cluster.user)
            return sets if len(sets) == 2 else None

        sets = await cluster.eventually(replaced)
        old = sets[first["metadata"]["name"]]
        assert old["spec"]["replicas"] == 0
        assert await owned_pods(cluster.user, old["metadata"]["uid"], active_only=False) == []
        new = next(rs for n, rs in sets.items() if n != first["metadata"]["name"])
        await cluster.eventually(lambda: _count(cluster.user, new, 2))
    finally:
        await cluster.close()


async def test_a_stuck_rollout_exceeds_its_progress_deadline(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["deployment-controller", "replicaset-controller"])
        await cluster.user.create(DEPLOYMENTS, body=deployment(
            "web", 1, progressDeadlineSeconds=30))
        (rs,) = (await cluster.eventually(lambda: _sets(cluster.user))).values()
        await cluster.eventually(lambda: _count(cluster.user, rs, 1))
        await cluster.settle()
        await cluster.advance(31)

        async def timed_out() -> dict[str, Any] | None:
            d = await _deployment(cluster.user)
            return d if _progress(d) == "ProgressDeadlineExceeded" else None

        d = await cluster.eventually(timed_out)
        progressing = _condition(d, "Progressing")
        assert progressing["status"] == "False"
        assert progressing["message"] == (
            f'ReplicaSet "{rs["metadata"]["name"]}" has timed out progressing.')
    finally:
        await cluster.close()


async def test_going_back_to_an_old_template_reuses_its_replica_set(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["deployment-controller", "replicaset-controller"])
        await cluster.user.create(DEPLOYMENTS, body=deployment("web", 1))
        (first,) = (await cluster.eventually(lambda: _sets(cluster.user))).values()
        for image in ("registry.example/app:2.0", "registry.example/app:1.0"):
            await cluster.user.patch(DEPLOYMENTS, name="web", namespace="default", patch={
                "spec": {"template": {"spec": {"containers": [
                    {"name": "app", "image": image}]}}}})
            await cluster.eventually(lambda: _settled(cluster))

        async def revision_three() -> dict[str, Any] | None:
            rs = (await _sets(cluster.user)).get(first["metadata"]["name"])
            annotations = (rs or {}).get("metadata", {}).get("annotations", {})
            return rs if annotations.get("deployment.kubernetes.io/revision") == "3" else None

        reused = await cluster.eventually(revision_three)
        annotations = reused["metadata"]["annotations"]
        assert annotations["deployment.kubernetes.io/revision-history"] == "1"
        assert len(await _sets(cluster.user)) == 2
    finally:
        await cluster.close()
