"""The kubelet runs a pod only with claims allocated for its node and reserved for the pod."""

from __future__ import annotations

from fakeapi.client import EVENTS, POD_GROUPS

from .conftest import Cluster
from .helpers import allocate, bind, make_claim, make_pod, pod_ref


async def _warnings(cluster: Cluster, pod: str) -> list[str]:
    events = await cluster.client.list(EVENTS, namespace="default")
    return [
        e.get("message") or ""
        for e in events.items
        if e["involvedObject"].get("name") == pod and e.get("type") == "Warning"
        and e.get("reason") == "FailedPrepareDynamicResources"
    ]


async def test_pod_without_reservation_stays_pending_with_a_warning(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "gpu-claim")
    pod = await make_pod(cluster.client, "sneaky", claim="gpu-claim")
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-0"])  # no reservedFor
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(10)
    assert await cluster.phase("sneaky") == "Pending"
    await kubelet.events.flush()
    warnings = await _warnings(cluster, "sneaky")
    assert warnings, "expected a FailedPrepareDynamicResources event"
    uid = pod["metadata"]["uid"]
    claim_uid = claim["metadata"]["uid"]
    assert warnings[0] == (
        "Failed to prepare dynamic resources: prepare dynamic resources: "
        f"pod sneaky ({uid}) is not allowed to use "
        f"ResourceClaim gpu-claim ({claim_uid})"
    )
    assert kubelet.prepared_claims() == {}


async def test_reservation_added_later_lets_the_pod_run(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "gpu-claim")
    pod = await make_pod(cluster.client, "late", claim="gpu-claim")
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(3)
    assert await cluster.phase("late") == "Pending"
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-0"],
                   reserved_for=[pod_ref(pod)])
    await cluster.until_phase("Running", "late", seconds=5)


async def test_missing_claim_keeps_the_pod_pending(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "orphan", claim="does-not-exist")
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(5)
    assert await cluster.phase("orphan") == "Pending"
    await kubelet.events.flush()
    assert any('fetch ResourceClaim does-not-exist: resourceclaims.resource.k8s.io '
               '"does-not-exist" not found' in w
               for w in await _warnings(cluster, "orphan"))


async def test_claim_allocated_for_another_node_is_refused(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "gpu-claim")
    pod = await make_pod(cluster.client, "misplaced", claim="gpu-claim")
    await allocate(cluster.client, claim, node="node-2", pool="node-2", devices=["gpu-0"],
                   reserved_for=[pod_ref(pod)])
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(5)
    assert await cluster.phase("misplaced") == "Pending"
    await kubelet.events.flush()
    assert any("allocated for other nodes" in w for w in await _warnings(cluster, "misplaced"))


async def test_reserved_for_any_pod_admits_unlisted_pods(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "shared")
    owner = {"apiGroup": "example.com", "resource": "jobsets", "name": "j", "uid": "1234"}
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-0"],
                   reserved_for=[owner], any_pod=True)
    pod = await make_pod(cluster.client, "member", claim="shared")
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Running", "member", seconds=5)


async def test_claim_reserved_for_the_pods_group_admits_it(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    group = await cluster.client.create(
        POD_GROUPS,
        namespace="default",
        body={
            "metadata": {"name": "group-1"},
            "spec": {"workloadRef": {"name": "w"}, "podGroupTemplateRef": {"name": "t"}},
        },
    )
    claim = await make_claim(cluster.client, "group-claim")
    ref = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "group-1",
           "uid": group["metadata"]["uid"]}
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-0"], reserved_for=[ref])
    member = await make_pod(cluster.client, "member", claim="group-claim",
                            extra_spec={"workloadRef": {"name": "w", "podGroupName": "group-1"}})
    outsider = await make_pod(cluster.client, "outsider", claim="group-claim")
    await bind(cluster.client, member, "node-1")
    await bind(cluster.client, outsider, "node-1")
    await cluster.until_phase("Running", "member", seconds=5)
    assert await cluster.phase("outsider") == "Pending"
