"""The kubelet's DRA plugin manager for one node: registration handler, drivers, slice hygiene.

Shaped like upstream's ``DRAPluginManager`` (pkg/kubelet/cm/dra/plugin), the handler the plugin
watcher (:mod:`.watcher`) calls for plugins of type ``DRAPlugin``:

- **validate**: the plugin must list at least one DRA service the kubelet speaks in its supported
  versions, and the first one it lists that the kubelet knows is chosen
  (``k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin`` or ``...v1beta1.DRAPlugin``); errors read as
  upstream's (``invalid supported gRPC versions of DRA driver plugin <name> at endpoint <e>:
  none of services supported by the plugin (...) are supported by the kubelet (...)``). A name a
  simulated driver of the node already has is refused.
- **register**: the driver's :class:`~.external.ExternalDriver` gets the endpoint (one endpoint
  registers once per driver: ``endpoint <e> already registered for DRA driver plugin <name>``);
  a pending wipe of its slices is cancelled; the kubelet looks at its pods again.
- **deregister**: the endpoint goes; once the driver has none left its devices turn Unknown and,
  after the wiping delay (upstream's 30 s, for a driver that is only being restarted), its
  ResourceSlices on this node are deleted (deletecollection with the field selector
  ``spec.nodeName=<node>,spec.driver=<driver>``, retried with upstream's back-off: 1 s doubling
  up to 5 minutes) unless it registered again meanwhile (KEP-4381's clean-up).

The kubelet deletes all of its node's slices when it starts (:class:`~fakeapi.kubelet.Kubelet`),
before any plugin registers. Losing a driver's registration socket — fault injection
(:meth:`PluginManager.set_socket_lost`) — hides the socket from the watcher (it is renamed to a
dot-file, which the watcher ignores) and restores it, so the real deregistration and
registration paths run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, MutableMapping
from pathlib import Path

from fakeapi.client import RESOURCE_SLICES, Client
from fakeapi.clock import Clock
from fakeapi.kubelet.dra.driver import HealthSink
from fakeapi.kubelet.dra.interface import DRADriver
from fakeapi.kubelet.plugins.external import ExternalDriver
from fakeapi.kubelet.plugins.layout import KubeletDirectory
from fakeapi.kubelet.plugins.services import (
    DRA_PLUGIN_TYPE,
    DRA_SERVICES,
    HEALTH_SERVICES,
    DRAService,
    HealthService,
)
from fakeapi.kubelet.plugins.watcher import PluginWatcher

__all__ = ["DEFAULT_WIPING_DELAY", "PluginManager", "choose_service"]

log = logging.getLogger("fakeapi.kubelet.plugins")

#: upstream's ``defaultWipingDelay``: how long a driver has to come back before its slices go
DEFAULT_WIPING_DELAY = 30.0
_WIPE_RETRY_INITIAL = 1.0
_WIPE_RETRY_MAX = 300.0
_LOST_PREFIX = ".lost."


def _go_quoted(items: list[str]) -> str:
    """A Go ``%q`` of a string slice: ``["a" "b"]``."""
    return "[" + " ".join(f'"{item}"' for item in items) + "]"


def choose_service(versions: list[str]) -> DRAService:
    """The DRA service to use for a plugin supporting ``versions`` (ValueError: none)."""
    if not versions:
        raise ValueError("empty list of supported gRPC services (aka supported versions)")
    known = {service.name: service for service in DRA_SERVICES}
    for version in versions:
        if version in known:
            return known[version]
    raise ValueError(
        f"none of services supported by the plugin ({_go_quoted(versions)}) are supported by "
        f"the kubelet ({_go_quoted([s.name for s in DRA_SERVICES])})"
    )


def _health_services(versions: list[str]) -> tuple[HealthService, ...]:
    """The health services to try: those the plugin lists, else all, newest first."""
    listed = tuple(s for s in HEALTH_SERVICES if s.name in versions)
    return listed or HEALTH_SERVICES


class PluginManager:
    """The DRA plugins of one node's kubelet; see the module docstring."""

    def __init__(
        self,
        *,
        directory: KubeletDirectory,
        node_name: str,
        client: Client,
        clock: Clock,
        drivers: MutableMapping[str, DRADriver],
        health_sink: HealthSink,
        health_lost: Callable[[str], None],
        registered: Callable[[str], None],
        reports_health: bool,
        call_timeout: float,
        wiping_delay: float = DEFAULT_WIPING_DELAY,
        poll_interval: float = 1.0,
    ) -> None:
        self.directory = directory
        self.node_name = node_name
        self.client = client
        self.clock = clock
        self.drivers = drivers
        self.health_sink = health_sink
        self.health_lost = health_lost
        self.on_registered = registered
        self.reports_health = reports_health
        self.call_timeout = call_timeout
        self.wiping_delay = wiping_delay
        self.watcher = PluginWatcher(
            directory=directory.registry_dir,
            handlers={DRA_PLUGIN_TYPE: self},
            clock=clock,
            poll_interval=poll_interval,
        )
        self._task: asyncio.Task[None] | None = None
        self._wipes: dict[str, asyncio.Task[None]] = {}

    # --- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        self.directory.create()
        self._task = asyncio.get_running_loop().create_task(
            self.watcher.run(), name=f"plugin watcher {self.node_name}"
        )

    async def stop(self) -> None:
        """Stop watching and close every plugin; slices stay (a stopped kubelet wipes none)."""
        tasks = [t for t in (self._task, *self._wipes.values()) if t is not None]
        self._task = None
        self._wipes.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.watcher.deregister_all()
        for driver in self.external_drivers().values():
            await driver.stop(remove_slices=False)

    def external_drivers(self) -> dict[str, ExternalDriver]:
        return {n: d for n, d in self.drivers.items() if isinstance(d, ExternalDriver)}

    # --- the registration handler ----------------------------------------------------------------
    def validate(self, name: str, endpoint: str, versions: list[str]) -> None:
        try:
            choose_service(versions)
        except ValueError as exc:
            raise ValueError(
                f"invalid supported gRPC versions of DRA driver plugin {name} at endpoint "
                f"{endpoint}: {exc}"
            ) from None
        existing = self.drivers.get(name)
        if existing is not None and not isinstance(existing, ExternalDriver):
            raise ValueError(f"DRA driver {name} is simulated on node {self.node_name}")

    async def register(self, name: str, endpoint: str, versions: list[str]) -> None:
        self.validate(name, endpoint, versions)
        driver = self.drivers.get(name)
        if not isinstance(driver, ExternalDriver):
            driver = ExternalDriver(
                name=name,
                node_name=self.node_name,
                clock=self.clock,
                call_timeout=self.call_timeout,
                reports_health=self.reports_health,
                health_lost=self.health_lost,
            )
            driver.start(health_sink=self.health_sink)
            self.drivers[name] = driver
        if endpoint in driver.endpoints:
            raise ValueError(f"endpoint {endpoint} already registered for DRA driver plugin {name}")
        driver.add_plugin(
            endpoint=endpoint, service=choose_service(versions),
            health_services=_health_services(versions),
        )
        wipe = self._wipes.pop(name, None)
        if wipe is not None:
            wipe.cancel()
        log.info("node %s: registered DRA plugin %s at %s", self.node_name, name, endpoint)
        self.on_registered(name)

    async def deregister(self, name: str, endpoint: str) -> None:
        driver = self.drivers.get(name)
        if not isinstance(driver, ExternalDriver):
            return
        await driver.remove_plugin(endpoint)
        log.info("node %s: unregistered DRA plugin %s at %s", self.node_name, name, endpoint)
        if not driver.running and name not in self._wipes:
            self._wipes[name] = asyncio.get_running_loop().create_task(
                self._wipe_later(name), name=f"wipe {name} slices on {self.node_name}"
            )

    # --- slice hygiene ---------------------------------------------------------------------------
    async def _wipe_later(self, driver: str) -> None:
        try:
            await self.clock.sleep(self.wiping_delay)
            await self.wipe(driver=driver)
        finally:
            if self._wipes.get(driver) is asyncio.current_task():
                del self._wipes[driver]

    async def wipe(self, *, driver: str = "") -> None:
        """Delete this node's slices (of ``driver`` only, when given), retrying with back-off."""
        selector = f"spec.nodeName={self.node_name}"
        if driver:
            selector += f",spec.driver={driver}"
        delay = _WIPE_RETRY_INITIAL
        while True:
            try:
                await self.client.delete_collection(RESOURCE_SLICES, field_selector=selector)
                return
            except Exception as exc:
                log.info("node %s: deleting ResourceSlices (%s) failed, retrying: %s",
                         self.node_name, selector, exc)
            await self.clock.sleep(delay)
            delay = min(delay * 2, _WIPE_RETRY_MAX)

    def pending_wipes(self) -> list[str]:
        return sorted(self._wipes)

    # --- fault injection -------------------------------------------------------------------------
    async def set_socket_lost(self, name: str, lost: bool) -> None:
        """Hide the registration sockets of driver ``name`` from the watcher (or restore them),
        then let the watcher see the change at once."""
        registry = self.directory.registry_dir
        if lost:
            for path, (plugin, _) in self.watcher.registered().items():
                if plugin == name:
                    hidden = Path(path).with_name(_LOST_PREFIX + Path(path).name)
                    with contextlib.suppress(FileNotFoundError):
                        os.rename(path, hidden)
        else:
            for hidden in registry.glob(f"{_LOST_PREFIX}*"):
                if self._hidden_for(hidden) == name:
                    with contextlib.suppress(FileNotFoundError):
                        os.rename(hidden, hidden.with_name(hidden.name[len(_LOST_PREFIX):]))
        await self.watcher.sync()

    def _hidden_for(self, hidden: Path) -> str:
        """The driver a hidden socket belonged to (from the watcher's history)."""
        original = str(hidden.with_name(hidden.name[len(_LOST_PREFIX):]))
        for outcome in reversed(self.watcher.history):
            if outcome.socket == original and outcome.registered:
                return outcome.name
        return ""
