"""The resourceclaim controller keeps a PodGroup's reservation while a member pod exists, even
when its pod cache has not seen that pod yet.

A foreground deletion of a PodGroup drops the reservation of the group's claim once no member pod
could use it. The member pod created just before the deletion may reach the controller's pod
informer after the group's deletion does; deciding from the cache alone dropped the reservation
(and the claim with it) while the member existed. The controller's cleanup is driven directly
here, with its workers stopped and its pod cache made to lag, so the order is the test's.
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import POD_GROUPS, PODS, RESOURCE_CLAIM_TEMPLATES


def _group_ref(group: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiGroup": "scheduling.k8s.io",
        "resource": "podgroups",
        "name": group["metadata"]["name"],
        "uid": group["metadata"]["uid"],
    }


async def test_a_member_the_pod_cache_has_not_seen_keeps_the_deleted_groups_reservation(
    cluster, monkeypatch
):
    await cluster.start(["resourceclaim-controller"])
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    group = await cluster.user.create(POD_GROUPS, body=cluster.pod_group("trainers"))

    async def one_claim() -> bool:
        return len(await cluster.claims()) == 1

    await cluster.eventually(one_claim)
    [claim] = await cluster.claims()
    await cluster.allocate(claim, devices=["gpu-0"], reserved_for=[_group_ref(group)])
    controller = cluster.manager.controllers["resourceclaim-controller"]
    await controller.controller.stop()  # the syncs below are the test's alone
    monkeypatch.setattr(controller.pods, "index_keys", lambda name, value: [])  # a lagging cache
    member = [{"name": "gpu", "podGroupResourceClaim": "shared-gpu"}]
    await cluster.user.create(
        PODS, body=cluster.pod("worker-0", claims=member, group="trainers", node="node-1")
    )
    await cluster.user.delete(
        POD_GROUPS, namespace="default", name="trainers", propagation_policy="Foreground"
    )

    def group_deleting_in_cache() -> bool:
        cached = controller.pod_groups.get("default/trainers")
        return cached is not None and bool(cached["metadata"].get("deletionTimestamp"))

    await cluster.eventually(group_deleting_in_cache)
    name = claim["metadata"]["name"]
    await controller.cleanup.sync("default", name)
    [held] = await cluster.claims()
    assert held["status"]["reservedFor"] == [_group_ref(group)]

    await cluster.user.delete(PODS, namespace="default", name="worker-0", grace_period_seconds=0)

    def claim_cache_current() -> bool:
        cached = controller.claims.get(f"default/{name}")
        return cached is not None and cached["metadata"]["resourceVersion"] == (
            held["metadata"]["resourceVersion"]
        )

    await cluster.eventually(claim_cache_current)
    await controller.cleanup.sync("default", name)
    [released] = await cluster.claims()
    assert not released["status"].get("reservedFor")
