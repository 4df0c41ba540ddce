"""CustomResourceDefinitions with real kubectl and the official ``kubernetes`` client against a
running ``fakeapi serve``: a CronTab CRD with a CEL rule, defaults, pruning, the status and scale
subresources, printer columns, a category and a selectable field, a CRD of two versions, and a
CRD's deletion taking its objects with it. (The KEP-5729 example, whose ``MyWorkload`` is a
custom resource, runs on a sandbox with nodes: ``test_kubectl_workloads.py``.)

Definitions are cluster-scoped and the server is the module's, so every test installs a
definition of its own (or uses the module's CronTab definition without changing it) and works in
its own namespace. A definition is usable once its ``Established`` condition is true; the tests
wait for that condition as a user does (``kubectl wait``), never for time to pass.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from typing import Any

import httpx
import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

pytestmark = pytest.mark.e2e

KUBECTL = shutil.which("kubectl")
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

# --- a CronTab definition with everything a schema can carry ------------------------------------

CRONTAB_SPEC: dict[str, Any] = {
    "type": "object",
    "description": "What the CronTab runs and how many copies.",
    "x-kubernetes-validations": [{
        "rule": "self.replicas <= self.maxReplicas",
        "messageExpression": ("'replicas ' + string(self.replicas)"
                              " + ' exceeds maxReplicas ' + string(self.maxReplicas)"),
        "reason": "FieldValueForbidden",
    }],
    "properties": {
        "cronSpec": {"type": "string", "description": "When to run, in cron syntax.",
                     "pattern": r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"},
        "image": {"type": "string", "description": "The image to run.",
                  "x-kubernetes-validations": [
                      {"rule": "self == oldSelf", "message": "image is immutable"}]},
        "replicas": {"type": "integer", "minimum": 0, "default": 1},
        "maxReplicas": {"type": "integer", "default": 10},
        "ports": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer"}}},
        },
    },
}

CRONTAB_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs.stable.example.com"},
    "spec": {
        "group": "stable.example.com",
        "scope": "Namespaced",
        "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                  "shortNames": ["ct"], "categories": ["all"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {
                "status": {},
                "scale": {"specReplicasPath": ".spec.replicas",
                          "statusReplicasPath": ".status.replicas",
                          "labelSelectorPath": ".status.selector"},
            },
            "additionalPrinterColumns": [
                {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
                {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
            ],
            "selectableFields": [{"jsonPath": ".spec.image"}],
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": CRONTAB_SPEC,
                    "status": {"type": "object", "properties": {
                        "replicas": {"type": "integer"}, "selector": {"type": "string"}}},
                },
            }},
        }],
    },
}


def _install(server, definition: dict[str, Any]) -> None:
    """Create ``definition`` over HTTP and wait, with ``kubectl wait``, until it is established."""
    response = httpx.post(f"{server.url}{CRDS}", json=definition, timeout=10)
    assert response.status_code == 201, response.text
    assert KUBECTL is not None
    waited = subprocess.run(
        [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(server.cache_dir),
         "wait", "--for", "condition=established", "--timeout=10s",
         f"crd/{definition['metadata']['name']}"],
        capture_output=True, text=True, timeout=30)
    assert waited.returncode == 0, waited.stderr


@pytest.fixture(scope="module")
def crontabs(server) -> str:
    """The module's CronTab definition, established (tests never change it)."""
    _install(server, CRONTAB_CRD)
    return "crontabs.stable.example.com"


def _crontab(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": name},
            "spec": {"cronSpec": "*/5 * * * *", "image": "registry.example/cron:1", **spec}}


def _get(kubectl, *args: str) -> dict[str, Any]:
    return json.loads(kubectl("get", *args, "-o", "json"))


def _table(out: str) -> list[dict[str, str]]:
    """kubectl's table as rows keyed by column name (cells may hold spaces: cut at the header)."""
    header, *lines = out.rstrip("\n").splitlines()
    names = header.split()
    starts = [header.index(name) for name in names]
    cells = list(zip(names, starts, [*starts[1:], None], strict=True))
    return [{name: line[start:end].strip() for name, start, end in cells} for line in lines]


def _edit(kubectl, *target: str, old: str, new: str) -> str:
    """``kubectl edit`` with an editor that replaces ``old`` by ``new`` in the object's YAML."""
    editor = kubectl.workdir / "editor.py"
    editor.write_text(
        "import pathlib, sys\n"
        "path = pathlib.Path(sys.argv[-1])\n"
        f"text = path.read_text()\nassert {old!r} in text, text\n"
        f"path.write_text(text.replace({old!r}, {new!r}))\n")
    assert KUBECTL is not None
    done = subprocess.run(
        [KUBECTL, "--kubeconfig", str(kubectl.server.kubeconfig), "--cache-dir",
         str(kubectl.server.cache_dir), "-n", kubectl.namespace, "edit", *target],
        capture_output=True, text=True, timeout=30,
        env={**os.environ, "KUBE_EDITOR": f"{sys.executable} {editor}"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_crontab_gets_its_defaults_and_loses_unknown_fields(kubectl, crontabs):
    body = _crontab("nightly")
    body["spec"]["colour"] = "blue"
    manifest = kubectl.write("nightly.yaml", body)

    # kubectl validates strictly by default: the server names the unknown field
    refused = kubectl.run("apply", "-f", str(manifest), check=False)
    assert refused.returncode != 0
    assert 'strict decoding error: unknown field "spec.colour"' in refused.stderr, refused.stderr

    # without validation the field is pruned, as the schema does not declare it
    out = kubectl("apply", "--validate=false", "-f", str(manifest))
    assert out.strip() == "crontab.stable.example.com/nightly created"
    stored = _get(kubectl, "crontab", "nightly")
    assert stored["spec"] == {"cronSpec": "*/5 * * * *", "image": "registry.example/cron:1",
                              "replicas": 1, "maxReplicas": 10}


def test_crontabs_print_their_columns_under_short_name_and_category(kubectl, crontabs):
    kubectl("apply", "-f", str(kubectl.write("tabs.yaml", [
        _crontab("hourly", cronSpec="0 * * * *", replicas=2),
        _crontab("daily", cronSpec="0 0 * * *"),
    ])))
    table = _table(kubectl("get", "crontabs"))
    assert list(table[0]) == ["NAME", "SPEC", "REPLICAS", "AGE"]
    assert [(row["NAME"], row["SPEC"], row["REPLICAS"]) for row in table] == [
        ("daily", "0 0 * * *", "1"), ("hourly", "0 * * * *", "2")]

    assert kubectl("get", "ct", "-o", "name").split() == [
        "crontab.stable.example.com/daily", "crontab.stable.example.com/hourly"]
    assert "crontab.stable.example.com/hourly" in kubectl("get", "all", "-o", "name").split()
    wide = _table(kubectl("get", "crontab", "hourly", "-o", "wide"))
    assert list(wide[0]) == ["NAME", "SPEC", "REPLICAS", "AGE"]


def test_crontabs_select_on_their_selectable_field(kubectl, crontabs):
    kubectl("apply", "-f", str(kubectl.write("tabs.yaml", [
        _crontab("old", image="registry.example/cron:1"),
        _crontab("new", image="registry.example/cron:2"),
    ])))
    selected = kubectl("get", "crontabs", "--field-selector",
                       "spec.image=registry.example/cron:2", "-o", "name")
    assert selected.split() == ["crontab.stable.example.com/new"]
    refused = kubectl.run("get", "crontabs", "--field-selector", "spec.cronSpec=x", check=False)
    assert refused.returncode != 0
    assert 'field label not supported: spec.cronSpec' in refused.stderr, refused.stderr


def test_explain_reads_the_crontab_schema(kubectl, crontabs):
    out = kubectl("explain", "crontab.spec", namespaced=False)
    assert "GROUP:      stable.example.com" in out and "KIND:       CronTab" in out
    assert "What the CronTab runs and how many copies." in out
    for field in ("cronSpec\t<string>", "image\t<string>", "replicas\t<integer>",
                  "ports\t<[]Object>"):
        assert field in out, out
    assert "When to run, in cron syntax." in kubectl(
        "explain", "crontab.spec.cronSpec", namespaced=False)


def test_server_side_apply_merges_list_map_entries_and_reports_conflicts(kubectl, crontabs):
    web = _crontab("svc", ports=[{"name": "http", "port": 80}])
    kubectl("apply", "--server-side", "--field-manager=web", "-f",
            str(kubectl.write("web.yaml", web)))
    metrics = {**_crontab("svc"), "spec": {"ports": [{"name": "metrics", "port": 9090}]}}
    kubectl("apply", "--server-side", "--field-manager=metrics", "-f",
            str(kubectl.write("metrics.yaml", metrics)))
    # the list is a map keyed by name: each manager owns its own entry
    assert _get(kubectl, "crontab", "svc")["spec"]["ports"] == [
        {"name": "http", "port": 80}, {"name": "metrics", "port": 9090}]

    clash = {**_crontab("svc"), "spec": {"image": "registry.example/cron:9"}}
    refused = kubectl.run("apply", "--server-side", "--field-manager=metrics", "-f",
                          str(kubectl.write("clash.yaml", clash)), check=False)
    assert refused.returncode != 0
    assert 'conflict with "web"' in refused.stderr and ".spec.image" in refused.stderr, (
        refused.stderr)

    # a manager's apply without its entry removes that entry only
    kubectl("apply", "--server-side", "--field-manager=web", "-f",
            str(kubectl.write("web.yaml", _crontab("svc", ports=[]))))
    assert _get(kubectl, "crontab", "svc")["spec"]["ports"] == [
        {"name": "metrics", "port": 9090}]


def test_scale_and_status_subresources(kubectl, crontabs):
    kubectl("apply", "-f", str(kubectl.write("tab.yaml", _crontab("web"))))
    assert kubectl("scale", "crontab", "web", "--replicas=3").strip() == (
        "crontab.stable.example.com/web scaled")
    assert _get(kubectl, "crontab", "web")["spec"]["replicas"] == 3

    # status is written only through its subresource
    kubectl("patch", "crontab", "web", "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": {"replicas": 3, "selector": "app=web"}}))
    kubectl("patch", "crontab", "web", "--type=merge", "-p", '{"status": {"replicas": 0}}')
    scale = _get(kubectl, "crontab", "web", "--subresource=scale")
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 3}
    assert scale["status"] == {"replicas": 3, "selector": "app=web"}

    # scaling past the CEL rule's bound fails with the rule's message
    refused = kubectl.run("scale", "crontab", "web", "--replicas=11", check=False)
    assert refused.returncode != 0
    assert "replicas 11 exceeds maxReplicas 10" in refused.stderr, refused.stderr


def test_cel_rules_refuse_a_patch_with_their_messages(kubectl, crontabs):
    kubectl("apply", "-f", str(kubectl.write("tab.yaml", _crontab("job"))))
    # changes within the rules are taken: a merge patch, and kubectl edit (which sends one)
    kubectl("patch", "crontab", "job", "--type=merge", "-p",
            json.dumps({"spec": {"replicas": 4, "maxReplicas": 5}}))
    assert _get(kubectl, "crontab", "job")["spec"]["replicas"] == 4
    edited = _edit(kubectl, "crontab", "job", old="  replicas: 4\n", new="  replicas: 3\n")
    assert edited.strip() == "crontab.stable.example.com/job edited"
    assert _get(kubectl, "crontab", "job")["spec"]["replicas"] == 3

    refused = kubectl.run("patch", "crontab", "job", "--type=merge", "-p",
                          json.dumps({"spec": {"replicas": 6}}), check=False)
    assert refused.returncode != 0
    assert refused.stderr.strip() == (
        'The CronTab "job" is invalid: spec: Forbidden: replicas 6 exceeds maxReplicas 5')

    refused = kubectl.run("patch", "crontab", "job", "--type=merge", "-p",
                          json.dumps({"spec": {"image": "registry.example/other:1"}}),
                          check=False)
    assert refused.stderr.strip() == ('The CronTab "job" is invalid: spec.image: Invalid value: '
                                      '"registry.example/other:1": image is immutable')

    # schema keywords answer in kube-openapi's words
    refused = kubectl.run("patch", "crontab", "job", "--type=merge", "-p",
                          json.dumps({"spec": {"cronSpec": "often", "replicas": -1}}),
                          check=False)
    assert 'spec.cronSpec: Invalid value: "often": spec.cronSpec in body should match' in (
        refused.stderr), refused.stderr
    assert "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than " \
        "or equal to 0" in refused.stderr, refused.stderr

    # kubectl's default patch type is a strategic merge, which custom resources do not take
    refused = kubectl.run("patch", "crontab", "job", "-p", '{"spec": {"replicas": 1}}',
                          check=False)
    assert refused.returncode != 0
    assert ("application/strategic-merge-patch+json is not supported by stable.example.com/v1, "
            "Kind=CronTab") in refused.stderr, refused.stderr


# --- two versions -------------------------------------------------------------------------------


def _widget_crd() -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"size": {"type": "string", "default": "small"}}}}}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.versions.example.com"},
        "spec": {
            "group": "versions.example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {"name": "v1beta1", "served": True, "storage": False, "deprecated": True,
                 "schema": copy.deepcopy(schema)},
                {"name": "v1", "served": True, "storage": True, "schema": copy.deepcopy(schema)},
            ],
        },
    }


def test_a_crd_of_two_versions_serves_one_object_at_both(kubectl, server):
    _install(server, _widget_crd())
    old = {"apiVersion": "versions.example.com/v1beta1", "kind": "Widget",
           "metadata": {"name": "w"}, "spec": {}}
    created = kubectl.run("apply", "-f", str(kubectl.write("w.yaml", old)))
    assert created.stdout.strip() == "widget.versions.example.com/w created"
    assert ("Warning: versions.example.com/v1beta1 Widget is deprecated; "
            "use versions.example.com/v1 Widget") in created.stderr, created.stderr

    # the preferred version is v1; the same object reads at v1beta1 too
    preferred = _get(kubectl, "widget", "w")
    assert preferred["apiVersion"] == "versions.example.com/v1"
    assert preferred["spec"] == {"size": "small"}
    at_beta = _get(kubectl, "widgets.v1beta1.versions.example.com", "w")
    assert at_beta["apiVersion"] == "versions.example.com/v1beta1"
    assert at_beta["metadata"]["uid"] == preferred["metadata"]["uid"]

    # v1beta1 no longer served: the object stays at v1, the old version is gone from discovery
    kubectl("patch", "crd", "widgets.versions.example.com", "--type=json", "-p", json.dumps(
        [{"op": "replace", "path": "/spec/versions/0/served", "value": False}]),
        namespaced=False)
    versions = json.loads(kubectl("get", "--raw", "/apis/versions.example.com",
                                  namespaced=False))["versions"]
    assert [v["version"] for v in versions] == ["v1"]
    assert _get(kubectl, "widget", "w")["metadata"]["uid"] == preferred["metadata"]["uid"]


# --- deleting a definition ----------------------------------------------------------------------


def test_deleting_a_crd_deletes_its_objects(kubectl, server):
    definition = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.cascade.example.com"},
        "spec": {
            "group": "cascade.example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                "openAPIV3Schema": {"type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True}}}],
        },
    }
    _install(server, definition)
    gadgets = [{"apiVersion": "cascade.example.com/v1", "kind": "Gadget",
                "metadata": {"name": f"g{i}"}, "data": {"i": i}} for i in range(3)]
    kubectl("apply", "-f", str(kubectl.write("gadgets.yaml", gadgets)))
    # kubectl delete waits for the definition to be gone, which is after its objects are
    out = kubectl("delete", "crd", "gadgets.cascade.example.com", namespaced=False)
    assert out.strip() == (
        'customresourcedefinition.apiextensions.k8s.io "gadgets.cascade.example.com" deleted')
    # (a discovery cache of before the deletion still names the resource: read discovery afresh)
    fresh_cache = str(kubectl.workdir / "fresh-cache")
    missing = kubectl.run("get", "gadgets", "--cache-dir", fresh_cache, check=False)
    assert missing.returncode != 0
    assert 'the server doesn\'t have a resource type "gadgets"' in missing.stderr, missing.stderr

    # the same definition again starts empty
    _install(server, definition)
    assert kubectl("get", "gadgets", "-o", "name") == ""


# --- the official Python client -----------------------------------------------------------------


def test_kubernetes_client_round_trip(api_client, kubectl, poll):
    extensions = client.ApiextensionsV1Api(api_client)
    objects = client.CustomObjectsApi(api_client)
    ns = kubectl.namespace
    body = copy.deepcopy(CRONTAB_CRD)
    body["metadata"]["name"] = "crontabs.client.example.com"
    body["spec"]["group"] = "client.example.com"
    body["spec"]["names"] = {"plural": "crontabs", "kind": "CronTab"}
    created = extensions.create_custom_resource_definition(body)
    assert isinstance(created, client.V1CustomResourceDefinition)
    assert created.spec.versions[0].schema.open_apiv3_schema.properties["spec"].type == "object"

    def established() -> bool:
        status = extensions.read_custom_resource_definition(created.metadata.name).status
        return any(c.type == "Established" and c.status == "True"
                   for c in status.conditions or [])

    poll(established, message="the definition to be established")
    read = extensions.read_custom_resource_definition(created.metadata.name)
    assert read.status.accepted_names.kind == "CronTab"
    assert read.status.stored_versions == ["v1"]

    group, version, plural = "client.example.com", "v1", "crontabs"
    tab = objects.create_namespaced_custom_object(group, version, ns, plural, {
        "apiVersion": "client.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "tab"}, "spec": {"cronSpec": "* * * * *", "image": "img"}})
    assert tab["spec"]["replicas"] == 1 and tab["metadata"]["uid"]

    listed = objects.list_namespaced_custom_object(group, version, ns, plural)
    assert [item["metadata"]["name"] for item in listed["items"]] == ["tab"]
    assert listed["kind"] == "CronTabList"

    patched = objects.patch_namespaced_custom_object(
        group, version, ns, plural, "tab", {"spec": {"replicas": 2}})
    assert patched["spec"]["replicas"] == 2
    status = objects.patch_namespaced_custom_object_status(
        group, version, ns, plural, "tab", {"status": {"replicas": 2, "selector": "a=b"}})
    assert status["status"] == {"replicas": 2, "selector": "a=b"}
    scale = objects.get_namespaced_custom_object_scale(group, version, ns, plural, "tab")
    assert scale["spec"] == {"replicas": 2} and scale["status"]["selector"] == "a=b"

    with pytest.raises(ApiException) as refused:
        objects.patch_namespaced_custom_object(
            group, version, ns, plural, "tab", {"spec": {"replicas": 50}})
    assert refused.value.status == 422
    details = json.loads(refused.value.body)
    assert details["reason"] == "Invalid"
    assert details["details"]["causes"][0] == {
        "reason": "FieldValueForbidden", "field": "spec",
        "message": "Forbidden: replicas 50 exceeds maxReplicas 10"}

    objects.delete_namespaced_custom_object(group, version, ns, plural, "tab")
    assert objects.list_namespaced_custom_object(group, version, ns, plural)["items"] == []
    extensions.delete_custom_resource_definition(created.metadata.name)

    def gone() -> bool:
        try:
            extensions.read_custom_resource_definition(created.metadata.name)
        except ApiException as missing:
            return missing.status == 404
        return False

    poll(gone, message="the definition to be deleted")


def test_yaml_of_the_crontab_definition_round_trips(kubectl, crontabs):
    stored = yaml.safe_load(kubectl("get", "crd", crontabs, "-o", "yaml", namespaced=False))
    assert stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] == (
        CRONTAB_SPEC)
    assert {c["type"]: c["status"] for c in stored["status"]["conditions"]} == {
        "NamesAccepted": "True", "Established": "True"}
    assert stored["status"]["acceptedNames"] == {
        "plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList",
        "shortNames": ["ct"], "categories": ["all"]}
