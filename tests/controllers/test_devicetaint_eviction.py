"""Device taint eviction: every pod sharing a claim on a NoExecute-tainted device is evicted."""

from __future__ import annotations

from typing import Any

from fakeapi.client import DEVICE_TAINT_RULES, EVENTS, POD_GROUPS, PODS, RESOURCE_SLICES

DRIVER = "gpu.example.com"
TAINT = {"key": "example.com/unhealthy", "value": "ecc", "effect": "NoExecute"}
EVICTION = ["device-taint-eviction-controller"]


def _slice(taints: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    devices = []
    for name in ("gpu-0", "gpu-1"):
        device: dict[str, Any] = {"name": name}
        if taints.get(name):
            device["taints"] = taints[name]
        devices.append(device)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def _maintenance_rule(name: str, selector: dict[str, str], *, effect: str) -> dict[str, Any]:
    """A DeviceTaintRule putting the taint ``example.com/maintenance`` on the selected devices."""
    return {
        "apiVersion": DEVICE_TAINT_RULES.api_version,
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {
            "deviceSelector": selector,
            "taint": {"key": "example.com/maintenance", "effect": effect},
        },
    }


async def _evicted(cluster, name: str) -> bool:
    pod = await cluster.user.get(PODS, namespace="default", name=name)
    return bool(pod["metadata"].get("deletionTimestamp"))


async def _shared_claim_with_pods(
    cluster,
    claim_name: str,
    pods: list[str],
    device: str,
    tolerations: list[dict[str, Any]] | None = None,
) -> None:
    claim = await cluster.create_claim(claim_name)
    created = [
        await cluster.user.create(
            PODS,
            body=cluster.pod(
                name, claims=[{"name": "gpu", "resourceClaimName": claim_name}], node="node-1"
            ),
        )
        for name in pods
    ]
    await cluster.allocate(
        claim,
        devices=[device],
        reserved_for=[cluster.pod_ref(p) for p in created],
        tolerations=tolerations,
    )


async def test_every_pod_sharing_a_claim_on_a_tainted_device_is_evicted(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({"gpu-0": [TAINT]}))
    await _shared_claim_with_pods(cluster, "tainted", ["a-0", "a-1", "a-2"], "gpu-0")
    await _shared_claim_with_pods(cluster, "healthy", ["b-0"], "gpu-1")

    async def all_evicted() -> bool:
        return all([await _evicted(cluster, f"a-{i}") for i in range(3)])

    await cluster.eventually(all_evicted)
    pod = await cluster.user.get(PODS, namespace="default", name="a-0")
    condition = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert condition["status"] == "True"
    assert condition["reason"] == "DeletionByDeviceTaintManager"
    assert condition["message"] == "Device Taint manager: deleting due to NoExecute taint"
    await cluster.settle()
    assert not await _evicted(cluster, "b-0")

    async def marked() -> list[tuple[str, str, str, str]]:
        listed = await cluster.user.list(EVENTS, namespace="default")
        return sorted(
            (e["involvedObject"]["name"], e["source"]["component"], e["reason"], e["message"])
            for e in listed.items
        )

    async def three_marked() -> bool:
        return len(await marked()) == 3

    await cluster.eventually(three_marked)
    assert await marked() == [
        (f"a-{i}", "device-taint-eviction-controller", "DeviceTaintManagerEviction",
         "Marking for deletion")
        for i in range(3)
    ]


async def test_pods_of_a_pod_group_sharing_the_group_claim_are_evicted(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({"gpu-0": [TAINT]}))
    claim = await cluster.create_claim("group-claim")
    group = await cluster.user.create(
        POD_GROUPS,
        body={
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": "trainers", "namespace": "default"},
            "spec": {
                "workloadRef": {"name": "training"},
                "podGroupTemplateRef": {"name": "workers"},
                "policy": {"basic": {}},
                "resourceClaims": [{"name": "shared", "resourceClaimName": "group-claim"}],
            },
        },
    )
    for i in range(3):
        await cluster.user.create(
            PODS,
            body=cluster.pod(
                f"worker-{i}",
                claims=[{"name": "gpu", "podGroupResourceClaim": "shared"}],
                group="trainers",
                node="node-1",
            ),
        )
    await cluster.user.create(PODS, body=cluster.pod("outsider", node="node-1"))
    await cluster.allocate(
        claim,
        devices=["gpu-0"],
        reserved_for=[
            {
                "apiGroup": "scheduling.k8s.io",
                "resource": "podgroups",
                "name": "trainers",
                "uid": group["metadata"]["uid"],
            }
        ],
    )

    async def all_evicted() -> bool:
        return all([await _evicted(cluster, f"worker-{i}") for i in range(3)])

    await cluster.eventually(all_evicted)
    assert not await _evicted(cluster, "outsider")


async def test_toleration_seconds_delay_the_eviction(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({"gpu-0": [TAINT]}))
    tolerate_a_minute = [
        {
            "key": "example.com/unhealthy",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 60,
        }
    ]
    await _shared_claim_with_pods(
        cluster, "patient", ["p-0"], "gpu-0", tolerations=tolerate_a_minute
    )
    await cluster.settle()
    await cluster.advance(30)
    assert not await _evicted(cluster, "p-0")
    await cluster.advance(31)
    await cluster.eventually(lambda: _evicted(cluster, "p-0"))


async def test_a_pending_eviction_is_cancelled_with_an_event_when_the_taint_goes(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({"gpu-0": [TAINT]}))
    tolerate_a_minute = [{"key": "example.com/unhealthy", "operator": "Exists",
                          "effect": "NoExecute", "tolerationSeconds": 60}]
    await _shared_claim_with_pods(
        cluster, "patient", ["p-0"], "gpu-0", tolerations=tolerate_a_minute
    )
    await cluster.settle()
    await cluster.advance(10)
    await cluster.user.update(RESOURCE_SLICES, body={
        **(await cluster.user.get(RESOURCE_SLICES, name="node-1-gpus")),
        "spec": _slice({})["spec"],
    })

    async def cancelled() -> bool:
        events = await cluster.user.list(EVENTS, namespace="default")
        return any(
            (e["reason"], e["message"], e["involvedObject"]["name"])
            == ("DeviceTaintManagerEviction", "Cancelling deletion", "p-0")
            for e in events.items
        )

    await cluster.eventually(cancelled)
    await cluster.advance(60)
    assert not await _evicted(cluster, "p-0")


async def test_a_toleration_without_seconds_keeps_the_pod(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({"gpu-0": [TAINT]}))
    forever = [{"key": "example.com/unhealthy", "operator": "Equal", "value": "ecc"}]
    await _shared_claim_with_pods(cluster, "stubborn", ["s-0"], "gpu-0", tolerations=forever)
    await cluster.settle()
    await cluster.advance(3600)
    assert not await _evicted(cluster, "s-0")


async def test_a_device_taint_rule_evicts_and_reports_progress(make_cluster):
    cluster = make_cluster(feature_gates={"DRADeviceTaintRules": True})
    try:
        await cluster.start(EVICTION)
        await cluster.user.create(RESOURCE_SLICES, body=_slice({}))
        await _shared_claim_with_pods(cluster, "ruled", ["r-0", "r-1"], "gpu-1")
        selector = {"driver": DRIVER, "pool": "node-1", "device": "gpu-1"}
        await cluster.user.create(
            DEVICE_TAINT_RULES, body=_maintenance_rule("drain-gpu-1", selector, effect="NoExecute")
        )

        async def both_evicted() -> bool:
            return await _evicted(cluster, "r-0") and await _evicted(cluster, "r-1")

        await cluster.eventually(both_evicted)

        async def completed() -> bool:
            cluster.clock.advance(1)
            rule = await cluster.user.get(DEVICE_TAINT_RULES, name="drain-gpu-1")
            conditions = (rule.get("status") or {}).get("conditions") or []
            return any(c["reason"] == "Completed" for c in conditions)

        await cluster.eventually(completed)
        rule = await cluster.user.get(DEVICE_TAINT_RULES, name="drain-gpu-1")
        [condition] = rule["status"]["conditions"]
        assert condition["type"] == "EvictionInProgress"
        assert condition["status"] == "False"
        assert condition["message"] == "2 pods evicted since starting the controller."
    finally:
        await cluster.close()


async def test_a_rule_with_effect_none_previews_what_it_would_evict(make_cluster):
    cluster = make_cluster(feature_gates={"DRADeviceTaintRules": True})
    try:
        await cluster.start(EVICTION)
        await cluster.user.create(RESOURCE_SLICES, body=_slice({}))
        await _shared_claim_with_pods(cluster, "previewed", ["v-0", "v-1"], "gpu-1")
        selector = {"driver": DRIVER, "device": "gpu-1"}
        await cluster.user.create(
            DEVICE_TAINT_RULES, body=_maintenance_rule("what-if", selector, effect="None")
        )

        async def previewed() -> bool:
            rule = await cluster.user.get(DEVICE_TAINT_RULES, name="what-if")
            return bool((rule.get("status") or {}).get("conditions"))

        await cluster.eventually(previewed)
        rule = await cluster.user.get(DEVICE_TAINT_RULES, name="what-if")
        [condition] = rule["status"]["conditions"]
        assert (condition["status"], condition["reason"]) == ("False", "NoEffect")
        assert condition["message"] == (
            "1 published device selected. 1 allocated device selected. 2 pods would be evicted "
            "in 1 namespace if the effect was NoExecute. This information will not be updated "
            "again. Recreate the DeviceTaintRule to trigger an update."
        )
        await cluster.settle()
        assert not await _evicted(cluster, "v-0")
    finally:
        await cluster.close()


async def test_pods_on_an_untainted_cluster_queue_no_work_until_a_taint_arrives(cluster):
    await cluster.start(EVICTION)
    await cluster.user.create(RESOURCE_SLICES, body=_slice({}))
    await _shared_claim_with_pods(cluster, "healthy", ["h-0", "h-1"], "gpu-0")
    await cluster.settle()
    adds = {"name": "device_taint_eviction"}
    assert (cluster.metrics.get_sample_value("workqueue_adds_total", adds) or 0) == 0

    await cluster.user.update(RESOURCE_SLICES, body={
        **(await cluster.user.get(RESOURCE_SLICES, name="node-1-gpus")),
        "spec": _slice({"gpu-0": [TAINT]})["spec"],
    })
    await cluster.eventually(lambda: _evicted(cluster, "h-0"))
    assert await _evicted(cluster, "h-1")
