"""Run the API server on a TCP port inside the current event loop.

Used by ``fakeapi serve``, by tests that drive the server with real clients, and by the sandbox.
``port=0`` lets the OS pick a free port; :attr:`ApiServer.url` tells which.

A request that is not well-formed HTTP (a request line or header over 8190 bytes, a broken
chunked body) is answered by aiohttp's HTTP layer with a plain-text 400, as Go's HTTP server
answers such requests before kube-apiserver sees them; it is the client's fault, so it is logged
at debug level, not as a server error with a traceback.
"""

from __future__ import annotations

import logging
import socket
from types import TracebackType

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from prometheus_client import CollectorRegistry

from fakeapi.registry.store import GenericStore
from fakeapi.server.app import create_app
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.limits import RequestLimits
from fakeapi.server.streams import StreamConfig

__all__ = ["ApiServer"]


class _ClientFaults(logging.Filter):
    """Turns aiohttp's reports of malformed requests into debug records."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError) and record.levelno > logging.DEBUG:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info = None
            return _http_log.isEnabledFor(logging.DEBUG)
        return True


_http_log = logging.getLogger("fakeapi.server.http")
_http_log.addFilter(_ClientFaults())


class ApiServer:
    def __init__(
        self,
        *,
        registry: GenericStore,
        host: str = "127.0.0.1",
        port: int = 0,
        watch: WatchSettings | None = None,
        metrics: CollectorRegistry | None = None,
        limits: RequestLimits | None = None,
        streams: StreamConfig | None = None,
    ) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self.metrics = metrics if metrics is not None else CollectorRegistry()
        self.limits = limits or RequestLimits()
        self.app = create_app(
            registry=registry, watch=watch, metrics=self.metrics, limits=self.limits,
            streams=streams,
        )
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
            logger=_http_log,
        )
        await self._runner.setup()
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        await self.registry.start_hooks()

    async def stop(self) -> None:
        if self._runner is not None:
            await self.registry.stop_hooks()
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
