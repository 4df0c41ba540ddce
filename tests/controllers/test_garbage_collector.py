"""The garbage collector: background, foreground and orphan propagation, blockOwnerDeletion."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import (
    CONFIGMAPS,
    CUSTOM_RESOURCE_DEFINITIONS,
    EVENTS,
    NAMESPACES,
    PODS,
    PRIORITY_CLASSES,
    Resource,
    is_not_found,
)


def _cm(
    name: str, *, owners: list[dict[str, Any]] | None = None, finalizers: list[str] | None = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owners:
        meta["ownerReferences"] = owners
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


def _ref(owner: dict[str, Any], *, block: bool | None = None) -> dict[str, Any]:
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    if block is not None:
        ref["blockOwnerDeletion"] = block
    return ref


async def _exists(cluster, name: str) -> dict[str, Any] | None:
    try:
        return await cluster.user.get(CONFIGMAPS, namespace="default", name=name)
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


@pytest.fixture
async def gc(cluster):
    await cluster.start(["garbage-collector-controller"])
    return cluster


async def test_background_deletion_removes_dependents_after_the_owner(gc):
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    await gc.user.create(CONFIGMAPS, body=_cm("child", owners=[_ref(owner)]))
    await gc.user.create(
        CONFIGMAPS,
        body=_cm(
            "grandchild",
            owners=[_ref(await gc.user.get(CONFIGMAPS, namespace="default", name="child"))],
        ),
    )
    await gc.user.delete(
        CONFIGMAPS, namespace="default", name="owner", propagation_policy="Background"
    )
    assert await _exists(gc, "owner") is None

    async def cascaded() -> bool:
        return await _exists(gc, "child") is None and await _exists(gc, "grandchild") is None

    await gc.eventually(cascaded)


async def test_dependents_of_a_pod_are_collected_across_kinds(gc):
    pod = await gc.user.create(PODS, body=gc.pod("web-0"))
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "web-0", "uid": pod["metadata"]["uid"]}
    await gc.user.create(CONFIGMAPS, body=_cm("web-0-config", owners=[ref]))
    await gc.user.delete(PODS, namespace="default", name="web-0")

    async def collected() -> bool:
        return await _exists(gc, "web-0-config") is None

    await gc.eventually(collected)


async def test_foreground_deletion_waits_for_blocking_dependents(gc):
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    await gc.user.create(
        CONFIGMAPS,
        body=_cm("blocker", owners=[_ref(owner, block=True)], finalizers=["example.com/hold"]),
    )
    await gc.user.create(CONFIGMAPS, body=_cm("bystander", owners=[_ref(owner, block=False)]))
    await gc.user.delete(
        CONFIGMAPS, namespace="default", name="owner", propagation_policy="Foreground"
    )

    async def dependents_deleting() -> bool:
        blocker = await _exists(gc, "blocker")
        return (
            blocker is not None
            and bool(blocker["metadata"].get("deletionTimestamp"))
            and await _exists(gc, "bystander") is None
        )

    await gc.eventually(dependents_deleting)
    await gc.settle()
    waiting = await _exists(gc, "owner")
    assert waiting is not None
    assert waiting["metadata"]["finalizers"] == ["foregroundDeletion"]

    blocker = await _exists(gc, "blocker")
    assert blocker is not None
    blocker["metadata"]["finalizers"] = []
    await gc.user.update(CONFIGMAPS, body=blocker)

    async def owner_gone() -> bool:
        return await _exists(gc, "owner") is None

    await gc.eventually(owner_gone)


async def test_foreground_deletion_waits_for_the_whole_tree(gc):
    """a → b → c, every reference blocking, c held by a finalizer: a waits for b, b for c."""
    a = await gc.user.create(CONFIGMAPS, body=_cm("a"))
    b = await gc.user.create(CONFIGMAPS, body=_cm("b", owners=[_ref(a, block=True)]))
    await gc.user.create(
        CONFIGMAPS,
        body=_cm("c", owners=[_ref(b, block=True)], finalizers=["example.com/hold"]),
    )
    await gc.user.delete(CONFIGMAPS, namespace="default", name="a", propagation_policy="Foreground")

    async def c_deleting() -> bool:
        c = await _exists(gc, "c")
        return c is not None and bool(c["metadata"].get("deletionTimestamp"))

    await gc.eventually(c_deleting)
    await gc.settle()
    middle = await _exists(gc, "b")
    assert middle is not None and middle["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert middle["metadata"]["ownerReferences"] == [_ref(a, block=True)]
    assert await _exists(gc, "a") is not None

    c = await _exists(gc, "c")
    assert c is not None
    c["metadata"]["finalizers"] = []
    await gc.user.update(CONFIGMAPS, body=c)

    async def all_gone() -> bool:
        return all([await _exists(gc, name) is None for name in ("a", "b", "c")])

    await gc.eventually(all_gone)


async def test_an_owner_in_another_namespace_is_absent_and_reported(gc):
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    await gc.user.create(NAMESPACES, body={"metadata": {"name": "elsewhere"}})
    stray = _cm("stray", owners=[_ref(owner)])
    stray["metadata"]["namespace"] = "elsewhere"
    await gc.user.create(CONFIGMAPS, body=stray)
    # cluster-scoped objects naming a namespaced owner are never collected for it
    await gc.user.create(
        PRIORITY_CLASSES,
        body={"metadata": {"name": "owned", "ownerReferences": [_ref(owner)]}, "value": 5},
    )

    async def stray_gone() -> bool:
        try:
            await gc.user.get(CONFIGMAPS, namespace="elsewhere", name="stray")
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        return False

    await gc.eventually(stray_gone)

    async def reported() -> set[tuple[str, str]]:
        events = await gc.user.list(EVENTS)
        return {
            (e["involvedObject"]["name"], e["message"])
            for e in events.items
            if e["reason"] == "OwnerRefInvalidNamespace"
        }

    uid = owner["metadata"]["uid"]
    expected = {
        ("stray", f'ownerRef [v1/ConfigMap, namespace: elsewhere, name: owner, uid: {uid}] '
                  'does not exist in namespace "elsewhere"'),
        ("owned", f'ownerRef [v1/ConfigMap, namespace: , name: owner, uid: {uid}] '
                  'does not exist in namespace ""'),
    }
    await gc.eventually(lambda: _contains(reported(), expected))
    await gc.settle()
    kept = await gc.user.get(PRIORITY_CLASSES, name="owned")
    assert kept["metadata"]["ownerReferences"] == [_ref(owner)]


async def _contains(found: Any, expected: set[tuple[str, str]]) -> bool:
    return expected <= await found


async def test_orphan_deletion_keeps_dependents_without_the_reference(gc):
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    other = await gc.user.create(CONFIGMAPS, body=_cm("other-owner"))
    await gc.user.create(CONFIGMAPS, body=_cm("child", owners=[_ref(owner), _ref(other)]))
    await gc.user.create(CONFIGMAPS, body=_cm("only-child", owners=[_ref(owner)]))
    await gc.user.delete(CONFIGMAPS, namespace="default", name="owner", propagation_policy="Orphan")

    async def owner_gone() -> bool:
        return await _exists(gc, "owner") is None

    await gc.eventually(owner_gone)
    child = await _exists(gc, "child")
    only = await _exists(gc, "only-child")
    assert child is not None and only is not None
    assert child["metadata"]["ownerReferences"] == [_ref(other)]
    assert not only["metadata"].get("ownerReferences")


async def test_a_dependent_with_another_owner_only_loses_the_reference(gc):
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    other = await gc.user.create(CONFIGMAPS, body=_cm("other-owner"))
    await gc.user.create(CONFIGMAPS, body=_cm("child", owners=[_ref(owner), _ref(other)]))
    await gc.user.delete(CONFIGMAPS, namespace="default", name="owner")

    async def reference_dropped() -> bool:
        child = await _exists(gc, "child")
        return child is not None and child["metadata"].get("ownerReferences") == [_ref(other)]

    await gc.eventually(reference_dropped)


async def test_an_owner_of_an_unserved_kind_keeps_its_dependents(gc):
    ref = {"apiVersion": "example.com/v1", "kind": "Widget", "name": "web", "uid": "abc"}
    await gc.user.create(CONFIGMAPS, body=_cm("child", owners=[ref]))
    await gc.settle()
    assert await _exists(gc, "child") is not None


async def test_a_dependent_created_for_a_vanished_owner_is_collected(gc):
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "never", "uid": "not-a-real-uid"}
    await gc.user.create(CONFIGMAPS, body=_cm("stray", owners=[ref]))

    async def collected() -> bool:
        return await _exists(gc, "stray") is None

    await gc.eventually(collected)


# --- custom resources ---------------------------------------------------------------------------

CRONTABS = Resource(group="stable.example.com", version="v1", plural="crontabs", kind="CronTab",
                    namespaced=True)


async def _install_crontabs(cluster) -> None:
    await cluster.user.create(CUSTOM_RESOURCE_DEFINITIONS, body={
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com", "scope": "Namespaced",
            "names": {"plural": "crontabs", "kind": "CronTab"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                "openAPIV3Schema": {"type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True}}}],
        },
    })

    async def established() -> bool:
        crd = await cluster.user.get(CUSTOM_RESOURCE_DEFINITIONS,
                                     name="crontabs.stable.example.com")
        return any(c["type"] == "Established" and c["status"] == "True"
                   for c in crd.get("status", {}).get("conditions", []))

    await cluster.eventually(established)


def _tab(name: str, owners: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owners:
        meta["ownerReferences"] = owners
    return {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": meta}


def _tab_ref(tab: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "name": tab["metadata"]["name"], "uid": tab["metadata"]["uid"]}


async def _tab_exists(cluster, name: str) -> bool:
    try:
        await cluster.user.get(CRONTABS, namespace="default", name=name)
    except Exception as exc:
        if is_not_found(exc):
            return False
        raise
    return True


async def test_custom_resources_own_and_are_owned(gc):
    await _install_crontabs(gc)
    tab = await gc.user.create(CRONTABS, body=_tab("tab"))
    await gc.user.create(CONFIGMAPS, body=_cm("tab-data", owners=[_tab_ref(tab)]))
    owner = await gc.user.create(CONFIGMAPS, body=_cm("owner"))
    await gc.user.create(CRONTABS, body=_tab("owned", owners=[_ref(owner)]))

    await gc.user.delete(CRONTABS, namespace="default", name="tab")
    await gc.user.delete(CONFIGMAPS, namespace="default", name="owner")

    async def collected() -> bool:
        return (await _exists(gc, "tab-data") is None
                and not await _tab_exists(gc, "owned"))

    await gc.eventually(collected)


async def test_dependents_of_a_deleted_definitions_objects_are_collected(gc):
    await _install_crontabs(gc)
    tab = await gc.user.create(CRONTABS, body=_tab("tab"))
    await gc.user.create(CONFIGMAPS, body=_cm("tab-data", owners=[_tab_ref(tab)]))
    await gc.user.create(CONFIGMAPS, body=_cm("unowned"))

    await gc.user.delete(CUSTOM_RESOURCE_DEFINITIONS, name="crontabs.stable.example.com")

    async def collected() -> bool:
        return await _exists(gc, "tab-data") is None

    await gc.eventually(collected)
    assert await _exists(gc, "unowned") is not None
