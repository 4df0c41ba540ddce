"""``kubectl dra``: real kubectl finds the ``kubectl-dra`` console script and prints pool usage.

The cluster runs in-process with two simulated GPU nodes (their drivers publish the slices);
allocations are written by hand so the expected tables are known exactly.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fakeapi.client import DEVICE_TAINT_RULES, RESOURCE_CLAIMS
from fakeapi.cluster import EXAMPLES
from fakeapi.cluster.assembler import Cluster

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl")
BIN = str(Path(sys.executable).parent)


def _claim(name: str, namespace: str = "default") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    }


async def _allocate(cluster: Cluster, name: str, node: str, *devices: str) -> None:
    claim = await cluster.client.create(RESOURCE_CLAIMS, body=_claim(name))
    claim["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": node, "device": device}
        for device in devices]}}}
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)


async def _kubectl_dra(cluster: Cluster, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``kubectl dra`` without blocking the loop that serves the cluster."""
    assert KUBECTL is not None, "kubectl is not installed (pip install -e '.[test]')"
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
           "KUBECONFIG": str(cluster.kubeconfig)}
    process = await asyncio.create_subprocess_exec(
        KUBECTL, "dra", *args, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await process.communicate()
    assert process.returncode is not None
    return subprocess.CompletedProcess(args, process.returncode, out.decode(), err.decode())


async def test_pools_table_counts_allocated_and_available_devices() -> None:
    async with Cluster(nodes=2, components=["kubelets"], http=True) as cluster:
        await _allocate(cluster, "train", "node-1", "gpu-0", "gpu-1")
        await _allocate(cluster, "infer", "node-2", "gpu-7")
        result = await _kubectl_dra(cluster, "pools")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "NAME                     DRIVER            POOL     NODE     TOTAL   ALLOCATED   "
        "AVAILABLE   UNAVAILABLE",
        "gpu.example.com.node-1   gpu.example.com   node-1   node-1   8       2           "
        "6           0",
        "gpu.example.com.node-2   gpu.example.com   node-2   node-2   8       1           "
        "7           0",
    ]


async def test_pool_lists_each_device_with_the_claim_it_is_allocated_to() -> None:
    async with Cluster(nodes=1, components=["kubelets"], http=True) as cluster:
        await _allocate(cluster, "train", "node-1", "gpu-3")
        by_name = await _kubectl_dra(cluster, "pool", "gpu.example.com.node-1")
        by_node = await _kubectl_dra(cluster, "node", "node-1")
        as_json = await _kubectl_dra(cluster, "pools", "-o", "json")
        missing = await _kubectl_dra(cluster, "pool", "nope")
    lines = by_name.stdout.splitlines()
    assert lines[0].split() == ["POOL", "DEVICE", "STATE", "HEALTH", "TAINTS", "ALLOCATED",
                                "TO", "RESERVED", "FOR"]
    rows = {line.split()[1]: line.split()[2:] for line in lines[1:]}
    # allocated by hand: no pod uses it, so none reports its health or holds the claim
    assert rows["gpu-3"] == ["Allocated", "<none>", "<none>", "default/train", "<none>"]
    assert rows["gpu-0"] == ["Available", "<none>", "<none>", "<none>", "<none>"]
    assert len(rows) == 8
    assert by_node.stdout == by_name.stdout
    [pool] = json.loads(as_json.stdout)["items"]
    assert (pool["totalDevices"], pool["allocatedDevices"]) == (8, 1)
    assert missing.returncode == 1 and 'pool "nope" not found' in missing.stderr


async def test_an_empty_cluster_has_no_pools() -> None:
    async with Cluster(components=(), http=True) as cluster:
        result = await _kubectl_dra(cluster, "pools")
    assert result.returncode == 0
    assert (result.stdout, result.stderr.strip()) == ("", "No resources found")


async def test_pool_shows_device_health_taints_and_who_holds_the_claim() -> None:
    async with Cluster(nodes=1, http=True, stages="fast") as cluster:
        await cluster.apply_yaml(EXAMPLES / "template-claim-pod.yaml")
        pod = await cluster.wait_for("pods", "gpu-pod", jsonpath="{.status.phase}=Running")
        assert pod is not None
        [status] = pod["status"]["resourceClaimStatuses"]
        claim = await cluster.wait_for("resourceclaims", status["resourceClaimName"])
        assert claim is not None
        [result] = claim["status"]["allocation"]["devices"]["results"]
        await cluster.kubelets["node-1"].mark_device_unhealthy(
            driver="gpu.example.com", device=result["device"], message="ECC errors")
        await cluster.wait_for(
            "pods", "gpu-pod", timeout=30,
            jsonpath="{.status.containerStatuses[0].allocatedResourcesStatus[0].resources[0]"
                     ".health}=Unhealthy")
        await cluster.client.create(DEVICE_TAINT_RULES, body={
            "metadata": {"name": "drain"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "device": "gpu-7"},
                     "taint": {"key": "maintenance", "value": "planned",
                               "effect": "NoSchedule"}}})
        table = await _kubectl_dra(cluster, "pool", "gpu.example.com.node-1")
        as_json = await _kubectl_dra(cluster, "node", "node-1", "-o", "json")
    rows = {line.split()[1]: line.split()[2:] for line in table.stdout.splitlines()[1:]}
    claim_key = f"default/{status['resourceClaimName']}"
    assert rows[result["device"]] == ["Allocated", "Unhealthy", "<none>", claim_key,
                                      "pod/gpu-pod"]
    assert rows["gpu-7"][:3] == ["Unavailable", "<none>", "maintenance=planned:NoSchedule"]
    [pool] = json.loads(as_json.stdout)["items"]
    device = next(d for d in pool["devices"] if d["name"] == result["device"])
    assert (device["health"], device["healthMessage"], device["reservedFor"]) == (
        "Unhealthy", "ECC errors", ["pod/gpu-pod"])
