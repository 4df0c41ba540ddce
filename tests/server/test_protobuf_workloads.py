"""Protobuf bodies of kubectl's workload, identity and RBAC generators, decoded by the table.

Bodies are built field by field as Go's marshallers write them (every non-pointer field, empty
or not; field numbers of upstream's generated.proto), so the rules of the table are exercised:
plain zero values read as absent, pointer zero values kept, embedded structs kept even when
empty, the client's status ignored, bytes maps in base64, and anything undescribed refused.
"""

from __future__ import annotations

import pytest

from fakeapi.server.protobuf import decode_kubernetes_protobuf
from fakeapi.server.protobuf_reader import ProtobufDecodeError

from ..support.protobuf_wire import envelope, ld, map_entry, vi


def _meta(name: str, **labels: str) -> bytes:
    return ld(1, ld(1, name) + b"".join(ld(11, map_entry(k, v)) for k, v in labels.items()))


def _container(name: str, image: str, *extra: bytes) -> bytes:
    # name, image, an empty ResourceRequirements, the empty strings Go writes for the rest
    return ld(1, name) + ld(2, image) + ld(5, "") + ld(8, b"") + ld(13, "") + ld(14, "") + (
        b"".join(extra)
    )


def test_kubectl_create_deployment_decodes_as_its_json_would_read() -> None:
    selector = ld(1, map_entry("app", "web"))
    pod = ld(2, _container("nginx", "nginx:1.25", ld(6, vi(3, 80) + ld(4, "TCP")))) + ld(
        3, ""
    ) + ld(6, "")
    template = ld(1, ld(11, map_entry("app", "web"))) + ld(2, pod)
    spec = vi(1, 0) + ld(2, selector) + ld(3, template) + ld(4, b"") + vi(5, 0) + vi(7, 0)
    status = ld(3, vi(1, 0))
    body = envelope("apps/v1", "Deployment", _meta("web", app="web") + ld(2, spec) + status)
    assert decode_kubernetes_protobuf(body) == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{
                    "name": "nginx", "image": "nginx:1.25", "resources": {},
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                }]},
            },
            "strategy": {},
        },
    }


def test_kubectl_create_job_keeps_pointer_fields_and_commands() -> None:
    pod = ld(2, _container("hello", "busybox", ld(3, "echo"), ld(3, "hi"))) + ld(3, "Never")
    spec = ld(6, ld(1, b"") + ld(2, pod)) + vi(10, 0) + vi(7, 0)
    body = envelope("batch/v1", "Job", _meta("hello") + ld(2, spec))
    job = decode_kubernetes_protobuf(body)
    assert job["spec"] == {
        "template": {"metadata": {}, "spec": {
            "containers": [{"name": "hello", "image": "busybox", "resources": {},
                            "command": ["echo", "hi"]}],
            "restartPolicy": "Never",
        }},
        "suspend": False,
        "backoffLimit": 0,
    }


def test_a_secrets_bytes_are_base64_and_rbac_lists_repeat() -> None:
    secret = envelope("v1", "Secret", _meta("creds") + ld(2, ld(1, "pass") + ld(2, b"\x00pw"))
                      + ld(3, "Opaque"))
    assert decode_kubernetes_protobuf(secret)["data"] == {"pass": "AHB3"}
    rule = ld(1, "get") + ld(1, "list") + ld(2, "") + ld(3, "pods")
    role = envelope("rbac.authorization.k8s.io/v1", "Role", _meta("reader") + ld(2, rule))
    assert decode_kubernetes_protobuf(role)["rules"] == [
        {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}
    ]
    binding = envelope("rbac.authorization.k8s.io/v1", "RoleBinding", _meta("rb") + ld(
        2, ld(1, "ServiceAccount") + ld(2, "") + ld(3, "builder") + ld(4, "default")
    ) + ld(3, ld(1, "rbac.authorization.k8s.io") + ld(2, "Role") + ld(3, "reader")))
    assert decode_kubernetes_protobuf(binding)["subjects"] == [
        {"kind": "ServiceAccount", "name": "builder", "namespace": "default"}
    ]


def test_a_budgets_int_or_string_reads_either_way() -> None:
    percent = vi(1, 1) + ld(3, "50%")
    body = envelope("policy/v1", "PodDisruptionBudget", _meta("pdb") + ld(2, ld(3, percent)))
    assert decode_kubernetes_protobuf(body)["spec"] == {"maxUnavailable": "50%"}
    number = vi(1, 0) + vi(2, 2) + ld(3, "")
    body = envelope("policy/v1", "PodDisruptionBudget", _meta("pdb") + ld(2, ld(1, number)))
    assert decode_kubernetes_protobuf(body)["spec"] == {"minAvailable": 2}


def test_a_field_the_table_does_not_describe_is_refused() -> None:
    spec = ld(3, ld(2, ld(18, ld(1, b"x"))))  # spec.template.spec.affinity
    body = envelope("apps/v1", "Deployment", _meta("web") + ld(2, spec))
    with pytest.raises(ProtobufDecodeError, match="PodSpec field 18 in protobuf is not supported"):
        decode_kubernetes_protobuf(body)
