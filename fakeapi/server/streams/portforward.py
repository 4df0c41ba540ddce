"""``kubectl port-forward`` to a local port or command, over the two protocols clients speak.

- **SPDY over WebSocket** (``SPDY/3.1+portforward.k8s.io``, kubectl): per connection kubectl
  opens two streams, ``streamtype: error`` and ``streamtype: data``, with the same
  ``requestid`` and the pod ``port``; the server answers each (SYN_REPLY), connects the data
  stream to the target, and writes to the error stream only when forwarding fails, in the
  kubelet's words (``error forwarding port 8080 to pod ..., uid : ...``). Either side's FIN ends
  its half; PINGs are answered.
- **Channels** (``v4.channel.k8s.io``, also named ``portforward.k8s.io``: the Python client):
  the ports come from the ``ports`` query; port *i* has data channel ``2i`` and error channel
  ``2i+1``, each opened by a message holding the port (two bytes, little-endian); one connection
  per port, and the WebSocket closes when they all ended.

What a port reaches is its :class:`~.config.ForwardRule`: a TCP port (``target``) or a local
process whose stdin and stdout are the connection (``command``).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from fakeapi.server.streams import spdy
from fakeapi.server.streams.config import ForwardRule

__all__ = [
    "CHANNEL_PROTOCOLS",
    "SPDY_TUNNEL_PROTOCOL",
    "Target",
    "serve_channels",
    "serve_spdy",
]

SPDY_TUNNEL_PROTOCOL = "SPDY/3.1+portforward.k8s.io"
CHANNEL_PROTOCOLS = ("v4.channel.k8s.io", "portforward.k8s.io", "v2.portforward.k8s.io")
_CHUNK = 32 * 1024

#: port → the rule for it, or None (the caller knows which pod)
RuleFor = Callable[[int], ForwardRule | None]


class Target:
    """One connection to what a pod port is forwarded to."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None,
                 process: asyncio.subprocess.Process | None = None) -> None:
        self.reader = reader
        self.writer = writer
        self.process = process

    @classmethod
    async def open(cls, rule: ForwardRule, port: int) -> Target:
        if rule.command:
            process = await asyncio.create_subprocess_exec(
                *rule.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert process.stdout is not None and process.stdin is not None
            return cls(process.stdout, process.stdin, process)
        reader, writer = await asyncio.open_connection(rule.address, rule.port or port)
        return cls(reader, writer)

    async def write(self, data: bytes) -> None:
        if self.writer is not None:
            self.writer.write(data)
            await self.writer.drain()

    def half_close(self) -> None:
        if self.writer is None:
            return
        with contextlib.suppress(OSError):
            if self.writer.can_write_eof():
                self.writer.write_eof()
            else:
                self.writer.close()

    async def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(OSError):
                self.writer.close()
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


def _failure(pod: str, port: int, exc: BaseException) -> bytes:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"error forwarding port {port} to pod {pod}, uid : {reason}".encode()


# --- SPDY over WebSocket (kubectl) ----------------------------------------------------------------
@dataclass(slots=True)
class _Pair:
    port: int
    error: int = 0
    data: int = 0
    target: Target | None = None
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    #: what the client sent on the data stream, in order (None: its FIN), kept until the target
    #: is connected and then written by :meth:`_SpdySession.forward`
    inbound: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)


class _SpdySession:
    def __init__(self, ws: web.WebSocketResponse, pod: str, rule_for: RuleFor) -> None:
        self.ws = ws
        self.pod = pod
        self.rule_for = rule_for
        self.codec = spdy.HeaderCodec()
        self.pairs: dict[str, _Pair] = {}
        self.by_stream: dict[int, _Pair] = {}
        self._lock = asyncio.Lock()

    async def send(self, frame: bytes) -> None:
        async with self._lock:  # a frame's header block depends on the compressor's order
            if not self.ws.closed:
                await self.ws.send_bytes(frame)

    async def reply(self, stream_id: int) -> None:
        async with self._lock:
            body = struct.pack(">I", stream_id) + self.codec.encode({})
            if not self.ws.closed:
                await self.ws.send_bytes(spdy.control_frame(spdy.SYN_REPLY, body))

    async def run(self) -> None:
        reader = spdy.FrameReader()
        try:
            async for message in self.ws:
                if message.type is not WSMsgType.BINARY:
                    continue
                for frame in reader.feed(message.data):
                    await self.handle(frame)
        except spdy.SpdyError:
            await self.ws.close()
        finally:
            for pair in self.pairs.values():
                for task in pair.tasks:
                    task.cancel()
                if pair.target is not None:
                    await pair.target.close()

    async def handle(self, frame: spdy.ControlFrame | spdy.DataFrame) -> None:
        if isinstance(frame, spdy.DataFrame):
            pair = self.by_stream.get(frame.stream_id)
            if pair is None or frame.stream_id != pair.data:
                return
            if frame.data:
                pair.inbound.put_nowait(frame.data)
            if frame.fin:
                pair.inbound.put_nowait(None)
            return
        if frame.type == spdy.SYN_STREAM:
            await self.open_stream(frame)
        elif frame.type == spdy.PING:
            await self.send(spdy.control_frame(spdy.PING, frame.data))
        elif frame.type == spdy.RST_STREAM:
            pair = self.by_stream.get(spdy.stream_id_of(frame))
            if pair is not None and pair.target is not None:
                await pair.target.close()
        elif frame.type == spdy.GOAWAY:
            await self.ws.close()
        # SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do without flow control

    async def open_stream(self, frame: spdy.ControlFrame) -> None:
        stream_id = spdy.stream_id_of(frame)
        headers = self.codec.decode(frame.data[10:])
        request = headers.get("requestid", "")
        try:
            port = int(headers.get("port", ""))
        except ValueError:
            await self.send(spdy.control_frame(
                spdy.RST_STREAM, struct.pack(">II", stream_id, spdy.PROTOCOL_ERROR)))
            return
        pair = self.pairs.setdefault(request, _Pair(port))
        if headers.get("streamtype") == "error":
            pair.error = stream_id
        else:
            pair.data = stream_id
        self.by_stream[stream_id] = pair
        await self.reply(stream_id)
        if pair.error and pair.data and pair.target is None:
            task = asyncio.get_running_loop().create_task(self.forward(pair))
            pair.tasks.add(task)

    async def forward(self, pair: _Pair) -> None:
        rule = self.rule_for(pair.port)
        try:
            if rule is None:
                raise OSError(0, f"no PortForward rule of the stream configuration forwards "
                              f"port {pair.port}")
            pair.target = await Target.open(rule, pair.port)
        except OSError as exc:
            await self.send(spdy.data_frame(pair.error, _failure(self.pod, pair.port, exc)))
            await self.send(spdy.data_frame(pair.error, b"", fin=True))
            await self.send(spdy.data_frame(pair.data, b"", fin=True))
            return
        writing = asyncio.get_running_loop().create_task(self._write_inbound(pair, pair.target))
        pair.tasks.add(writing)
        try:
            while chunk := await pair.target.reader.read(_CHUNK):
                await self.send(spdy.data_frame(pair.data, chunk))
        except OSError:
            pass
        await self.send(spdy.data_frame(pair.data, b"", fin=True))
        await self.send(spdy.data_frame(pair.error, b"", fin=True))

    @staticmethod
    async def _write_inbound(pair: _Pair, target: Target) -> None:
        while (data := await pair.inbound.get()) is not None:
            try:
                await target.write(data)
            except OSError:
                return
        target.half_close()


async def serve_spdy(ws: web.WebSocketResponse, *, pod: str, rule_for: RuleFor) -> None:
    await _SpdySession(ws, pod, rule_for).run()


# --- channels (the Python client) -----------------------------------------------------------------
async def serve_channels(
    ws: web.WebSocketResponse, *, pod: str, ports: list[int], rule_for: RuleFor
) -> None:
    """One connection per port; the WebSocket closes once every connection ended."""
    targets: dict[int, Target] = {}
    for index, port in enumerate(ports):
        prefix = struct.pack("<H", port)
        await ws.send_bytes(bytes([2 * index]) + prefix)
        await ws.send_bytes(bytes([2 * index + 1]) + prefix)
        rule = rule_for(port)
        try:
            if rule is None:
                raise OSError(0, f"no PortForward rule of the stream configuration forwards "
                              f"port {port}")
            targets[index] = await Target.open(rule, port)
        except OSError as exc:
            await ws.send_bytes(bytes([2 * index + 1]) + _failure(pod, port, exc))

    async def copy_back(index: int, target: Target) -> None:
        with contextlib.suppress(OSError):
            while chunk := await target.reader.read(_CHUNK):
                if ws.closed:
                    return
                await ws.send_bytes(bytes([2 * index]) + chunk)

    loop = asyncio.get_running_loop()
    back = [loop.create_task(copy_back(i, t)) for i, t in targets.items()]

    async def copy_in() -> None:
        async for message in ws:
            if message.type is not WSMsgType.BINARY or not message.data:
                continue
            channel, payload = message.data[0], message.data[1:]
            target = targets.get(channel // 2)
            if target is not None and channel % 2 == 0 and payload:
                with contextlib.suppress(OSError):
                    await target.write(payload)

    reading = loop.create_task(copy_in())
    try:
        if back:
            pending: set[asyncio.Future[Any]] = {asyncio.gather(*back), reading}
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        await ws.close()
    finally:
        for task in [*back, reading]:
            task.cancel()
        for target in targets.values():
            await target.close()
