"""The stream configuration (kwok's ClusterLogs/Exec/Attach/PortForward): which rule a pod's
container or port meets, and errors that name the file, the document and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakeapi.server.streams import StreamConfigError, load_stream_config

HEAD = "apiVersion: kwok.x-k8s.io/v1alpha1\n"


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "streams.yaml"
    path.write_text(text)
    return path


def test_rules_select_pods_by_namespace_name_and_container(tmp_path: Path) -> None:
    path = _config(tmp_path, HEAD + """kind: ClusterLogs
metadata: {name: web}
spec:
  selector: {matchNamespaces: [shop], matchNames: [web]}
  logs:
  - {containers: [nginx], logsFile: logs/nginx.log, follow: true}
  - {logsFile: /var/log/other.log}
---
""" + HEAD + """kind: Exec
metadata: {name: debug, namespace: dev}
spec:
  execs:
  - local: {workDir: /tmp, envs: [{name: A, value: "1"}]}
---
""" + HEAD + """kind: ClusterPortForward
metadata: {name: any}
spec:
  forwards:
  - {ports: [80], target: {port: 8080}}
  - {command: [nc, localhost, "9000"]}
""")
    config = load_stream_config([path])
    nginx = config.logs_for("shop", "web", "nginx")
    assert nginx is not None
    assert (nginx.logs_file, nginx.follow) == (tmp_path / "logs" / "nginx.log", True)
    other = config.logs_for("shop", "web", "sidecar")
    assert other is not None and other.logs_file == Path("/var/log/other.log")
    assert config.logs_for("default", "web", "nginx") is None
    debug = config.exec_for("dev", "debug", "app")
    assert debug is not None and (debug.work_dir, dict(debug.env)) == (Path("/tmp"), {"A": "1"})
    assert config.exec_for("dev", "other", "app") is None
    web = config.forward_for("any", "pod", 80)
    assert web is not None and (web.address, web.port) == ("127.0.0.1", 8080)
    other_port = config.forward_for("any", "pod", 9)
    assert other_port is not None and other_port.command == ("nc", "localhost", "9000")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: ClusterLogs\n",
         "document 1: apiVersion: expected 'kwok.x-k8s.io/v1alpha1', got 'v1'"),
        (HEAD + "kind: Stage\nmetadata: {name: s}\n",
         "document 1 (Stage 's'): kind 'Stage' is not a stream configuration kind"),
        (HEAD + "kind: ClusterLogs\nmetadata: {name: l}\nspec: {logs: [{follow: true}]}\n",
         "document 1 (ClusterLogs 'l'): spec.logs[0].logsFile: expected a file path, got None"),
        (HEAD + "kind: ClusterPortForward\nmetadata: {name: p}\n"
                "spec: {forwards: [{ports: [80, 70000]}]}\n",
         "document 1 (ClusterPortForward 'p'): spec.forwards[0].ports[1]: expected a port "
         "number (1-65535), got 70000"),
        (HEAD + "kind: ClusterAttach\nmetadata: {name: a}\nspec: {attaches: [{containers: [x]}]}\n",
         "document 1 (ClusterAttach 'a'): spec.attaches[0]: expected exactly one of logsFile "
         "and command, got {'containers': ['x']}"),
        (HEAD + "kind: ClusterExec\nmetadata: {name: e}\n"
                "spec: {selector: {matchNames: web}, execs: [{}]}\n",
         "document 1 (ClusterExec 'e'): spec.selector.matchNames: expected a list, got 'web'"),
    ],
)
def test_errors_name_the_document_and_the_field(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _config(tmp_path, text)
    with pytest.raises(StreamConfigError) as failure:
        load_stream_config([path])
    assert str(failure.value).startswith(f"{path}: {message}")
