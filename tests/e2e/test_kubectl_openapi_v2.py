"""What real kubectl reads ``/openapi/v2`` for: validating a ``kind: List`` and ``explain -o
plaintext-openapiv2``.

kubectl validates a List on the client whatever the server offers: it fetches the v2 document
as protobuf, looks up each item's schema by its group-version-kind and checks the item against
it before sending anything. Without the endpoint every List apply fails with ``the server could
not find the requested resource``.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.e2e


def _list(namespace: str, *, config_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    config_map: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": namespace},
        "data": {"mode": "fast"},
        **(config_extra or {}),
    }
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "gpu-template", "namespace": namespace},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
                    ]
                }
            }
        },
    }
    return {"apiVersion": "v1", "kind": "List", "items": [config_map, template]}


def test_apply_of_a_list_creates_every_item(kubectl):
    path = kubectl.write("list.yaml", _list(kubectl.namespace))
    out = kubectl("apply", "-f", str(path))
    assert out.splitlines() == [
        "configmap/settings created",
        "resourceclaimtemplate.resource.k8s.io/gpu-template created",
    ]
    assert kubectl("get", "configmap/settings", "-o", "jsonpath={.data.mode}") == "fast"
    name = kubectl("get", "resourceclaimtemplates", "-o", "jsonpath={.items[*].metadata.name}")
    assert name == "gpu-template"


def test_create_and_replace_of_a_list_validate_it_too(kubectl):
    path = kubectl.write("list.yaml", _list(kubectl.namespace))
    assert "configmap/settings created" in kubectl("create", "-f", str(path))
    assert "configmap/settings replaced" in kubectl("replace", "-f", str(path))


def test_what_get_prints_as_a_list_applies_again(kubectl):
    """``kubectl get ... -o yaml | kubectl apply -f -``: whole objects, status and all."""
    kubectl("apply", "-f", str(kubectl.write("list.yaml", _list(kubectl.namespace))))
    kubectl("run", "web", "--image=nginx", "--labels=app=web")
    printed = kubectl("get", "configmaps,resourceclaimtemplates,pods", "-o", "yaml")
    assert yaml.safe_load(printed)["kind"] == "List"
    out = kubectl("apply", "-f", "-", stdin=printed)
    assert "configmap/settings configured" in out or "configmap/settings unchanged" in out
    assert "pod/web" in out


def test_a_list_item_that_breaks_the_schema_is_refused_before_anything_is_sent(kubectl):
    path = kubectl.write("list.yaml", _list(kubectl.namespace, config_extra={"bogus": 1}))
    result = kubectl.run("apply", "-f", str(path), check=False)
    assert result.returncode == 1
    assert (
        'ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap'
        in result.stderr
    )
    # nothing was created, not even the valid item
    assert kubectl("get", "configmaps,resourceclaimtemplates", "-o", "name") == ""


def test_explain_with_the_openapi_v2_renderer_prints_the_pod_spec(kubectl):
    out = kubectl("explain", "pods.spec", "--output=plaintext-openapiv2", namespaced=False)
    lines = [line.strip() for line in out.splitlines()]
    assert lines[:2] == ["KIND:     Pod", "VERSION:  v1"]
    assert "RESOURCE: spec <Object>" in lines
    assert "containers\t<[]Object> -required-" in lines
    assert "nodeName\t<string>" in lines


def test_explain_with_the_openapi_v2_renderer_reaches_dra_fields(kubectl):
    out = kubectl(
        "explain",
        "resourceclaimtemplates.spec.spec.devices.requests",
        "--output=plaintext-openapiv2",
        namespaced=False,
    )
    lines = [line.strip() for line in out.splitlines()]
    assert lines[:2] == ["KIND:     ResourceClaimTemplate", "VERSION:  resource.k8s.io/v1"]
    assert "name\t<string> -required-" in lines
    assert "exactly\t<Object>" in lines
