"""Real kubectl watching a running ``fakeapi serve``: ``get -w --output-watch-events`` (Table
events with the server's columns), and ``kubectl wait`` for a condition, a jsonpath value and
deletion — each started in the background *before* the change it waits for, so the change has to
arrive through the watch stream rather than the initial GET.
"""

from __future__ import annotations

import subprocess
import threading
from typing import IO

import pytest

pytestmark = pytest.mark.e2e


#: what kubectl -v=6 logs once a WatchList has delivered the initial state (client-go reflector)
WATCH_ESTABLISHED = "Caches populated"


class _Lines:
    """Collects a background process's stdout and stderr lines as they are printed."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.errors: list[str] = []
        self._threads = [
            threading.Thread(target=self._read, args=(proc.stdout, self.lines), daemon=True),
            threading.Thread(target=self._read, args=(proc.stderr, self.errors), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _read(stream: IO[str] | None, into: list[str]) -> None:
        assert stream is not None
        for line in stream:
            into.append(line.rstrip("\n"))

    def rows(self) -> list[list[str]]:
        return [line.split() for line in list(self.lines)]

    def logged(self, text: str) -> bool:
        return any(text in line for line in list(self.errors))

    def finish(self, timeout: float) -> int:
        """Wait for the process to exit by itself; return its exit code."""
        try:
            code = self.proc.wait(timeout)
        finally:
            self.stop()
        return code

    def stop(self) -> str:
        """Terminate the process if still running; return its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        for thread in self._threads:
            thread.join(5)
        return "\n".join(self.errors)


def _pod(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "img"}]}}


def _claim(name: str, finalizers: list[str] | None = None) -> dict[str, object]:
    meta: dict[str, object] = {"name": name}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}


def test_get_watch_prints_added_modified_deleted_rows_with_pod_columns(kubectl, poll):
    kubectl("create", "-f", str(kubectl.write("before.yaml", _pod("early"))))
    watch = _Lines(kubectl.popen("get", "pods", "-w", "--output-watch-events"))
    try:
        poll(lambda: len(watch.lines) >= 2, message="header and initial row")
        kubectl("create", "-f", str(kubectl.write("later.yaml", _pod("late"))))
        kubectl("patch", "pod", "late", "--subresource=status", "--type=merge",
                "-p", '{"status":{"phase":"Running"}}')
        kubectl("delete", "pod", "late")
        poll(lambda: any(r[:2] == ["DELETED", "late"] for r in watch.rows()),
             message="the DELETED row")
    finally:
        stderr = watch.stop()
    rows = watch.rows()
    assert rows[0] == ["EVENT", "NAME", "READY", "STATUS", "RESTARTS", "AGE"], (rows, stderr)
    events = [r[:5] for r in rows[1:]]
    assert events == [
        ["ADDED", "early", "0/1", "Pending", "0"],
        ["ADDED", "late", "0/1", "Pending", "0"],
        ["MODIFIED", "late", "0/1", "Running", "0"],
        ["DELETED", "late", "0/1", "Running", "0"],
    ], (rows, stderr)
    assert rows.count(rows[0]) == 1, "a second header means raw objects arrived mid-stream"


def test_get_watch_shows_resourceclaim_state_through_finalized_deletion(kubectl, poll):
    watch = _Lines(kubectl.popen("get", "resourceclaims", "-w", "--output-watch-events"))
    try:
        # created before or after the watch opens, the claim arrives as ADDED either way
        kubectl("create", "-f", str(kubectl.write("claim.yaml",
                                                  _claim("gpu", ["example.com/keep"]))))
        poll(lambda: any(r[:2] == ["ADDED", "gpu"] for r in watch.rows()), message="ADDED row")
        kubectl("delete", "resourceclaim", "gpu", "--wait=false")
        poll(lambda: any(r[0] == "MODIFIED" for r in watch.rows()), message="MODIFIED row")
        kubectl("patch", "resourceclaim", "gpu", "--type=json",
                "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
        poll(lambda: any(r[0] == "DELETED" for r in watch.rows()), message="DELETED row")
    finally:
        stderr = watch.stop()
    rows = watch.rows()
    assert rows[0] == ["EVENT", "NAME", "STATE", "AGE"], (rows, stderr)
    assert [r[:3] for r in rows[1:]] == [
        ["ADDED", "gpu", "pending"],
        ["MODIFIED", "gpu", "deleted"],
        ["DELETED", "gpu", "deleted"],
    ], (rows, stderr)


def _start_wait(kubectl, poll, *args: str) -> _Lines:
    """Start ``kubectl wait`` and return once its watch has delivered the initial state."""
    waiting = _Lines(kubectl.popen("wait", *args, "--timeout=20s", "-v=6"))
    try:
        poll(lambda: waiting.logged(WATCH_ESTABLISHED) or waiting.proc.poll() is not None,
             message="kubectl wait to open its watch")
    except BaseException:
        waiting.stop()
        raise
    assert waiting.proc.poll() is None, f"kubectl wait ended early: {waiting.stop()}"
    return waiting


def test_wait_for_condition_set_through_status_subresource(kubectl, poll):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("ready-soon"))))
    waiting = _start_wait(kubectl, poll, "--for=condition=Ready", "pod/ready-soon")
    kubectl("patch", "pod", "ready-soon", "--subresource=status", "--type=merge", "-p",
            '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}')
    assert waiting.finish(20) == 0, waiting.errors[-5:]
    assert waiting.lines == ["pod/ready-soon condition met"]
    # already true: answered from the initial events of the watch
    assert kubectl("wait", "--for=condition=Ready", "pod/ready-soon", "--timeout=5s").strip() \
        == "pod/ready-soon condition met"


def test_wait_for_jsonpath_value(kubectl, poll):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("phased"))))
    waiting = _start_wait(kubectl, poll, "--for=jsonpath={.status.phase}=Running", "pod/phased")
    kubectl("patch", "pod", "phased", "--subresource=status", "--type=merge",
            "-p", '{"status":{"phase":"Running"}}')
    assert waiting.finish(20) == 0, waiting.errors[-5:]
    assert waiting.lines == ["pod/phased condition met"]


def test_wait_for_delete_returns_when_finalizer_is_removed(kubectl, poll):
    kubectl("create", "-f", str(kubectl.write("claim.yaml", _claim("c1", ["example.com/x"]))))
    kubectl("delete", "resourceclaim", "c1", "--wait=false")
    waiting = _start_wait(kubectl, poll, "--for=delete", "resourceclaim/c1")
    kubectl("patch", "resourceclaim", "c1", "--type=merge",
            "-p", '{"metadata":{"finalizers":null}}')
    assert waiting.finish(20) == 0, waiting.errors[-5:]
    assert waiting.lines == ["resourceclaim.resource.k8s.io/c1 condition met"]


def test_wait_times_out_when_condition_never_holds(kubectl):
    kubectl("create", "-f", str(kubectl.write("pod.yaml", _pod("never"))))
    proc = kubectl.run("wait", "--for=condition=Ready", "pod/never", "--timeout=1s", check=False)
    assert proc.returncode == 1
    assert "error: timed out waiting for the condition on pods/never" in proc.stderr
