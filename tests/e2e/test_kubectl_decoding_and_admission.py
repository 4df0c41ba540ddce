"""What kubectl users see of typed decoding and admission, against a real ``fakeapi serve``."""

from __future__ import annotations

import json
from typing import Any


def _claim(name: str, **exactly: Any) -> dict[str, Any]:
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", **exactly}}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": {"requests": [request]}},
    }


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}], **spec},
    }


def test_a_wrong_type_is_reported_with_the_go_decoder_text(kubectl):
    path = kubectl.write("claim.yaml", _claim("typed", count="2"))
    proc = kubectl.run("create", "-f", str(path), check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f'Error from server (BadRequest): error when creating "{path}": ResourceClaim in version '
        '"v1" cannot be handled as a ResourceClaim: json: cannot unmarshal string into Go struct '
        "field ExactDeviceRequest.spec.devices.requests.exactly.count of type int64"
    )
    assert kubectl.run("get", "resourceclaim", "typed", check=False).returncode == 1


def test_a_merge_patch_cannot_rename_an_object(kubectl):
    kubectl("create", "-f", str(kubectl.write("claim.yaml", _claim("named"))))
    proc = kubectl.run(
        "patch", "resourceclaim", "named", "--type=merge", "-p", '{"metadata":{"name":"other"}}',
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "Error from server (BadRequest): the name of the object (other) does not match the name "
        "on the URL (named)"
    )


def test_a_pod_with_an_unknown_priority_class_is_forbidden(kubectl):
    path = kubectl.write("pod.yaml", _pod("prio", priorityClassName="nope"))
    proc = kubectl.run("create", "-f", str(path), check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f'Error from server (Forbidden): error when creating "{path}": pods "prio" is forbidden: '
        "no PriorityClass with name nope was found"
    )


def test_a_created_pod_shows_priority_and_default_tolerations(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("plain"))))
    spec = json.loads(kubectl("get", "pod", "plain", "-o", "json"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert [(t["key"], t["tolerationSeconds"]) for t in spec["tolerations"]] == [
        ("node.kubernetes.io/not-ready", 300),
        ("node.kubernetes.io/unreachable", 300),
    ]


def test_a_request_above_its_limit_is_invalid(kubectl):
    pod = _pod("greedy")
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}
    path = kubectl.write("pod.yaml", pod)
    proc = kubectl.run("create", "-f", str(path), check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        'The Pod "greedy" is invalid: spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1"
    )
