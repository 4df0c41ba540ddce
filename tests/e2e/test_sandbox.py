"""``fakeapi sandbox`` as a user runs it: a subprocess, real kubectl, Ctrl-C.

The sandbox prints its banner once every simulated node is Ready and has published its slices,
so the tests wait for that line (a bounded guard), never for time to pass.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl")
BIN = str(Path(sys.executable).parent)
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"

OTHER_CONTEXT = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "prod", "cluster": {"server": "https://prod.example:6443"}}],
    "users": [{"name": "prod", "user": {"token": "secret"}}],
    "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "prod"}}],
    "current-context": "prod",
    "preferences": {},
}


@dataclass
class Sandbox:
    process: subprocess.Popen[str]
    kubeconfig: Path
    banner: list[str]
    workdir: Path

    def kubectl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None, "kubectl is not installed (pip install -e '.[test]')"
        env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
               "KUBECONFIG": str(self.kubeconfig)}
        # kubectl passes nothing before a plugin's name: no --cache-dir for ``kubectl dra``
        cache = [] if args[0] == "dra" else ["--cache-dir", str(self.workdir / "cache")]
        result = subprocess.run([KUBECTL, *cache, *args],
                                capture_output=True, text=True, env=env, timeout=60)
        if check:
            assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """kubectl in the background (``logs -f``), stdout and stderr piped."""
        assert KUBECTL is not None
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig)}
        return subprocess.Popen([KUBECTL, "--cache-dir", str(self.workdir / "cache"), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(30)


def _start(tmp_path: Path, *args: str) -> Sandbox:
    kubeconfig = tmp_path / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0",
         "--kubeconfig", str(kubeconfig), *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"the sandbox exited {process.wait()}:\n{''.join(lines)}")
        lines.append(line)
        if line.startswith("Ctrl-C stops"):
            return Sandbox(process, kubeconfig, lines, tmp_path)
    process.kill()
    raise AssertionError("no banner within 60 s:\n" + "".join(lines))


def _with_other_context(tmp_path: Path) -> Iterator[Sandbox]:
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(OTHER_CONTEXT))
    running = _start(tmp_path, "--nodes", "2")
    yield running
    if running.process.poll() is None:
        # whatever the tests left running, Ctrl-C stops it cleanly
        code = running.stop()
        assert running.process.stdout is not None
        rest = running.process.stdout.read()
        assert (code, rest.strip()) == (0, "fakeapi sandbox: stopping")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """One sandbox with two GPU nodes shared by the tests that leave it running."""
    yield from _with_other_context(tmp_path_factory.mktemp("sandbox"))


@pytest.fixture
def own_sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """A sandbox of the test's own, for tests that stop it."""
    yield from _with_other_context(tmp_path)


def test_sandbox_serves_ready_gpu_nodes_to_kubectl(sandbox: Sandbox) -> None:
    assert sandbox.banner[0].startswith("fakeapi sandbox ready at http://127.0.0.1:")
    nodes = sandbox.kubectl("get", "nodes", "-o",
                            "jsonpath={range .items[*]}{.metadata.name}={.status.conditions"
                            "[?(@.type==\"Ready\")].status} {end}").stdout.split()
    assert nodes == ["node-1=True", "node-2=True"]
    drivers = sandbox.kubectl("get", "resourceslices", "-o",
                              "jsonpath={.items[*].spec.driver}").stdout.split()
    assert drivers == ["gpu.example.com", "gpu.example.com"]
    assert sandbox.kubectl("get", "deviceclass", "gpu.example.com", "-o", "name").stdout == (
        "deviceclass.resource.k8s.io/gpu.example.com\n")
    pools = sandbox.kubectl("dra", "pools").stdout.splitlines()
    assert [line.split()[0] for line in pools] == [
        "NAME", "gpu.example.com.node-1", "gpu.example.com.node-2"]


def test_the_kubeconfig_context_is_merged_and_removed_on_ctrl_c(own_sandbox: Sandbox) -> None:
    merged = yaml.safe_load(own_sandbox.kubeconfig.read_text())
    assert merged["current-context"] == "fakeapi"
    assert [c["name"] for c in merged["contexts"]] == ["prod", "fakeapi"]
    assert own_sandbox.stop() == 0
    assert yaml.safe_load(own_sandbox.kubeconfig.read_text()) == OTHER_CONTEXT


def test_load_applies_manifests_at_start(tmp_path: Path) -> None:
    running = _start(tmp_path, "--nodes", "0", "--load", str(EXAMPLES / "deviceclasses.yaml"))
    try:
        classes = running.kubectl("get", "deviceclasses", "-o", "name").stdout.split()
        assert "deviceclass.resource.k8s.io/mig.example.com" in classes
        assert running.kubectl("get", "nodes", "-o", "name").stdout == ""
    finally:
        assert running.stop() == 0


def test_a_taken_port_is_one_line_and_exit_status_1(sandbox: Sandbox, tmp_path: Path) -> None:
    url = yaml.safe_load(sandbox.kubeconfig.read_text())["clusters"][-1]["cluster"]["server"]
    port = url.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "0", "--port", port,
         "--kubeconfig", str(tmp_path / "other")],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"fakeapi sandbox: cannot listen on 127.0.0.1:{port}: the address is already in use "
        "(try --port 0)\n")
    assert not (tmp_path / "other").exists()


def test_a_bad_manifest_under_load_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Not_Valid}\n")
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "0", "--port", "0",
         "--kubeconfig", str(tmp_path / "kc"), "--load", str(bad)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith('fakeapi sandbox: --load: ConfigMap "Not_Valid" is invalid')


def test_help_documents_every_option() -> None:
    result = subprocess.run([sys.executable, "-m", "fakeapi.cli", "sandbox", "--help"],
                            capture_output=True, text=True, timeout=60)
    for option in ("--nodes", "--profile", "--feature-gates", "--host", "--port",
                   "--kubeconfig", "--load", "--seed", "--controllers"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "bogus"], "unknown driver profile(s) bogus; known: gpu, partitionable, "),
        (["--controllers", "*,-no-such"], "unknown controller(s) -no-such; known: "),
        (["--split", "--authorization-mode", "RBAC"],
         "--split does not run with authentication or TLS yet"),
    ],
)
def test_a_bad_choice_is_one_line_and_exit_status_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0",
         "--kubeconfig", str(tmp_path / "kc"), *args],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("fakeapi sandbox: " + message)
    assert not (tmp_path / "kc").exists()


def test_kep_5729_pods_of_a_podgroup_run_on_one_shared_claim(sandbox: Sandbox) -> None:
    sandbox.kubectl("apply", "-f", str(EXAMPLES / "podgroup-claim.yaml"))
    sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                    "pod/worker-0", "pod/worker-1", "pod/worker-2")
    claims = sandbox.kubectl("get", "resourceclaims", "-o", "json").stdout
    items = yaml.safe_load(claims)["items"]
    assert len(items) == 1, "one claim per PodGroup"
    [claim] = items
    assert claim["metadata"]["name"].startswith("trainer-workers-0-shared-gpu-")
    assert claim["status"]["reservedFor"] == [{
        "apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "trainer-workers-0",
        "uid": claim["metadata"]["ownerReferences"][0]["uid"]}]
    [result] = claim["status"]["allocation"]["devices"]["results"]
    nodes = sandbox.kubectl("get", "pods", "-o",
                            "jsonpath={.items[*].spec.nodeName}").stdout.split()
    assert nodes == [result["pool"]] * 3
    usage = sandbox.kubectl("dra", "pool", f"gpu.example.com.{result['pool']}").stdout
    [row] = [line for line in usage.splitlines() if f" {result['device']} " in line]
    # pool, device, state, health (three pods report it), taints, claim, its holder
    assert row.split()[2:] == ["Allocated", "Healthy", "<none>",
                               f"default/{claim['metadata']['name']}",
                               "podgroups.scheduling.k8s.io/trainer-workers-0"]


def test_a_device_plugin_style_gpu_request_is_served_by_dra(sandbox: Sandbox) -> None:
    sandbox.kubectl("apply", "-f", str(EXAMPLES / "extended-resource-pod.yaml"))
    sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                    "pod/gpu-job")
    pod = yaml.safe_load(sandbox.kubectl("get", "pod", "gpu-job", "-o", "json").stdout)
    status = pod["status"]["extendedResourceClaimStatus"]
    assert status["requestMappings"] == [{"containerName": "trainer",
                                          "resourceName": "example.com/gpu",
                                          "requestName": "container-0-request-0"}]
    claim = yaml.safe_load(sandbox.kubectl(
        "get", "resourceclaim", status["resourceClaimName"], "-o", "json").stdout)
    assert claim["metadata"]["annotations"] == {
        "resource.kubernetes.io/extended-resource-claim": "true"}
    results = claim["status"]["allocation"]["devices"]["results"]
    assert len(results) == 2
    assert {r["pool"] for r in results} == {pod["spec"]["nodeName"]}
    sandbox.kubectl("delete", "-f", str(EXAMPLES / "extended-resource-pod.yaml"), "--wait")
    # the pod's claim goes after it (the resourceclaim controller, the garbage collector)
    sandbox.kubectl("wait", "--for=delete", "--timeout=30s",
                    f"resourceclaim/{status['resourceClaimName']}")


def test_with_no_nodes_the_scheduler_uses_hand_made_nodes_and_slices(tmp_path: Path) -> None:
    running = _start(tmp_path, "--nodes", "0", "--load", str(EXAMPLES / "handmade-node.yaml"),
                     "--load", str(EXAMPLES / "template-claim-pod.yaml"))
    try:
        assert running.banner[0].endswith(
            "components: controllers, scheduler (controllers without node-lifecycle-controller)\n"
        )
        running.kubectl("wait", "--for=jsonpath={.spec.nodeName}=handmade-1", "--timeout=60s",
                        "pod/gpu-pod")
        [row] = running.kubectl("dra", "pools").stdout.splitlines()[1:]
        assert row.split()[4:] == ["2", "1", "1", "0"]
    finally:
        assert running.stop() == 0


def test_kubectl_logs_reads_a_running_pod_and_says_why_a_stuck_one_has_none(
    sandbox: Sandbox,
) -> None:
    sandbox.kubectl("create", "namespace", "logs")  # out of the way of the other tests' pods
    sandbox.kubectl("run", "quiet", "-n", "logs", "--image=pause:3.10", "--restart=Never")
    sandbox.kubectl("wait", "-n", "logs", "--for=jsonpath={.status.phase}=Running",
                    "--timeout=60s", "pod/quiet")
    logs = sandbox.kubectl("logs", "-n", "logs", "quiet")
    assert (logs.returncode, logs.stdout) == (0, "")  # a simulated container prints nothing
    # bound to a node no kubelet serves: its container never starts
    sandbox.kubectl("run", "stuck", "-n", "logs", "--image=pause:3.10", "--restart=Never",
                    '--overrides={"spec": {"nodeName": "node-404"}}')
    stuck = sandbox.kubectl("logs", "-n", "logs", "stuck", check=False)
    assert stuck.returncode == 1
    assert stuck.stderr.strip() == ('Error from server (BadRequest): container "stuck" in pod '
                                    '"stuck" is waiting to start: ContainerCreating')


def test_kubectl_exec_says_nothing_runs_to_exec_into(sandbox: Sandbox) -> None:
    sandbox.kubectl("create", "namespace", "exec")
    sandbox.kubectl("run", "idle", "-n", "exec", "--image=pause:3.10", "--restart=Never")
    result = sandbox.kubectl("exec", "-n", "exec", "idle", "--", "ls", check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: unable to upgrade connection: pods/exec of exec/idle is not served: fakeapi's "
        "simulated kubelets run no containers to connect to (a stream configuration, "
        "--stream-config, can connect them to local commands and ports)")


def test_kubectl_logs_follow_stays_open_while_the_container_runs(sandbox: Sandbox) -> None:
    sandbox.kubectl("create", "namespace", "follow")
    sandbox.kubectl("run", "runner", "-n", "follow", "--image=pause:3.10", "--restart=Never")
    sandbox.kubectl("wait", "-n", "follow", "--for=jsonpath={.status.phase}=Running",
                    "--timeout=60s", "pod/runner")
    follower = sandbox.popen("logs", "-f", "-n", "follow", "runner")
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            follower.wait(2)  # the container runs: the log may still grow
        sandbox.kubectl("delete", "pod", "-n", "follow", "runner", "--wait=false")
        # the kubelet stops the container: the stream ends, as kubectl logs -f does
        assert follower.wait(30) == 0
        assert follower.stdout is not None and follower.stdout.read() == ""
    finally:
        if follower.poll() is None:
            follower.kill()


def test_kubectl_sorts_kubelet_events_by_last_timestamp(sandbox: Sandbox) -> None:
    sandbox.kubectl("create", "namespace", "events")
    sandbox.kubectl("run", "tick", "-n", "events", "--image=pause:3.10", "--restart=Never")
    sandbox.kubectl("wait", "-n", "events", "--for=jsonpath={.status.phase}=Running",
                    "--timeout=60s", "pod/tick")
    listed = sandbox.kubectl(
        "get", "events", "-n", "events", "--sort-by=.lastTimestamp", "-o",
        "jsonpath={range .items[*]}{.reason}/{.source.component}/{.count}{'\\n'}{end}",
    ).stdout.split()
    assert listed[-1] == "Started/kubelet/1"
    assert "Scheduled//" in listed  # the scheduler's events.k8s.io Events have no source
