"""Every served version, as real kubectl and the official Python client use them.

One ``fakeapi sandbox`` (one GPU node, every controller, the scheduler, a kubelet) serves the
module: manifests written for 1.32–1.35 (resource.k8s.io/v1beta1, the KEP-4381 examples verbatim)
apply unchanged and read back at every version; a v1beta1 PodGroup's pods share one claim
reserved for the group; ``kubectl wait`` sees a ResourcePoolStatusRequest answered; ``kubectl
explain`` describes each version in its own shape.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from .conftest import Kubectl, Server, _start_server, _stop_server

EXAMPLES = Path(str(resources.files("fakeapi.cluster") / "data" / "examples"))

#: the KEP-4381 example manifests, verbatim (resource.k8s.io/v1beta1, requests written inline)
KEP_4381_EXAMPLE = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: resource.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "resource-driver.example.com"
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: large-black-cat-claim-template
spec:
  spec:
    devices:
      requests:
      - name: req-0
        deviceClassName: resource.example.com
        selectors:
        - cel:
           expression: |-
              device.attributes["resource-driver.example.com"].color == "black" &&
              device.attributes["resource-driver.example.com"].size == "large"
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-with-cats
spec:
  containers:
  - name: container0
    image: ubuntu:20.04
    command: ["sleep", "9999"]
    resources:
      claims:
      - name: cat-0
  resourceClaims:
  - name: cat-0
    resourceClaimTemplateName: large-black-cat-claim-template
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's cluster: a sandbox with one GPU node, instead of ``fakeapi serve``."""
    srv = _start_server(
        tmp_path_factory.mktemp("fakeapi-versions"),
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "1", "--port", "0",
         "--kubeconfig"],
    )
    yield srv
    _stop_server(srv)


def test_the_kep_4381_examples_apply_verbatim_and_read_back_at_every_version(kubectl: Kubectl):
    out = kubectl("apply", "-f", "-", stdin=KEP_4381_EXAMPLE)
    assert "resourceclaimtemplate.resource.k8s.io/large-black-cat-claim-template created" in out
    template = "resourceclaimtemplates.{}.resource.k8s.io/large-black-cat-claim-template"
    v1beta1 = json.loads(kubectl("get", template.format("v1beta1"), "-o", "json"))
    v1 = json.loads(
        kubectl("get", template.format("v1"), "-o", "json", "--show-managed-fields")
    )
    [inline] = v1beta1["spec"]["spec"]["devices"]["requests"]
    [nested] = v1["spec"]["spec"]["devices"]["requests"]
    assert (v1beta1["apiVersion"], inline["deviceClassName"]) == (
        "resource.k8s.io/v1beta1", "resource.example.com"
    )
    assert (v1["apiVersion"], nested["exactly"]["deviceClassName"]) == (
        "resource.k8s.io/v1", "resource.example.com"
    )
    assert nested["exactly"]["allocationMode"] == "ExactCount"  # defaulted once, read anywhere
    # managedFields keep the version each manager wrote with
    managers = {e["manager"]: e["apiVersion"] for e in v1["metadata"]["managedFields"]}
    assert managers == {"kubectl-client-side-apply": "resource.k8s.io/v1beta1"}
    listed = kubectl("get", "resourceclaimtemplates.v1beta2.resource.k8s.io", "-o", "name")
    assert "resourceclaimtemplate.resource.k8s.io/large-black-cat-claim-template" in listed


def test_explain_describes_each_version_in_its_own_shape(kubectl: Kubectl):
    v1beta1 = kubectl("explain", "resourceclaims.spec.devices.requests",
                      "--api-version=resource.k8s.io/v1beta1", namespaced=False)
    v1 = kubectl("explain", "resourceclaims.spec.devices.requests",
                 "--api-version=resource.k8s.io/v1", namespaced=False)
    assert "VERSION:    v1beta1" in v1beta1 and "deviceClassName" in v1beta1
    assert "VERSION:    v1" in v1 and "exactly" in v1 and "deviceClassName" not in v1
    slices = kubectl("explain", "resourceslices.spec.devices",
                     "--api-version=resource.k8s.io/v1beta1", namespaced=False)
    assert "basic" in slices
    groups = kubectl("explain", "podgroups.spec", "--api-version=scheduling.k8s.io/v1beta1",
                     namespaced=False)
    assert "schedulingPolicy" in groups and "disruptionMode" in groups


def test_a_v1beta1_pod_groups_pods_share_one_claim_reserved_for_the_group(kubectl: Kubectl):
    kubectl("apply", "-f", str(EXAMPLES / "podgroup-claim-v1beta1.yaml"))
    kubectl("wait", "--for=condition=PodGroupInitiallyScheduled",
            "podgroups.v1beta1.scheduling.k8s.io/gang-workers-0", "--timeout=60s", timeout=90)
    for pod in ("gang-worker-0", "gang-worker-1"):
        kubectl("wait", "--for=jsonpath={.status.phase}=Running", f"pod/{pod}",
                "--timeout=60s", timeout=90)
    claims = json.loads(kubectl("get", "resourceclaims", "-o", "json"))["items"]
    [claim] = claims
    assert [(r["resource"], r["name"]) for r in claim["status"]["reservedFor"]] == [
        ("podgroups", "gang-workers-0")
    ]
    table = kubectl("get", "podgroups.v1beta1.scheduling.k8s.io")
    assert "gang-workers-0" in table


def test_kubectl_waits_for_a_resource_pool_status_request(kubectl: Kubectl):
    request = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "ResourcePoolStatusRequest",
        "metadata": {"name": f"gpus-{kubectl.namespace}"},
        "spec": {"driver": "gpu.example.com"},
    }
    kubectl("apply", "-f", str(kubectl.write("request.yaml", request)), namespaced=False)
    name = f"resourcepoolstatusrequest/gpus-{kubectl.namespace}"
    kubectl("wait", "--for=condition=Complete", name, "--timeout=30s", namespaced=False,
            timeout=60)
    answered = json.loads(kubectl("get", name, "-o", "json", namespaced=False))
    assert answered["spec"]["limit"] == 100
    assert answered["status"]["poolCount"] >= 1
    [pool, *_] = answered["status"]["pools"]
    assert pool["driver"] == "gpu.example.com" and pool["totalDevices"] >= 1
    printed = kubectl("get", name, namespaced=False)
    assert printed.split("\n")[0].split() == ["NAME", "DRIVER", "POOL", "POOLS", "COMPLETE",
                                              "AGE"]


def test_the_python_client_round_trips_a_resource_pool_status_request(api_client: object):
    from kubernetes import client

    api = client.ResourceV1alpha3Api(api_client)
    body = client.V1alpha3ResourcePoolStatusRequest(
        metadata=client.V1ObjectMeta(name="python-request"),
        spec=client.V1alpha3ResourcePoolStatusRequestSpec(driver="gpu.example.com", limit=5),
    )
    created = api.create_resource_pool_status_request(body)
    assert created.spec.limit == 5
    read = api.read_resource_pool_status_request("python-request")
    assert read.metadata.uid == created.metadata.uid
    names = [r.metadata.name for r in api.list_resource_pool_status_request().items]
    assert "python-request" in names
    api.delete_resource_pool_status_request("python-request")
