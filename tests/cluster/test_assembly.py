"""The assembler builds any cluster a test needs: chosen components, started when the test says,
in-process or over HTTP, with options of their own — and kubelets on named nodes."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import (
    CONFIGMAPS,
    NAMESPACES,
    NODES,
    PODS,
    RESOURCE_SLICES,
    HttpTransport,
)
from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster
from fakeapi.cluster.components import ComponentContext
from fakeapi.server.inprocess import InProcessTransport

Obj = dict[str, Any]


async def _doomed_namespace(cluster: Cluster) -> None:
    await cluster.create_namespace("doomed")
    await cluster.client.create(CONFIGMAPS, namespace="doomed", body={"metadata": {"name": "c"}})
    await cluster.client.delete(NAMESPACES, name="doomed")


async def _gone(cluster: Cluster) -> bool:
    names = {n["metadata"]["name"] for n in (await cluster.client.list(NAMESPACES)).items}
    return "doomed" not in names


def _node(name: str) -> Obj:
    capacity = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, *, scheduler: str = "default-scheduler") -> Obj:
    return {"metadata": {"name": name},
            "spec": {"schedulerName": scheduler,
                     "containers": [{"name": "app", "image": "registry.example/app:1"}]}}


async def _bound(cluster: Cluster, name: str) -> str | None:
    pod = await cluster.client.get(PODS, namespace="default", name=name)
    node: str | None = pod["spec"].get("nodeName")
    return node


async def test_a_component_started_later_acts_on_what_was_written_before_it() -> None:
    async with Cluster(components=(), clock="fake") as cluster:
        await _doomed_namespace(cluster)
        assert cluster.controller_manager is None
        await cluster.start_component("controllers", controllers=["namespace-controller"])
        assert cluster.controller_manager is not None
        assert cluster.controller_manager.names == ["namespace-controller"]
        await eventually(lambda: _gone(cluster))


@pytest.mark.parametrize(("transport", "kind"), [("inprocess", InProcessTransport),
                                                 ("http", HttpTransport)])
async def test_components_talk_to_the_api_over_the_chosen_transport(
    transport: str, kind: type
) -> None:
    async with Cluster(components=("scheduler",), profiles=(), transport=transport) as cluster:
        assert cluster.scheduler is not None
        assert isinstance(cluster.scheduler.client.transport, kind)
        assert isinstance(cluster.client.transport.inner, InProcessTransport)  # the test's
        assert (cluster.server is not None) == (transport == "http")
        await cluster.apply_yaml(_node("node-1"))
        await cluster.client.create(PODS, namespace="default", body=_pod("web"))
        assert await eventually(lambda: _bound(cluster, "web")) == "node-1"


async def test_component_options_reach_the_component_and_options_at_start_win() -> None:
    options = {"scheduler": {"scheduler_name": "gpu-scheduler"}}
    async with Cluster(components=("scheduler",), profiles=(),
                       component_options=options) as cluster:
        await cluster.apply_yaml(_node("node-1"))
        await cluster.client.create(PODS, namespace="default",
                                    body=_pod("mine", scheduler="gpu-scheduler"))
        assert await eventually(lambda: _bound(cluster, "mine")) == "node-1"
    async with Cluster(components=(), component_options=options) as cluster:
        await cluster.start_component("scheduler", scheduler_name="other-scheduler")
        assert cluster.scheduler is not None
        assert cluster.scheduler.scheduler_name == "other-scheduler"


async def test_an_option_cannot_replace_what_the_assembler_gives_a_component() -> None:
    async with Cluster(components=()) as cluster:
        with pytest.raises(TypeError, match="client: the assembler gives every component"):
            await cluster.start_component("scheduler", client=cluster.client)


async def test_a_component_runs_once_and_only_on_a_started_cluster() -> None:
    cluster = Cluster(components=())
    with pytest.raises(RuntimeError, match="needs a started cluster"):
        await cluster.start_component("scheduler")
    async with cluster:
        await cluster.start_component("scheduler")
        with pytest.raises(RuntimeError, match="scheduler already runs"):
            await cluster.start_component("scheduler")
        with pytest.raises(ValueError, match=r"component\(s\) gizmo not available"):
            await cluster.start_component("gizmo")


async def test_option_feature_gates_merge_over_the_components_gates() -> None:
    async with Cluster(components=(), profiles=(), clock="fake",
                       feature_gates={"DRADeviceTaints": True},
                       component_feature_gates={"kubelets": {"DRAAdminAccess": False}}) as cluster:
        kubelet = await cluster.add_kubelet("node-1", wait=False,
                                            feature_gates={"ResourceHealthStatus": False})
        assert {gate: kubelet.feature_gates[gate] for gate in
                ("DRADeviceTaints", "DRAAdminAccess", "ResourceHealthStatus")} == {
            "DRADeviceTaints": True, "DRAAdminAccess": False, "ResourceHealthStatus": False}


async def test_add_kubelet_starts_a_named_node_with_its_drivers_and_waits_until_ready() -> None:
    async with Cluster(components=(), clock="fake") as cluster:
        kubelet = await cluster.add_kubelet("worker-a", drivers=["partitionable"],
                                            labels={"zone": "a"})
        assert cluster.kubelets == {"worker-a": kubelet}
        node = await cluster.client.get(NODES, name="worker-a")
        assert node["metadata"]["labels"]["zone"] == "a"
        slices = (await cluster.client.list(RESOURCE_SLICES)).items
        assert {(s["spec"]["nodeName"], s["spec"]["driver"]) for s in slices} == {
            ("worker-a", "mig.example.com")}
        # the kubelet writes as itself, over its own client
        assert kubelet.client is not cluster.client
        assert kubelet.client.field_manager == "kubelet"


async def test_a_stopped_kubelets_node_may_get_a_new_one_but_not_a_running_one() -> None:
    async with Cluster(components=(), profiles=(), clock="fake") as cluster:
        first = await cluster.add_kubelet("node-1", wait=False)
        with pytest.raises(RuntimeError, match="node node-1 already has a running kubelet"):
            await cluster.add_kubelet("node-1", wait=False)
        await first.stop()
        second = await cluster.add_kubelet("node-1", wait=False)
        assert cluster.kubelets["node-1"] is second
        await cluster.stop_component("kubelets")
        assert not second.running


async def test_informers_start_over_only_when_no_component_uses_them() -> None:
    async with Cluster(components=("controllers",), controllers=["namespace-controller"],
                       profiles=()) as cluster:
        with pytest.raises(RuntimeError, match="controllers still use the informers"):
            await cluster.reset_informers()
        old = cluster.informers
        await cluster.stop_component("controllers")
        await _doomed_namespace(cluster)
        await cluster.reset_informers()
        assert cluster.informers is not old
        await cluster.start_component("controllers")
        assert cluster.controller_manager is not None
        assert cluster.controller_manager.informers is cluster.informers
        await eventually(lambda: _gone(cluster))


async def test_a_restarted_scheduler_schedules_again_into_the_same_metrics() -> None:
    async with Cluster(profiles=("gpu",), nodes=1) as cluster:
        await cluster.stop_component("scheduler")
        await cluster.start_component("scheduler")
        pod = {"metadata": {"name": "p"},
               "spec": {"containers": [{"name": "c", "image": "example/app"}]}}
        await cluster.client.create(PODS, namespace="default", body=pod)
        await cluster.wait_for("pods", "p", jsonpath="{.spec.nodeName}=node-1")
        scheduled = cluster.metrics.get_sample_value(
            "scheduler_schedule_attempts_total",
            {"result": "scheduled", "profile": "default-scheduler"})
        assert scheduled == 1


def test_an_unknown_transport_or_component_option_is_an_error() -> None:
    with pytest.raises(ValueError, match="transport must be 'inprocess' or 'http', not 'grpc'"):
        Cluster(transport="grpc")
    with pytest.raises(ValueError, match=r"component_options names unknown component\(s\) gizmo"):
        Cluster(component_options={"gizmo": {}})


def test_the_context_is_all_a_component_is_given() -> None:
    fields = set(ComponentContext.__dataclass_fields__)
    assert fields == {"name", "client", "informers", "clock", "rng", "feature_gates", "metrics",
                      "url", "kubeconfig", "supervisor"}
