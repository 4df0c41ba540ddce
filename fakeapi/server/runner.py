"""Run the API server on a TCP port inside the current event loop.

Used by ``fakeapi serve``, by tests that drive the server with real clients, and by the sandbox.
``port=0`` lets the OS pick a free port; :attr:`ApiServer.url` tells which.
"""

from __future__ import annotations

import socket
from types import TracebackType

from aiohttp import web
from prometheus_client import CollectorRegistry

from fakeapi.registry.store import GenericStore
from fakeapi.server.app import create_app
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.streams import StreamConfig

__all__ = ["ApiServer"]


class ApiServer:
    def __init__(
        self,
        *,
        registry: GenericStore,
        host: str = "127.0.0.1",
        port: int = 0,
        watch: WatchSettings | None = None,
        metrics: CollectorRegistry | None = None,
        streams: StreamConfig | None = None,
    ) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self.metrics = metrics if metrics is not None else CollectorRegistry()
        self.app = create_app(registry=registry, watch=watch, metrics=self.metrics,
                              streams=streams)
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        # handler_cancellation: a watch whose client went away is cancelled at once instead of
        # lingering until its next event (and holding up shutdown)
        self._runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=0.5,
            handler_cancellation=True,
        )
        await self._runner.setup()
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> ApiServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
