"""The pod garbage collector: orphaned pods after the quarantine, unscheduled terminating pods at
once, terminating pods on out-of-service nodes, and the oldest terminated pods beyond the
threshold."""

from __future__ import annotations

from typing import Any

from fakeapi.client import NODES, PODS

PODGC = "pod-garbage-collector-controller"


async def _pod(cluster: Any, name: str, *, node: str = "", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "app:1"}]}
    if node:
        spec["nodeName"] = node
    return await cluster.user.create(
        PODS, body={"metadata": {"name": name, "namespace": "default", **extra}, "spec": spec}
    )


async def _names(cluster: Any) -> list[str]:
    return sorted(p["metadata"]["name"] for p in (await cluster.user.list(PODS)).items)


async def _running(cluster: Any, name: str) -> None:
    pod = await cluster.user.get(PODS, namespace="default", name=name)
    pod["status"]["phase"] = "Running"
    await cluster.user.update_status(PODS, body=pod)


async def test_pods_of_a_node_that_is_gone_are_failed_and_deleted_after_the_quarantine(cluster):
    await cluster.user.create(NODES, body={"metadata": {"name": "node-1"}})
    await _pod(cluster, "kept", node="node-1")
    await _pod(cluster, "orphan", node="node-2")  # node-2 never existed
    await _running(cluster, "orphan")
    seen: list[dict[str, Any]] = []
    await cluster.start([PODGC])
    cluster.informers.informer(PODS).add_handler(on_update=lambda _old, new: seen.append(new))
    await cluster.advance(20)
    await cluster.settle()
    assert await _names(cluster) == ["kept", "orphan"], "within the quarantine: left alone"
    for _ in range(3):  # the passes that follow, 20 s apart
        await cluster.advance(20)
    await cluster.eventually(lambda: _names_are(cluster, ["kept"]))
    [failed] = [p for p in seen if p["metadata"]["name"] == "orphan"]
    assert failed["status"]["phase"] == "Failed"
    [condition] = [c for c in failed["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True", "DeletionByPodGC", "PodGC: node no longer exists")


async def _names_are(cluster: Any, expected: list[str]) -> bool:
    return await _names(cluster) == expected


async def test_a_node_back_within_the_quarantine_keeps_its_pods(cluster):
    await _pod(cluster, "patient", node="node-1")
    await cluster.start([PODGC])
    await cluster.advance(20)
    await cluster.user.create(NODES, body={"metadata": {"name": "node-1"}})
    for _ in range(4):
        await cluster.advance(20)
    await cluster.settle()
    assert await _names(cluster) == ["patient"]


async def test_an_unscheduled_pod_being_deleted_is_removed_at_once(cluster):
    await _pod(cluster, "stuck", finalizers=["example.com/hold"])
    await cluster.user.delete(PODS, namespace="default", name="stuck")
    pod = await cluster.user.get(PODS, namespace="default", name="stuck")
    assert pod["metadata"]["deletionTimestamp"]
    await cluster.start([PODGC])
    await cluster.advance(1)
    await cluster.eventually(
        lambda: _phase_is(cluster, "stuck", "Failed"),
        message="marked Failed (the finalizer keeps it)",
    )


async def _phase_is(cluster: Any, name: str, phase: str) -> bool:
    pod = await cluster.user.get(PODS, namespace="default", name=name)
    return bool(pod["status"].get("phase") == phase)


async def test_evicted_then_oldest_terminated_pods_beyond_the_threshold_are_deleted(cluster):
    await cluster.user.create(NODES, body={"metadata": {"name": "node-1"}})
    for i in range(4):
        await _pod(cluster, f"done-{i}", node="node-1")
        pod = await cluster.user.get(PODS, namespace="default", name=f"done-{i}")
        pod["status"]["phase"] = "Failed" if i == 3 else "Succeeded"
        if i == 3:
            pod["status"]["reason"] = "Evicted"
        await cluster.user.update_status(PODS, body=pod)
        await cluster.advance(1)  # creation times one second apart
    await _pod(cluster, "running", node="node-1")
    manager = await cluster.start([PODGC])
    manager.controllers[PODGC].terminated_pod_threshold = 2
    await cluster.advance(20)
    # the evicted (newest) pod goes first, then the oldest
    await cluster.eventually(lambda: _names_are(cluster, ["done-1", "done-2", "running"]))


async def _node(cluster: Any, name: str, *, ready: str, taints: list[str]) -> None:
    await cluster.user.create(NODES, body={
        "metadata": {"name": name},
        "spec": {"taints": [{"key": key, "effect": "NoExecute"} for key in taints]},
    })
    node = await cluster.user.get(NODES, name=name)
    node["status"] = {"conditions": [{"type": "Ready", "status": ready}]}
    await cluster.user.update_status(NODES, body=node)


async def test_terminating_pods_on_a_not_ready_out_of_service_node_are_force_deleted(cluster):
    out_of_service = "node.kubernetes.io/out-of-service"
    await _node(cluster, "down", ready="False", taints=[out_of_service])
    await _node(cluster, "tainted-but-ready", ready="True", taints=[out_of_service])
    await _node(cluster, "down-untainted", ready="Unknown", taints=[])
    for node in ("down", "tainted-but-ready", "down-untainted"):
        await _pod(cluster, f"on-{node}", node=node)
        await _running(cluster, f"on-{node}")
        # a graceful delete: with no kubelet running, nothing finishes it
        await cluster.user.delete(PODS, namespace="default", name=f"on-{node}")
    await _pod(cluster, "still-running", node="down")
    seen: list[dict[str, Any]] = []
    await cluster.start([PODGC])
    cluster.informers.informer(PODS).add_handler(on_update=lambda _old, new: seen.append(new))
    await cluster.advance(1)
    await cluster.eventually(lambda: _names_are(
        cluster, ["on-down-untainted", "on-tainted-but-ready", "still-running"]))
    failed = [p for p in seen if p["metadata"]["name"] == "on-down"][-1]
    assert failed["status"]["phase"] == "Failed"
    assert not [c for c in failed["status"].get("conditions", ())
                if c["type"] == "DisruptionTarget"], "upstream adds no condition in this pass"
    for _ in range(3):
        await cluster.advance(20)
    await cluster.settle()
    assert await _names(cluster) == [
        "on-down-untainted", "on-tainted-but-ready", "still-running"], "the others stay"
