"""PodGroup protection: a PodGroup is created with a finalizer and goes only after its pods."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import POD_GROUPS, PODS, is_not_found
from fakeapi.models.scheduling import POD_GROUP_PROTECTION_FINALIZER


@pytest.fixture
async def groups(cluster):
    await cluster.start(["podgroup-protection-controller"])
    return cluster


async def _group(cluster, name: str = "trainers") -> dict[str, Any] | None:
    try:
        return await cluster.user.get(POD_GROUPS, namespace="default", name=name)
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


async def _set_phase(cluster, name: str, phase: str) -> None:
    pod = await cluster.user.get(PODS, namespace="default", name=name)
    pod["status"] = {**(pod.get("status") or {}), "phase": phase}
    await cluster.user.update_status(PODS, body=pod)


async def test_a_pod_group_is_created_with_the_protection_finalizer(groups):
    created = await groups.user.create(POD_GROUPS, body=groups.pod_group("trainers"))
    assert created["metadata"]["finalizers"] == [POD_GROUP_PROTECTION_FINALIZER]


async def test_a_deleted_pod_group_stays_until_its_running_pods_finish(groups):
    await groups.user.create(POD_GROUPS, body=groups.pod_group("trainers"))
    for name in ("worker-0", "worker-1"):
        await groups.user.create(PODS, body=groups.pod(name, group="trainers", node="node-1"))
        await _set_phase(groups, name, "Running")
    await groups.user.create(PODS, body=groups.pod("stranger", node="node-1"))
    await _set_phase(groups, "stranger", "Running")
    await groups.user.delete(POD_GROUPS, namespace="default", name="trainers")

    await _set_phase(groups, "worker-0", "Succeeded")
    await groups.settle()
    held = await _group(groups)
    assert held is not None and held["metadata"]["deletionTimestamp"]
    assert held["metadata"]["finalizers"] == [POD_GROUP_PROTECTION_FINALIZER]

    await _set_phase(groups, "worker-1", "Failed")

    async def gone() -> bool:
        return await _group(groups) is None

    await groups.eventually(gone)


async def test_a_deleted_pod_group_goes_when_its_last_pod_is_deleted(groups):
    await groups.user.create(POD_GROUPS, body=groups.pod_group("trainers"))
    await groups.user.create(PODS, body=groups.pod("worker-0", group="trainers"))
    await groups.user.delete(POD_GROUPS, namespace="default", name="trainers")
    await groups.settle()
    assert await _group(groups) is not None
    await groups.user.delete(PODS, namespace="default", name="worker-0")

    async def gone() -> bool:
        return await _group(groups) is None

    await groups.eventually(gone)


async def test_a_pod_group_without_the_finalizer_gets_it_back(groups):
    created = await groups.user.create(POD_GROUPS, body=groups.pod_group("trainers"))
    created["metadata"]["finalizers"] = ["example.com/keep"]
    await groups.user.update(POD_GROUPS, body=created)

    async def protected() -> bool:
        group = await _group(groups)
        return group is not None and group["metadata"].get("finalizers") == [
            "example.com/keep",
            POD_GROUP_PROTECTION_FINALIZER,
        ]

    await groups.eventually(protected)


async def test_a_pod_the_cache_has_not_seen_yet_still_holds_its_group(groups, monkeypatch):
    await groups.user.create(POD_GROUPS, body=groups.pod_group("trainers"))
    await groups.user.create(PODS, body=groups.pod("worker-0", group="trainers"))
    controller = groups.manager.controllers["podgroup-protection-controller"]
    monkeypatch.setattr(controller.pods, "by_index", lambda name, value: [])  # a lagging cache
    group = await groups.user.get(POD_GROUPS, namespace="default", name="trainers")
    assert await controller._in_use("default/trainers", group)
    await groups.user.delete(PODS, namespace="default", name="worker-0")
    assert not await controller._in_use("default/trainers", group)
