"""``fakeapi serve --emulated-version 1.36 --runtime-config resource.k8s.io/v1beta1=false``: what a
1.36 cluster serves, as kubectl and the official Python client see it."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import pytest

from .conftest import Kubectl, Server, _start_server, _stop_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = _start_server(
        tmp_path_factory.mktemp("fakeapi-136"),
        [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--emulated-version",
         "1.36", "--runtime-config", "resource.k8s.io/v1beta1=false", "--kubeconfig"],
    )
    yield srv
    _stop_server(srv)


def test_version_reports_the_emulated_release(server: Server):
    info = httpx.get(f"{server.url}/version", timeout=10).json()
    assert (info["emulationMajor"], info["emulationMinor"]) == ("1", "36")
    assert info["minCompatibilityMinor"] == "35"


def test_the_group_versions_of_1_36_are_served_less_those_switched_off(kubectl: Kubectl):
    versions = set(kubectl("api-versions", namespaced=False).split())
    assert {"scheduling.k8s.io/v1alpha2", "resource.k8s.io/v1alpha3",
            "resource.k8s.io/v1beta2"} <= versions
    assert "scheduling.k8s.io/v1beta1" not in versions  # new in 1.37
    assert "resource.k8s.io/v1beta1" not in versions  # --runtime-config
    failed = kubectl.run("get", "resourceclaims.v1beta1.resource.k8s.io", check=False)
    assert failed.returncode != 0


def test_the_python_client_reaches_v1alpha2_pod_groups(api_client: object, kubectl: Kubectl):
    from kubernetes.dynamic import DynamicClient

    dynamic = DynamicClient(api_client)
    groups = dynamic.resources.get(api_version="scheduling.k8s.io/v1alpha2", kind="PodGroup")
    body = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "workers"},
        "spec": {
            "podGroupTemplateRef": {
                "workload": {"workloadName": "trainer", "podGroupTemplateName": "workers"}
            },
            "schedulingPolicy": {"gang": {"minCount": 2}},
        },
    }
    created = groups.create(body=body, namespace=kubectl.namespace)
    assert created.spec.schedulingPolicy.gang.minCount == 2
    # the seed's v1alpha1, the storage version, holds the same object in its own shape
    seed = dynamic.resources.get(api_version="scheduling.k8s.io/v1alpha1", kind="PodGroup")
    stored = seed.get(name="workers", namespace=kubectl.namespace)
    assert stored.spec.workloadRef.name == "trainer"
    assert stored.spec.podGroupTemplateRef.name == "workers"
    assert stored.spec.policy.gang.minCount == 2
