"""A device toleration means the same to the allocator and to the eviction controller.

Both judge it by :mod:`fakeapi.rules.taints`; these run a whole cluster (controllers, scheduler,
kubelet) so that a pod placed under a toleration is seen not to be evicted for the very taint it
tolerates.
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import DEVICE_TAINT_RULES, PODS
from fakeapi.cluster.assembler import Cluster

DRIVER = "gpu.example.com"

#: no key: with ``Equal`` it tolerates every NoExecute taint whose value is empty (upstream's
#: ToleratesTaint), a toleration the API accepts
KEYLESS_EQUAL = {"operator": "Equal", "effect": "NoExecute"}


def _rule(name: str, *, key: str, effect: str) -> dict[str, Any]:
    """A DeviceTaintRule tainting every device of the driver with ``key`` (no value)."""
    return {
        "apiVersion": DEVICE_TAINT_RULES.api_version,
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {"deviceSelector": {"driver": DRIVER}, "taint": {"key": key, "effect": effect}},
    }


def _pod_with_tolerating_claim(name: str) -> list[dict[str, Any]]:
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": f"{name}-gpu"},
        "spec": {"spec": {"devices": {"requests": [{
            "name": "gpu",
            "exactly": {"deviceClassName": DRIVER, "tolerations": [KEYLESS_EQUAL]},
        }]}}},
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [{"name": "app", "image": "registry.example/cuda-app:1.0",
                            "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": f"{name}-gpu"}],
        },
    }
    return [template, pod]


async def test_a_pod_on_a_no_execute_tainted_device_it_tolerates_without_a_key_stays() -> None:
    async with Cluster(nodes=1, stages="fast") as cluster:
        # every GPU is tainted NoExecute before the pod comes: only its toleration gets it one
        await cluster.apply_yaml(_rule("maintenance", key="example.com/maintenance",
                                       effect="NoExecute"))
        await cluster.apply_yaml(_pod_with_tolerating_claim("tolerant"))
        running = await cluster.wait_for(PODS, "tolerant", jsonpath="{.status.phase}=Running",
                                         timeout=10)
        assert running is not None
        # a second rule, of effect None, makes the eviction controller report how many pods it
        # would evict for such a taint: it judges the running pod's toleration as the allocator
        # did
        await cluster.apply_yaml(_rule("preview", key="example.com/preview", effect="None"))
        preview = await cluster.wait_for(
            DEVICE_TAINT_RULES, "preview", jsonpath="{.status.conditions[0].reason}=NoEffect",
            timeout=10,
        )
        assert preview is not None
        [condition] = preview["status"]["conditions"]
        assert "1 allocated device selected. " in condition["message"]
        assert "0 pods would be evicted" in condition["message"]
        pod = await cluster.client.get(PODS, namespace="default", name="tolerant")
        assert not pod["metadata"].get("deletionTimestamp")
        assert "DisruptionTarget" not in {c["type"] for c in pod["status"]["conditions"]}
