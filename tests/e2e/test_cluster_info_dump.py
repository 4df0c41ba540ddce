"""``kubectl cluster-info dump``, which ``kubectl cluster-info`` suggests: it lists nodes, then per
namespace events, replication controllers, services, daemon sets, deployments, replica sets and
pods, and reads every container's log. Against the sandbox it completes, and a pod's log is what
the stream configuration gives it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .sandbox_process import KUBECTL, SandboxProcess

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")]
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"


def test_cluster_info_dump_completes_with_every_listing_and_the_pods_logs(
    tmp_path: Path,
) -> None:
    (tmp_path / "app.log").write_text("gpu ready\n")
    (tmp_path / "streams.yaml").write_text(
        "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterLogs\nmetadata: {name: all}\n"
        "spec: {logs: [{logsFile: app.log}]}\n")
    sandbox = SandboxProcess(tmp_path, "--nodes", "1", "--stream-config", "streams.yaml").ready()
    try:
        sandbox.kubectl("apply", "-f", str(EXAMPLES / "template-claim-pod.yaml"))
        sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                        "pod/gpu-pod")
        printed = sandbox.kubectl("cluster-info", "dump")
        assert printed.returncode == 0, printed.stderr
        out = tmp_path / "dump"
        sandbox.kubectl("cluster-info", "dump", "--output-directory", str(out))
    finally:
        assert sandbox.stop() == 0
    nodes = json.loads((out / "nodes.json").read_text())
    assert [n["metadata"]["name"] for n in nodes["items"]] == ["node-1"]
    pods = json.loads((out / "default" / "pods.json").read_text())
    assert [p["metadata"]["name"] for p in pods["items"]] == ["gpu-pod"]
    for listing in ("events", "replication-controllers", "services", "daemonsets",
                    "deployments", "replicasets"):
        assert (out / "default" / f"{listing}.json").is_file(), listing
    assert (out / "default" / "gpu-pod" / "logs.txt").read_text().splitlines() == [
        "==== START logs for container app of pod default/gpu-pod ====",
        "gpu ready",
        "==== END logs for container app of pod default/gpu-pod ====",
    ]
