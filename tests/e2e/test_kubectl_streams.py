"""``kubectl logs``, ``exec``, ``attach`` and ``port-forward`` through a stream configuration, as
kwok offers them: real kubectl (WebSocket channels, SPDY tunnelled in a WebSocket for
port-forward) and the Python client (channels), against ``fakeapi serve --stream-config``.

The pods are made running by hand (``serve`` runs no kubelet); port-forward reaches a TCP echo
server of the test's own.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import KUBECTL, Kubectl, Server, _start_server, _stop_server

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")]


class _Echo(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        while data := self.rfile.readline():
            self.wfile.write(b"echo: " + data)


@pytest.fixture(scope="module")
def echo_port() -> Iterator[int]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def stream_server(tmp_path_factory: pytest.TempPathFactory, echo_port: int) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("streams")
    (tmp / "app.log").write_text("started\nserving\n")
    (tmp / "previous.log").write_text("crashed\n")
    (tmp / "streams.yaml").write_text(f"""
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata: {{name: app}}
spec:
  selector: {{matchNames: [web]}}
  logs:
  - {{containers: [app], logsFile: app.log, previousLogsFile: previous.log, follow: true}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata: {{name: shell}}
spec:
  selector: {{matchNames: [web]}}
  execs:
  - local: {{workDir: {tmp}, envs: [{{name: GREETING, value: hello}}]}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterAttach
metadata: {{name: tail}}
spec:
  attaches:
  - {{logsFile: app.log}}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata: {{name: echo}}
spec:
  forwards:
  - {{ports: [7], target: {{port: {echo_port}}}}}
""")
    srv = _start_server(tmp, [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0",
                              "--stream-config", str(tmp / "streams.yaml"), "--kubeconfig"])
    yield srv
    _stop_server(srv)


@pytest.fixture
def k(stream_server: Server, tmp_path: Path) -> Kubectl:
    namespace = f"streams-{time.monotonic_ns()}"
    httpx.post(f"{stream_server.url}/api/v1/namespaces", timeout=10,
               json={"metadata": {"name": namespace}}).raise_for_status()
    return Kubectl(server=stream_server, namespace=namespace, workdir=tmp_path)


class _Lines:
    """A process's stdout line by line, each wait bounded (a guard: a stream that stops
    producing fails the test instead of hanging it)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        assert process.stdout is not None
        stdout = process.stdout
        threading.Thread(target=lambda: [self.queue.put(line) for line in stdout],
                         daemon=True).start()

    def next(self, timeout: float = 20) -> str:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout:g}s") from None


def _running_pod(k: Kubectl, name: str, *containers: str) -> None:
    """A pod on node-1 whose containers run, restarted once (what a kubelet would report)."""
    base = f"{k.server.url}/api/v1/namespaces/{k.namespace}/pods"
    names = containers or ("app",)
    httpx.post(base, timeout=10, json={"metadata": {"name": name}, "spec": {
        "nodeName": "node-1", "containers": [{"name": c, "image": "app:1"} for c in names]}},
    ).raise_for_status()
    statuses = [{"name": c, "image": "app:1", "imageID": "", "ready": True, "restartCount": 1,
                 "state": {"running": {"startedAt": "2026-01-01T00:00:10Z"}},
                 "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                              "startedAt": "2026-01-01T00:00:00Z",
                                              "finishedAt": "2026-01-01T00:00:05Z"}}}
                for c in names]
    httpx.patch(f"{base}/{name}/status", timeout=10,
                headers={"Content-Type": "application/merge-patch+json"},
                json={"status": {"phase": "Running", "containerStatuses": statuses}},
                ).raise_for_status()


def test_logs_come_from_the_configured_file_with_tail_previous_and_follow(
    k: Kubectl, stream_server: Server
) -> None:
    _running_pod(k, "web")
    assert k("logs", "web") == "started\nserving\n"
    assert k("logs", "web", "--tail=1") == "serving\n"
    assert k("logs", "web", "--previous") == "crashed\n"
    follow = k.popen("logs", "-f", "web")
    log = Path(stream_server.kubeconfig).parent / "app.log"
    try:
        lines = _Lines(follow)
        assert [lines.next(), lines.next()] == ["started\n", "serving\n"]
        with log.open("a") as file:
            file.write("appended\n")
        assert lines.next() == "appended\n"
    finally:
        follow.kill()
        follow.wait()
        log.write_text("started\nserving\n")


def test_a_pod_no_rule_selects_has_its_usual_empty_log(k: Kubectl) -> None:
    _running_pod(k, "other")
    assert k("logs", "other") == ""


def test_exec_runs_the_command_locally_with_its_exit_code_stdin_and_environment(
    k: Kubectl, stream_server: Server
) -> None:
    _running_pod(k, "web")
    out = k("exec", "web", "--", "sh", "-c", 'echo "$GREETING from $(pwd)"')
    assert out == f"hello from {Path(stream_server.kubeconfig).parent}\n"
    failed = k.run("exec", "web", "--", "sh", "-c", "echo to stderr >&2; exit 3", check=False)
    assert (failed.returncode, failed.stderr.splitlines()[0]) == (3, "to stderr")
    assert "command terminated with exit code 3" in failed.stderr
    assert k.run("exec", "-i", "web", "--", "tr", "a-z", "A-Z", stdin="piped\n").stdout == (
        "PIPED\n")


def test_exec_where_no_rule_applies_says_why(k: Kubectl) -> None:
    _running_pod(k, "other")
    result = k.run("exec", "other", "--", "true", check=False)
    assert result.returncode == 1
    assert ("pods/exec of " + k.namespace + "/other is not served: no ClusterExec or Exec rule "
            "of the stream configuration selects container app") in result.stderr


def test_attach_shows_the_configured_file(k: Kubectl) -> None:
    _running_pod(k, "web")
    attach = k.popen("attach", "web")
    try:
        output = _Lines(attach)
        lines = [output.next(), output.next()]
    finally:
        attach.kill()
        attach.wait()
    assert lines == ["started\n", "serving\n"]


def _local_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_port_forward_reaches_the_configured_port_and_reports_an_unforwarded_one(
    k: Kubectl,
) -> None:
    _running_pod(k, "web")
    local, unforwarded = _local_port(), _local_port()
    forward = k.popen("port-forward", "pod/web", f"{local}:7", f"{unforwarded}:8")
    try:
        output = _Lines(forward)
        while f"Forwarding from 127.0.0.1:{unforwarded} -> 8" not in output.next():
            pass  # both ports listen once kubectl said so for the second
        with socket.create_connection(("127.0.0.1", local), timeout=10) as conn:
            conn.sendall(b"ping\n")
            assert conn.makefile("rb").readline() == b"echo: ping\n"
        with socket.create_connection(("127.0.0.1", unforwarded), timeout=10) as conn:
            conn.sendall(b"ping\n")
            # kubectl closes the connection it cannot forward; with our bytes still unread on
            # its side the kernel answers with a reset instead of an orderly end: both end it
            with contextlib.suppress(ConnectionResetError):
                conn.recv(100)
    finally:
        forward.kill()
        _, err = forward.communicate(timeout=10)
    assert "error forwarding port 8 to pod " in err
    assert "no PortForward rule of the stream configuration forwards port 8" in err


def test_the_python_client_execs_and_forwards_over_channels(
    k: Kubectl, stream_server: Server
) -> None:
    from kubernetes import config
    from kubernetes.client import CoreV1Api
    from kubernetes.stream import portforward, stream

    _running_pod(k, "web")
    api = config.new_client_from_config(config_file=str(stream_server.kubeconfig))
    try:
        core = CoreV1Api(api)
        out = stream(core.connect_get_namespaced_pod_exec, "web", k.namespace,
                     command=["sh", "-c", "echo $GREETING"], stdout=True, stderr=True,
                     stdin=False, tty=False)
        assert out == "hello\n"
        forward: Any = portforward(core.connect_get_namespaced_pod_portforward, "web",
                                   k.namespace, ports="7")
        conn = forward.socket(7)
        conn.setblocking(True)
        conn.sendall(b"over channels\n")
        assert conn.makefile("rb").readline() == b"echo: over channels\n"
        conn.close()
    finally:
        api.close()


def test_without_a_configuration_exec_says_nothing_runs(tmp_path: Path) -> None:
    srv = _start_server(tmp_path)  # plain fakeapi serve: no stream configuration
    try:
        plain = Kubectl(server=srv, namespace="default", workdir=tmp_path)
        _running_pod(plain, "idle")
        result = plain.run("exec", "idle", "--", "true", check=False)
    finally:
        _stop_server(srv)
    assert "fakeapi's simulated kubelets run no containers to connect to (a stream " \
           "configuration, --stream-config, can connect them" in result.stderr
