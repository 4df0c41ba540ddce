"""A real DRA driver process on a fakeapi node: the tests' Python driver (``example_driver.py``)
registers over ``plugins_registry/``, publishes its own slices over HTTP, and the kubelet prepares,
unprepares and watches health over gRPC; ``fakeapi driver-check`` judges it and a broken one.

Each test starts a one-node cluster with the driver as its ``--driver-command`` on the real clock
(the driver is another process); waits are bounded guards (``eventually``), never sleeps.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi.client import (
    DEVICE_CLASSES,
    EVENTS,
    NODES,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
)
from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster

pytestmark = pytest.mark.e2e

DRIVER = "gpu.example.com"
EXAMPLE = Path(__file__).with_name("example_driver.py")
COMMAND = (
    f"{sys.executable} {EXAMPLE} --driver {DRIVER} --node {{node}} --registry-dir {{registry_dir}}"
    " --plugins-dir {plugins_dir} --kubeconfig {kubeconfig}"
)
WAIT = 20.0


@pytest.fixture
def root() -> Iterator[Path]:
    # unix socket paths are limited to 107 bytes: a short temporary directory, not tmp_path
    path = Path(tempfile.mkdtemp(prefix="kp-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def cluster(root: Path) -> AsyncIterator[Cluster]:
    made = Cluster(
        nodes=1, profiles=(), kubelet_root_dir=root, driver_commands=[COMMAND], stages="fast",
        component_options={"kubelets": {"plugin_poll_interval": 0.05, "slice_wiping_delay": 0.5}},
    )
    async with made:
        await made.client.apply(
            DEVICE_CLASSES,
            body={"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                  "metadata": {"name": DRIVER},
                  "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
            force=True,
        )
        yield made


def plugin_dir(root: Path) -> Path:
    return root / "node-1" / "plugins" / DRIVER


def calls(root: Path) -> list[dict[str, Any]]:
    path = plugin_dir(root) / "calls.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def control(root: Path, **settings: Any) -> None:
    (plugin_dir(root) / "control.json").write_text(json.dumps(settings))


async def own_slices(cluster: Cluster) -> list[dict[str, Any]]:
    listed = await cluster.client.list(RESOURCE_SLICES, field_selector=f"spec.driver={DRIVER}")
    return list(listed.items)


async def ready(cluster: Cluster) -> None:
    """The driver registered with the kubelet and published its slices."""
    await eventually(lambda: registered(cluster), timeout=WAIT)
    await eventually(lambda: own_slices(cluster), timeout=WAIT)


async def registered(cluster: Cluster) -> int:
    plugins = cluster.kubelets["node-1"].plugins
    assert plugins is not None
    return sum(o.registered for o in plugins.watcher.history)


async def start_pod(cluster: Cluster, name: str) -> None:
    await cluster.client.create(RESOURCE_CLAIM_TEMPLATES, body={
        "metadata": {"name": name},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}}}})
    await cluster.client.create(PODS, body={
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "busybox",
                                 "resources": {"claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": name}]}})


async def phase(cluster: Cluster, name: str) -> str | None:
    pod = await cluster.client.get(PODS, name=name)
    return (pod.get("status") or {}).get("phase")


async def test_driver_registers_publishes_and_serves_a_pod_with_prepare_and_unprepare(
    cluster: Cluster, root: Path
) -> None:
    kubelet = cluster.kubelets["node-1"]
    await eventually(lambda: registered(cluster), timeout=WAIT)
    notified = await eventually(
        lambda: _as_awaitable([c for c in calls(root) if c["call"] == "NotifyRegistrationStatus"]),
        timeout=WAIT,
    )
    assert notified == [{"call": "NotifyRegistrationStatus", "registered": True, "error": ""}]
    slices = await eventually(lambda: own_slices(cluster), timeout=WAIT)
    assert [s["spec"]["nodeName"] for s in slices] == ["node-1"]

    await start_pod(cluster, "web")
    await eventually(lambda: phase(cluster, "web"), timeout=WAIT, what="a phase")
    await eventually(lambda: _is(phase(cluster, "web"), "Running"), timeout=WAIT)
    (uid,) = kubelet.prepared_claims()
    device = kubelet.prepared_claims()[uid][0]
    assert device.startswith("example.com/gpu=gpu-")
    prepares = [c for c in calls(root) if c["call"] == "NodePrepareResources"]
    assert prepares == [{"call": "NodePrepareResources", "claims": [uid],
                         "service": "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin"}]

    await cluster.client.delete(PODS, name="web")
    await eventually(lambda: _none(_as_awaitable(kubelet.prepared_claims())), timeout=WAIT)
    assert await _unprepared(root, uid)


async def _is(value: Any, wanted: Any) -> bool:
    return await value == wanted


async def _unprepared(root: Path, uid: str) -> bool:
    return any(c["call"] == "NodeUnprepareResources" and uid in c["claims"] for c in calls(root))


async def test_device_health_from_the_driver_reaches_pod_status(
    cluster: Cluster, root: Path
) -> None:
    await ready(cluster)
    await start_pod(cluster, "web")
    await eventually(lambda: _is(phase(cluster, "web"), "Running"), timeout=WAIT)
    (cdi,) = next(iter(cluster.kubelets["node-1"].prepared_claims().values()))
    device = cdi.split("=", 1)[1]
    control(root, unhealthy={device: "ECC error"})

    async def health() -> list[Any]:
        pod = await cluster.client.get(PODS, name="web")
        statuses = pod["status"]["containerStatuses"][0].get("allocatedResourcesStatus") or []
        return [r for s in statuses for r in s["resources"] if r.get("health") == "Unhealthy"]

    (unhealthy,) = await eventually(health, timeout=WAIT)
    assert unhealthy["resourceID"] == cdi


async def test_a_failed_prepare_keeps_the_pod_waiting_with_a_warning_and_is_retried(
    cluster: Cluster, root: Path
) -> None:
    await ready(cluster)
    control(root, fail_prepare="no GPU memory left")
    await start_pod(cluster, "web")

    async def warning() -> list[Any]:
        listed = await cluster.client.list(EVENTS, field_selector="involvedObject.name=web")
        return [e for e in listed.items if e["reason"] == "FailedPrepareDynamicResources"]

    (event, *_) = await eventually(warning, timeout=WAIT)
    assert event["type"] == "Warning"
    assert "NodePrepareResources failed for ResourceClaim web-gpu-" in event["message"]
    assert event["message"].endswith(": no GPU memory left")
    pod = await cluster.client.get(PODS, name="web")
    assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == (
        "ContainerCreating")

    control(root)  # the driver recovers: the kubelet's retry prepares the claim
    await eventually(lambda: _is(phase(cluster, "web"), "Running"), timeout=WAIT)
    assert len([c for c in calls(root) if c["call"] == "NodePrepareResources"]) >= 2


async def test_slices_go_when_the_driver_stops_and_come_back_after_a_kubelet_restart(
    cluster: Cluster, root: Path
) -> None:
    kubelet = cluster.kubelets["node-1"]
    await ready(cluster)

    # the kubelet loses the driver's registration socket: deregistered, slices wiped
    await kubelet.stop_driver(driver=DRIVER)
    assert not kubelet.drivers[DRIVER].running
    await eventually(lambda: _none(own_slices(cluster)), timeout=WAIT)
    await kubelet.start_driver(driver=DRIVER)
    assert kubelet.drivers[DRIVER].running
    await eventually(lambda: own_slices(cluster), timeout=WAIT)

    # a restarted kubelet wipes the node's slices and registers the driver again
    before = await registered(cluster)
    await kubelet.restart()
    assert await registered(cluster) >= before
    await eventually(lambda: _more(registered(cluster), before), timeout=WAIT)
    await eventually(lambda: own_slices(cluster), timeout=WAIT)

    # the driver process goes: its registration socket with it, then its slices
    for process in cluster.driver_processes["node-1"]:
        await process.stop()
    await eventually(lambda: _none(own_slices(cluster)), timeout=WAIT)
    assert not kubelet.drivers[DRIVER].running


async def _as_awaitable(value: Any) -> Any:
    return value


async def _none(value: Any) -> bool:
    return not await value


async def _more(value: Any, than: int) -> bool:
    return bool(await value > than)


async def start_pod_with_claim(cluster: Cluster, name: str) -> None:
    """A pod using the claim ``name`` (made here, named in the pod)."""
    await cluster.client.create(RESOURCE_CLAIMS, body={
        "metadata": {"name": name},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}}})
    await cluster.client.create(PODS, body={
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "busybox",
                                 "resources": {"claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimName": name}]}})


async def warnings(cluster: Cluster, pod: str) -> list[str]:
    listed = await cluster.client.list(EVENTS, field_selector=f"involvedObject.name={pod}")
    return [e["message"] for e in listed.items if e["reason"] == "FailedPrepareDynamicResources"]


async def test_kubelet_side_call_faults_fail_a_prepare_the_driver_never_sees(
    cluster: Cluster, root: Path
) -> None:
    await ready(cluster)
    kubelet = cluster.kubelets["node-1"]
    # from Python: the next prepare of claim "a" fails
    await kubelet.inject_call_fault(call="prepare", claim="default/a", error="injected")
    await start_pod_with_claim(cluster, "a")
    (message, *_) = await eventually(lambda: warnings(cluster, "a"), timeout=WAIT)
    assert message.endswith("NodePrepareResources failed for ResourceClaim a: injected")
    await eventually(lambda: _is(phase(cluster, "a"), "Running"), timeout=WAIT)
    assert len([c for c in calls(root) if c["call"] == "NodePrepareResources"]) == 1

    # from an annotation (kubectl annotate node): prepares of claim "b" fail while it stands
    node = await cluster.client.get(NODES, name="node-1")
    node["metadata"].setdefault("annotations", {})["fakeapi.dev/fault-prepare"] = (
        "default/b=fail:annotated")
    await cluster.client.update(NODES, body=node)
    await start_pod_with_claim(cluster, "b")
    (message, *_) = await eventually(lambda: warnings(cluster, "b"), timeout=WAIT)
    assert message.endswith("NodePrepareResources failed for ResourceClaim b: annotated")
    await cluster.client.patch(
        NODES, name="node-1", patch={"metadata": {"annotations": {
            "fakeapi.dev/fault-prepare": None}}}, patch_type="merge")
    await eventually(lambda: _is(phase(cluster, "b"), "Running"), timeout=WAIT)


def test_driver_check_passes_the_example_driver_and_fails_a_broken_one() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "driver-check", "--timeout", "10", COMMAND],
        capture_output=True, text=True, timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "11 passed, 0 failed, 0 skipped" in ok.stdout
    broken = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "driver-check", "--timeout", "3",
         COMMAND + " --broken"],
        capture_output=True, text=True, timeout=120,
    )
    assert broken.returncode == 1
    table = broken.stdout.split("\n\n", 1)[0].splitlines()[1:]
    rows = {name: (result, detail) for name, result, detail in
            ([*re.split(r"\s{2,}", line, maxsplit=2), "", ""][:3] for line in table)}
    assert rows["pool consistency"] == (
        "FAIL", "pool node-1: resourceSliceCount ['2'] but 1 slice(s)")
    assert rows["prepare idempotency"][0] == "FAIL"
    assert rows["prepare idempotency"][1].endswith(": claim is already prepared")
    assert rows["unprepare unknown claim"][0] == "FAIL"
    assert rows["health stream"] == ("SKIP", "the driver implements no health service")
    assert rows["registration"][0] == "PASS"


async def test_a_profile_with_a_command_runs_that_driver_beside_the_simulated_ones(
    root: Path,
) -> None:
    profile = root / "nic-driver.yaml"
    command = COMMAND.replace(f"--driver {DRIVER}", "--driver nic.example.com")
    profile.write_text(
        f"driver: nic.example.com\ncommand: {json.dumps(command)}\n"
        "nodeLabels: {example.com/fabric: a}\n"
    )
    async with Cluster(nodes=1, profiles=["gpu", str(profile)], stages="fast") as made:
        # started means every node published every profile's slices: the real driver's too
        listed = await made.client.list(RESOURCE_SLICES)
        drivers = sorted({s["spec"]["driver"] for s in listed.items})
        assert drivers == ["gpu.example.com", "nic.example.com"]
        assert await made.client.get(DEVICE_CLASSES, name="nic.example.com")
        node = await made.client.get(NODES, name="node-1")
        assert node["metadata"]["labels"]["example.com/fabric"] == "a"
        assert list(made.kubelets["node-1"].profiles) == ["gpu.example.com"]
        assert made.url  # the driver got a kubeconfig: the cluster serves HTTP for it
