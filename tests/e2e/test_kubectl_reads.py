"""Real kubectl reading from a running ``fakeapi serve``: version, discovery, get in all its output
forms, paging, sorting, describe, explain and ``get --raw``.

Every assertion is on kubectl's own output, so a response shape kubectl cannot use (a missing
Table, a wrong Content-Type, a broken continue token) shows up as wrong text here.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

pytestmark = pytest.mark.e2e


def _configmap(name: str, **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _pod(name: str, labels: dict[str, str] | None = None) -> dict[str, object]:
    meta: dict[str, object] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]},
    }


def _rows(table_text: str) -> list[list[str]]:
    """kubectl's table output split into cells (header row first)."""
    return [line.split() for line in table_text.strip().splitlines()]


def test_version_prints_client_and_fake_server_version(kubectl):
    out = kubectl("version", namespaced=False)
    assert "Client Version: v1.37.1" in out
    assert "Server Version: v1.37.0-fake" in out


def test_api_resources_lists_core_and_dra_kinds_with_scope_and_kind(kubectl):
    rows = {
        (r[0], r[-3]): r for r in _rows(kubectl("api-resources", namespaced=False))[1:]
    }
    expected = {
        ("pods", "v1"): ("true", "Pod"),
        ("nodes", "v1"): ("false", "Node"),
        ("configmaps", "v1"): ("true", "ConfigMap"),
        ("resourceclaims", "resource.k8s.io/v1"): ("true", "ResourceClaim"),
        ("resourceclaimtemplates", "resource.k8s.io/v1"): ("true", "ResourceClaimTemplate"),
        ("deviceclasses", "resource.k8s.io/v1"): ("false", "DeviceClass"),
        ("resourceslices", "resource.k8s.io/v1"): ("false", "ResourceSlice"),
        ("devicetaintrules", "resource.k8s.io/v1"): ("false", "DeviceTaintRule"),
        # the preferred version: 1.37's v1beta1 (the seed's v1alpha1 is served too)
        ("workloads", "scheduling.k8s.io/v1beta1"): ("true", "Workload"),
        ("podgroups", "scheduling.k8s.io/v1beta1"): ("true", "PodGroup"),
        ("compositepodgroups", "scheduling.k8s.io/v1alpha3"): ("true", "CompositePodGroup"),
        ("resourcepoolstatusrequests", "resource.k8s.io/v1alpha3"): (
            "false", "ResourcePoolStatusRequest"
        ),
        ("leases", "coordination.k8s.io/v1"): ("true", "Lease"),
    }
    for key, (namespaced, kind) in expected.items():
        assert key in rows, f"{key} missing from kubectl api-resources: {sorted(rows)}"
        assert tuple(rows[key][-2:]) == (namespaced, kind)
    assert rows[("pods", "v1")][1] == "po"  # short names come from discovery


def test_api_versions_lists_every_served_group_version(kubectl):
    versions = kubectl("api-versions", namespaced=False).split()
    for gv in ("v1", "resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1",
               "resource.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha1",
               "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1", "events.k8s.io/v1",
               "coordination.k8s.io/v1"):
        assert gv in versions


def test_get_prints_server_side_table_columns(kubectl):
    objs = [_pod("web"), _configmap("cfg", a="1")]
    kubectl("create", "-f", str(kubectl.write("objs.yaml", objs)))
    pods = _rows(kubectl("get", "pods"))
    assert pods[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert pods[1][:4] == ["web", "0/1", "Pending", "0"]
    assert re.fullmatch(r"\d+s", pods[1][4])
    cms = _rows(kubectl("get", "configmap", "cfg"))  # single GET: a one-row Table
    assert cms[0] == ["NAME", "DATA", "AGE"]
    assert cms[1][:2] == ["cfg", "1"]
    wide = _rows(kubectl("get", "pods", "-o", "wide"))
    assert wide[0][:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    assert wide[1][5:7] == ["<none>", "<none>"]


def test_get_all_namespaces_adds_namespace_column_from_row_metadata(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("everywhere"))))
    rows = _rows(kubectl("get", "configmaps", "-A", namespaced=False))
    assert rows[0] == ["NAMESPACE", "NAME", "DATA", "AGE"]
    assert [kubectl.namespace, "everywhere"] in [r[:2] for r in rows[1:]]


def test_get_output_yaml_json_and_name(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("shapes", k="v"))))
    doc = yaml.safe_load(kubectl("get", "configmap", "shapes", "-o", "yaml"))
    assert doc["kind"] == "ConfigMap" and doc["apiVersion"] == "v1"
    assert doc["data"] == {"k": "v"}
    assert doc["metadata"]["namespace"] == kubectl.namespace
    assert doc["metadata"]["resourceVersion"].isdigit()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["metadata"]["creationTimestamp"])
    assert "managedFields" not in doc["metadata"]  # hidden unless --show-managed-fields
    listed = json.loads(kubectl("get", "configmaps", "-o", "json"))
    assert listed["kind"] == "List"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["shapes"]
    assert listed["items"][0]["kind"] == "ConfigMap"
    assert kubectl("get", "configmaps", "-o", "name").split() == ["configmap/shapes"]


def test_get_jsonpath_and_custom_columns(kubectl):
    kubectl("create", "-f", str(kubectl.write("cms.yaml", [
        _configmap("alpha", color="red"), _configmap("beta", color="blue")])))
    out = kubectl("get", "configmaps", "-o", "jsonpath={.items[*].data.color}")
    assert out.split() == ["red", "blue"]
    rows = _rows(kubectl("get", "configmaps", "-o",
                         "custom-columns=NAME:.metadata.name,COLOR:.data.color,NS:.metadata.namespace"))
    assert rows == [["NAME", "COLOR", "NS"], ["alpha", "red", kubectl.namespace],
                    ["beta", "blue", kubectl.namespace]]


def test_get_label_selector_filters_rows(kubectl):
    kubectl("create", "-f", str(kubectl.write("pods.yaml", [
        _pod("front", {"tier": "web", "env": "prod"}),
        _pod("back", {"tier": "db", "env": "prod"}),
        _pod("scratch", {"tier": "web", "env": "dev"}),
    ])))

    def names(selector: str) -> list[str]:
        return sorted(kubectl("get", "pods", "-l", selector, "-o", "name").split())

    assert names("tier=web") == ["pod/front", "pod/scratch"]
    assert names("tier=web,env!=dev") == ["pod/front"]
    assert names("tier in (db,cache)") == ["pod/back"]
    assert names("env notin (prod)") == ["pod/scratch"]
    assert names("!tier") == []
    out = kubectl.run("get", "pods", "-l", "tier=nothing")
    assert out.stdout == ""
    assert f"No resources found in {kubectl.namespace} namespace." in out.stderr


def test_get_field_selector_filters_rows(kubectl):
    kubectl("create", "-f", str(kubectl.write("pods.yaml", [_pod("one"), _pod("two")])))
    assert kubectl("get", "pods", "--field-selector", "metadata.name=two", "-o", "name").split() \
        == ["pod/two"]
    assert sorted(kubectl("get", "pods", "--field-selector", "status.phase!=Running",
                          "-o", "name").split()) == ["pod/one", "pod/two"]
    assert kubectl("get", "pods", "--field-selector", "status.phase=Running",
                   "-o", "name") == ""


def test_get_chunk_size_pages_with_continue_and_lists_every_object(kubectl):
    names = [f"page-{i:02d}" for i in range(7)]
    kubectl("create", "-f", str(kubectl.write("cms.yaml", [_configmap(n) for n in names])))
    proc = kubectl.run("get", "configmaps", "--chunk-size=2", "-v=6")
    assert [r[0] for r in _rows(proc.stdout)[1:]] == names
    requests = re.findall(r'url="([^"]*/configmaps\?[^"]*)"', proc.stderr)
    assert len(requests) == 4, requests  # 7 objects in pages of 2
    assert all("limit=2" in url for url in requests)
    assert sum("continue=" in url for url in requests) == 3
    # the same through -o name (a plain List instead of a Table)
    assert kubectl("get", "configmaps", "--chunk-size=3", "-o", "name").split() == [
        f"configmap/{n}" for n in names]


def test_get_sort_by_orders_rows_by_a_field(kubectl):
    kubectl("create", "-f", str(kubectl.write("cms.yaml", [
        _configmap("c-first", rank="3"), _configmap("c-second", rank="1"),
        _configmap("c-third", rank="2"),
    ])))
    proc = kubectl.run("get", "configmaps", "--sort-by=.data.rank", "-v=6")
    assert [r[0] for r in _rows(proc.stdout)[1:]] == ["c-second", "c-third", "c-first"]
    assert "includeObject=Object" in proc.stderr  # sorting needs full objects in the rows
    rows = _rows(kubectl("get", "configmaps", "--sort-by=.metadata.name"))
    assert [r[0] for r in rows[1:]] == ["c-first", "c-second", "c-third"]


def test_get_show_labels_adds_labels_column(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("tagged", {"b": "2", "a": "1"}))))
    rows = _rows(kubectl("get", "pods", "--show-labels"))
    assert rows[0][-1] == "LABELS"
    assert rows[1][0] == "tagged" and rows[1][-1] == "a=1,b=2"
    rows = _rows(kubectl("get", "pods", "-L", "b"))
    assert rows[0][-1] == "B" and rows[1][-1] == "2"


def test_describe_pod_shows_spec_and_events_section(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("described", {"app": "x"}))))
    out = kubectl("describe", "pod", "described")
    assert re.search(r"^Name:\s+described$", out, re.M)
    assert re.search(rf"^Namespace:\s+{kubectl.namespace}$", out, re.M)
    assert re.search(r"^Labels:\s+app=x$", out, re.M)
    assert re.search(r"^Status:\s+Pending$", out, re.M)
    assert re.search(r"^\s+Image:\s+registry.example/app:1$", out, re.M)
    assert re.search(r"^Events:\s+<none>$", out, re.M)


def test_describe_node_shows_sections_and_missing_lease(kubectl):
    node = f"node-{kubectl.namespace}"
    kubectl("create", "-f", str(kubectl.write("node.yaml", {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}},
    })))
    try:
        out = kubectl("describe", "node", node, namespaced=False)
        assert re.search(rf"^Name:\s+{node}$", out, re.M)
        assert re.search(rf"^Labels:\s+kubernetes.io/hostname={node}$", out, re.M)
        assert f'Failed to get lease: leases.coordination.k8s.io "{node}" not found' in out
        assert "Non-terminated Pods:" in out and "(0 in total)" in out
        assert re.search(r"^Events:\s+<none>$", out, re.M)
    finally:
        kubectl("delete", "node", node, namespaced=False)


def test_describe_configmap_shows_data(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("settings", mode="fast"))))
    out = kubectl("describe", "configmap", "settings")
    assert re.search(r"^Name:\s+settings$", out, re.M)
    assert re.search(r"^mode:\n----\nfast$", out, re.M)
    assert re.search(r"^Events:\s+<none>$", out, re.M)


@pytest.mark.parametrize(
    ("target", "header", "must_contain"),
    [
        ("pod", ["KIND:       Pod", "VERSION:    v1"],
         ["spec\t<PodSpec>", "metadata\t<ObjectMeta>"]),
        ("pod.spec.containers", ["KIND:       Pod", "VERSION:    v1"],
         ["FIELD: containers <[]Container>", "image\t<string>", "name\t<string> -required-"]),
        ("resourceclaims", ["GROUP:      resource.k8s.io", "KIND:       ResourceClaim",
                            "VERSION:    v1"], ["spec\t<ResourceClaimSpec>",
                                                "status\t<ResourceClaimStatus>"]),
        ("resourceclaims.spec.devices.requests",
         ["GROUP:      resource.k8s.io", "KIND:       ResourceClaim", "VERSION:    v1"],
         ["FIELD: requests <[]DeviceRequest>", "exactly\t<ExactDeviceRequest>",
          "firstAvailable\t<[]DeviceSubRequest>", "name\t<string> -required-"]),
    ],
)
def test_explain_prints_header_and_fields_from_openapi_v3(kubectl, target, header, must_contain):
    out = kubectl("explain", target, namespaced=False)
    lines = out.splitlines()
    assert lines[: len(header)] == header, out[:400]
    for text in must_contain:
        assert text in out, f"{text!r} missing from kubectl explain {target}:\n{out}"


def test_get_raw_version_pods_and_readyz(kubectl):
    version = json.loads(kubectl("get", "--raw", "/version", namespaced=False))
    assert (version["major"], version["minor"]) == ("1", "37")
    assert version["gitVersion"] == "v1.37.0-fake"
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("rawpod"))))
    pods = json.loads(kubectl("get", "--raw", f"/api/v1/namespaces/{kubectl.namespace}/pods",
                              namespaced=False))
    assert pods["kind"] == "PodList" and pods["apiVersion"] == "v1"
    assert pods["metadata"]["resourceVersion"].isdigit()
    assert [p["metadata"]["name"] for p in pods["items"]] == ["rawpod"]
    assert kubectl("get", "--raw", "/readyz", namespaced=False).strip() == "ok"


def test_health_endpoints_list_their_checks_and_know_their_names(kubectl):
    verbose = kubectl("get", "--raw", "/readyz?verbose", namespaced=False).splitlines()
    assert verbose[0] == "[+]ping ok" and "[+]etcd ok" in verbose
    assert verbose[-1] == "readyz check passed"
    excluded = kubectl("get", "--raw", "/livez?verbose&exclude=etcd", namespaced=False)
    assert "[+]etcd excluded: ok" in excluded.splitlines()
    assert kubectl("get", "--raw", "/readyz/etcd", namespaced=False).strip() == "ok"
    missing = kubectl.run("get", "--raw", "/readyz/no-such-check", namespaced=False, check=False)
    assert missing.returncode != 0 and "NotFound" in missing.stderr
