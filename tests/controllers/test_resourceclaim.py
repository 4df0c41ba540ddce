"""The resourceclaim controller: claims for pod templates, for PodGroups (KEP-5729), KEP-5194.

The scheduler does not run here: where it would allocate, the test writes the finalizer, the
allocation and the reservation itself, as the scheduler's PreBind does.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import generate_latest

from fakeapi.client import (
    EVENTS,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    WORKLOADS,
)

POD_CLAIM = "resource.kubernetes.io/pod-claim-name"
GROUP_CLAIM = "resource.kubernetes.io/podgroup-claim-name"
FINALIZER = "resource.kubernetes.io/delete-protection"
# a deleted PodGroup goes once its finalizer is removed, which takes its protection controller
CONTROLLERS = [
    "garbage-collector-controller",
    "resourceclaim-controller",
    "podgroup-protection-controller",
]


#: a pod's ``spec.resourceClaims``: one claim from the cluster's default template
FROM_TEMPLATE = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


async def _until_recorded(cluster, pod_name: str) -> list[dict[str, Any]]:
    """Wait until the controller has recorded the pod's claims in its status; return them."""

    async def recorded() -> bool:
        pod = await cluster.user.get(PODS, namespace="default", name=pod_name)
        return bool((pod.get("status") or {}).get("resourceClaimStatuses"))

    await cluster.eventually(recorded)
    pod = await cluster.user.get(PODS, namespace="default", name=pod_name)
    return pod["status"]["resourceClaimStatuses"]


def _group_ref(group: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiGroup": "scheduling.k8s.io",
        "resource": "podgroups",
        "name": group["metadata"]["name"],
        "uid": group["metadata"]["uid"],
    }


async def test_pod_template_claim_is_created_recorded_and_deleted_with_the_pod(cluster):
    await cluster.start(CONTROLLERS)
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    pod = await cluster.user.create(PODS, body=cluster.pod("web-0", claims=FROM_TEMPLATE))
    [status] = await _until_recorded(cluster, "web-0")
    claims = await cluster.claims()
    assert [c["metadata"]["name"] for c in claims] == [status["resourceClaimName"]]
    claim = claims[0]
    assert status["name"] == "gpu"
    assert claim["metadata"]["generateName"] == "web-0-gpu-"
    assert claim["metadata"]["name"].startswith("web-0-gpu-")
    assert len(claim["metadata"]["name"]) == len("web-0-gpu-") + 5
    assert claim["metadata"]["annotations"][POD_CLAIM] == "gpu"
    assert claim["metadata"]["labels"] == {"app": "demo"}
    [owner] = claim["metadata"]["ownerReferences"]
    assert owner == {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "web-0",
        "uid": pod["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }

    await cluster.user.delete(PODS, namespace="default", name="web-0")

    async def no_claims() -> bool:
        return not await cluster.claims()

    await cluster.eventually(no_claims)


async def test_a_finished_pod_gets_no_new_claim_once_its_own_is_deleted(cluster):
    await cluster.start(CONTROLLERS)
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    await cluster.user.create(PODS, body=cluster.pod("job-0", claims=FROM_TEMPLATE))
    await _until_recorded(cluster, "job-0")
    pod = await cluster.user.get(PODS, namespace="default", name="job-0")
    pod["status"]["phase"] = "Succeeded"
    await cluster.user.update_status(PODS, body=pod)

    async def no_claims() -> bool:
        return not await cluster.claims()

    await cluster.eventually(no_claims)
    finished = await cluster.user.get(PODS, namespace="default", name="job-0")
    await cluster.settle()
    assert await cluster.claims() == []
    again = await cluster.user.get(PODS, namespace="default", name="job-0")
    assert again["metadata"]["resourceVersion"] == finished["metadata"]["resourceVersion"]


async def test_long_names_are_cut_in_proportion(cluster):
    await cluster.start(["resourceclaim-controller"])
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    pod_name = "p" * 50
    claim_name = "c" * 30
    await cluster.user.create(
        PODS,
        body=cluster.pod(
            pod_name, claims=[{"name": claim_name, "resourceClaimTemplateName": "gpu-template"}]
        ),
    )

    async def created() -> bool:
        return bool(await cluster.claims())

    await cluster.eventually(created)
    [claim] = await cluster.claims()
    name = claim["metadata"]["name"]
    # 82 characters of "<pod>-<claim>-" are cut to 57 in proportion: 34 + "-" + 20, then 5 random
    assert name[:55] == "p" * 34 + "-" + "c" * 20
    assert len(name) == 60
    assert claim["metadata"]["generateName"] == "p" * 34 + "-" + "c" * 20  # no trailing hyphen


async def test_a_retried_pod_sync_never_creates_a_second_claim(cluster):
    await cluster.start(["resourceclaim-controller"])
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    await cluster.user.create(PODS, body=cluster.pod("web-0", claims=FROM_TEMPLATE))
    await _until_recorded(cluster, "web-0")
    controller = cluster.manager.controllers["resourceclaim-controller"]
    # the workers stop (reconciles below are ours alone); the record of the claim is lost
    await controller.controller.stop()
    pod = await cluster.user.get(PODS, namespace="default", name="web-0")
    pod["status"].pop("resourceClaimStatuses")
    cleared = await cluster.user.update_status(PODS, body=pod)
    await cluster.eventually(
        lambda: (
            controller.pods.get("default/web-0")["metadata"]["resourceVersion"]
            == cleared["metadata"]["resourceVersion"]
        )
    )
    for _ in range(3):
        await controller.reconcile("pod:default/web-0")
    claims = await cluster.claims()
    assert len(claims) == 1
    pod = await cluster.user.get(PODS, namespace="default", name="web-0")
    assert (
        pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
        == claims[0]["metadata"]["name"]
    )


async def test_pod_group_claim_lifecycle(cluster):
    """KEP-5729: created unallocated, allocated by the first pod, shared by later pods,
    kept allocated when all pods are gone, deallocated and deleted with the PodGroup."""
    await cluster.start(CONTROLLERS)
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    group = await cluster.user.create(POD_GROUPS, body=cluster.pod_group("trainers"))

    async def one_claim() -> bool:
        return len(await cluster.claims()) == 1

    await cluster.eventually(one_claim)
    [claim] = await cluster.claims()
    assert claim["metadata"]["annotations"][GROUP_CLAIM] == "shared-gpu"
    assert claim["metadata"]["ownerReferences"][0]["kind"] == "PodGroup"
    assert claim["metadata"]["ownerReferences"][0]["uid"] == group["metadata"]["uid"]
    assert not (claim.get("status") or {}).get("allocation")
    claim_name = claim["metadata"]["name"]

    async def group_recorded() -> bool:
        current = await cluster.user.get(POD_GROUPS, namespace="default", name="trainers")
        statuses = (current.get("status") or {}).get("resourceClaimStatuses") or []
        return statuses == [{"name": "shared-gpu", "resourceClaimName": claim_name}]

    await cluster.eventually(group_recorded)

    member = [{"name": "gpu", "podGroupResourceClaim": "shared-gpu"}]
    await cluster.user.create(PODS, body=cluster.pod("worker-0", claims=member, group="trainers"))

    async def pod_recorded(name: str) -> bool:
        current = await cluster.user.get(PODS, namespace="default", name=name)
        statuses = (current.get("status") or {}).get("resourceClaimStatuses") or []
        return statuses == [{"name": "gpu", "resourceClaimName": claim_name}]

    await cluster.eventually(lambda: pod_recorded("worker-0"))
    # the scheduler allocates for the first pod and reserves for the group
    await cluster.allocate(claim, devices=["gpu-0"], reserved_for=[_group_ref(group)])
    for i in (1, 2):
        await cluster.user.create(
            PODS, body=cluster.pod(f"worker-{i}", claims=member, group="trainers")
        )
        await cluster.eventually(lambda i=i: pod_recorded(f"worker-{i}"))
    assert [c["metadata"]["name"] for c in await cluster.claims()] == [claim_name]

    for i in range(3):
        await cluster.user.delete(PODS, namespace="default", name=f"worker-{i}")
    await cluster.settle()
    [kept] = await cluster.claims()
    assert kept["status"]["allocation"] is not None
    assert kept["status"]["reservedFor"] == [_group_ref(group)]

    await cluster.user.delete(POD_GROUPS, namespace="default", name="trainers")

    async def gone() -> bool:
        return not await cluster.claims()

    await cluster.eventually(gone)


async def test_deleting_the_pod_group_deallocates_before_the_claim_goes(cluster):
    await cluster.start(["resourceclaim-controller", "podgroup-protection-controller"])
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    group = await cluster.user.create(POD_GROUPS, body=cluster.pod_group("trainers"))

    async def one_claim() -> bool:
        return len(await cluster.claims()) == 1

    await cluster.eventually(one_claim)
    [claim] = await cluster.claims()
    await cluster.allocate(claim, devices=["gpu-0"], reserved_for=[_group_ref(group)])
    seen: list[dict[str, Any]] = []
    watch = cluster.user.watch(
        RESOURCE_CLAIMS,
        namespace="default",
        resource_version=(await cluster.user.list(RESOURCE_CLAIMS)).resource_version,
    )
    await cluster.user.delete(POD_GROUPS, namespace="default", name="trainers")
    async with watch as stream:
        async for event in stream:
            seen.append(
                {
                    "type": event.type,
                    "status": event.object.get("status") or {},
                    "deleting": bool(event.object["metadata"].get("deletionTimestamp")),
                }
            )
            if event.type == "DELETED":
                break
    deallocated = next(i for i, e in enumerate(seen) if not e["status"].get("allocation"))
    assert seen[deallocated]["type"] == "MODIFIED"
    assert seen[-1]["type"] == "DELETED"
    assert not seen[-1]["status"].get("allocation")


async def test_a_foreground_deletion_of_a_pod_group_completes_once_its_members_are_gone(cluster):
    """The group waits for its claim (foreground), the claim for its reservation: the group's
    reservation goes once the group is being deleted and no member pod could use the claim."""
    await cluster.start(CONTROLLERS)
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    group = await cluster.user.create(POD_GROUPS, body=cluster.pod_group("trainers"))

    async def one_claim() -> bool:
        return len(await cluster.claims()) == 1

    await cluster.eventually(one_claim)
    [claim] = await cluster.claims()
    await cluster.allocate(claim, devices=["gpu-0"], reserved_for=[_group_ref(group)])
    member = [{"name": "gpu", "podGroupResourceClaim": "shared-gpu"}]
    await cluster.user.create(
        PODS, body=cluster.pod("worker-0", claims=member, group="trainers", node="node-1")
    )
    await cluster.user.delete(
        POD_GROUPS, namespace="default", name="trainers", propagation_policy="Foreground"
    )
    await cluster.settle()
    [held] = await cluster.claims()  # a member still runs: the reservation stays
    assert held["status"]["reservedFor"] == [_group_ref(group)]
    assert held["status"]["allocation"] is not None

    await cluster.user.delete(PODS, namespace="default", name="worker-0", grace_period_seconds=0)

    async def all_gone() -> bool:
        groups = await cluster.user.list(POD_GROUPS, namespace="default")
        return not groups.items and not await cluster.claims()

    await cluster.eventually(all_gone)


async def test_rapid_pod_group_churn_leaves_no_orphaned_or_duplicate_claims(cluster):
    await cluster.start(CONTROLLERS)
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    for i in range(200):
        await cluster.user.create(POD_GROUPS, body=cluster.pod_group(f"group-{i}"))
        if i % 2 == 0:
            await cluster.user.delete(POD_GROUPS, namespace="default", name=f"group-{i}")
    for i in range(1, 200, 4):
        await cluster.user.delete(POD_GROUPS, namespace="default", name=f"group-{i}")
    alive = {f"group-{i}" for i in range(1, 200, 2)} - {f"group-{i}" for i in range(1, 200, 4)}

    async def converged() -> bool:
        claims = await cluster.claims()
        owners = sorted(c["metadata"]["ownerReferences"][0]["name"] for c in claims)
        return owners == sorted(alive)

    await cluster.eventually(converged, timeout=30)
    await cluster.settle()
    claims = await cluster.claims()
    owners = [c["metadata"]["ownerReferences"][0]["name"] for c in claims]
    assert len(owners) == len(set(owners)) == len(alive)


async def test_finished_pod_is_removed_from_reserved_for_and_the_claim_deallocated(cluster):
    await cluster.start(["resourceclaim-controller"])
    claim = await cluster.create_claim("shared")
    pods = []
    for i in range(2):
        pods.append(
            await cluster.user.create(
                PODS,
                body=cluster.pod(
                    f"user-{i}",
                    claims=[{"name": "gpu", "resourceClaimName": "shared"}],
                    node="node-1",
                ),
            )
        )
    await cluster.allocate(
        claim, devices=["gpu-0"], reserved_for=[cluster.pod_ref(p) for p in pods]
    )
    finished = await cluster.user.get(PODS, namespace="default", name="user-0")
    finished["status"] = {"phase": "Succeeded"}
    await cluster.user.update_status(PODS, body=finished)

    async def one_reservation() -> bool:
        current = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="shared")
        return current["status"].get("reservedFor") == [cluster.pod_ref(pods[1])]

    await cluster.eventually(one_reservation)
    await cluster.user.delete(PODS, namespace="default", name="user-1", grace_period_seconds=0)

    async def released() -> bool:
        current = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="shared")
        return not current.get("status") and FINALIZER not in (
            current["metadata"].get("finalizers") or []
        )

    await cluster.eventually(released)


async def test_reserved_for_workload_claim_stays_allocated_until_its_consumer_lets_go(cluster):
    """KEP-5194: pod references come and go; the consumer's reference is its creator's to remove."""
    await cluster.start(["resourceclaim-controller"])
    consumer = {
        "apiGroup": "jobset.x-k8s.io",
        "resource": "jobsets",
        "name": "train",
        "uid": "1234",
    }
    claim = await cluster.create_claim("team", reserved_for=consumer)
    pod = await cluster.user.create(
        PODS,
        body=cluster.pod(
            "user-0", claims=[{"name": "gpu", "resourceClaimName": "team"}], node="node-1"
        ),
    )
    await cluster.allocate(
        claim,
        devices=["gpu-0"],
        reserved_for=[consumer, cluster.pod_ref(pod)],
        reserved_for_any_pod=True,
    )
    await cluster.user.delete(PODS, namespace="default", name="user-0", grace_period_seconds=0)

    async def pod_reference_gone() -> bool:
        current = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="team")
        return current["status"].get("reservedFor") == [consumer]

    await cluster.eventually(pod_reference_gone)
    await cluster.settle()
    current = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="team")
    assert current["status"]["allocation"]["reservedForAnyPod"] is True

    current["status"].pop("reservedFor")
    await cluster.user.update_status(RESOURCE_CLAIMS, body=current)

    async def deallocated() -> bool:
        now = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="team")
        return not (now.get("status") or {}).get("allocation") and not now["metadata"].get(
            "finalizers"
        )

    await cluster.eventually(deallocated)


async def test_claim_metrics_count_by_source_and_allocation(cluster):
    await cluster.start(["resourceclaim-controller"])
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    await cluster.user.create(PODS, body=cluster.pod("web-0", claims=FROM_TEMPLATE))
    plain = await cluster.create_claim("plain")
    await cluster.allocate(plain, devices=["gpu-1"], reserved_for=[])

    def text() -> str:
        return generate_latest(cluster.metrics).decode()

    await cluster.eventually(
        lambda: 'allocated="true"' in text() and 'source="resource_claim_template"' in text()
    )
    body = text()
    assert (
        "dynamic_resource_allocation_resource_claims"
        '{admin_access="false",allocated="false",source="resource_claim_template"} 1.0'
    ) in body
    assert (
        "dynamic_resource_allocation_resource_claims"
        '{admin_access="false",allocated="true",source=""} 1.0'
    ) in body
    assert (
        "dynamic_resource_allocation_resourceclaim_creates_total"
        '{admin_access="false",status="success"} 1.0'
    ) in body
    assert 'workqueue_adds_total{name="resource_claim"}' in body


async def test_a_missing_template_is_reported_and_the_claim_made_once_it_exists(cluster):
    await cluster.start(["resourceclaim-controller"])
    await cluster.user.create(
        PODS,
        body=cluster.pod("early", claims=[{"name": "gpu", "resourceClaimTemplateName": "later"}]),
    )

    async def warned() -> bool:
        events = (await cluster.user.list(EVENTS, namespace="default")).items
        return any(e.get("reason") == "FailedResourceClaimCreation" for e in events)

    await cluster.eventually(warned)
    events = (await cluster.user.list(EVENTS, namespace="default")).items
    event = next(e for e in events if e.get("reason") == "FailedResourceClaimCreation")
    assert event["type"] == "Warning"
    assert event["message"].startswith('PodResourceClaim gpu: resource claim template "later": ')
    assert not await cluster.claims()

    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template("later"))

    async def created() -> bool:
        cluster.clock.advance(1)  # the retry backs off on the fake clock
        return len(await cluster.claims()) == 1

    await cluster.eventually(created)


async def test_a_claim_the_server_refuses_is_reported_on_the_pod(cluster):
    """Any failed create is a FailedResourceClaimCreation event, not only a missing template:
    here the template's annotations fill the size limit, so the claim's own annotation (the pod
    claim name) tips it over."""
    await cluster.start(["resourceclaim-controller"])
    template = cluster.template("full")
    template["spec"]["metadata"]["annotations"] = {"a": "x" * (256 * 1024 - 1)}
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=template)
    await cluster.user.create(
        PODS,
        body=cluster.pod("big", claims=[{"name": "gpu", "resourceClaimTemplateName": "full"}]),
    )

    async def warned() -> list[dict[str, Any]]:
        events = (await cluster.user.list(EVENTS, namespace="default")).items
        return [e for e in events if e.get("reason") == "FailedResourceClaimCreation"]

    await cluster.eventually(warned)
    [event, *_] = await warned()
    assert event["type"] == "Warning"
    assert event["involvedObject"]["name"] == "big"
    assert event["message"].startswith("PodResourceClaim gpu: create ResourceClaim big-gpu-")
    assert "metadata.annotations: Too long" in event["message"]
    assert not await cluster.claims()


async def test_a_pod_bound_without_the_scheduler_gets_its_reservation(cluster):
    await cluster.start(["resourceclaim-controller"])
    claim = await cluster.create_claim("pre")
    await cluster.allocate(claim, devices=["gpu-0"], reserved_for=[])
    pod = await cluster.user.create(
        PODS,
        body=cluster.pod(
            "bound", claims=[{"name": "gpu", "resourceClaimName": "pre"}], node="node-1"
        ),
    )

    async def reserved() -> bool:
        current = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="pre")
        return current["status"].get("reservedFor") == [cluster.pod_ref(pod)]

    await cluster.eventually(reserved)


async def test_a_reservation_for_a_workload_that_is_gone_is_dropped(cluster):
    """KEP-5194: a consumer the controller can see (a Workload) is dropped once it is deleted."""
    await cluster.start(["resourceclaim-controller"])
    workload = await cluster.user.create(
        WORKLOADS,
        body={
            "apiVersion": WORKLOADS.api_version,
            "kind": "Workload",
            "metadata": {"name": "training", "namespace": "default"},
            "spec": {"podGroupTemplates": [{"name": "workers", "policy": {"basic": {}}}]},
        },
    )
    consumer = {
        "apiGroup": "scheduling.k8s.io",
        "resource": "workloads",
        "name": "training",
        "uid": workload["metadata"]["uid"],
    }
    claim = await cluster.create_claim("team", reserved_for=consumer)
    await cluster.allocate(
        claim, devices=["gpu-0"], reserved_for=[consumer], reserved_for_any_pod=True
    )
    await cluster.settle()
    kept = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="team")
    assert kept["status"]["reservedFor"] == [consumer]

    await cluster.user.delete(WORKLOADS, namespace="default", name="training")

    async def released() -> bool:
        now = await cluster.user.get(RESOURCE_CLAIMS, namespace="default", name="team")
        return not (now.get("status") or {}).get("allocation")

    await cluster.eventually(released)
