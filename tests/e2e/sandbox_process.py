"""A ``fakeapi sandbox`` subprocess whose output is read as it comes, for the e2e tests that watch
what it prints after its banner (``-v`` lines, ``--load`` reports).

A thread reads stdout (stderr merged) line by line; :meth:`SandboxProcess.wait_for` blocks until
a line matches, a bounded guard that says what was printed when it gives up.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

__all__ = ["BIN", "KUBECTL", "SandboxProcess"]

KUBECTL = shutil.which("kubectl")
BIN = str(Path(sys.executable).parent)


class SandboxProcess:
    def __init__(self, workdir: Path, *args: str, kubeconfig: str = "kubeconfig") -> None:
        """Start ``fakeapi sandbox --port 0 --kubeconfig KUBECONFIG ARGS`` in ``workdir``
        (``kubeconfig`` relative to it, as a user in that directory would write it)."""
        self.workdir = workdir
        self.kubeconfig = workdir / kubeconfig
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0",
             "--kubeconfig", kubeconfig, *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=workdir,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, pattern: str, *, timeout: float = 60) -> str:
        """The first line (from the start) that matches ``pattern`` (a regular expression)."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = next((line for line in self.lines if compiled.search(line)), None)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(
                        f"no line matching {pattern!r}; the sandbox printed:\n"
                        + "\n".join(self.lines)
                    )
                self._changed.wait(left)

    def ready(self) -> SandboxProcess:
        self.wait_for(r"^Ctrl-C stops")
        return self

    def kubectl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None, "kubectl is not installed (pip install -e '.[test]')"
        env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
               "KUBECONFIG": str(self.kubeconfig)}
        cache = [] if args[0] == "dra" else ["--cache-dir", str(self.workdir / "cache")]
        result = subprocess.run([KUBECTL, *cache, *args], capture_output=True, text=True,
                                env=env, timeout=120, cwd=self.workdir)
        if check:
            assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        code = self.process.wait(30)
        self._reader.join(10)
        return code
