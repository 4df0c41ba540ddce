"""A fault annotation the kubelet cannot obey is reported, not silently dropped: what can be read
is applied, and each problem becomes a Warning event on the Node."""

from __future__ import annotations

import pytest

from fakeapi.client import EVENTS, NODES
from fakeapi.kubelet.faults import faults_from_node

from .conftest import Cluster


def _node(**annotations: str) -> dict[str, object]:
    return {"metadata": {"name": "node-1", "annotations": annotations}}


@pytest.mark.parametrize(
    ("annotations", "problems"),
    [
        ({"fakeapi.dev/fault-unhealthy-devices": "gpu.example.com/gpu-0=ECC errors"}, ()),
        (
            {"fakeapi.dev/fault-unhealthy-devices": "gpu-0, gpu.example.com/gpu-1"},
            ("annotation fakeapi.dev/fault-unhealthy-devices: item 'gpu-0' is not "
             "<driver>/<device>[=<message>]; ignored",),
        ),
        (
            {"fakeapi.dev/fault-node-stopped": "yes"},
            ("annotation fakeapi.dev/fault-node-stopped: 'yes' is neither \"true\" nor "
             "\"false\"; the node is not stopped",),
        ),
        (
            {"fakeapi.dev/fault-unhealthy-device": "gpu.example.com/gpu-0"},
            ("annotation fakeapi.dev/fault-unhealthy-device: not a fault annotation (known: "
             "fakeapi.dev/fault-unhealthy-devices, fakeapi.dev/fault-silenced-drivers, "
             "fakeapi.dev/fault-stopped-drivers, fakeapi.dev/fault-node-stopped, "
             "fakeapi.dev/fault-prepare, fakeapi.dev/fault-unprepare)",),
        ),
        (
            {"fakeapi.dev/fault-prepare": "default/c=explode, nope=fail:x, default/d=fail"},
            ("annotation fakeapi.dev/fault-prepare: item 'default/c=explode': unknown call "
             "fault 'explode' (fail[:message] or delay:<seconds>); ignored",
             "annotation fakeapi.dev/fault-prepare: item 'nope=fail:x' is not "
             "<namespace>/<claim>=<fault>; ignored"),
        ),
        ({"fakeapi.dev/fault-node-stopped": "False", "example.com/other": "x"}, ()),
    ],
)
def test_problems_name_the_annotation_and_what_is_wrong(
    annotations: dict[str, str], problems: tuple[str, ...]
) -> None:
    assert faults_from_node(_node(**annotations)).problems == problems


def test_the_readable_part_of_an_annotation_still_applies() -> None:
    faults = faults_from_node(
        _node(**{"fakeapi.dev/fault-unhealthy-devices": "gpu-0,gpu.example.com/gpu-1=hot"})
    )
    assert faults.unhealthy == {("gpu.example.com", "gpu-1"): "hot"}


async def _warnings(cluster: Cluster) -> list[str]:
    events = (await cluster.client.list(EVENTS, namespace="default")).items
    return sorted(
        str(e.get("message")) for e in events
        if e.get("reason") == "InvalidFaultAnnotation" and e.get("type") == "Warning"
        and (e.get("involvedObject") or {}).get("kind") == "Node"
    )


async def test_a_malformed_fault_annotation_is_a_warning_event_on_the_node(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    await cluster.client.patch(NODES, name="node-1", patch={"metadata": {
        "annotations": {"fakeapi.dev/fault-unhealthy-devices": "gpu-0,nic.example.com/nic-0",
                        "fakeapi.dev/fault-stopped-drivers": "gpu.example.com"}}})

    async def warned() -> list[str]:
        return await _warnings(cluster)

    warnings = await cluster.eventually(warned, seconds=5)
    assert warnings == [
        "annotation fakeapi.dev/fault-unhealthy-devices: DRA driver nic.example.com does not "
        "run on node node-1 (drivers: gpu.example.com)",
        "annotation fakeapi.dev/fault-unhealthy-devices: item 'gpu-0' is not "
        "<driver>/<device>[=<message>]; ignored",
    ]
    # the well-formed part is obeyed: the gpu driver is stopped
    [kubelet] = cluster.kubelets

    async def stopped() -> bool:
        return not kubelet.drivers["gpu.example.com"].running

    await cluster.eventually(stopped, seconds=5)
