"""Real kubectl writing to a running ``fakeapi serve``: client- and server-side apply, diff, the
three patch types, label/annotate, replace, dry run, field validation, protobuf creates and the
delete options (cascade, grace period).

Each test asserts kubectl's own verdict line or error text and then reads the object back, so a
write that kubectl reports correctly but the server stores wrongly (or the reverse) fails here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi.timefmt import parse_time

pytestmark = pytest.mark.e2e


def _configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _pod(name: str, *containers: tuple[str, str], node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": n, "image": i} for n, i in containers]}
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _get_json(kubectl, *args: str, namespaced: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(kubectl("get", *args, "-o", "json", namespaced=namespaced))
    return result


def _not_found(kubectl, *args: str) -> bool:
    proc = kubectl.run("get", *args, check=False)
    return proc.returncode != 0 and "(NotFound)" in proc.stderr


# --- client-side apply --------------------------------------------------------------------------


def test_apply_creates_then_reports_unchanged_then_configured(kubectl):
    manifest = kubectl.write("cm.yaml", _configmap("settings", mode="a"))
    assert kubectl("apply", "-f", str(manifest)).strip() == "configmap/settings created"
    live = _get_json(kubectl, "configmap", "settings")
    last_applied = json.loads(
        live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    )
    assert last_applied["data"] == {"mode": "a"}

    assert kubectl("apply", "-f", str(manifest)).strip() == "configmap/settings unchanged"
    assert _get_json(kubectl, "configmap", "settings")["metadata"]["resourceVersion"] == (
        live["metadata"]["resourceVersion"]
    )

    kubectl.write("cm.yaml", _configmap("settings", mode="b"))
    assert kubectl("apply", "-f", str(manifest)).strip() == "configmap/settings configured"
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"mode": "b"}


def test_apply_removes_a_key_dropped_from_the_manifest(kubectl):
    manifest = kubectl.write("cm.yaml", _configmap("settings", keep="1", drop="2"))
    kubectl("apply", "-f", str(manifest))
    kubectl.write("cm.yaml", _configmap("settings", keep="1"))
    assert kubectl("apply", "-f", str(manifest)).strip() == "configmap/settings configured"
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"keep": "1"}


# --- server-side apply --------------------------------------------------------------------------


def test_server_side_apply_creates_a_new_object_owned_by_kubectl(kubectl):
    manifest = kubectl.write("cm.yaml", _configmap("ssa", mode="a"))
    out = kubectl("apply", "--server-side", "-f", str(manifest))
    assert out.strip() == "configmap/ssa serverside-applied"
    live = json.loads(kubectl("get", "configmap", "ssa", "-o", "json", "--show-managed-fields"))
    assert live["data"] == {"mode": "a"}
    [entry] = live["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"]) == ("kubectl", "Apply")
    assert entry["fieldsV1"]["f:data"] == {"f:mode": {}}


def test_server_side_apply_conflicts_with_kubectl_create_until_forced(kubectl):
    kubectl("create", "configmap", "shared", "--from-literal=mode=created")
    manifest = kubectl.write("cm.yaml", _configmap("shared", mode="applied"))

    refused = kubectl.run("apply", "--server-side", "-f", str(manifest), check=False)
    assert refused.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl-create"' in refused.stderr
    assert ".data.mode" in refused.stderr
    assert "--force-conflicts" in refused.stderr
    assert _get_json(kubectl, "configmap", "shared")["data"] == {"mode": "created"}

    forced = kubectl("apply", "--server-side", "--force-conflicts", "-f", str(manifest))
    assert forced.strip() == "configmap/shared serverside-applied"
    shown = kubectl("get", "configmap", "shared", "-o", "yaml", "--show-managed-fields")
    assert "manager: kubectl\n" in shown and "operation: Apply" in shown
    live = json.loads(kubectl("get", "configmap", "shared", "-o", "json", "--show-managed-fields"))
    assert live["data"] == {"mode": "applied"}
    by_manager = {e["manager"]: e for e in live["metadata"]["managedFields"]}
    assert by_manager["kubectl"]["operation"] == "Apply"
    assert "f:mode" in by_manager["kubectl"]["fieldsV1"]["f:data"]
    # the forced apply took the field away from the previous owner
    create_fields = by_manager.get("kubectl-create", {}).get("fieldsV1", {}).get("f:data", {})
    assert "f:mode" not in create_fields


def test_server_side_apply_shares_fields_with_the_same_value_without_conflict(kubectl):
    kubectl("create", "configmap", "shared", "--from-literal=mode=same")
    manifest = kubectl.write("cm.yaml", _configmap("shared", mode="same"))
    out = kubectl("apply", "--server-side", "-f", str(manifest))
    assert out.strip() == "configmap/shared serverside-applied"


# --- diff ---------------------------------------------------------------------------------------


def test_diff_exits_1_with_a_diff_when_the_manifest_differs_and_0_when_equal(kubectl):
    manifest = kubectl.write("cm.yaml", _configmap("settings", mode="a"))
    kubectl("apply", "-f", str(manifest))

    same = kubectl.run("diff", "-f", str(manifest), check=False)
    assert (same.returncode, same.stdout) == (0, ""), same.stderr

    kubectl.write("cm.yaml", _configmap("settings", mode="b"))
    changed = kubectl.run("diff", "-f", str(manifest), check=False)
    assert changed.returncode == 1, changed.stderr
    assert '-  mode: a\n' in changed.stdout and '+  mode: b\n' in changed.stdout
    # diff is a server dry run: the live object keeps its value
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"mode": "a"}


# --- patch --------------------------------------------------------------------------------------


def test_strategic_patch_merges_pod_containers_by_name(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod(
        "web", ("app", "registry.example/app:1"), ("sidecar", "registry.example/side:1")))))
    patch = {"spec": {"containers": [{"name": "sidecar", "image": "registry.example/side:2"}]}}
    out = kubectl("patch", "pod", "web", "-p", json.dumps(patch))
    assert out.strip() == "pod/web patched"
    containers = _get_json(kubectl, "pod", "web")["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [
        ("app", "registry.example/app:1"),
        ("sidecar", "registry.example/side:2"),
    ]


def test_strategic_patch_delete_directive_removes_one_keyed_list_item(kubectl):
    owners = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": n, "uid": f"uid-{n}"}
        for n in ("first", "second")
    ]
    cm = _configmap("owned", a="1")
    cm["metadata"]["ownerReferences"] = owners
    kubectl("create", "-f", str(kubectl.write("cm.yaml", cm)))
    # ownerReferences merge by uid: a `$patch: delete` entry drops only the matching owner
    patch = {"metadata": {"ownerReferences": [{"uid": "uid-first", "$patch": "delete"}]}}
    kubectl("patch", "configmap", "owned", "--type=strategic", "-p", json.dumps(patch))
    live = _get_json(kubectl, "configmap", "owned")["metadata"]["ownerReferences"]
    assert [o["name"] for o in live] == ["second"]


def test_merge_patch_replaces_lists_and_null_deletes_keys(kubectl):
    kubectl("create", "configmap", "settings", "--from-literal=a=1", "--from-literal=b=2")
    out = kubectl("patch", "configmap", "settings", "--type=merge",
                  "-p", '{"data":{"a":"10","b":null,"c":"3"}}')
    assert out.strip() == "configmap/settings patched"
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"a": "10", "c": "3"}

    again = kubectl("patch", "configmap", "settings", "--type=merge", "-p", '{"data":{"a":"10"}}')
    assert again.strip() == "configmap/settings patched (no change)"


def test_json_patch_applies_operations_in_order(kubectl):
    kubectl("create", "configmap", "settings", "--from-literal=a=1")
    ops = [
        {"op": "test", "path": "/data/a", "value": "1"},
        {"op": "add", "path": "/data/b", "value": "2"},
        {"op": "remove", "path": "/data/a"},
    ]
    out = kubectl("patch", "configmap", "settings", "--type=json", "-p", json.dumps(ops))
    assert out.strip() == "configmap/settings patched"
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"b": "2"}


def test_json_patch_with_a_failing_test_operation_is_rejected_and_changes_nothing(kubectl):
    kubectl("create", "configmap", "settings", "--from-literal=a=1")
    before = _get_json(kubectl, "configmap", "settings")
    ops = [
        {"op": "test", "path": "/data/a", "value": "2"},
        {"op": "replace", "path": "/data/a", "value": "3"},
    ]
    proc = kubectl.run("patch", "configmap", "settings", "--type=json", "-p", json.dumps(ops),
                       check=False)
    assert proc.returncode != 0
    assert proc.stderr.startswith("The request is invalid:"), proc.stderr
    after = _get_json(kubectl, "configmap", "settings")
    assert after["data"] == {"a": "1"}
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


# --- label / annotate ---------------------------------------------------------------------------


def test_label_adds_refuses_overwrite_without_flag_and_removes_with_dash(kubectl):
    kubectl("create", "configmap", "settings")
    assert kubectl("label", "configmap", "settings", "env=prod").strip() == (
        "configmap/settings labeled"
    )
    refused = kubectl.run("label", "configmap", "settings", "env=dev", check=False)
    assert refused.returncode != 0
    assert "'env' already has a value (prod), and --overwrite is false" in refused.stderr
    assert _get_json(kubectl, "configmap", "settings")["metadata"]["labels"] == {"env": "prod"}

    kubectl("label", "configmap", "settings", "env=dev", "--overwrite")
    assert _get_json(kubectl, "configmap", "settings")["metadata"]["labels"] == {"env": "dev"}

    assert kubectl("label", "configmap", "settings", "env-").strip() == (
        "configmap/settings unlabeled"
    )
    assert "labels" not in _get_json(kubectl, "configmap", "settings")["metadata"]


def test_annotate_adds_refuses_overwrite_without_flag_and_removes_with_dash(kubectl):
    kubectl("create", "configmap", "settings")
    assert kubectl("annotate", "configmap", "settings", "owner=team-a").strip() == (
        "configmap/settings annotated"
    )
    refused = kubectl.run("annotate", "configmap", "settings", "owner=team-b", check=False)
    assert refused.returncode != 0
    assert "'owner' already has a value (team-a)" in refused.stderr
    assert "--overwrite is false" in refused.stderr

    kubectl("annotate", "configmap", "settings", "owner=team-b", "--overwrite")
    meta = _get_json(kubectl, "configmap", "settings")["metadata"]
    assert meta["annotations"] == {"owner": "team-b"}

    kubectl("annotate", "configmap", "settings", "owner-")
    assert "annotations" not in _get_json(kubectl, "configmap", "settings")["metadata"]


# --- replace ------------------------------------------------------------------------------------


def test_replace_with_a_stale_resource_version_is_a_conflict_and_changes_nothing(kubectl):
    kubectl("create", "configmap", "settings", "--from-literal=a=1")
    stale = _get_json(kubectl, "configmap", "settings")
    kubectl("patch", "configmap", "settings", "--type=merge", "-p", '{"data":{"a":"2"}}')

    stale["data"] = {"a": "from-stale-copy"}
    kubectl.write("stale.yaml", stale)
    proc = kubectl.run("replace", "-f", "stale.yaml", check=False)  # relative: kubectl's cwd
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        'Error from server (Conflict): error when replacing "stale.yaml": Operation cannot be '
        'fulfilled on configmaps "settings": the object has been modified; please apply your '
        "changes to the latest version and try again"
    )
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"a": "2"}


def test_replace_with_the_current_resource_version_succeeds(kubectl):
    kubectl("create", "configmap", "settings", "--from-literal=a=1")
    current = _get_json(kubectl, "configmap", "settings")
    current["data"] = {"a": "replaced"}
    out = kubectl("replace", "-f", str(kubectl.write("cur.yaml", current)))
    assert out.strip() == "configmap/settings replaced"
    assert _get_json(kubectl, "configmap", "settings")["data"] == {"a": "replaced"}


# --- create: dry run, field validation, protobuf ------------------------------------------------


def test_create_server_dry_run_prints_marker_and_stores_nothing(kubectl):
    manifest = kubectl.write("cm.yaml", _configmap("dry", a="1"))
    out = kubectl("create", "-f", str(manifest), "--dry-run=server")
    assert out.strip() == "configmap/dry created (server dry run)"
    shown = json.loads(kubectl("create", "-f", str(manifest), "--dry-run=server", "-o", "json"))
    assert shown["metadata"]["uid"] and shown["metadata"]["creationTimestamp"]
    assert "resourceVersion" not in shown["metadata"]
    assert _not_found(kubectl, "configmap", "dry")


def test_create_validate_strict_rejects_an_unknown_field(kubectl):
    kubectl.write("cm.yaml", {**_configmap("strict", a="1"), "bogus": 1})
    proc = kubectl.run("create", "-f", "cm.yaml", "--validate=strict", check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        'Error from server (BadRequest): error when creating "cm.yaml": ConfigMap in version "v1" '
        'cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"'
    )
    assert _not_found(kubectl, "configmap", "strict")


def test_create_validate_warn_creates_the_object_and_warns_about_the_unknown_field(kubectl):
    manifest = kubectl.write("cm.yaml", {**_configmap("warned", a="1"), "bogus": 1})
    proc = kubectl.run("create", "-f", str(manifest), "--validate=warn")
    assert proc.stdout.strip() == "configmap/warned created"
    assert 'Warning: unknown field "bogus"' in proc.stderr
    live = _get_json(kubectl, "configmap", "warned")
    assert "bogus" not in live and live["data"] == {"a": "1"}


def test_create_validate_false_creates_silently_and_drops_the_unknown_field(kubectl):
    manifest = kubectl.write("cm.yaml", {**_configmap("lenient", a="1"), "bogus": 1})
    proc = kubectl.run("create", "-f", str(manifest), "--validate=false")
    assert proc.stdout.strip() == "configmap/lenient created"
    assert proc.stderr == ""
    live = _get_json(kubectl, "configmap", "lenient")
    assert "bogus" not in live and live["data"] == {"a": "1"}


def test_create_namespace_with_a_protobuf_body(kubectl):
    name = f"{kubectl.namespace}-extra"
    out = kubectl("create", "namespace", name, namespaced=False)
    assert out.strip() == f"namespace/{name} created"
    ns = _get_json(kubectl, "namespace", name, namespaced=False)
    assert ns["metadata"]["name"] == name
    assert ns["status"]["phase"] == "Active"
    kubectl("delete", "namespace", name, "--wait=false", namespaced=False)


def test_create_configmap_from_literals(kubectl):
    out = kubectl("create", "configmap", "lit", "--from-literal=a=1", "--from-literal=b=two")
    assert out.strip() == "configmap/lit created"
    live = _get_json(kubectl, "configmap", "lit")
    assert live["data"] == {"a": "1", "b": "two"}
    assert [e["manager"] for e in json.loads(kubectl(
        "get", "configmap", "lit", "-o", "json", "--show-managed-fields"
    ))["metadata"]["managedFields"]] == ["kubectl-create"]


# --- delete -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cascade", "finalizer"), [("foreground", "foregroundDeletion"), ("orphan", "orphan")]
)
def test_delete_cascade_records_the_propagation_finalizer(kubectl, cascade, finalizer):
    kubectl("create", "configmap", "owner", "--from-literal=a=1")
    out = kubectl("delete", "configmap", "owner", f"--cascade={cascade}", "--wait=false")
    assert out.strip() == f'configmap "owner" deleted from {kubectl.namespace} namespace'
    # no garbage collector runs: the object waits with its finalizer
    meta = _get_json(kubectl, "configmap", "owner")["metadata"]
    assert meta["finalizers"] == [finalizer]
    assert meta["deletionTimestamp"]
    assert meta["deletionGracePeriodSeconds"] == 0


def test_delete_grace_period_keeps_a_bound_pod_terminating_until_forced(kubectl):
    node = f"{kubectl.namespace}-node"
    kubectl("create", "-f", str(kubectl.write("objs.yaml", [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}},
        _pod("bound", ("app", "registry.example/app:1"), node=node),
    ])))
    out = kubectl("delete", "pod", "bound", "--grace-period=30", "--wait=false")
    assert out.strip() == f'pod "bound" deleted from {kubectl.namespace} namespace'

    meta = _get_json(kubectl, "pod", "bound")["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 30
    waited = parse_time(meta["deletionTimestamp"]) - parse_time(meta["creationTimestamp"])
    assert 29 <= waited.total_seconds() <= 32, meta
    assert "Terminating" in kubectl("get", "pod", "bound")

    forced = kubectl.run("delete", "pod", "bound", "--grace-period=0", "--force")
    assert forced.stdout.strip() == f'pod "bound" force deleted from {kubectl.namespace} namespace'
    assert "Immediate deletion does not wait" in forced.stderr
    assert _not_found(kubectl, "pod", "bound")
    kubectl("delete", "node", node, namespaced=False)


def test_delete_grace_period_removes_an_unbound_pod_at_once(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod(
        "pending", ("app", "registry.example/app:1")))))
    kubectl("delete", "pod", "pending", "--grace-period=30", "--wait=false")
    assert _not_found(kubectl, "pod", "pending")


def test_starting_a_pending_deletion_bumps_the_generation(kubectl):
    """Upstream bumps ``metadata.generation`` once when ``deletionTimestamp`` is first set, for
    a graceful delete and for a delete held by finalizers alike, so controllers see the change."""
    node = f"{kubectl.namespace}-node"
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "held", "finalizers": ["example.com/keep"]},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}},
        ]}},
    }
    kubectl("create", "-f", str(kubectl.write("objs.yaml", [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}},
        _pod("bound", ("app", "registry.example/app:1"), node=node),
        claim,
    ])))
    before = {
        kind: _get_json(kubectl, kind, name)["metadata"]["generation"]
        for kind, name in (("pod", "bound"), ("resourceclaim", "held"))
    }
    kubectl("delete", "pod", "bound", "--grace-period=30", "--wait=false")
    kubectl("delete", "resourceclaim", "held", "--wait=false")
    after = {
        kind: _get_json(kubectl, kind, name)["metadata"]["generation"]
        for kind, name in (("pod", "bound"), ("resourceclaim", "held"))
    }
    kubectl("delete", "pod", "bound", "--grace-period=0", "--force")
    kubectl("patch", "resourceclaim", "held", "--type=merge", "-p",
            '{"metadata":{"finalizers":null}}')
    kubectl("delete", "node", node, namespaced=False)
    assert after == {kind: gen + 1 for kind, gen in before.items()}, (
        f"generation before deletion {before}, after {after}: fakeapi/registry/store.py delete "
        "does not bump it when it first sets deletionTimestamp"
    )
