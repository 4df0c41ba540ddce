"""A driver binary run once per node, as a DaemonSet's pod would run it there.

:class:`DriverProcess` starts a command line for one node, with the node's name, its kubelet
directories and a kubeconfig for the cluster both in its arguments (placeholders) and in its
environment, restarts it whenever it exits, and stops it with the node:

========================  ==========================================================
placeholder               environment variable
========================  ==========================================================
``{node}``                ``NODE_NAME``
``{root_dir}``            ``KUBELET_ROOT_DIR`` (``DIR/<node>``)
``{registry_dir}``        ``KUBELET_REGISTRATION_DIR`` (``.../plugins_registry``)
``{plugins_dir}``         ``KUBELET_PLUGINS_DIR`` (``.../plugins``)
``{kubeconfig}``          ``KUBECONFIG``
========================  ==========================================================

Restarts follow the kubelet's crash-loop back-off (:mod:`fakeapi.kubelet.backoff`): the first
exit restarts at once, then 10 s, 20 s, ... up to 5 minutes, starting afresh after a run of ten
minutes. Output goes to ``<root_dir>/driver.log`` (appended across restarts). Stopping sends
SIGTERM, then SIGKILL after a grace period, as the kubelet stops a container.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
from collections.abc import Mapping
from pathlib import Path

from fakeapi.clock import Clock
from fakeapi.kubelet.backoff import CrashLoopBackOff
from fakeapi.kubelet.plugins.layout import KubeletDirectory

__all__ = ["DriverProcess", "GRACE_PERIOD_SECONDS", "command_line"]

log = logging.getLogger("fakeapi.kubelet.plugins")

#: how long a stopping driver has between SIGTERM and SIGKILL
GRACE_PERIOD_SECONDS = 5.0


def _variables(*, node: str, directory: KubeletDirectory, kubeconfig: str) -> dict[str, str]:
    return {
        "node": node,
        "root_dir": str(directory.root),
        "registry_dir": str(directory.registry_dir),
        "plugins_dir": str(directory.plugins_dir),
        "kubeconfig": kubeconfig,
    }


def command_line(
    command: str, *, node: str, directory: KubeletDirectory, kubeconfig: str
) -> list[str]:
    """The arguments of ``command`` for ``node`` (ValueError: an unknown placeholder)."""
    variables = _variables(node=node, directory=directory, kubeconfig=kubeconfig)
    try:
        return [arg.format_map(variables) for arg in shlex.split(command)]
    except (KeyError, IndexError) as exc:
        raise ValueError(
            f"--driver-command {command!r}: unknown placeholder {exc} (known: "
            f"{', '.join('{' + v + '}' for v in variables)})"
        ) from None


class DriverProcess:
    """One node's driver process; ``start()`` / ``stop()`` (the assembler's component shape)."""

    def __init__(
        self,
        *,
        command: str,
        node_name: str,
        directory: KubeletDirectory,
        kubeconfig: str,
        clock: Clock,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.node_name = node_name
        self.directory = directory
        self.clock = clock
        self.args = command_line(command, node=node_name, directory=directory,
                                 kubeconfig=kubeconfig)
        self.env = {
            **os.environ,
            **(env or {}),
            "NODE_NAME": node_name,
            "KUBELET_ROOT_DIR": str(directory.root),
            "KUBELET_REGISTRATION_DIR": str(directory.registry_dir),
            "KUBELET_PLUGINS_DIR": str(directory.plugins_dir),
            "KUBECONFIG": kubeconfig,
        }
        self.log_path = directory.root / "driver.log"
        self.back_off = CrashLoopBackOff()
        #: how often the process was started, and the exit codes of the runs that ended
        self.starts = 0
        self.exits: list[int] = []
        self.process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._started_once = asyncio.Event()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self) -> None:
        if self._task is not None:
            return
        self.directory.create()
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"driver on {self.node_name}"
        )
        await self._started_once.wait()

    async def _spawn(self) -> asyncio.subprocess.Process:
        with open(self.log_path, "ab") as out:
            return await asyncio.create_subprocess_exec(
                *self.args, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
                env=self.env, start_new_session=True,
            )

    async def _run(self) -> None:
        key = "driver"
        while True:
            try:
                self.process = await self._spawn()
            except OSError as exc:
                log.warning("node %s: cannot start %s: %s", self.node_name, self.args[0], exc)
                self.process = None
                code = 127
                self._started_once.set()
            else:
                self.starts += 1
                self._started_once.set()
                code = await self.process.wait()
            self.exits.append(code)
            exited = self.clock.now().timestamp()
            log.info("node %s: driver exited with %s", self.node_name, code)
            wait = self.back_off.left(key, exited, now=self.clock.now().timestamp())
            if wait > 0:
                await self.clock.sleep(wait)
            self.back_off.next(key, exited, now=self.clock.now().timestamp())

    def kill(self) -> None:
        """Kill the running process (it is restarted as after a crash)."""
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), GRACE_PERIOD_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()

    def output(self) -> str:
        """What the driver wrote so far (all runs)."""
        try:
            return Path(self.log_path).read_text(errors="replace")
        except FileNotFoundError:
            return ""
