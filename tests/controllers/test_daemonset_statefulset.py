"""The DaemonSet and StatefulSet controllers: a pod per eligible node, pods in ordinal order.

Behaviours from upstream's ``pkg/controller/daemon`` tests (a pod pinned by node affinity to each
node that should run it, none on a node with an untolerated taint or a selector mismatch, a new
node gets its pod, a ControllerRevision names the template) and ``pkg/controller/statefulset``
tests (OrderedReady creates ``<set>-0`` and waits for it to be Ready before ``<set>-1``; each pod
has its identity labels, host name and subdomain).
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS, STATEFUL_SETS

from ..support.workloads import make_ready, owned_pods, template


def _node(name: str, **extra: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": extra}


def _pinned_node(pod: dict[str, Any]) -> str:
    term = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    return str(term["matchFields"][0]["values"][0])


async def test_a_daemon_set_runs_one_pod_per_eligible_node(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        for name in ("node-1", "node-2"):
            await cluster.user.create(NODES, body=_node(name))
        await cluster.user.create(NODES, body=_node("tainted", taints=[
            {"key": "dedicated", "value": "db", "effect": "NoSchedule"}]))
        await cluster.start(["daemonset-controller"])
        ds = await cluster.user.create(DAEMON_SETS, body={
            "metadata": {"name": "agent", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template("agent")},
        })
        uid = ds["metadata"]["uid"]

        async def placed(count: int) -> list[str] | None:
            nodes = sorted(_pinned_node(p) for p in await owned_pods(cluster.user, uid))
            return nodes if len(nodes) == count else None

        assert await cluster.eventually(lambda: placed(2)) == ["node-1", "node-2"]
        pods = await owned_pods(cluster.user, uid)
        tolerations = pods[0]["spec"]["tolerations"]
        assert {"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                "effect": "NoSchedule"} in tolerations
        (revision,) = (await cluster.user.list(CONTROLLER_REVISIONS, namespace="default")).items
        hashed = pods[0]["metadata"]["labels"]["controller-revision-hash"]
        assert revision["metadata"]["name"] == f"agent-{hashed}"
        assert revision["revision"] == 1
        await cluster.user.create(NODES, body=_node("node-3"))
        assert await cluster.eventually(lambda: placed(3)) == ["node-1", "node-2", "node-3"]

        async def counted() -> dict[str, Any] | None:
            got = await cluster.user.get(DAEMON_SETS, name="agent", namespace="default")
            status = got.get("status", {})
            counts = (status.get("desiredNumberScheduled"), status.get("currentNumberScheduled"))
            return status if counts == (3, 3) else None

        status = await cluster.eventually(counted)
        assert (status["currentNumberScheduled"], status["numberMisscheduled"],
                status["numberReady"]) == (3, 0, 0)
    finally:
        await cluster.close()


async def test_a_stateful_set_starts_its_pods_in_order(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["statefulset-controller"])
        await cluster.user.create(STATEFUL_SETS, body={
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"replicas": 2, "serviceName": "db",
                     "selector": {"matchLabels": {"app": "db"}}, "template": template("db")},
        })

        async def pods() -> list[dict[str, Any]]:
            items = (await cluster.user.list(PODS, namespace="default")).items
            return sorted(items, key=lambda p: p["metadata"]["name"])

        async def named(*names: str) -> list[dict[str, Any]] | None:
            found = await pods()
            return found if [p["metadata"]["name"] for p in found] == list(names) else None

        (first,) = await cluster.eventually(lambda: named("db-0"))
        assert first["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "db-0"
        assert first["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "0"
        assert (first["spec"]["hostname"], first["spec"]["subdomain"]) == ("db-0", "db")
        await cluster.settle()
        assert await named("db-0")  # db-1 waits for db-0 to be Ready
        await make_ready(cluster.user, first)
        both = await cluster.eventually(lambda: named("db-0", "db-1"))
        revision = both[0]["metadata"]["labels"]["controller-revision-hash"]
        assert both[1]["metadata"]["labels"]["controller-revision-hash"] == revision
        sts = await cluster.user.get(STATEFUL_SETS, name="db", namespace="default")
        assert await owned_pods(cluster.user, sts["metadata"]["uid"])
    finally:
        await cluster.close()
