"""``kubectl exec`` and ``kubectl attach`` over the WebSocket channel protocol, to a local process.

kubectl 1.30+ opens ``pods/exec`` and ``pods/attach`` as a WebSocket offering
``v5.channel.k8s.io`` first (then v4...); the official Python client offers ``v4``. Every binary
message starts with its channel: 0 stdin, 1 stdout, 2 stderr, 3 the error channel (one
``metav1.Status`` as JSON when the command ends), 4 terminal resizes. ``v5`` adds a message
``[255, channel]`` by which the client closes its stdin. What the session is connected to:

- :func:`run_process` — a local process (the command kubectl gives for ``exec``; the configured
  one for ``attach``): stdin from channel 0, stdout and stderr (stdout alone with a TTY) to 1 and
  2; its exit status is the Status: ``Success``, or ``Failure`` with reason ``NonZeroExitCode``
  and the code in ``details.causes`` (``reason: ExitCode``), from which kubectl takes its own;
- :func:`stream_file` — a file (``attach`` with ``logsFile``): its content, then what is
  appended, until the client goes.

The client going away ends the process (it is killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSMsgType, web

__all__ = [
    "CHANNEL_PROTOCOLS",
    "ChannelSession",
    "run_process",
    "stream_file",
]

#: the channel protocols served, the newest first (kubectl lists v5 first)
CHANNEL_PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")
STDIN, STDOUT, STDERR, ERROR, RESIZE = 0, 1, 2, 3, 4
CLOSE_SIGNAL = 255
_CHUNK = 32 * 1024
#: how often a followed file is looked at for more bytes
FILE_POLL_INTERVAL = 0.2


def status(*, exit_code: int | None = None, message: str = "") -> dict[str, Any]:
    """The error channel's Status, as the kubelet writes it."""
    if exit_code == 0 and not message:
        return {"metadata": {}, "status": "Success"}
    body: dict[str, Any] = {"metadata": {}, "status": "Failure"}
    if exit_code is not None:
        body["message"] = (
            f"command terminated with non-zero exit code: exit status {exit_code}"
        )
        body["reason"] = "NonZeroExitCode"
        body["details"] = {"causes": [{"reason": "ExitCode", "message": str(exit_code)}]}
    else:
        body["message"] = message
    return body


class ChannelSession:
    """One WebSocket speaking the channel protocol."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.protocol = ws.ws_protocol or ""
        self.stdin: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = asyncio.Event()

    async def send(self, channel: int, data: bytes) -> None:
        if not self.ws.closed:
            await self.ws.send_bytes(bytes([channel]) + data)

    async def finish(self, body: Mapping[str, Any]) -> None:
        await self.send(ERROR, orjson.dumps(body))
        await self.ws.close()

    async def read(self) -> None:
        """Hand stdin to :attr:`stdin` (None: closed) until the client goes."""
        try:
            async for message in self.ws:
                if message.type is not WSMsgType.BINARY or not message.data:
                    continue
                channel, payload = message.data[0], message.data[1:]
                if channel == STDIN:
                    self.stdin.put_nowait(payload)
                elif channel == CLOSE_SIGNAL and payload[:1] == bytes([STDIN]):
                    self.stdin.put_nowait(None)
        finally:
            self.stdin.put_nowait(None)
            self.closed.set()


async def _pump_stdin(session: ChannelSession, writer: asyncio.StreamWriter | None) -> None:
    while True:
        data = await session.stdin.get()
        if data is None:
            if writer is not None:
                with contextlib.suppress(OSError):
                    writer.close()
            return
        if writer is None:
            continue
        with contextlib.suppress(OSError):
            writer.write(data)
            await writer.drain()


async def _pump_out(reader: asyncio.StreamReader | None, session: ChannelSession,
                    channel: int) -> None:
    if reader is None:
        return
    while chunk := await reader.read(_CHUNK):
        await session.send(channel, chunk)


async def run_process(
    session: ChannelSession,
    command: Sequence[str],
    *,
    stdin: bool,
    tty: bool,
    cwd: Path | None,
    env: Mapping[str, str],
) -> None:
    """Run ``command`` locally, connected to the session, and report how it ended."""
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if tty else asyncio.subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **env},
        )
    except OSError as exc:
        # the kubelet's words for a command the runtime cannot start
        await session.finish(status(message=(
            f"failed to exec in container: failed to start exec: {exc.strerror or exc}: "
            f"{command[0]}")))
        return
    reader = asyncio.get_running_loop().create_task(session.read())
    feeding = asyncio.get_running_loop().create_task(_pump_stdin(session, process.stdin))
    output = asyncio.gather(_pump_out(process.stdout, session, STDOUT),
                            _pump_out(process.stderr, session, STDERR))
    gone = asyncio.get_running_loop().create_task(session.closed.wait())
    try:
        pending: set[asyncio.Future[Any]] = {output, gone}
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if not output.done():  # the client went away: so does the process
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            return
        code = await process.wait()
        await session.finish(status(exit_code=code))
    finally:
        for task in (feeding, gone, reader):
            task.cancel()
        output.cancel()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


async def stream_file(session: ChannelSession, path: Path) -> None:
    """The file's content on stdout, then what is appended to it, until the client goes."""
    reader = asyncio.get_running_loop().create_task(session.read())
    try:
        with path.open("rb") as file:
            while not session.closed.is_set():
                chunk = file.read(_CHUNK)
                if chunk:
                    await session.send(STDOUT, chunk)
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(session.closed.wait(), FILE_POLL_INTERVAL)
    except OSError as exc:
        await session.finish(status(message=f"cannot read {path}: {exc.strerror or exc}"))
    finally:
        reader.cancel()
