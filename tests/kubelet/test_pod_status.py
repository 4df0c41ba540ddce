"""Pod status as upstream's kubelet writes it: before the devices are prepared, while a container
crash-loops, with sidecars, and with the Ready conditions its status generator gives."""

from __future__ import annotations

from typing import Any

from fakeapi.client import EVENTS, PODS
from fakeapi.registry.kinds.pod_printing import pod_status_reason

from .conftest import Cluster
from .helpers import allocate, bind, make_claim, make_pod

Obj = dict[str, Any]


def _conditions(pod: Obj) -> dict[str, Obj]:
    return {c["type"]: c for c in pod["status"].get("conditions") or []}


def _verdict(condition: Obj) -> tuple[Any, ...]:
    return condition["status"], condition.get("reason"), condition.get("message")


async def _pod(cluster: Cluster, name: str) -> Obj:
    pod = await cluster.pod(name)
    assert pod is not None
    return pod


async def _unpreparable_pod(cluster: Cluster, name: str, **kw: Any) -> None:
    """A pod bound to node-1 whose claim is allocated but not reserved for it: the kubelet
    cannot prepare its devices."""
    claim = await make_claim(cluster.client, f"{name}-claim")
    pod = await make_pod(cluster.client, name, claim=f"{name}-claim", **kw)
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-0"])
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(3)


async def test_pod_whose_devices_are_not_prepared_shows_container_creating(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await _unpreparable_pod(cluster, "web")
    pod = await _pod(cluster, "web")
    status = pod["status"]
    assert status["phase"] == "Pending"
    (container,) = status["containerStatuses"]
    assert container["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert (container["ready"], container["started"], container["restartCount"]) == (
        False, False, 0)
    conditions = _conditions(pod)
    assert _verdict(conditions["PodReadyToStartContainers"]) == ("False", None, None)
    assert _verdict(conditions["Initialized"]) == ("True", None, None)
    unready = ("False", "ContainersNotReady", "containers with unready status: [app]")
    assert _verdict(conditions["Ready"]) == unready
    assert _verdict(conditions["ContainersReady"]) == unready
    assert _verdict(conditions["PodScheduled"]) == ("True", None, None)
    assert status["hostIP"] == kubelet.node.host_ip
    assert status["hostIPs"] == [{"ip": kubelet.node.host_ip}]
    assert status["startTime"]
    assert "podIP" not in status
    assert pod_status_reason(pod) == "ContainerCreating"  # what kubectl get pods shows


async def test_init_containers_leave_a_waiting_pod_uninitialized(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await _unpreparable_pod(cluster, "web", extra_spec={"initContainers": [
        {"name": "setup", "image": "registry.example/setup:1.0"},
        {"name": "proxy", "image": "registry.example/proxy:1.0", "restartPolicy": "Always"},
    ]})
    pod = await _pod(cluster, "web")
    waiting = {"waiting": {"reason": "PodInitializing"}}
    assert [s["state"] for s in pod["status"]["initContainerStatuses"]] == [waiting, waiting]
    assert pod["status"]["containerStatuses"][0]["state"] == waiting
    conditions = _conditions(pod)
    assert _verdict(conditions["Initialized"]) == (
        "False", "ContainersNotInitialized", "containers with incomplete status: [setup proxy]")
    assert _verdict(conditions["Ready"]) == (
        "False", "ContainersNotReady", "containers with unready status: [proxy app]")


async def test_pod_bound_by_hand_gets_pod_scheduled_from_the_kubelet(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await cluster.client.create(PODS, namespace="default", body={
        "metadata": {"name": "placed"},
        "spec": {"nodeName": "node-1",
                 "containers": [{"name": "app", "image": "registry.example/app:1.0"}]},
    })
    await cluster.until_phase("Running", "placed")
    conditions = _conditions(await _pod(cluster, "placed"))
    assert _verdict(conditions["PodScheduled"]) == ("True", None, None)
    assert _verdict(conditions["Ready"]) == ("True", None, None)


async def test_crash_looping_container_backs_off_doubling_to_five_minutes(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "crashy", annotations={
        "fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"})
    await bind(cluster.client, pod, "node-1")
    uid = pod["metadata"]["uid"]
    episodes: dict[int, str] = {}  # restartCount -> the back-off message after that run

    async def backing_off() -> bool:
        current = await _pod(cluster, "crashy")
        statuses = current["status"].get("containerStatuses") or [{"state": {}}]
        waiting = statuses[0]["state"].get("waiting") or {}
        if waiting.get("reason") != "CrashLoopBackOff":
            return False
        if statuses[0]["restartCount"] not in episodes:
            episodes[statuses[0]["restartCount"]] = waiting["message"]
            (app,) = current["status"]["containerStatuses"]
            assert app["lastState"]["terminated"]["exitCode"] == 1
            assert (app["ready"], app["started"]) == (False, False)
            conditions = _conditions(current)
            assert current["status"]["phase"] == "Running"
            assert _verdict(conditions["Ready"]) == (
                "False", "ContainersNotReady", "containers with unready status: [app]")
        return len(episodes) == 7

    await cluster.eventually(backing_off, seconds=1500, step=1)
    # the first failure restarts at once; each later one waits twice as long, up to 5 minutes
    assert sorted(episodes) == [1, 2, 3, 4, 5, 6, 7]
    assert [episodes[n] for n in sorted(episodes)] == [
        f"back-off {delay} restarting failed container=app pod=crashy_default({uid})"
        for delay in ("10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s")
    ]
    await kubelet.events.flush()
    reasons = [e["reason"] for e in (await cluster.client.list(EVENTS, namespace="default")).items
               if e["involvedObject"]["name"] == "crashy"]
    assert "BackOff" in reasons


async def test_restarts_follow_the_back_off_and_a_long_run_resets_it(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "slow", annotations={
        "fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"})
    await bind(cluster.client, pod, "node-1")
    states: list[str] = []

    async def app() -> Obj:
        current = await _pod(cluster, "slow")
        (status,) = current["status"].get("containerStatuses") or [
            {"restartCount": -1, "state": {}}]
        states.append(next(iter(status["state"]), ""))
        return dict(status)

    async def restarts(count: int) -> bool:
        status = await app()
        return bool(status["restartCount"] >= count and "running" in status["state"])

    async def backing_off() -> bool:
        return "waiting" in (await app())["state"]

    await cluster.eventually(lambda: restarts(1), seconds=15)  # the first failure: at once
    assert "waiting" not in states[states.index("running"):]
    await cluster.eventually(backing_off, seconds=10)  # the second waits 10 s
    await cluster.client.patch(PODS, namespace="default", name="slow", patch={"metadata": {
        "annotations": {"fakeapi.dev/run-seconds": "700"}}})
    await cluster.advance(8)
    assert not await restarts(2)
    await cluster.eventually(lambda: restarts(2), seconds=5)

    # this run lasts more than 10 minutes: the back-off starts afresh, the restart is at once
    await cluster.advance(690, step=5)
    states.clear()
    await cluster.eventually(lambda: restarts(3), seconds=20, step=0.25)
    assert "terminated" in states and "waiting" not in states


async def test_ready_condition_drops_its_reason_when_true_again(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "crashy", annotations={
        "fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"})
    await bind(cluster.client, pod, "node-1")

    async def restarted_twice() -> bool:
        current = await _pod(cluster, "crashy")
        (app,) = current["status"].get("containerStatuses") or [{"restartCount": 0}]
        return bool(app["restartCount"] >= 2 and "running" in app["state"])

    await cluster.eventually(restarted_twice, seconds=60)
    conditions = _conditions(await _pod(cluster, "crashy"))
    assert conditions["Ready"]["status"] == "True"
    assert "reason" not in conditions["Ready"] and "message" not in conditions["Ready"]
    assert "reason" not in conditions["ContainersReady"]


async def test_failed_pod_is_not_ready_with_reason_pod_failed(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "once", restart_policy="Never", annotations={
        "fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"})
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Failed", "once", seconds=20)
    conditions = _conditions(await _pod(cluster, "once"))
    assert _verdict(conditions["Ready"]) == ("False", "PodFailed", None)
    assert _verdict(conditions["ContainersReady"]) == ("False", "PodFailed", None)


async def test_exited_containers_under_restart_always_are_unready_not_completed(
    cluster: Cluster,
) -> None:
    """``PodCompleted`` only for a Succeeded pod: a running pod whose containers exited under
    restartPolicy Always is not ready for its containers, not completed."""
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "web", annotations={
        "fakeapi.dev/finish": "Succeeded", "fakeapi.dev/run-seconds": "3"})
    await bind(cluster.client, pod, "node-1")

    async def exited() -> bool:
        current = await _pod(cluster, "web")
        statuses = current["status"].get("containerStatuses") or []
        return bool(statuses) and "terminated" in statuses[0]["state"]

    await cluster.eventually(exited, seconds=15, step=0.05)
    current = await _pod(cluster, "web")
    assert current["status"]["phase"] == "Running"
    assert _verdict(_conditions(current)["Ready"]) == (
        "False", "ContainersNotReady", "containers with unready status: [app]")


async def test_pod_with_a_sidecar_ends_only_after_the_sidecar_stopped(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    sidecar = {"name": "proxy", "image": "registry.example/proxy:1.0", "restartPolicy": "Always"}
    for name, policy in (("never", "Never"), ("on-failure", "OnFailure")):
        pod = await make_pod(cluster.client, name, restart_policy=policy, annotations={
            "fakeapi.dev/finish": "Succeeded", "fakeapi.dev/run-seconds": "3"},
            extra_spec={"initContainers": [sidecar]})
        await bind(cluster.client, pod, "node-1")
    seen: list[tuple[str, str, str]] = []

    async def succeeded() -> bool:
        done = True
        for name in ("never", "on-failure"):
            current = await _pod(cluster, name)
            status = current["status"]
            (proxy,) = status.get("initContainerStatuses") or [{"state": {}}]
            (app,) = status.get("containerStatuses") or [{"state": {}}]
            seen.append((status["phase"], next(iter(app["state"]), ""),
                         next(iter(proxy["state"]), "")))
            if status["phase"] in ("Succeeded", "Failed"):
                assert "running" not in proxy["state"], "terminal while the sidecar runs"
            done = done and status["phase"] == "Succeeded"
        return done

    await cluster.eventually(succeeded, seconds=20, step=0.05)
    # upstream's order: the main container exits, the pod runs on with its sidecar, which is
    # stopped; only then is the pod Succeeded
    assert ("Running", "terminated", "running") in seen
    for name in ("never", "on-failure"):
        proxy = (await _pod(cluster, name))["status"]["initContainerStatuses"][0]
        assert proxy["state"]["terminated"]["reason"] == "Completed"

