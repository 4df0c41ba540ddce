"""A cluster restarted on its data directory comes back as it was left.

The objects are restored; the simulated kubelets start again against them: each finds its Node
already there and reports it Ready again, its driver's slices are current, and a running pod keeps
its claim, still allocated and reserved for it, with no second claim made.
"""

from __future__ import annotations

from pathlib import Path

from fakeapi.client import LEASES, NODES, PODS, RESOURCE_CLAIMS
from fakeapi.cluster.assembler import Cluster

EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"


async def test_a_sandbox_restarted_on_its_data_directory_keeps_nodes_pods_and_claims(tmp_path):
    async with Cluster(nodes=1, stages="fast", data_dir=tmp_path, namespace="team") as first:
        await first.apply_yaml(EXAMPLES / "template-claim-pod.yaml")
        pod = await first.wait_for(
            PODS, "gpu-pod", jsonpath="{.status.phase}=Running", timeout=10
        )
        assert pod is not None
        [status] = pod["status"]["resourceClaimStatuses"]
        claim_name = status["resourceClaimName"]
        claim = await first.client.get(RESOURCE_CLAIMS, name=claim_name)
        node = await first.client.get(NODES, name="node-1")
        lease = await first.client.get(LEASES, namespace="kube-node-lease", name="node-1")

    async with Cluster(nodes=1, stages="fast", data_dir=tmp_path, namespace="team") as second:
        ready = await second.wait_for(NODES, "node-1", condition="Ready", timeout=10)
        assert ready is not None
        assert ready["metadata"]["uid"] == node["metadata"]["uid"]  # the same Node, re-registered
        renewed = await second.client.get(LEASES, namespace="kube-node-lease", name="node-1")
        assert renewed["spec"]["renewTime"] > lease["spec"]["renewTime"]  # its kubelet is back
        restored = await second.client.get(PODS, name="gpu-pod")
        assert restored["metadata"]["uid"] == pod["metadata"]["uid"]
        assert restored["status"]["phase"] == "Running"
        await second.wait_for(PODS, "gpu-pod", jsonpath="{.status.phase}=Running", timeout=10)
        claims = (await second.client.list(RESOURCE_CLAIMS)).items
        assert [c["metadata"]["name"] for c in claims] == [claim_name]
        [kept] = claims
        assert kept["metadata"]["uid"] == claim["metadata"]["uid"]
        assert kept["status"]["allocation"] == claim["status"]["allocation"]
        assert kept["status"]["reservedFor"] == claim["status"]["reservedFor"]
