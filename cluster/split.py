"""The components in a second process: ``fakeapi sandbox --split``.

One event loop uses one core. A real cluster runs kube-apiserver, kube-controller-manager,
kube-scheduler and the kubelets as separate processes talking HTTP; on a machine with two cores
or more, the sandbox can do the same: the parent process serves the API (its registry, its
watches), and a child runs every component — controllers, scheduler, simulated kubelets, the
user's own — as a :class:`~fakeapi.cluster.assembler.Cluster` attached to the parent's server
(``api_url``), every client over :class:`~fakeapi.client.SessionTransport`. The components pay for
encoding their writes and decoding their watch events, which the in-process transport spares
them, and in exchange the API server has a core to itself (``bench/bench_scheduler.py
--black-box`` measures both modes).

The child is ``python -m fakeapi.cluster.split OPTIONS_JSON``: the options are the attached
cluster's keyword arguments. It prints :data:`READY_LINE` on its standard output once every
component has started (and every node is Ready), then runs until SIGINT or SIGTERM. Its standard
error is the parent's, so that ``-v`` lines and failures reach the same terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

__all__ = ["READY_LINE", "ComponentProcess", "main"]

#: what the child prints once its components run
READY_LINE = "fakeapi components ready"


class ComponentProcess:
    """The child process running a cluster's components against the parent's API server."""

    def __init__(self, options: Mapping[str, Any], *, verbosity: int = 0,
                 log_format: str = "text") -> None:
        #: the attached cluster's keyword arguments (``api_url`` included)
        self.options = dict(options)
        self.verbosity = verbosity
        self.log_format = log_format
        self._process: asyncio.subprocess.Process | None = None
        self._relay: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def start(self) -> None:
        """Start the child and return once its components run; RuntimeError when it exits
        before that (it has told why on stderr)."""
        payload = {"cluster": self.options, "verbosity": self.verbosity,
                   "log_format": self.log_format}
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "fakeapi.cluster.split", orjson.dumps(payload).decode(),
            stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL,
        )
        assert self._process.stdout is not None
        async for line in self._process.stdout:
            if line.decode().strip() == READY_LINE:
                # what the components print from now on (a user's component may) is passed on,
                # so that the child never blocks on a full pipe
                self._relay = asyncio.get_running_loop().create_task(
                    self._pass_on(self._process.stdout), name="components' output"
                )
                return
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        code = await self._process.wait()
        self._process = None
        raise RuntimeError(f"the components' process exited with status {code} before it was "
                           "ready")

    @staticmethod
    async def _pass_on(stream: asyncio.StreamReader) -> None:
        async for line in stream:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()

    async def wait(self) -> int:
        """Until the child exits; its exit status."""
        assert self._process is not None
        return await self._process.wait()

    async def stop(self) -> None:
        """SIGTERM, then wait for the child to stop its components (SIGKILL after 30 s)."""
        process, self._process = self._process, None
        relay, self._relay = self._relay, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if relay is not None:  # the child's last lines, up to the end of its output
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(relay, 5)


async def _run(options: dict[str, Any]) -> int:
    from fakeapi.cluster.assembler import Cluster

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    # paths travel as strings: a string would be read as YAML text, a Path as a file
    for key in ("load",):
        options[key] = [Path(p) for p in options.get(key) or ()]
    for key in ("stages", "scheduler_config"):
        if options.get(key) not in (None, "realistic"):
            options[key] = Path(options[key])
    cluster = Cluster(**options)
    starting = loop.create_task(cluster.start())
    stopping = loop.create_task(stop.wait())
    await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not starting.done():  # stopped while starting: start() cleans up what it began
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await starting
        return 0
    stopping.cancel()
    try:
        starting.result()
    except Exception as exc:
        print(f"fakeapi sandbox: components: {exc}", file=sys.stderr, flush=True)
        return 1
    print(READY_LINE, flush=True)
    await stop.wait()
    await cluster.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """The child's entry point (see the module docstring)."""

    from fakeapi.cli import tune_collector

    payload = orjson.loads((argv if argv is not None else sys.argv[1:])[0])
    # user code named module:attribute is imported from the directory the sandbox runs in
    sys.path.insert(0, os.getcwd())
    if payload.get("verbosity"):
        from fakeapi.commands.watch import configure_logging

        configure_logging(verbosity=payload["verbosity"], log_format=payload["log_format"],
                          stream=sys.stderr)
    tune_collector()
    try:
        return asyncio.run(_run(payload["cluster"]))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
