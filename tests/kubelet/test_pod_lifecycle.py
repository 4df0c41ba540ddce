"""A pod bound to a simulated node runs, finishes and is deleted as the stages say."""

from __future__ import annotations

from fakeapi.client import EVENTS, PODS, RESOURCE_CLAIMS
from fakeapi.cluster.profiles import load_profile

from .conftest import Cluster
from .helpers import (
    allocate,
    bind,
    make_claim,
    make_pod,
    node_selector_for,
    pod_ref,
    schedule_with_claim,
)


async def test_pod_with_allocated_claim_runs_and_claim_shows_cdi_ids(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-3")
    await cluster.until_phase("Running", "web")
    pod = await cluster.pod("web")
    assert pod is not None
    status = pod["status"]
    assert status["podIP"] and status["hostIP"] and status["startTime"]
    conditions = {c["type"]: c["status"] for c in status["conditions"]}
    assert conditions["Ready"] == "True" and conditions["PodScheduled"] == "True"
    assert status["containerStatuses"][0]["state"]["running"]["startedAt"]
    claim = await cluster.claim("gpu-claim")
    devices = claim["status"]["devices"]
    assert [(d["driver"], d["pool"], d["device"]) for d in devices] == [
        ("gpu.example.com", "node-1", "gpu-3")
    ]
    assert devices[0]["data"] == {"cdiDeviceIDs": ["k8s.gpu.example.com/gpu=gpu-3"]}
    assert kubelet.prepared_claims() == {
        claim["metadata"]["uid"]: ("k8s.gpu.example.com/gpu=gpu-3",)
    }


async def test_deleting_a_running_pod_unprepares_then_removes_it(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-0")
    await cluster.until_phase("Running", "web")
    await cluster.client.delete(PODS, namespace="default", name="web")
    assert (await cluster.pod("web")) is not None  # graceful: the kubelet finishes the job
    await cluster.until_gone("web")
    assert kubelet.prepared_claims() == {}
    claim = await cluster.claim("gpu-claim")
    assert not claim["status"].get("devices")


async def test_pod_annotated_to_succeed_finishes_and_releases_its_claim(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(
        cluster.client,
        "job",
        claim="gpu-claim",
        device="gpu-1",
        restart_policy="Never",
        annotations={"fakeapi.dev/finish": "Succeeded", "fakeapi.dev/run-seconds": "20"},
    )
    await cluster.until_phase("Running", "job")
    await cluster.advance(15)
    assert await cluster.phase("job") == "Running"  # run-seconds not over yet
    await cluster.until_phase("Succeeded", "job")
    pod = await cluster.pod("job")
    assert pod is not None
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert kubelet.prepared_claims() == {}


async def test_failing_container_restarts_under_restart_policy_always(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(
        cluster.client,
        "crashy",
        annotations={"fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"},
    )
    await bind(cluster.client, pod, "node-1")

    async def restarted() -> bool:
        current = await cluster.pod("crashy")
        statuses = (current or {}).get("status", {}).get("containerStatuses") or []
        return bool(statuses) and statuses[0]["restartCount"] >= 1

    await cluster.eventually(restarted, seconds=40)
    pod = await cluster.pod("crashy")
    assert pod is not None
    status = pod["status"]
    assert status["phase"] == "Running"
    assert status["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] == 1


async def test_failing_container_fails_the_pod_under_restart_policy_never(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(
        cluster.client,
        "once",
        restart_policy="Never",
        annotations={"fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "3"},
    )
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Failed", "once", seconds=20)


async def test_restarted_kubelet_adopts_running_pods_and_still_deletes_them(
    cluster: Cluster,
) -> None:
    first = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-4")
    await cluster.until_phase("Running", "web")
    await first.stop()
    cluster.kubelets.remove(first)
    second = await cluster.kubelet("node-1")
    await cluster.advance(1)
    assert await cluster.phase("web") == "Running"
    assert list(second.prepared_claims().values()) == [("k8s.gpu.example.com/gpu=gpu-4",)]
    await cluster.client.delete(PODS, namespace="default", name="web")
    await cluster.until_gone("web")
    assert second.prepared_claims() == {}


async def test_shared_device_claims_report_their_share_ids(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1", drivers=[load_profile("consumable-capacity")])
    share_ids = ["8c9a1bd2-0f3e-4b57-9d4e-2a6b7c8d9e01", "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"]
    for i, share in enumerate(share_ids):
        claim = await make_claim(cluster.client, f"slice-{i}")
        pod = await make_pod(cluster.client, f"user-{i}", claim=f"slice-{i}")
        claim = await cluster.claim(f"slice-{i}")
        claim["status"] = {
            "allocation": {
                "devices": {"results": [{
                    "request": "gpu", "driver": "shared.example.com", "pool": "node-1",
                    "device": "accel-0", "shareID": share,
                    "consumedCapacity": {"memory": "4Gi", "bandwidth": "10"},
                }]},
                "nodeSelector": node_selector_for("node-1"),
            },
            "reservedFor": [pod_ref(pod)],
        }
        await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
        await bind(cluster.client, pod, "node-1")

    await cluster.until_phase("Running", "user-0", "user-1")
    for i, share in enumerate(share_ids):
        (entry,) = (await cluster.claim(f"slice-{i}"))["status"]["devices"]
        assert (entry["device"], entry["shareID"]) == ("accel-0", share)
    assert len(kubelet.prepared_claims()) == 2


async def test_init_containers_complete_and_sidecars_keep_running(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "with-init", extra_spec={"initContainers": [
        {"name": "setup", "image": "registry.example/setup:1.0"},
        {"name": "proxy", "image": "registry.example/proxy:1.0", "restartPolicy": "Always"},
    ]})
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Running", "with-init")
    current = await cluster.pod("with-init")
    assert current is not None
    inits = {s["name"]: s["state"] for s in current["status"]["initContainerStatuses"]}
    assert inits["setup"]["terminated"]["reason"] == "Completed"
    assert "running" in inits["proxy"]
    assert current["status"]["observedGeneration"] == current["metadata"]["generation"]


async def test_shared_claim_stays_prepared_until_its_last_pod_is_gone(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "shared")
    pods = [await make_pod(cluster.client, f"user-{i}", claim="shared") for i in range(2)]
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-7"],
                   reserved_for=[pod_ref(p) for p in pods])
    for pod in pods:
        await bind(cluster.client, pod, "node-1")

    await cluster.until_phase("Running", "user-0", "user-1")
    await cluster.client.delete(PODS, namespace="default", name="user-0")
    await cluster.until_gone("user-0")
    assert list(kubelet.prepared_claims().values()) == [("k8s.gpu.example.com/gpu=gpu-7",)]
    assert (await cluster.claim("shared"))["status"]["devices"]
    await cluster.client.delete(PODS, namespace="default", name="user-1")
    await cluster.until_gone("user-1")
    assert kubelet.prepared_claims() == {}
    assert not (await cluster.claim("shared"))["status"].get("devices")


async def test_each_container_gets_its_own_started_event(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "pair", extra_spec={"containers": [
        {"name": "app", "image": "registry.example/app:1.0"},
        {"name": "proxy", "image": "registry.example/proxy:2.1"},
    ]})
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Running", "pair")
    await kubelet.events.flush()
    events = (await cluster.client.list(EVENTS, namespace="default")).items
    seen = sorted(
        (e["involvedObject"].get("fieldPath"), e["reason"], e["message"])
        for e in events
        if e["involvedObject"].get("name") == "pair"
    )
    # one event per container, worded as upstream's kubelet words it
    assert seen == [
        ("spec.containers{app}", "Started", "Container started"),
        ("spec.containers{proxy}", "Started", "Container started"),
    ]
