"""Controllers are level-based: stopped mid-way, with the world changed meanwhile, they converge."""

from __future__ import annotations

import pytest

from fakeapi.client import (
    CONFIGMAPS,
    NAMESPACES,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
)

TEMPLATE_POD = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]


@pytest.mark.parametrize("fresh_informers", [False, True], ids=["same-informers", "new-informers"])
async def test_restarted_controllers_converge_on_changes_made_while_they_were_down(
    cluster, fresh_informers
):
    await cluster.start()
    await cluster.user.create(RESOURCE_CLAIM_TEMPLATES, body=cluster.template())
    await cluster.user.create(PODS, body=cluster.pod("before", claims=TEMPLATE_POD))

    async def claim_for(owner: str) -> bool:
        return any(
            c["metadata"]["ownerReferences"][0]["name"] == owner for c in await cluster.claims()
        )

    await cluster.eventually(lambda: claim_for("before"))
    await cluster.stop()
    if fresh_informers:  # as a restarted process: empty caches, everything listed again
        await cluster.assembler.reset_informers()

    # while the controllers are down
    await cluster.user.delete(PODS, namespace="default", name="before")
    await cluster.user.create(PODS, body=cluster.pod("during", claims=TEMPLATE_POD))
    await cluster.user.create(POD_GROUPS, body=cluster.pod_group("group-during"))
    await cluster.namespace("doomed")
    await cluster.user.create(CONFIGMAPS, body={"metadata": {"name": "x", "namespace": "doomed"}})
    await cluster.user.delete(NAMESPACES, name="doomed")
    await cluster.settle()
    assert await claim_for("before")

    await cluster.start()

    async def converged() -> bool:
        owners = sorted(c["metadata"]["ownerReferences"][0]["name"] for c in await cluster.claims())
        namespaces = {n["metadata"]["name"] for n in (await cluster.user.list(NAMESPACES)).items}
        during = await cluster.user.get(PODS, namespace="default", name="during")
        recorded = (during.get("status") or {}).get("resourceClaimStatuses")
        return (
            owners == ["during", "group-during"] and "doomed" not in namespaces and bool(recorded)
        )

    await cluster.eventually(converged)
