"""The pure pieces behind the kubelet's pod status: crash-loop back-off, the status patch, the
CrashLoopBackOff step and a device's resourceID."""

from __future__ import annotations

import pytest

from fakeapi.client import PODS
from fakeapi.kubelet import default_stages
from fakeapi.kubelet.backoff import CrashLoopBackOff, go_duration
from fakeapi.kubelet.dra.health import AllocatedDevice
from fakeapi.kubelet.podstatus import status_patch
from fakeapi.kubelet.steps import StageContext, apply_steps

from .conftest import Cluster

UID = "0f7e3b8e-4c7e-4d0a-9d55-1b2c3d4e5f60"


@pytest.mark.parametrize(("seconds", "text"), [
    (10, "10s"), (20, "20s"), (40, "40s"), (80, "1m20s"), (160, "2m40s"), (300, "5m0s"),
    (3600, "1h0m0s"), (1.5, "1.5s"),
])
def test_delays_are_printed_as_go_durations(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


def test_back_off_doubles_per_container_up_to_five_minutes() -> None:
    back_off = CrashLoopBackOff()
    app, proxy = ("uid", "app", "img"), ("uid", "proxy", "img")
    assert not back_off.in_back_off_since(app, 0.0, now=0.0)  # the first failure: at once
    now = 0.0
    delays = []
    for _ in range(7):
        back_off.next(app, now, now=now)  # restarted now, fails again 5 s later
        now += 5
        delays.append(back_off.get(app))
        assert back_off.in_back_off_since(app, now, now=now)
        now += back_off.get(app)
        assert not back_off.in_back_off_since(app, now - back_off.get(app), now=now)
    assert delays == [10, 20, 40, 80, 160, 300, 300]
    assert back_off.get(proxy) == 0 and not back_off.in_back_off_since(proxy, now, now=now)


def test_a_run_longer_than_ten_minutes_resets_the_back_off() -> None:
    back_off = CrashLoopBackOff()
    key = ("uid", "app", "img")
    back_off.next(key, 0.0, now=0.0)
    back_off.next(key, 15.0, now=25.0)
    assert back_off.get(key) == 20
    assert back_off.in_back_off_since(key, 625.0, now=626.0)  # ran exactly 600 s: still
    assert not back_off.in_back_off_since(key, 625.5, now=626.0)  # ran longer
    back_off.next(key, 625.5, now=626.0)
    assert back_off.get(key) == 10


def test_status_patch_clears_the_reason_a_true_condition_lost() -> None:
    current = {"phase": "Running", "conditions": [
        {"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
         "message": "containers with unready status: [app]"},
    ]}
    new = {"phase": "Running", "conditions": [
        {"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "True"},
    ]}
    assert status_patch(current, new) == {"conditions": [
        {"type": "Ready", "status": "True", "reason": None, "message": None}]}
    assert status_patch(current, current) == {}


async def test_status_patch_removes_the_stale_reason_on_the_server(cluster: Cluster) -> None:
    await cluster.client.create(PODS, namespace="default", body={
        "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}})
    stale = {"type": "Ready", "status": "False", "reason": "PodCompleted"}
    await cluster.client.patch(PODS, namespace="default", name="web", subresource="status",
                               patch_type="strategic", patch={"status": {"conditions": [stale]}})
    pod = await cluster.pod("web")
    assert pod is not None
    current = pod["status"]
    ready = {"type": "Ready", "status": "True"}
    new = {**current, "conditions": [ready if c["type"] == "Ready" else c
                                     for c in current["conditions"]]}
    await cluster.client.patch(PODS, namespace="default", name="web", subresource="status",
                               patch_type="strategic", patch={"status": status_patch(current, new)})
    patched = await cluster.pod("web")
    assert patched is not None
    (after,) = [c for c in patched["status"]["conditions"] if c["type"] == "Ready"]
    assert after["status"] == "True" and "reason" not in after


def test_a_failed_container_in_back_off_waits_with_upstreams_message() -> None:
    (restart,) = [s for s in default_stages() if s.name == "container-restart-always"]
    failed = {"exitCode": 1, "reason": "Error", "startedAt": "2026-01-01T00:00:01Z",
              "finishedAt": "2026-01-01T00:00:06Z"}
    pod = {"metadata": {"name": "web", "namespace": "default", "uid": UID},
           "spec": {"restartPolicy": "Always",
                    "containers": [{"name": "app", "image": "registry.example/app:1.0"}]},
           "status": {"phase": "Running", "podIP": "10.64.0.5", "containerStatuses": [{
               "name": "app", "image": "registry.example/app:1.0", "ready": False,
               "restartCount": 1, "started": False, "state": {"terminated": failed}}]}}
    ctx = StageContext(now="2026-01-01T00:00:07Z", node_name="node-1", host_ip="172.18.0.2",
                       pod_ip="10.64.0.5", back_off={"app": (20.0, 19.0)})
    outcome = apply_steps(pod, restart, ctx)
    (app,) = outcome.status["containerStatuses"]
    assert app["state"] == {"waiting": {"reason": "CrashLoopBackOff", "message": (
        f"back-off 20s restarting failed container=app pod=web_default({UID})")}}
    assert app["lastState"] == {"terminated": failed}
    assert (app["restartCount"], app["ready"], app["started"]) == (1, False, False)
    assert [(e["reason"], e["note"]) for e in outcome.events] == [
        ("BackOff", f"Back-off restarting failed container app in pod web_default({UID})")]


def test_resource_id_is_the_first_cdi_device_id_else_driver_pool_device() -> None:
    device = AllocatedDevice(claim="gpu", request="gpu", driver="gpu.example.com",
                             pool="node-1", device="gpu-3", containers=(),
                             cdi_device_ids=("k8s.gpu.example.com/gpu=gpu-3",))
    assert device.status_id == "k8s.gpu.example.com/gpu=gpu-3"
    assert device.resource_id == "gpu.example.com/node-1/gpu-3"  # the health cache's key
    bare = AllocatedDevice(claim="gpu", request="gpu", driver="gpu.example.com",
                           pool="node-1", device="gpu-3", containers=())
    assert bare.status_id == "gpu.example.com/node-1/gpu-3"


def test_pod_deleted_while_backing_off_ends_with_its_last_termination() -> None:
    """A finished pod's containers are not restarted: the one waiting in CrashLoopBackOff shows
    its last termination again; one that never ran is reported as TerminatePod reports it."""
    (delete,) = [s for s in default_stages() if s.name == "pod-delete"]
    failed = {"exitCode": 1, "reason": "Error", "startedAt": "2026-01-01T00:00:01Z",
              "finishedAt": "2026-01-01T00:00:06Z"}
    waiting = {"reason": "CrashLoopBackOff", "message": "back-off 10s restarting failed …"}
    pod = {"metadata": {"name": "web", "namespace": "default", "uid": UID,
                        "deletionTimestamp": "2026-01-01T00:00:08Z"},
           "spec": {"restartPolicy": "Always", "containers": [
               {"name": "app", "image": "registry.example/app:1.0"},
               {"name": "late", "image": "registry.example/late:1.0"}]},
           "status": {"phase": "Running", "containerStatuses": [
               {"name": "app", "image": "registry.example/app:1.0", "ready": False,
                "restartCount": 1, "started": False, "state": {"waiting": waiting},
                "lastState": {"terminated": failed}},
               {"name": "late", "image": "registry.example/late:1.0", "ready": False,
                "restartCount": 0, "started": False,
                "state": {"waiting": {"reason": "ContainerCreating"}}}]}}
    ctx = StageContext(now="2026-01-01T00:00:09Z", node_name="node-1", host_ip="172.18.0.2",
                       pod_ip="")
    outcome = apply_steps(pod, delete, ctx)
    app, late = outcome.status["containerStatuses"]
    assert app["state"] == {"terminated": failed} and "lastState" not in app
    assert late["state"] == {"terminated": {
        "exitCode": 137, "reason": "ContainerStatusUnknown",
        "message": "The container could not be located when the pod was terminated"}}
    assert outcome.status["phase"] == "Failed"
    assert outcome.events == []  # nothing was running: nothing to stop
