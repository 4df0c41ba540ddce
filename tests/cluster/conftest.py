"""Fixtures shared by the cluster tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def fakeapi_serve(tmp_path: Path) -> Iterator[Path]:
    """A separately started ``fakeapi serve``; its kubeconfig's path."""
    kubeconfig = tmp_path / "kubeconfig"
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "serve", "--port", "0",
         "--kubeconfig", str(kubeconfig)],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 30
    while not kubeconfig.exists():  # bounded guard: the server writes it once it listens
        assert process.poll() is None and time.monotonic() < deadline, (
            (tmp_path / "serve.log").read_text())
        time.sleep(0.02)
    yield kubeconfig
    process.terminate()
    process.wait(10)
    log.close()
