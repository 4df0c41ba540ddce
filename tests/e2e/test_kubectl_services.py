"""Services through real kubectl: ``cluster-info`` (which lists Services), the ``kubernetes``
Service, ``create service`` (protobuf bodies), ``expose`` and ``get svc``'s columns."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_cluster_info_names_the_control_plane(kubectl):
    out = kubectl("cluster-info", namespaced=False)
    assert re.match(r"Kubernetes control plane is running at http://127\.0\.0\.1:\d+\n", out)


def test_the_kubernetes_service_is_listed_as_upstream_prints_it(kubectl):
    rows = _rows(kubectl("get", "svc", "kubernetes", "-n", "default", "-o", "wide",
                         namespaced=False))
    assert rows[0] == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    assert rows[1][:5] + rows[1][6:] == [
        "kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP", "<none>"]


def test_kubectl_create_service_allocates_and_prints_each_type(kubectl):
    kubectl("create", "service", "clusterip", "web", "--tcp=80:8080")
    kubectl("create", "service", "nodeport", "nodes", "--tcp=80:8080", "--node-port=30080")
    kubectl("create", "service", "loadbalancer", "lb", "--tcp=443:8443")
    kubectl("create", "service", "externalname", "db", "--external-name=db.example.com")
    kubectl("create", "service", "clusterip", "peers", "--clusterip=None")
    rows = {row[0]: row for row in _rows(kubectl("get", "svc"))[1:]}
    assert rows["web"][1] == "ClusterIP" and re.match(r"10\.(9[6-9]|10\d|11[01])\.", rows["web"][2])
    assert rows["web"][3:5] == ["<none>", "80/TCP"]
    assert rows["nodes"][1:2] + rows["nodes"][3:5] == ["NodePort", "<none>", "80:30080/TCP"]
    assert rows["lb"][3] == "<pending>" and re.match(r"443:3\d{4}/TCP", rows["lb"][4])
    assert rows["db"][1:4] == ["ExternalName", "<none>", "db.example.com"]
    assert rows["peers"][1:3] == ["ClusterIP", "None"]


def test_a_taken_node_port_is_refused_and_expose_copies_the_selector(kubectl):
    # a port no service of the module holds yet: earlier tests' services got random node ports
    taken = kubectl("get", "svc", "-A", "-o", "jsonpath={.items[*].spec.ports[*].nodePort}",
                    namespaced=False).split()
    port = next(str(p) for p in range(30111, 32768) if str(p) not in taken)
    kubectl("create", "service", "nodeport", "first", "--tcp=80:8080", f"--node-port={port}")
    refused = kubectl.run("create", "service", "nodeport", "second", "--tcp=80:8080",
                          f"--node-port={port}", check=False)
    assert refused.returncode != 0
    assert (f"spec.ports[0].nodePort: Invalid value: {port}: provided port is already allocated"
            in refused.stderr)
    kubectl("expose", "service", "first", "--name=copy", "--port=81", "--target-port=8080")
    selector = kubectl("get", "svc", "copy", "-o", "jsonpath={.spec.selector.app}")
    assert selector == "first"
