"""``fakeapi sandbox`` with a user's own code, as a user runs it: a subprocess started in the
directory holding their module, with ``--component``, ``--scheduler-plugin``,
``--scheduler-config``, ``--profile FILE`` and ``--stages``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.e2e
STAGES = Path(__file__).parent / "stages"

MODULE = '''
from fakeapi.client import CONFIGMAPS
from fakeapi.scheduler.framework import unresolvable


class Announcer:
    """Writes a ConfigMap saying it runs."""

    def __init__(self, ctx):
        self.ctx = ctx

    async def start(self):
        body = {"metadata": {"name": "announcer", "namespace": "default"},
                "data": {"url": self.ctx.url}}
        await self.ctx.client.create(CONFIGMAPS, body=body)

    async def stop(self):
        pass


class OnlyNodeTwo:
    name = "OnlyNodeTwo"

    def __init__(self, handle):
        pass

    def filter(self, state, pod, node):
        return None if node.name == "node-2" else unresolvable("not node-2")
'''
CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "OnlyNodeTwo"}]}}}],
}


def _sandbox(workdir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0",
         "--kubeconfig", str(workdir / "kubeconfig"), *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=workdir,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _banner(process: subprocess.Popen[str]) -> list[str]:
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"the sandbox exited {process.wait()}:\n{''.join(lines)}")
        lines.append(line)
        if line.startswith("Ctrl-C stops"):
            return lines
    process.kill()
    raise AssertionError("no banner within 60 s:\n" + "".join(lines))


def test_the_sandbox_runs_a_users_component_plugin_and_configuration(tmp_path: Path) -> None:
    import kubernetes

    (tmp_path / "my_extensions.py").write_text(MODULE)
    (tmp_path / "scheduler.yaml").write_text(yaml.safe_dump(CONFIG))
    process = _sandbox(
        tmp_path, "--nodes", "2", "--stages", str(STAGES),
        "--component", "my_extensions:Announcer",
        "--scheduler-plugin", "my_extensions:OnlyNodeTwo",
        "--scheduler-config", "scheduler.yaml",
    )
    try:
        banner = _banner(process)
        assert "components: controllers, scheduler, kubelets; yours: announcer" in banner[0]
        client = kubernetes.config.new_client_from_config(str(tmp_path / "kubeconfig"))
        core = kubernetes.client.CoreV1Api(client)
        announced = core.read_namespaced_config_map("announcer", "default")
        assert announced.data["url"] == client.configuration.host
        core.create_namespaced_pod("default", {
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "app", "image": "registry.example/web:1.0"}]},
        })
        watch = kubernetes.watch.Watch()
        running = None
        for event in watch.stream(core.list_namespaced_pod, "default",
                                  field_selector="metadata.name=web", timeout_seconds=30):
            if event["object"].status.phase == "Running":
                running = event["object"]
                watch.stop()
        assert running is not None, "the pod did not run in 30 s"
        assert running.spec.node_name == "node-2"
        events = core.list_namespaced_event("default").items
        assert any(e.reason == "WarmedUp" for e in events)  # the --stages directory's event
        client.close()
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--component", "nowhere:make"], 2,
         "fakeapi sandbox: component 'nowhere:make': No module named 'nowhere'\n"),
        (["--scheduler-plugin", "my_extensions:Missing"], 2,
         "fakeapi sandbox: scheduler plugin 'my_extensions:Missing': module 'my_extensions' "
         "has no attribute 'Missing'\n"),
        (["--stages", "gone"], 2, "fakeapi sandbox: stages: no stage file or directory gone\n"),
        (["--scheduler-config", "bad.yaml"], 1,
         "fakeapi sandbox: bad.yaml: profiles[0].percentageOfNodesToScore: Invalid value: 120: "
         "not in valid range [0-100]\n"),
    ],
)
def test_a_bad_flag_of_your_own_is_one_line(
    tmp_path: Path, args: list[str], status: int, message: str
) -> None:
    (tmp_path / "my_extensions.py").write_text(MODULE)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(
        {**CONFIG, "profiles": [{"percentageOfNodesToScore": 120}]}
    ))
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "0", "--port", "0",
         "--kubeconfig", str(tmp_path / "kc"), *args],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert (result.returncode, result.stderr) == (status, message)
