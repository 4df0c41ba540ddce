"""``fakeapi sandbox`` options a newcomer meets first: ``--load`` of manifests with a kind the
sandbox does not serve (told with file and line, the rest applied; ``--strict`` refuses), and
``--stream-config`` giving its pods logs and exec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .sandbox_process import KUBECTL, SandboxProcess

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")]

MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: more}
"""


def test_load_tells_which_objects_it_left_out_and_applies_the_rest(tmp_path: Path) -> None:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "app.yaml").write_text(MANIFESTS)
    sandbox = SandboxProcess(tmp_path, "--nodes", "0", "--load", "manifests").ready()
    try:
        assert sandbox.lines[:2] == [
            "fakeapi sandbox: --load: 1 object not applied, the server does not serve its "
            "kind; the rest was applied:",
            '  manifests/app.yaml:5: Widget "w1": no matches for kind "Widget" in version '
            '"example.com/v1"',
        ]
        names = sandbox.kubectl("get", "configmaps", "-o", "name").stdout.split()
        assert sorted(names) == ["configmap/more", "configmap/settings"]
    finally:
        assert sandbox.stop() == 0


def test_strict_refuses_the_whole_load(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(MANIFESTS)
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0", "--nodes", "0",
         "--kubeconfig", str(tmp_path / "kc"), "--load", "app.yaml", "--strict"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "fakeapi sandbox: --load: 1 object not applied, the server does not serve its kind; "
        "nothing was applied (strict):",
        '  app.yaml:5: Widget "w1": no matches for kind "Widget" in version "example.com/v1"',
    ]


def test_a_stream_config_gives_sandbox_pods_logs_and_exec(tmp_path: Path) -> None:
    (tmp_path / "app.log").write_text("ready to serve\n")
    (tmp_path / "streams.yaml").write_text("""
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata: {name: all}
spec:
  logs: [{logsFile: app.log}]
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata: {name: all}
spec:
  execs: [{local: {envs: [{name: WHERE, value: sandbox}]}}]
""")
    sandbox = SandboxProcess(tmp_path, "--nodes", "1", "--stream-config", "streams.yaml").ready()
    try:
        sandbox.kubectl("run", "web", "--image=nginx", "--restart=Never")
        sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                        "pod/web")
        assert sandbox.kubectl("logs", "web").stdout == "ready to serve\n"
        assert sandbox.kubectl("exec", "web", "--", "sh", "-c", "echo in $WHERE").stdout == (
            "in sandbox\n")
    finally:
        assert sandbox.stop() == 0
