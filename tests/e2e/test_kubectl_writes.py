"""Real kubectl writing to a running ``fakeapi serve``: create -f, dry runs, label, patch (main
resource and status subresource), replace, and delete — immediate, by selector, and held by a
finalizer while a waiting ``kubectl delete`` runs in the background.
"""

from __future__ import annotations

import json

import pytest
import yaml

pytestmark = pytest.mark.e2e


def _configmap(name: str, finalizers: list[str] | None = None, **data: str) -> dict[str, object]:
    meta: dict[str, object] = {"name": name}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def _claim(name: str, finalizers: list[str] | None = None) -> dict[str, object]:
    meta: dict[str, object] = {"name": name}
    if finalizers:
        meta["finalizers"] = finalizers
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta,
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    }


def _get_json(kubectl, *args: str, **kw: object) -> dict:
    return json.loads(kubectl("get", *args, "-o", "json", **kw))


def test_create_from_file_creates_every_document_and_prints_kind_group_name(kubectl):
    device_class = f"gpu-{kubectl.namespace}.example.com"
    docs = [
        _configmap("settings", a="1"),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "worker"},
         "spec": {"containers": [{"name": "c", "image": "img"}]}},
        _claim("gpu-claim"),
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
         "metadata": {"name": device_class},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
         "metadata": {"name": "training"},
         "spec": {"podGroupTemplates": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]}},
    ]
    out = kubectl("create", "-f", str(kubectl.write("all.yaml", docs)))
    try:
        assert out.splitlines() == [
            "configmap/settings created",
            "pod/worker created",
            "resourceclaim.resource.k8s.io/gpu-claim created",
            f"deviceclass.resource.k8s.io/{device_class} created",
            "workload.scheduling.k8s.io/training created",
        ]
        claim = _get_json(kubectl, "resourceclaim", "gpu-claim")
        assert claim["metadata"]["generation"] == 1
        assert claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] \
            == "gpu.example.com"
        rows = kubectl("get", "resourceclaims").splitlines()
        assert rows[0].split() == ["NAME", "STATE", "AGE"]
        assert rows[1].split()[:2] == ["gpu-claim", "pending"]
        assert kubectl("get", "workloads", "-o", "name").split() \
            == ["workload.scheduling.k8s.io/training"]
    finally:
        kubectl("delete", "deviceclass", device_class, namespaced=False)


def test_create_dry_run_server_stores_nothing(kubectl):
    path = kubectl.write("cm.yaml", _configmap("ghost", a="1"))
    out = kubectl("create", "-f", str(path), "--dry-run=server", "-o", "yaml")
    preview = yaml.safe_load(out)
    assert preview["metadata"]["uid"] and preview["metadata"]["creationTimestamp"]
    assert "resourceVersion" not in preview["metadata"]
    assert kubectl("create", "-f", str(path), "--dry-run=server").strip() \
        == "configmap/ghost created (server dry run)"
    missing = kubectl.run("get", "configmap", "ghost", check=False)
    assert missing.returncode == 1
    assert 'Error from server (NotFound): configmaps "ghost" not found' in missing.stderr


def test_label_and_annotate_patch_metadata(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("tagged"))))
    assert kubectl("label", "configmap", "tagged", "env=prod").strip() == "configmap/tagged labeled"
    refused = kubectl.run("label", "configmap", "tagged", "env=dev", check=False)
    assert "'env' already has a value (prod), and --overwrite is false" in refused.stderr
    kubectl("annotate", "configmap", "tagged", "note=hello")
    meta = _get_json(kubectl, "configmap", "tagged")["metadata"]
    assert meta["labels"] == {"env": "prod"} and meta["annotations"] == {"note": "hello"}
    assert kubectl("label", "configmap", "tagged", "env-").strip() == "configmap/tagged unlabeled"
    assert "labels" not in _get_json(kubectl, "configmap", "tagged")["metadata"]


def test_patch_status_subresource_changes_only_status(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "img"}]}})))
    # a status write through the main resource is accepted but ignored
    kubectl("patch", "pod", "p", "--type=merge", "-p", '{"status":{"phase":"Running"}}')
    assert _get_json(kubectl, "pod", "p")["status"]["phase"] == "Pending"
    out = kubectl("patch", "pod", "p", "--subresource=status", "--type=merge",
                  "-p", '{"status":{"phase":"Running"}}')
    assert out.strip() == "pod/p patched"
    assert _get_json(kubectl, "pod", "p")["status"]["phase"] == "Running"
    assert kubectl("get", "pod", "p").splitlines()[1].split()[2] == "Running"


def test_replace_updates_object_and_bumps_resource_version(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("swap", v="1"))))
    before = _get_json(kubectl, "configmap", "swap")
    out = kubectl("replace", "-f", str(kubectl.write("cm2.yaml", _configmap("swap", v="2"))))
    assert out.strip() == "configmap/swap replaced"
    after = _get_json(kubectl, "configmap", "swap")
    assert after["data"] == {"v": "2"}
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert after["metadata"]["uid"] == before["metadata"]["uid"]


def test_delete_without_finalizers_removes_object_immediately(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("doomed"))))
    out = kubectl("delete", "configmap", "doomed")
    assert out.strip() == f'configmap "doomed" deleted from {kubectl.namespace} namespace'
    assert kubectl.run("get", "configmap", "doomed", check=False).returncode == 1


def test_delete_by_label_selector_deletes_only_matching(kubectl):
    docs = [_configmap("keep"), _configmap("drop-1"), _configmap("drop-2")]
    for doc in docs[1:]:
        doc["metadata"]["labels"] = {"drop": "yes"}  # type: ignore[index]
    kubectl("create", "-f", str(kubectl.write("cms.yaml", docs)))
    out = kubectl("delete", "configmaps", "-l", "drop=yes")
    assert sorted(out.splitlines()) == [
        f'configmap "drop-1" deleted from {kubectl.namespace} namespace',
        f'configmap "drop-2" deleted from {kubectl.namespace} namespace',
    ]
    assert kubectl("get", "configmaps", "-o", "name").split() == ["configmap/keep"]
    nothing = kubectl.run("delete", "configmaps", "-l", "drop=yes")
    assert nothing.stdout.strip() == "No resources found"


@pytest.mark.parametrize("kind", ["configmap", "resourceclaim"])
def test_delete_wait_blocks_on_finalizer_until_patch_removes_it(kubectl, poll, kind):
    doc = (_configmap("held", finalizers=["example.com/hold"]) if kind == "configmap"
           else _claim("held", finalizers=["example.com/hold"]))
    kubectl("create", "-f", str(kubectl.write("held.yaml", doc)))
    waiting = kubectl.popen("delete", kind, "held", "--wait=true", "--timeout=20s")
    try:
        held = poll(lambda: (o := _get_json(kubectl, kind, "held"))["metadata"].get(
            "deletionTimestamp") and o, message="deletionTimestamp to be set")
        assert held["metadata"]["finalizers"] == ["example.com/hold"]
        assert held["metadata"]["deletionGracePeriodSeconds"] == 0
        if kind == "resourceclaim":
            assert kubectl("get", "resourceclaim", "held").splitlines()[1].split()[1] == "deleted"
        assert waiting.poll() is None, "kubectl delete --wait returned while a finalizer remained"
        kubectl("patch", kind, "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
        out, err = waiting.communicate(timeout=15)
    except BaseException:
        waiting.kill()
        raise
    assert waiting.returncode == 0, err
    assert out.strip().endswith(f'"held" deleted from {kubectl.namespace} namespace')
    gone = kubectl.run("get", kind, "held", check=False)
    assert gone.returncode == 1 and "NotFound" in gone.stderr


def test_finalizers_cannot_be_added_while_deleting(kubectl):
    kubectl("create", "-f", str(kubectl.write("cm.yaml", _configmap("pinned", ["a.example/x"]))))
    kubectl("delete", "configmap", "pinned", "--wait=false")
    refused = kubectl.run("patch", "configmap", "pinned", "--type=merge", "-p",
                          '{"metadata":{"finalizers":["a.example/x","b.example/y"]}}', check=False)
    assert refused.returncode == 1
    assert "Forbidden" in refused.stderr or "forbidden" in refused.stderr, refused.stderr
    assert _get_json(kubectl, "configmap", "pinned")["metadata"]["finalizers"] == ["a.example/x"]
    kubectl("patch", "configmap", "pinned", "--type=json",
            "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert kubectl.run("get", "configmap", "pinned", check=False).returncode == 1


def test_delete_cluster_scoped_prints_without_namespace(kubectl):
    name = f"dc-{kubectl.namespace}"
    kubectl("create", "-f", str(kubectl.write("dc.yaml", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
        "spec": {}})))
    out = kubectl("delete", "deviceclass", name, namespaced=False)
    assert out.strip() == f'deviceclass.resource.k8s.io "{name}" deleted'

