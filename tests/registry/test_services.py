"""Services: upstream's defaults, allocated virtual IPs and node ports, validation, the
``kubernetes`` Service, and what ``kubectl get svc`` prints."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import SERVICES, Client, StatusError
from fakeapi.clock import FakeClock
from fakeapi.server.inprocess import InProcessTransport


@pytest.fixture
def user() -> Client:
    return Client(InProcessTransport(new_registry(clock=FakeClock())), field_manager="test")


def _service(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"selector": {"app": name}, **spec}}


async def test_a_fresh_cluster_has_the_kubernetes_service(user: Client) -> None:
    service = await user.get(SERVICES, namespace="default", name="kubernetes")
    spec = service["spec"]
    assert (spec["clusterIP"], spec["clusterIPs"], spec["type"]) == (
        "10.96.0.1", ["10.96.0.1"], "ClusterIP")
    assert spec["ports"] == [{"name": "https", "port": 443, "protocol": "TCP",
                              "targetPort": 6443}]
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}


async def test_a_service_gets_upstreams_defaults_and_a_free_virtual_ip(user: Client) -> None:
    first = await user.create(SERVICES, namespace="default", body=_service(
        "web", ports=[{"port": 80}]))
    second = await user.create(SERVICES, namespace="default", body=_service(
        "api", ports=[{"port": 80}]))
    spec = first["spec"]
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert (spec["type"], spec["sessionAffinity"], spec["internalTrafficPolicy"]) == (
        "ClusterIP", "None", "Cluster")
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    assert first["status"] == {"loadBalancer": {}}
    ips = {spec["clusterIP"], second["spec"]["clusterIP"], "10.96.0.1"}
    assert len(ips) == 3, "every service its own address"
    assert all(ipaddress.ip_address(ip) in ipaddress.ip_network("10.96.0.0/12") for ip in ips)
    assert spec["clusterIPs"] == [spec["clusterIP"]]


async def test_a_headless_service_has_no_virtual_ip(user: Client) -> None:
    service = await user.create(SERVICES, namespace="default", body=_service(
        "workers", clusterIP="None"))
    assert service["spec"]["clusterIPs"] == ["None"]
    assert "ports" not in service["spec"]


async def test_node_ports_are_allocated_and_a_taken_one_refused(user: Client) -> None:
    service = await user.create(SERVICES, namespace="default", body=_service(
        "nodes", type="NodePort", ports=[{"port": 80}]))
    [port] = service["spec"]["ports"]
    assert 30000 <= port["nodePort"] <= 32767
    assert service["spec"]["externalTrafficPolicy"] == "Cluster"
    with pytest.raises(StatusError) as caught:
        await user.create(SERVICES, namespace="default", body=_service(
            "again", type="NodePort", ports=[{"port": 81, "nodePort": port["nodePort"]}]))
    assert caught.value.code == 422
    assert caught.value.message == (
        f'Service "again" is invalid: spec.ports[0].nodePort: Invalid value: {port["nodePort"]}: '
        "provided port is already allocated")


async def test_a_virtual_ip_asked_for_must_be_free_and_in_range(user: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await user.create(SERVICES, namespace="default", body=_service(
            "copy", clusterIP="10.96.0.1", ports=[{"port": 80}]))
    assert caught.value.message.endswith(
        "failed to allocate IP 10.96.0.1: provided IP is already allocated")
    with pytest.raises(StatusError) as caught:
        await user.create(SERVICES, namespace="default", body=_service(
            "far", clusterIP="192.168.0.10", ports=[{"port": 80}]))
    assert caught.value.message.endswith(
        "failed to allocate IP 192.168.0.10: provided IP is not in the valid range. The range of "
        "valid IPs is 10.96.0.0/12")
    chosen = await user.create(SERVICES, namespace="default", body=_service(
        "chosen", clusterIP="10.96.0.10", ports=[{"port": 80}]))
    assert chosen["spec"]["clusterIPs"] == ["10.96.0.10"]


@pytest.mark.parametrize(("spec", "message"), [
    ({}, "spec.ports: Required value"),
    ({"ports": [{"port": 80, "nodePort": 30080}]},
     "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"),
    ({"ports": [{"port": 80}, {"port": 81, "name": "b"}]}, "spec.ports[0].name: Required value"),
    ({"ports": [{"port": 70000, "targetPort": 8080}]},
     "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ({"ports": [{"port": 80, "protocol": "HTTP"}]},
     'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", '
     '"UDP"'),
    ({"type": "ExternalName"}, "spec.externalName: Required value"),
])
async def test_an_invalid_service_is_refused_with_upstreams_words(
    user: Client, spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(StatusError) as caught:
        await user.create(SERVICES, namespace="default", body=_service("bad", **spec))
    assert caught.value.code == 422
    assert caught.value.message == f'Service "bad" is invalid: {message}'


async def test_an_update_keeps_the_allocated_ip_and_node_ports_and_never_moves_them(
    user: Client,
) -> None:
    created = await user.create(SERVICES, namespace="default", body=_service(
        "keep", type="NodePort", ports=[{"port": 80}]))
    body = _service("keep", type="NodePort", ports=[{"port": 80}])  # a PUT without them
    body["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    updated = await user.update(SERVICES, body=body, namespace="default")
    assert updated["spec"]["clusterIP"] == created["spec"]["clusterIP"]
    assert updated["spec"]["ports"][0]["nodePort"] == created["spec"]["ports"][0]["nodePort"]
    moved = {**updated, "spec": {**updated["spec"], "clusterIP": "10.96.0.99"}}
    with pytest.raises(StatusError) as caught:
        await user.update(SERVICES, body=moved, namespace="default")
    assert 'spec.clusterIPs[0]: Invalid value: "10.96.0.99": may not change once set' in (
        caught.value.message)


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("a.b", "must not contain dots"),
        ("s" * 64, "must be no more than 63 characters"),
    ],
)
async def test_a_service_name_is_a_dns_label(user: Client, name: str, detail: str) -> None:
    with pytest.raises(StatusError) as refused:
        await user.create(SERVICES, namespace="default", body=_service(name))
    assert refused.value.code == 422
    assert f'metadata.name: Invalid value: "{name}": {detail}' in refused.value.message
