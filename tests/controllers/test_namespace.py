"""The namespace controller: a deleted namespace is emptied, reports progress, then goes."""

from __future__ import annotations

from fakeapi.client import (
    CONFIGMAPS,
    CUSTOM_RESOURCE_DEFINITIONS,
    NAMESPACES,
    PODS,
    RESOURCE_CLAIMS,
    Resource,
    is_not_found,
)


async def _namespace(cluster, name: str):
    try:
        return await cluster.user.get(NAMESPACES, name=name)
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


async def test_deleting_a_namespace_removes_its_content_then_the_namespace(cluster):
    await cluster.start(["namespace-controller"])
    await cluster.namespace("team-a")
    await cluster.user.create(CONFIGMAPS, body={"metadata": {"name": "cfg", "namespace": "team-a"}})
    await cluster.user.create(PODS, body=cluster.pod("web-0", namespace="team-a"))
    await cluster.user.create(
        CONFIGMAPS, body={"metadata": {"name": "cfg", "namespace": "default"}}
    )
    await cluster.user.delete(NAMESPACES, name="team-a")

    async def gone() -> bool:
        return await _namespace(cluster, "team-a") is None

    await cluster.eventually(gone)
    assert not (await cluster.user.list(PODS, namespace="team-a")).items
    assert not (await cluster.user.list(CONFIGMAPS, namespace="team-a")).items
    assert (await cluster.user.list(CONFIGMAPS, namespace="default")).items


async def test_content_with_finalizers_keeps_the_namespace_terminating_with_conditions(cluster):
    await cluster.start(["namespace-controller"])
    await cluster.namespace("team-b")
    held = cluster.claim("held", namespace="team-b")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    await cluster.user.create(RESOURCE_CLAIMS, body=held)
    await cluster.user.delete(NAMESPACES, name="team-b")

    def condition(ns, type_):
        return next(c for c in ns["status"].get("conditions", []) if c["type"] == type_)

    async def reported() -> bool:
        ns = await _namespace(cluster, "team-b")
        return ns is not None and len(ns["status"].get("conditions", [])) == 5

    await cluster.eventually(reported)
    ns = await _namespace(cluster, "team-b")
    assert ns["status"]["phase"] == "Terminating"
    remaining = condition(ns, "NamespaceContentRemaining")
    assert (remaining["status"], remaining["reason"]) == ("True", "SomeResourcesRemain")
    assert remaining["message"] == (
        "Some resources are remaining: resourceclaims.resource.k8s.io has 1 resource instances"
    )
    finalizers = condition(ns, "NamespaceFinalizersRemaining")
    assert finalizers["message"] == (
        "Some content in the namespace has finalizers remaining: "
        "example.com/hold in 1 resource instances"
    )
    assert condition(ns, "NamespaceDeletionDiscoveryFailure")["reason"] == "ResourcesDiscovered"
    assert condition(ns, "NamespaceDeletionContentFailure")["reason"] == "ContentDeleted"

    held = await cluster.user.get(RESOURCE_CLAIMS, namespace="team-b", name="held")
    held["metadata"]["finalizers"] = []
    await cluster.user.update(RESOURCE_CLAIMS, body=held)

    async def gone() -> bool:
        return await _namespace(cluster, "team-b") is None

    await cluster.eventually(gone)


async def test_custom_resources_in_a_deleted_namespace_are_deleted_with_it(cluster):
    await cluster.start(["namespace-controller"])
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
    crontabs = Resource(group="stable.example.com", version="v1", plural="crontabs",
                        kind="CronTab", namespaced=True)

    async def established() -> bool:
        crd = await cluster.user.get(CUSTOM_RESOURCE_DEFINITIONS,
                                     name="crontabs.stable.example.com")
        return any(c["type"] == "Established" and c["status"] == "True"
                   for c in crd.get("status", {}).get("conditions", []))

    await cluster.eventually(established)
    await cluster.namespace("team-c")
    for ns in ("team-c", "default"):
        await cluster.user.create(crontabs, body={
            "apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "tab", "namespace": ns}})
    await cluster.user.delete(NAMESPACES, name="team-c")

    async def gone() -> bool:
        return await _namespace(cluster, "team-c") is None

    await cluster.eventually(gone)
    assert not (await cluster.user.list(crontabs, namespace="team-c")).items
    assert (await cluster.user.list(crontabs, namespace="default")).items
