"""Container rules of upstream's ValidatePod: resources, ports and env, with upstream's messages."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions
from fakeapi.resources import default_resources

POD = next(rt for rt in default_resources() if rt.kind == "Pod")
C0 = "spec.containers[0]"


def _pod(**container: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1", **container}]},
    }


def _causes(body: dict[str, Any]) -> list[str]:
    registry = new_registry(clock=FakeClock())
    with pytest.raises(StatusError) as caught:
        registry.create(POD, "default", body, WriteOptions(field_manager="tests"))
    assert caught.value.code == 422
    details = caught.value.details or {}
    return [f"{c['field']}: {c['message']}" for c in details["causes"]]


def _accepted(body: dict[str, Any]) -> dict[str, Any]:
    registry = new_registry(clock=FakeClock())
    created: dict[str, Any] = registry.create(
        POD, "default", body, WriteOptions(field_manager="tests")
    ).obj
    return created


class TestResources:
    def test_a_request_above_its_limit_is_invalid(self) -> None:
        body = _pod(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})
        assert _causes(body) == [
            f'{C0}.resources.requests: Invalid value: "2": must be less than or equal to cpu '
            "limit of 1"
        ]

    def test_quantities_are_compared_and_printed_canonically(self) -> None:
        body = _pod(resources={"requests": {"memory": "2048Mi"}, "limits": {"memory": "1Gi"}})
        assert _causes(body) == [
            f'{C0}.resources.requests: Invalid value: "2Gi": must be less than or equal to '
            "memory limit of 1Gi"
        ]

    def test_a_request_equal_to_its_limit_is_fine(self) -> None:
        body = _pod(resources={"requests": {"cpu": "1000m"}, "limits": {"cpu": "1"}})
        assert _accepted(body)["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1"}

    def test_extended_resources_need_equal_limits(self) -> None:
        body = _pod(
            resources={"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}}
        )
        assert _causes(body) == [
            f'{C0}.resources.requests: Invalid value: "1": must be equal to example.com/gpu '
            "limit of 2"
        ]

    def test_extended_resources_are_whole_numbers(self) -> None:
        body = _pod(resources={"limits": {"example.com/gpu": "500m"}})
        expected = f'{C0}.resources.limits[example.com/gpu]: Invalid value: "500m": must be an '
        assert expected + "integer" in _causes(body)

    def test_negative_amounts_are_invalid_also_in_the_defaulted_request(self) -> None:
        body = _pod(resources={"limits": {"cpu": "-1"}})
        assert _causes(body) == [
            f'{C0}.resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
            f'{C0}.resources.requests[cpu]: Invalid value: "-1": must be greater than or equal '
            "to 0",
        ]

    def test_unknown_unqualified_resources_are_not_standard(self) -> None:
        body = _pod(resources={"requests": {"gpu": "1"}})
        assert _causes(body) == [
            f'{C0}.resources.requests[gpu]: Invalid value: "gpu": must be a standard resource '
            "for containers"
        ]


class TestPorts:
    def test_a_port_needs_a_number(self) -> None:
        assert _causes(_pod(ports=[{"name": "http"}])) == [
            f"{C0}.ports[0].containerPort: Required value"
        ]

    def test_port_names_are_iana_service_names_and_unique(self) -> None:
        body = _pod(
            ports=[
                {"name": "web", "containerPort": 80},
                {"name": "web", "containerPort": 81},
                {"name": "Web_1", "containerPort": 82},
            ]
        )
        assert _causes(body) == [
            f'{C0}.ports[1].name: Duplicate value: "web"',
            f'{C0}.ports[2].name: Invalid value: "Web_1": must contain only alpha-numeric '
            "characters (a-z, 0-9), and hyphens (-)",
        ]

    def test_host_ports_are_port_numbers(self) -> None:
        body = _pod(ports=[{"containerPort": 80, "hostPort": 70000}])
        assert _causes(body) == [
            f"{C0}.ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive"
        ]


class TestEnv:
    def test_env_names_are_required_and_printable_without_equals(self) -> None:
        body = _pod(env=[{"value": "x"}, {"name": "A=B", "value": "y"}])
        assert _causes(body) == [
            f"{C0}.env[0].name: Required value",
            f'{C0}.env[1].name: Invalid value: "A=B": a valid environment variable name must '
            "consist only of printable ASCII characters other than '='",
        ]

    def test_value_and_value_from_exclude_each_other(self) -> None:
        source = {"fieldRef": {"fieldPath": "metadata.name"}}
        body = _pod(env=[{"name": "A", "value": "x", "valueFrom": source}])
        assert _causes(body) == [
            f'{C0}.env[0].valueFrom: Invalid value: "": may not be specified when `value` is not '
            "empty"
        ]

    def test_dotted_names_are_accepted(self) -> None:
        body = _pod(env=[{"name": "my.setting", "value": "1"}])
        assert _accepted(body)["spec"]["containers"][0]["env"][0]["name"] == "my.setting"
