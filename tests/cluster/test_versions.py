"""A cluster serves upstream's shapes beside the seed's: KEP-5729's group claims written the 1.37
way, and a cluster that emulates 1.36."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from fakeapi.client import POD_GROUPS, PODS, RESOURCE_CLAIMS, Resource

POD_GROUPS_V1BETA1 = Resource(
    "scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", namespaced=True
)
EXAMPLES = Path(str(resources.files("fakeapi.cluster") / "data" / "examples"))


@pytest.mark.fakeapi(nodes=1)
def test_pods_joining_a_v1beta1_group_with_identical_claims_share_the_groups_claim(
    fakeapi_cluster,
):
    cluster, ns = fakeapi_cluster, fakeapi_cluster.namespace
    cluster.apply_yaml(EXAMPLES / "podgroup-claim-v1beta1.yaml")
    for pod in ("gang-worker-0", "gang-worker-1"):
        cluster.wait_for(PODS, pod, jsonpath="{.status.phase}=Running")
    group = cluster.wait_for(POD_GROUPS, "gang-workers-0", condition="PodGroupInitiallyScheduled")
    assert group is not None
    claims = cluster.client.list(RESOURCE_CLAIMS, namespace=ns).items
    [claim] = claims  # one claim for the group, none for the pods
    name = claim["metadata"]["name"]
    assert [o["kind"] for o in claim["metadata"]["ownerReferences"]] == ["PodGroup"]
    assert [(r["resource"], r["name"]) for r in claim["status"]["reservedFor"]] == [
        ("podgroups", "gang-workers-0")
    ]
    assert group["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": name}]
    for pod in ("gang-worker-0", "gang-worker-1"):
        got = cluster.client.get(PODS, name=pod, namespace=ns)
        statuses = got["status"]["resourceClaimStatuses"]
        assert statuses == [{"name": "gpu", "resourceClaimName": name}]
    upstream = cluster.client.get(POD_GROUPS_V1BETA1, name="gang-workers-0", namespace=ns)
    condition = upstream["status"]["conditions"][0]
    assert (condition["type"], condition["status"]) == ("PodGroupInitiallyScheduled", "True")


@pytest.mark.fakeapi(components=(), emulated_version="1.36")
def test_a_cluster_emulating_1_36_serves_that_releases_versions_and_gates(fakeapi_cluster):
    registry = fakeapi_cluster.handle.registry
    served = {(rt.group, rt.version) for rt in registry.resources}
    assert ("scheduling.k8s.io", "v1alpha2") in served
    assert ("scheduling.k8s.io", "v1beta1") not in served
    assert ("resource.k8s.io", "v1alpha3") in served  # ResourcePoolStatusRequest
    assert registry.feature_gates["DRADeviceTaintRules"] is False  # beta and off in 1.36
    assert registry.resources.emulated_version.minor == 36
