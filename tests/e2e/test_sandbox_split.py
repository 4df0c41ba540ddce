"""``fakeapi sandbox --split``: the components in a second process, over HTTP.

The parent serves the API alone; the child (``fakeapi.cluster.split``) runs the controllers, the
scheduler and the simulated nodes against it. The banner comes once the child's nodes are Ready,
so what kubectl sees right after it is the child's work, reached only through the API.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .sandbox_process import SandboxProcess

pytestmark = pytest.mark.e2e
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"


def test_split_sandbox_runs_nodes_and_a_claiming_pod_from_its_second_process(
    tmp_path: Path,
) -> None:
    sandbox = SandboxProcess(tmp_path, "--split", "--nodes", "1").ready()
    try:
        assert "(in a second process)" in sandbox.wait_for(r"^fakeapi sandbox ready at")
        ready = sandbox.kubectl("get", "nodes", "-o", "jsonpath={.items[*].status.conditions"
                                "[?(@.type==\"Ready\")].status}").stdout
        assert ready == "True"
        sandbox.kubectl("apply", "-f", str(EXAMPLES / "template-claim-pod.yaml"))
        sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                        "pod/gpu-pod")
        claims = sandbox.kubectl("get", "resourceclaims", "-o",
                                 "jsonpath={.items[*].status.allocation.devices.results[*]"
                                 ".device}").stdout
        assert claims.split() == ["gpu-0"]
    finally:
        assert sandbox.stop() == 0
