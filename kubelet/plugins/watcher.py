"""The kubelet's plugin watcher: registration sockets in ``plugins_registry/`` become plugins.

Upstream's plugin manager watches the directory (fsnotify), keeps a desired state (the sockets
found, with the time each was seen) and an actual state (the plugins registered), and a
reconciler brings them together every second. This watcher does the same by scanning the
directory on the kubelet's clock (every ``poll_interval``, upstream's one second by default) —
which is what lets it work unchanged on a fake clock — and running, for each change:

- **a new socket** (any socket file below the directory whose name does not start with ``.``,
  or one re-created in place): *register* it as upstream's operation generator does — dial the
  socket (10 s), ``GetInfo`` (1 s), pick the handler for ``PluginInfo.type`` (only
  ``DRAPlugin`` here), default the endpoint to the socket itself, let the handler validate the
  name, endpoint and supported versions, register it, then ``NotifyRegistrationStatus`` (5 s):
  ``plugin_registered: true``, or false with upstream's error text
  (``RegisterPlugin error -- plugin validation failed with err: ...``). A failed registration
  is tried again with upstream's exponential back-off (0.5 s doubling up to 2m2s);
- **a socket gone** (or re-created): *deregister* the plugin it registered.

Every outcome is kept in :attr:`PluginWatcher.history` (socket, driver name, registered, error)
for tests and the conformance check.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import grpc

from fakeapi.clock import Clock
from fakeapi.kubelet.plugins.services import REGISTRATION

__all__ = [
    "DIAL_TIMEOUT_SECONDS",
    "GET_INFO_TIMEOUT_SECONDS",
    "NOTIFY_TIMEOUT_SECONDS",
    "PluginHandler",
    "PluginWatcher",
    "RegistrationOutcome",
]

log = logging.getLogger("fakeapi.kubelet.plugins")

DIAL_TIMEOUT_SECONDS = 10.0
GET_INFO_TIMEOUT_SECONDS = 1.0
NOTIFY_TIMEOUT_SECONDS = 5.0
#: upstream's nestedpendingoperations: the first retry after 500 ms, doubling to 2m2s
_RETRY_INITIAL = 0.5
_RETRY_MAX = 122.0


class PluginHandler(Protocol):
    """What the watcher asks of the handler of one plugin type (upstream's PluginHandler)."""

    def validate(self, name: str, endpoint: str, versions: list[str]) -> None:
        """Raise ValueError (its message goes to the plugin) when the plugin cannot be used."""
        ...

    async def register(self, name: str, endpoint: str, versions: list[str]) -> None:
        """Raise ValueError when the registration failed."""
        ...

    async def deregister(self, name: str, endpoint: str) -> None: ...


class RegistrationError(Exception):
    """A registration attempt failed (upstream's ``RegisterPlugin error -- ...``)."""


@dataclass(frozen=True, slots=True)
class RegistrationOutcome:
    socket: str
    name: str
    registered: bool
    error: str = ""


@dataclass(slots=True)
class _Registered:
    identity: tuple[int, int]
    plugin_type: str
    name: str
    endpoint: str


@dataclass(slots=True)
class _Retry:
    identity: tuple[int, int]
    at: float
    delay: float


def _identity(info: os.stat_result) -> tuple[int, int]:
    """What tells a re-created socket from the one registered: inode and change time."""
    return (info.st_ino, info.st_mtime_ns)


class PluginWatcher:
    """Registers the sockets of one registry directory; see the module docstring."""

    def __init__(
        self,
        *,
        directory: Path,
        handlers: Mapping[str, PluginHandler],
        clock: Clock,
        poll_interval: float = 1.0,
    ) -> None:
        self.directory = directory
        self.handlers = handlers
        self.clock = clock
        self.poll_interval = poll_interval
        self.history: list[RegistrationOutcome] = []
        self._registered: dict[str, _Registered] = {}
        self._retries: dict[str, _Retry] = {}
        self._lock = asyncio.Lock()

    def registered(self) -> dict[str, tuple[str, str]]:
        """Socket path -> (plugin name, endpoint) of every registered plugin."""
        return {path: (r.name, r.endpoint) for path, r in self._registered.items()}

    async def run(self) -> None:
        while True:
            try:
                await self.sync()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a scan must never end the watcher
                log.warning("plugin watcher %s: %s", self.directory, exc)
            await self.clock.sleep(self.poll_interval)

    def _scan(self) -> dict[str, tuple[int, int]]:
        found: dict[str, tuple[int, int]] = {}
        for dirpath, dirnames, filenames in os.walk(self.directory):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.startswith("."):
                    continue
                path = os.path.join(dirpath, name)
                with contextlib.suppress(OSError):
                    info = os.stat(path)
                    if stat.S_ISSOCK(info.st_mode):
                        found[path] = _identity(info)
        return found

    async def sync(self) -> None:
        """One reconciliation: deregister what went, register what came."""
        async with self._lock:
            found = self._scan()
            for path, registered in list(self._registered.items()):
                if found.get(path) != registered.identity:
                    del self._registered[path]
                    handler = self.handlers.get(registered.plugin_type)
                    if handler is not None:
                        await handler.deregister(registered.name, registered.endpoint)
            for path in list(self._retries):
                if path not in found:
                    del self._retries[path]
            now = self.clock.monotonic()
            for path, identity in sorted(found.items()):
                if path in self._registered:
                    continue
                retry = self._retries.get(path)
                if retry is not None and retry.identity == identity and now < retry.at:
                    continue
                try:
                    await self._register(path, identity)
                except RegistrationError as exc:
                    log.info("%s", exc)
                    delay = _RETRY_INITIAL
                    if retry is not None and retry.identity == identity:
                        delay = min(retry.delay * 2, _RETRY_MAX)
                    self._retries[path] = _Retry(identity, now + delay, delay)
                else:
                    self._retries.pop(path, None)

    async def _register(self, path: str, identity: tuple[int, int]) -> None:
        pb = REGISTRATION.messages
        channel = grpc.aio.insecure_channel(f"unix:{path}")
        try:
            try:
                await asyncio.wait_for(channel.channel_ready(), DIAL_TIMEOUT_SECONDS)
            except (TimeoutError, grpc.aio.AioRpcError) as exc:
                raise self._failed(path, "", f"RegisterPlugin error -- dial failed at socket "
                                   f"{path}, err: {exc or 'context deadline exceeded'}") from None
            get_info = REGISTRATION.get_info.client(channel)
            try:
                info = await get_info(pb.InfoRequest(), timeout=GET_INFO_TIMEOUT_SECONDS)
            except grpc.aio.AioRpcError as exc:
                raise self._failed(path, "", "RegisterPlugin error -- failed to get plugin info "
                                   f"using RPC GetInfo at socket {path}, err: {exc.details()}"
                                   ) from None
            name = str(info.name)
            handler = self.handlers.get(str(info.type))
            if handler is None:
                message = (f"RegisterPlugin error -- no handler registered for plugin type: "
                           f"{info.type} at socket {path}")
                await self._notify(channel, path, False, message)
                raise self._failed(path, name, message)
            endpoint = str(info.endpoint) or path
            versions = [str(v) for v in info.supported_versions]
            try:
                handler.validate(name, endpoint, versions)
            except ValueError as exc:
                message = f"RegisterPlugin error -- plugin validation failed with err: {exc}"
                await self._notify(channel, path, False, message)
                raise self._failed(path, name, message) from None
            self._registered[path] = _Registered(identity, str(info.type), name, endpoint)
            try:
                await handler.register(name, endpoint, versions)
            except ValueError as exc:
                del self._registered[path]
                message = f"RegisterPlugin error -- plugin registration failed with err: {exc}"
                await self._notify(channel, path, False, message)
                raise self._failed(path, name, message) from None
            self.history.append(RegistrationOutcome(path, name, True))
            await self._notify(channel, path, True, "")
        finally:
            await channel.close()

    def _failed(self, path: str, name: str, message: str) -> RegistrationError:
        self.history.append(RegistrationOutcome(path, name, False, message))
        return RegistrationError(message)

    async def _notify(self, channel: object, path: str, registered: bool, error: str) -> None:
        """NotifyRegistrationStatus; a plugin that does not answer is logged, not retried (as
        upstream: the registration itself stands)."""
        pb = REGISTRATION.messages
        notify = REGISTRATION.notify_registration_status.client(channel)
        try:
            await notify(
                pb.RegistrationStatus(plugin_registered=registered, error=error),
                timeout=NOTIFY_TIMEOUT_SECONDS,
            )
        except grpc.aio.AioRpcError as exc:
            log.info("RegisterPlugin error -- failed to send registration status at socket %s, "
                     "err: %s", path, exc.details())

    async def deregister_all(self) -> None:
        """Forget every registration (the kubelet stops; its handlers close their plugins)."""
        async with self._lock:
            self._registered.clear()
            self._retries.clear()
