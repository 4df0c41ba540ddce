"""Real kubectl driving the DRA, workload and pod APIs of a running ``fakeapi serve``.

Covers what a user sees: ``explain`` for every new kind, ``apply`` of the KEP-5729 example
(Workload, PodGroup, ResourceClaimTemplate and a pod using the group's claim), the ResourceClaim
State column through allocation, the ResourceSlice columns and field selector, the refusal of
user-written ResourcePools, and the 422 texts kubectl prints for invalid claims.

The module's server is shared, so cluster-scoped objects (classes, slices) carry the test's
namespace in their names and drivers.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

RESOURCE = "resource.k8s.io/v1"
SCHEDULING = "scheduling.k8s.io/v1alpha1"


def _rows(table_text: str) -> list[list[str]]:
    return [line.split() for line in table_text.strip().splitlines()]


def _device_class(name: str, driver: str) -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE,
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
    }


def _claim(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": {"requests": list(requests)}},
    }


def _slice(name: str, *, driver: str, pool: str, node: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": "dev-0"}],
    }
    if node is None:
        spec["allNodes"] = True
    else:
        spec["nodeName"] = node
    return {"apiVersion": RESOURCE, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": spec}


# --- explain ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "kind", "group", "version"),
    [
        ("deviceclasses", "DeviceClass", "resource.k8s.io", "v1"),
        ("resourceclaims", "ResourceClaim", "resource.k8s.io", "v1"),
        ("resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io", "v1"),
        ("resourceslices", "ResourceSlice", "resource.k8s.io", "v1"),
        ("devicetaintrules", "DeviceTaintRule", "resource.k8s.io", "v1"),
        ("resourcepools", "ResourcePool", "resource.k8s.io", "v1beta2"),
        # the preferred version, 1.37's v1beta1, as kubectl picks it
        ("workloads", "Workload", "scheduling.k8s.io", "v1beta1"),
        ("podgroups", "PodGroup", "scheduling.k8s.io", "v1beta1"),
        ("resourcepoolstatusrequests", "ResourcePoolStatusRequest", "resource.k8s.io",
         "v1alpha3"),
    ],
)
def test_explain_prints_kind_version_group_and_fields(kubectl, resource, kind, group, version):
    out = kubectl("explain", resource, namespaced=False)
    header = {line.split(":")[0]: line.split()[-1] for line in out.splitlines()[:3]}
    assert header == {"GROUP": group, "KIND": kind, "VERSION": version}, out
    assert "DESCRIPTION:" in out and "FIELDS:" in out
    for field in ("apiVersion\t<string>", "kind\t<string>", "metadata\t<ObjectMeta>",
                  "spec\t<"):
        assert field in out, f"{field!r} missing from kubectl explain {resource}:\n{out}"


@pytest.mark.parametrize(
    ("target", "field_type", "children"),
    [
        ("resourceclaims.spec.devices.requests", "<[]DeviceRequest>",
         ["name\t<string> -required-", "exactly\t<ExactDeviceRequest>", "firstAvailable"]),
        ("podgroups.spec.resourceClaims", "<[]PodGroupResourceClaim>",
         ["name\t<string> -required-", "resourceClaimName\t<string>",
          "resourceClaimTemplateName\t<string>"]),
        ("pods.spec.resourceClaims", "<[]PodResourceClaim>",
         ["podGroupResourceClaim\t<string>", "resourceClaimTemplateName\t<string>"]),
    ],
)
def test_explain_descends_into_nested_dra_fields(kubectl, target, field_type, children):
    out = kubectl("explain", target, namespaced=False)
    assert f"FIELD: {target.rsplit('.', 1)[-1]} {field_type}" in out, out
    for child in children:
        assert child in out, f"{child!r} missing from kubectl explain {target}:\n{out}"


# --- the KEP-5729 example -----------------------------------------------------------------------


def _kep_5729_example(device_class: str, driver: str) -> list[dict[str, Any]]:
    """KEP-5729 (docs/keps.md): Workload, PodGroup, the template it names, a pod using its claim."""
    return [
        _device_class(device_class, driver),
        {
            "apiVersion": RESOURCE,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "pg-claim-template"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": device_class}},
            ]}}},
        },
        {
            "apiVersion": SCHEDULING,
            "kind": "Workload",
            "metadata": {"name": "my-workload"},
            "spec": {"podGroupTemplates": [{
                "name": "group-1",
                "policy": {"basic": {}},
                "resourceClaims": [
                    {"name": "pg-claim", "resourceClaimTemplateName": "pg-claim-template"},
                ],
            }]},
        },
        {
            "apiVersion": SCHEDULING,
            "kind": "PodGroup",
            "metadata": {"name": "my-podgroup-1"},
            "spec": {
                "workloadRef": {"name": "my-workload"},
                "podGroupTemplateRef": {"name": "group-1"},
                "resourceClaims": [
                    {"name": "pg-claim", "resourceClaimTemplateName": "pg-claim-template"},
                ],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "my-pod"},
            "spec": {
                "workloadRef": {"name": "my-workload", "podGroupName": "my-podgroup-1"},
                "resourceClaims": [{"name": "resource", "podGroupResourceClaim": "pg-claim"}],
                "containers": [{
                    "name": "c",
                    "image": "registry.example/app:1",
                    "resources": {"claims": [{"name": "resource"}]},
                }],
            },
        },
    ]


def test_apply_of_the_kep_5729_example_creates_every_object(kubectl):
    ns = kubectl.namespace
    device_class = f"gpu-{ns}.example.com"
    manifest = kubectl.write("kep5729.yaml", _kep_5729_example(device_class, f"{ns}.example.com"))
    out = kubectl("apply", "-f", str(manifest))
    assert out.splitlines() == [
        f"deviceclass.resource.k8s.io/{device_class} created",
        "resourceclaimtemplate.resource.k8s.io/pg-claim-template created",
        "workload.scheduling.k8s.io/my-workload created",
        "podgroup.scheduling.k8s.io/my-podgroup-1 created",
        "pod/my-pod created",
    ]

    listed = kubectl("get", "workloads,podgroups,resourceclaimtemplates,pods", "-o", "name")
    assert listed.split() == [
        "workload.scheduling.k8s.io/my-workload",
        "podgroup.scheduling.k8s.io/my-podgroup-1",
        "resourceclaimtemplate.resource.k8s.io/pg-claim-template",
        "pod/my-pod",
    ]
    assert _rows(kubectl("get", "podgroups"))[1][0] == "my-podgroup-1"
    assert device_class in kubectl("get", "deviceclasses", namespaced=False)

    # the seed fields survive the round trip
    pod = json.loads(kubectl("get", "pod", "my-pod", "-o", "json"))
    assert pod["spec"]["workloadRef"] == {"name": "my-workload", "podGroupName": "my-podgroup-1"}
    assert pod["spec"]["resourceClaims"] == [
        {"name": "resource", "podGroupResourceClaim": "pg-claim"},
    ]
    group = json.loads(kubectl("get", "podgroup", "my-podgroup-1", "-o", "json"))
    assert group["spec"]["resourceClaims"] == [
        {"name": "pg-claim", "resourceClaimTemplateName": "pg-claim-template"},
    ]
    workload = json.loads(kubectl("get", "workload", "my-workload", "-o", "json"))
    assert workload["spec"]["podGroupTemplates"][0]["resourceClaims"] == (
        group["spec"]["resourceClaims"]
    )

    again = kubectl("apply", "-f", str(manifest)).splitlines()
    assert "workload.scheduling.k8s.io/my-workload unchanged" in again
    assert "podgroup.scheduling.k8s.io/my-podgroup-1 unchanged" in again
    assert "pod/my-pod unchanged" in again


def test_podgroup_resource_claims_are_immutable(kubectl):
    ns = kubectl.namespace
    kubectl("apply", "-f", str(kubectl.write(
        "kep5729.yaml", _kep_5729_example(f"gpu-{ns}.example.com", f"{ns}.example.com"))))
    patch = {"spec": {"resourceClaims": [
        {"name": "pg-claim", "resourceClaimTemplateName": "other-template"},
    ]}}
    proc = kubectl.run("patch", "podgroup", "my-podgroup-1", "--type=merge",
                       "-p", json.dumps(patch), check=False)
    assert proc.returncode != 0
    assert proc.stderr.startswith('The PodGroup "my-podgroup-1" is invalid:'), proc.stderr
    assert "field is immutable" in proc.stderr


# --- ResourceClaim state ------------------------------------------------------------------------


def test_resourceclaim_state_column_goes_from_pending_to_allocated_reserved(kubectl):
    ns = kubectl.namespace
    device_class = f"gpu-{ns}.example.com"
    driver = f"{ns}.example.com"
    kubectl("create", "-f", str(kubectl.write("objs.yaml", [
        _device_class(device_class, driver),
        _claim("gpu-claim", {"name": "gpu", "exactly": {"deviceClassName": device_class}}),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
         "spec": {"containers": [{"name": "c", "image": "registry.example/app:1"}]}},
    ])))
    rows = _rows(kubectl("get", "resourceclaims"))
    assert rows[0] == ["NAME", "STATE", "AGE"]
    assert rows[1][:2] == ["gpu-claim", "pending"]

    pod_uid = json.loads(kubectl("get", "pod", "user", "-o", "json"))["metadata"]["uid"]
    status = {"status": {
        "allocation": {"devices": {"results": [
            {"request": "gpu", "driver": driver, "pool": "node-1", "device": "gpu-0"},
        ]}},
        "reservedFor": [{"resource": "pods", "name": "user", "uid": pod_uid}],
    }}
    out = kubectl("patch", "resourceclaim", "gpu-claim", "--subresource=status", "--type=merge",
                  "-p", json.dumps(status))
    assert out.strip() == "resourceclaim.resource.k8s.io/gpu-claim patched"
    assert _rows(kubectl("get", "resourceclaims"))[1][:2] == ["gpu-claim", "allocated,reserved"]

    claim = json.loads(kubectl("get", "resourceclaim", "gpu-claim", "-o", "json"))
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"
    assert claim["status"]["reservedFor"][0]["uid"] == pod_uid


def test_resourceclaim_status_patch_with_an_unknown_request_is_invalid(kubectl):
    kubectl("create", "-f", str(kubectl.write("claim.yaml", _claim(
        "gpu-claim", {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}))))
    status = {"status": {"allocation": {"devices": {"results": [
        {"request": "nope", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
    ]}}}}
    proc = kubectl.run("patch", "resourceclaim", "gpu-claim", "--subresource=status",
                       "--type=merge", "-p", json.dumps(status), check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        'The ResourceClaim "gpu-claim" is invalid: status.allocation.devices.results[0].request: '
        'Invalid value: "nope": must be the name of a request in the claim or the name of a '
        "request and a subrequest separated by '/'"
    )
    assert _rows(kubectl("get", "resourceclaims"))[1][:2] == ["gpu-claim", "pending"]


# --- ResourceSlices -----------------------------------------------------------------------------


def test_resourceslices_show_node_driver_pool_and_filter_by_driver(kubectl):
    ns = kubectl.namespace
    gpu, net = f"gpu.{ns}.example.com", f"net.{ns}.example.com"
    kubectl("create", "-f", str(kubectl.write("slices.yaml", [
        _slice(f"{ns}-node-1-gpu", driver=gpu, pool="node-1", node=f"{ns}-node-1"),
        _slice(f"{ns}-fabric", driver=net, pool="fabric", node=None),
    ])))
    rows = _rows(kubectl("get", "resourceslices", f"--field-selector=spec.driver={gpu}",
                         namespaced=False))
    assert rows == [
        ["NAME", "NODE", "DRIVER", "POOL", "AGE"],
        [f"{ns}-node-1-gpu", f"{ns}-node-1", gpu, "node-1", rows[1][-1]],
    ]
    rows = _rows(kubectl("get", "resourceslices", f"--field-selector=spec.driver={net}",
                         namespaced=False))
    assert [r[:4] for r in rows[1:]] == [[f"{ns}-fabric", "<none>", net, "fabric"]]

    by_node = kubectl("get", "resourceslices", f"--field-selector=spec.nodeName={ns}-node-1",
                      "-o", "name", namespaced=False)
    assert by_node.split() == [f"resourceslice.resource.k8s.io/{ns}-node-1-gpu"]


@pytest.mark.parametrize("field", ["spec.allNodes", "spec.pool.name"])
def test_resourceslices_reject_an_unsupported_field_selector(kubectl, field):
    proc = kubectl.run("get", "resourceslices", f"--field-selector={field}=x",
                       namespaced=False, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        'Error from server (BadRequest): Unable to find "resource.k8s.io/v1, '
        'Resource=resourceslices" that match label selector "", field selector '
        f'"{field}=x": field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: '
        f"{field}"
    )


# --- ResourcePools belong to the controller -----------------------------------------------------


def test_kubectl_cannot_create_a_resourcepool(kubectl):
    pool = {
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "ResourcePool",
        "metadata": {"name": f"{kubectl.namespace}.example.com-gpu.node-1"},
        "spec": {"driver": "example.com/gpu", "poolName": "node-1", "nodeName": "node-1"},
    }
    kubectl.write("pool.yaml", pool)
    for args in (("create", "-f", "pool.yaml"), ("apply", "--server-side", "-f", "pool.yaml")):
        proc = kubectl.run(*args, namespaced=False, check=False)
        assert proc.returncode != 0, proc.stdout
        assert "Error from server (Forbidden)" in proc.stderr
        assert "resourcepool-controller" in proc.stderr, proc.stderr
    assert "No resources found" in kubectl.run("get", "resourcepools", namespaced=False).stderr


# --- invalid claims -----------------------------------------------------------------------------


def test_claim_requests_without_device_class_list_one_error_line_each(kubectl):
    kubectl.write("claim.yaml", _claim(
        "claim-invalid", {"name": "gpu", "exactly": {}}, {"name": "nic", "exactly": {}}))
    proc = kubectl.run("create", "-f", "claim.yaml", check=False)
    assert proc.returncode != 0
    assert proc.stderr.splitlines() == [
        'The ResourceClaim "claim-invalid" is invalid: ',
        "* spec.devices.requests[0].exactly.deviceClassName: Required value",
        "* spec.devices.requests[1].exactly.deviceClassName: Required value",
    ]


def test_claim_with_a_bad_cel_selector_reports_the_compile_error(kubectl):
    kubectl.write("claim.yaml", _claim("bad-cel", {
        "name": "gpu",
        "exactly": {"deviceClassName": "gpu.example.com",
                    "selectors": [{"cel": {"expression": "device.driver == "}}]},
    }))
    proc = kubectl.run("create", "-f", "claim.yaml", check=False)
    assert proc.returncode != 0
    first, *rest = proc.stderr.splitlines()
    assert first.startswith(
        'The ResourceClaim "bad-cel" is invalid: '
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: "
        'Invalid value: "device.driver == ": compilation failed: ERROR: <input>:1:'
    ), proc.stderr
    assert "Syntax error" in first
    assert rest and rest[0].strip() == "| device.driver =="  # the caret listing follows


def test_claim_reports_missing_fields_together_with_other_field_errors(kubectl):
    """Upstream validates the whole object and returns every error in one 422."""
    kubectl.write("claim.yaml", _claim(
        "mixed",
        {"name": "Bad_Name", "exactly": {}},
        {"name": "sel", "exactly": {"deviceClassName": "gpu.example.com",
                                    "selectors": [{"cel": {"expression": "device.driver == "}}]}},
    ))
    proc = kubectl.run("create", "-f", "claim.yaml", check=False)
    assert proc.returncode != 0
    assert proc.stderr.startswith('The ResourceClaim "mixed" is invalid: '), proc.stderr
    reported = re.findall(r"(spec\.devices\.requests\[\d\][\w.\[\]]*): ", proc.stderr)
    assert sorted(reported) == [
        "spec.devices.requests[0].exactly.deviceClassName",
        "spec.devices.requests[0].name",
        "spec.devices.requests[1].exactly.selectors[0].cel.expression",
    ], (
        "one 422 must carry the DNS-label error, the missing deviceClassName and the CEL compile "
        "error together (fakeapi/registry/decode.py check_types answers 422 for the missing "
        f"field before the strategy validates the rest):\n{proc.stderr}"
    )
    assert proc.stderr.splitlines()[0] == 'The ResourceClaim "mixed" is invalid: '


def test_claim_spec_update_is_rejected_as_immutable(kubectl):
    kubectl("create", "-f", str(kubectl.write("claim.yaml", _claim(
        "gpu-claim", {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}))))
    patch = {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "other.example.com"}},
    ]}}}
    proc = kubectl.run("patch", "resourceclaim", "gpu-claim", "--type=merge",
                       "-p", json.dumps(patch), check=False)
    assert proc.returncode != 0
    assert proc.stderr.startswith('The ResourceClaim "gpu-claim" is invalid: spec: Invalid value: ')
    assert proc.stderr.strip().endswith(": field is immutable")
    assert '"deviceClassName":"other.example.com"' in proc.stderr
    live = json.loads(kubectl("get", "resourceclaim", "gpu-claim", "-o", "json"))
    assert live["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == (
        "gpu.example.com"
    )


def test_claim_template_spec_update_is_rejected_as_immutable(kubectl):
    template = {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "tmpl"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}},
        ]}}},
    }
    kubectl("apply", "-f", str(kubectl.write("tmpl.yaml", template)))
    template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    proc = kubectl.run("apply", "-f", str(kubectl.write("tmpl.yaml", template)), check=False)
    assert proc.returncode != 0
    assert 'ResourceClaimTemplate "tmpl" is invalid' in proc.stderr
    assert "field is immutable" in proc.stderr
