"""Run the API server on a TCP port inside the current event loop.

Used by ``fakeapi serve``, by tests that drive the server with real clients, and by the sandbox.
``port=0`` lets the OS pick a free port; :attr:`ApiServer.url` tells which. With ``tls`` it serves
HTTPS (:func:`tls_context`: kube-apiserver's ``--tls-cert-file``, ``--tls-private-key-file`` and
``--client-ca-file``, whose CA verifies the client certificates that authenticate users), and an
``authenticator`` turns on the authentication and authorization filters
(:mod:`fakeapi.server.authfilter`).

A request that is not well-formed HTTP (a request line or header over 8190 bytes, a broken
chunked body) is answered by aiohttp's HTTP layer with a plain-text 400, as Go's HTTP server
answers such requests before kube-apiserver sees them; it is the client's fault, so it is logged
at debug level, not as a server error with a traceback.
"""

from __future__ import annotations

import logging
import os
import socket
import ssl
from types import TracebackType

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_server import Server
from prometheus_client import CollectorRegistry

from fakeapi.auth.authentication import Authenticator
from fakeapi.registry.store import GenericStore
from fakeapi.server.app import FRONT, create_app
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.limits import RequestLimits
from fakeapi.server.streams import StreamConfig

__all__ = ["ApiServer", "tls_context"]


def tls_context(
    *,
    cert_file: str | os.PathLike[str],
    key_file: str | os.PathLike[str],
    client_ca_file: str | os.PathLike[str] | None = None,
) -> ssl.SSLContext:
    """The server's TLS: its certificate and key, and, with a client CA, client certificates
    asked for and verified (optional: a client may authenticate otherwise)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    if client_ca_file is not None:
        context.load_verify_locations(cafile=os.fspath(client_ca_file))
        context.verify_mode = ssl.CERT_OPTIONAL
    return context


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


class _FrontRunner(web.AppRunner):
    """The app's runner whose HTTP server calls the app's front (:mod:`fakeapi.server.front`),
    which hands the app's own handler what it does not serve itself."""

    async def _make_server(self) -> Server:
        server = await super()._make_server()
        server.request_handler = self.app[FRONT](server.request_handler)  # type: ignore[arg-type,assignment]
        return server


class ApiServer:
    def __init__(
        self,
        *,
        registry: GenericStore,
        host: str = "127.0.0.1",
        port: int = 0,
        watch: WatchSettings | None = None,
        metrics: CollectorRegistry | None = None,
        authenticator: Authenticator | None = None,
        tls: ssl.SSLContext | None = None,
        limits: RequestLimits | None = None,
        streams: StreamConfig | None = None,
    ) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self.tls = tls
        self.metrics = metrics if metrics is not None else CollectorRegistry()
        self.limits = limits or RequestLimits()
        self.app = create_app(
            registry=registry, watch=watch, metrics=self.metrics, limits=self.limits,
            streams=streams, authenticator=authenticator,
        )
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{host}:{self.port}"

    async def start(self) -> None:
        # handler_cancellation: a watch whose client went away is cancelled at once instead of
        # lingering until its next event (and holding up shutdown)
        self._runner = _FrontRunner(
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
        site = web.SockSite(self._runner, sock, ssl_context=self.tls)
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
