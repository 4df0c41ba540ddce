"""Protobuf request bodies: captured kubectl fixtures, hand-built wire data, and live kubectl."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fakeapi.server.protobuf import decode_kubernetes_protobuf
from fakeapi.server.protobuf_reader import ProtobufDecodeError

from ..support.protobuf_wire import envelope, ld, map_entry, tag, varint, vi

DATA = Path(__file__).parent / "data"

TEAM_A = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "team-a"},
    "spec": {},
    "status": {},
}
HIGH = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 1000,
    "description": "x",
    "preemptionPolicy": "PreemptLowerPriority",
}
NEG_NEVER = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "neg"},
    "value": -5,
    "globalDefault": True,
    "preemptionPolicy": "Never",
}


# ------------------------------------------------------------------------------------------
# Captured kubectl bodies (tests/server/data/*.pb were POSTed by kubectl v1.37.1)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("namespace-team-a.pb", TEAM_A),
        ("priorityclass-high.pb", HIGH),
        ("priorityclass-neg-never.pb", NEG_NEVER),
    ],
)
def test_decodes_captured_kubectl_bodies(fixture: str, expected: dict[str, Any]) -> None:
    assert decode_kubernetes_protobuf((DATA / fixture).read_bytes()) == expected


# ------------------------------------------------------------------------------------------
# Hand-built wire data


FULL_META = b"".join(
    [
        ld(1, ""),
        ld(2, "gen-"),
        ld(3, "ns1"),
        ld(5, "uid-1"),
        vi(7, 3),
        ld(8, vi(1, 1767225600)),  # 2026-01-01T00:00:00Z
        ld(9, b""),  # the zero time
        ld(11, map_entry("app", "web")),
        ld(11, map_entry("tier", "")),
        ld(12, map_entry("note", "hi")),
        ld(13, ld(5, "v1") + ld(1, "Pod") + ld(3, "p") + ld(4, "u") + vi(6, 1)),
        ld(14, "example.com/f1"),
        ld(14, "example.com/f2"),
        # unknown fields of every wire type are skipped
        vi(90, 7),
        tag(91, 1) + b"\x00" * 8,
        tag(92, 5) + b"\x00" * 4,
        ld(93, b"\x01\x02"),
        tag(94, 3) + vi(1, 5) + tag(2, 3) + tag(2, 4) + tag(94, 4),
    ]
)


def test_decodes_every_object_meta_field() -> None:
    obj = decode_kubernetes_protobuf(envelope("v1", "Namespace", ld(1, FULL_META)))
    assert obj["metadata"] == {
        "generateName": "gen-",
        "namespace": "ns1",
        "uid": "uid-1",
        "generation": 3,
        "creationTimestamp": "2026-01-01T00:00:00Z",
        "labels": {"app": "web", "tier": ""},
        "annotations": {"note": "hi"},
        "ownerReferences": [
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "controller": True}
        ],
        "finalizers": ["example.com/f1", "example.com/f2"],
    }


def test_namespace_spec_finalizers_and_status_phase() -> None:
    raw = ld(1, ld(1, "n")) + ld(2, ld(1, "kubernetes")) + ld(3, ld(1, "Active"))
    obj = decode_kubernetes_protobuf(envelope("v1", "Namespace", raw))
    assert obj["spec"] == {"finalizers": ["kubernetes"]}
    assert obj["status"] == {"phase": "Active"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, 0),
        (1, 1),
        (-1, -1),
        (2**31 - 1, 2**31 - 1),
        (-(2**31), -(2**31)),
        (1_000_000_000, 10**9),
    ],
)
def test_priority_class_value_is_int32(value: int, expected: int) -> None:
    raw = ld(1, ld(1, "pc")) + vi(2, value) + vi(3, 0) + ld(4, "")
    obj = decode_kubernetes_protobuf(envelope("scheduling.k8s.io/v1", "PriorityClass", raw))
    assert obj == {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "pc"},
        "value": expected,
    }


def test_other_kinds_decode_metadata_when_nothing_else_is_set() -> None:
    raw = ld(1, ld(1, "c") + ld(3, "ns")) + ld(2, b"") + vi(4, 0)
    obj = decode_kubernetes_protobuf(envelope("resource.k8s.io/v1", "ResourceClaim", raw))
    assert obj == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "ns"},
    }


def test_content_type_and_empty_encoding_in_envelope_are_accepted() -> None:
    body = envelope("v1", "Namespace", ld(1, ld(1, "n")), ld(3, ""), ld(4, "application/x"))
    assert decode_kubernetes_protobuf(body)["metadata"] == {"name": "n"}


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"", "prefix"),
        (b'{"kind":"Namespace"}', "prefix"),
        (b"k8s\x00", "apiVersion and kind"),
        (b"k8s\x00" + ld(2, ld(1, ld(1, "n"))), "apiVersion and kind"),
        (envelope("v1", "Namespace", b"", ld(3, "gzip")), "content encoding"),
        (envelope("v1", "Pod", ld(1, ld(1, "p")) + ld(2, ld(1, ld(1, "c")))), "field 2"),
        (envelope("v1", "Pod", vi(5, 1)), "field 5"),
        (envelope("v1", "Namespace", ld(3, ld(2, ld(1, "Ready")))), "conditions"),
        (envelope("v1", "Namespace", ld(1, ld(17, ld(1, "m")))), "managedFields"),
        (envelope("scheduling.k8s.io/v1", "PriorityClass", vi(9, 1)), "field 9"),
        (envelope("v1", "Namespace", ld(1, ld(1, b"\xff\xfe"))), "UTF-8"),
        (envelope("v1", "Namespace", ld(1, ld(1, "n"))[:-1]), "past the end"),
        (b"k8s\x00" + tag(1, 2) + varint(1000), "past the end"),
        (b"k8s\x00" + tag(1, 0) + b"\xff" * 11, "varint"),
        (b"k8s\x00" + tag(1, 6), "wire type"),
        (b"k8s\x00" + tag(1, 3) + vi(1, 1), "unterminated group"),
        (b"k8s\x00" + tag(1, 3) + tag(2, 4), "mismatched"),
        (b"k8s\x00" + tag(0, 0) + b"\x00", "field number 0"),
        (envelope("v1", "Namespace", ld(1, vi(1, 5))), "string"),
    ],
)
def test_rejects_bodies_it_cannot_read(body: bytes, fragment: str) -> None:
    with pytest.raises(ProtobufDecodeError, match=fragment):
        decode_kubernetes_protobuf(body)


# ------------------------------------------------------------------------------------------
# Live kubectl: a throwaway server answers discovery and records what kubectl POSTs

VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"]
SCHEDULING = {"groupVersion": "scheduling.k8s.io/v1", "version": "v1"}
DISCOVERY: dict[str, dict[str, Any]] = {
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/apis": {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {"name": "scheduling.k8s.io", "versions": [SCHEDULING], "preferredVersion": SCHEDULING}
        ],
    },
    "/api/v1": {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "v1",
        "resources": [
            {
                "name": "namespaces",
                "singularName": "namespace",
                "namespaced": False,
                "kind": "Namespace",
                "verbs": VERBS,
                "shortNames": ["ns"],
            }
        ],
    },
    "/apis/scheduling.k8s.io/v1": {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "scheduling.k8s.io/v1",
        "resources": [
            {
                "name": "priorityclasses",
                "singularName": "priorityclass",
                "namespaced": False,
                "kind": "PriorityClass",
                "verbs": VERBS,
                "shortNames": ["pc"],
            }
        ],
    },
}


@dataclass
class Capture:
    """What the throwaway server saw: (path, content type, body) per POST."""

    posts: list[tuple[str, str, bytes]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    capture: Capture

    def _send(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        if path in DISCOVERY:
            self._send(200, DISCOVERY[path])
        else:
            self._send(
                404,
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "status": "Failure",
                    "reason": "NotFound",
                    "code": 404,
                    "message": "not found",
                },
            )

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.capture.posts.append((self.path, self.headers.get("Content-Type", ""), body))
        try:
            self._send(201, decode_kubernetes_protobuf(body))
        except ProtobufDecodeError as err:
            self._send(
                415,
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "status": "Failure",
                    "reason": "UnsupportedMediaType",
                    "code": 415,
                    "message": str(err),
                },
            )

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class KubectlTarget:
    capture: Capture
    kubeconfig: Path
    cache_dir: Path

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                "kubectl",
                *args,
                "--kubeconfig",
                str(self.kubeconfig),
                "--cache-dir",
                str(self.cache_dir),
                "--request-timeout=10s",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


@pytest.fixture
def kubectl_target(tmp_path: Path) -> Iterator[KubectlTarget]:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    capture = Capture()
    handler = type("Handler", (_Handler,), {"capture": capture})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters: [{{name: c, cluster: {{server: 'http://127.0.0.1:{port}'}}}}]\n"
        "users: [{name: u, user: {}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
        "current-context: x\n"
    )
    try:
        yield KubectlTarget(capture, kubeconfig, tmp_path / "cache")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(
    ("args", "path", "expected", "printed"),
    [
        (
            ["create", "namespace", "team-a"],
            "/api/v1/namespaces",
            TEAM_A,
            "namespace/team-a created",
        ),
        (
            ["create", "priorityclass", "high", "--value=1000", "--description=x"],
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            HIGH,
            "priorityclass.scheduling.k8s.io/high created",
        ),
        (
            [
                "create",
                "priorityclass",
                "neg",
                "--value=-5",
                "--global-default",
                "--preemption-policy=Never",
            ],
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            NEG_NEVER,
            "priorityclass.scheduling.k8s.io/neg created",
        ),
    ],
)
def test_live_kubectl_protobuf_bodies_decode(
    kubectl_target: KubectlTarget,
    args: list[str],
    path: str,
    expected: dict[str, Any],
    printed: str,
) -> None:
    result = kubectl_target.run(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == printed
    [(posted_path, content_type, body)] = kubectl_target.capture.posts
    assert posted_path.split("?", 1)[0] == path
    assert content_type == "application/vnd.kubernetes.protobuf"
    assert decode_kubernetes_protobuf(body) == expected


@pytest.mark.parametrize(
    "args",
    [
        ["create", "namespace", "team-a"],
        ["create", "priorityclass", "high", "--value=1000", "--description=x"],
        [
            "create",
            "priorityclass",
            "neg",
            "--value=-5",
            "--global-default",
            "--preemption-policy=Never",
        ],
    ],
)
def test_decoded_body_equals_kubectls_own_json(
    kubectl_target: KubectlTarget, args: list[str]
) -> None:
    """kubectl's client-side dry run prints the object it would send; the decode must match."""
    shown = kubectl_target.run(*args, "--dry-run=client", "-o", "json")
    assert shown.returncode == 0, shown.stderr
    as_json = json.loads(shown.stdout)
    if as_json["metadata"].get("creationTimestamp") is None:
        as_json["metadata"].pop("creationTimestamp", None)
    sent = kubectl_target.run(*args)
    assert sent.returncode == 0, sent.stderr
    assert decode_kubernetes_protobuf(kubectl_target.capture.posts[-1][2]) == as_json
