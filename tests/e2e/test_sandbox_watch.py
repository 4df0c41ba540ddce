"""``fakeapi sandbox -v`` as a user watches it: a pod's life, one line per step, in upstream's
words — its claim created, the claim allocated and reserved, the pod scheduled, the device
prepared, the container started, a device turning unhealthy, the claim unprepared — and the
banner's kubeconfig path, absolute however it was given."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .sandbox_process import KUBECTL, SandboxProcess

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")]
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"


@pytest.fixture
def sandbox(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[SandboxProcess]:
    running = SandboxProcess(tmp_path, "--nodes", "1", *request.param).ready()
    yield running
    assert running.stop() == 0


@pytest.mark.parametrize("sandbox", [("-v",)], indirect=True)
def test_v_streams_a_pods_life_one_line_per_step(sandbox: SandboxProcess) -> None:
    sandbox.kubectl("apply", "-f", str(EXAMPLES / "template-claim-pod.yaml"))
    created = sandbox.wait_for(r'"Created ResourceClaim"')
    assert " kube-controller-manager] " in created and 'pod="default/gpu-pod"' in created
    reserved = sandbox.wait_for(r'kube-scheduler\] "reserved"')
    assert 'pod="default/gpu-pod"' in reserved and 'allocated=["gpu.example.com/node-1/' in reserved
    sandbox.wait_for(r'reason="Scheduled" message="Successfully assigned default/gpu-pod to '
                     r'node-1"')
    prepared = sandbox.wait_for(r'"Done calling NodePrepareResources rpc"')
    assert prepared.split("]")[0].endswith("kubelet node-1")
    sandbox.wait_for(r'object="default/gpu-pod" kind="Pod" type="Normal" reason="Started"')
    device = reserved.split('allocated=["gpu.example.com/node-1/')[1].split('"')[0]

    sandbox.kubectl("annotate", "node", "node-1",
                    f"fakeapi.dev/fault-unhealthy-devices=gpu.example.com/{device}=ECC errors,x")
    sandbox.wait_for(r'^W.*reason="InvalidFaultAnnotation" message="annotation '
                     r"fakeapi.dev/fault-unhealthy-devices: item 'x' is not")
    sandbox.wait_for(rf'"Health info changed" device="gpu.example.com/node-1/{device}" '
                     r'health="Unhealthy" message="ECC errors"')

    sandbox.kubectl("delete", "pod", "gpu-pod", "--wait=false")
    sandbox.wait_for(r'"Done calling NodeUnprepareResources rpc".*pod="default/gpu-pod"')


@pytest.mark.parametrize("sandbox", [("--log-format", "json")], indirect=True)
def test_log_format_json_prints_one_object_per_step(sandbox: SandboxProcess) -> None:
    sandbox.kubectl("apply", "-f", str(EXAMPLES / "template-claim-pod.yaml"))
    line = sandbox.wait_for(r'"msg": "reserved"')
    entry = json.loads(line)
    assert (entry["component"], entry["v"], entry["pod"]) == ("kube-scheduler", 0,
                                                               "default/gpu-pod")
    event = json.loads(sandbox.wait_for(r'"reason": "Scheduled"'))
    assert (event["msg"], event["object"], event["kind"]) == ("Event occurred",
                                                             "default/gpu-pod", "Pod")


@pytest.mark.parametrize("sandbox", [()], indirect=True)
def test_the_banner_names_the_kubeconfig_by_its_absolute_path(sandbox: SandboxProcess) -> None:
    # started with --kubeconfig kubeconfig, in its working directory
    assert sandbox.wait_for(r"^kubeconfig: ").startswith(f"kubeconfig: {sandbox.kubeconfig} ")
    assert sandbox.wait_for(r"export KUBECONFIG=").strip() == (
        f"export KUBECONFIG={sandbox.kubeconfig}"
    )
    assert sandbox.kubeconfig.is_absolute()
