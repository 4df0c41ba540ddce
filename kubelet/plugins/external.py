"""A real DRA driver in another process, as the kubelet reaches it: over gRPC on its DRA socket.

:class:`ExternalDriver` implements the kubelet's driver interface
(:class:`~fakeapi.kubelet.dra.interface.DRADriver`) for one driver name. Its *plugins* are the
endpoints registered under that name (:mod:`.manager` adds and removes them); as upstream's
``GetPlugin``, calls go to the newest one, and the driver counts as registered while it has one.

- **Prepare / unprepare** are one ``NodePrepareResources`` / ``NodeUnprepareResources`` call per
  batch of claims (namespace, UID, name), on the DRA service chosen at registration (v1 or
  v1beta1), with the kubelet's call timeout (upstream's 45 s). The results are judged as
  upstream's manager judges them, in its words: a call error
  (``NodePrepareResources: rpc error: code = ... desc = ...``), a claim's own error
  (``NodePrepareResources failed for ResourceClaim <name>: <error>``), a result for a claim not
  asked for, claims skipped. The devices and CDI device IDs a claim was prepared with are
  recorded here — the kubelet's claim info cache — and a claim prepared before is not sent again;
  it outlives the driver's plugins (a driver that restarts finds its claims still prepared), as
  upstream's checkpointed cache does.
- **Health** (KEP-4680): while the ``ResourceHealthStatus`` gate is on, each plugin's
  ``DRAResourceHealth/NodeWatchResources`` stream feeds the kubelet's health cache, from the v1
  service, falling back to v1alpha1 when the driver does not implement it. When a stream ends the
  driver's devices turn Unknown and it is opened again 5 seconds later (upstream's
  ``wait.UntilWithContext`` period); a driver that implements neither version is not asked again.
  Messages longer than 1024 characters are cut to 1021 and ``...``, as upstream does.

Fault injection on this side of the wire: ``silenced`` drops the stream's messages (the devices
time out), ``set_unhealthy`` reports devices Unhealthy whatever the driver says.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from fakeapi.clock import Clock
from fakeapi.kubelet.dra.driver import (
    ClaimID,
    DeviceHealthReport,
    HealthSink,
    PreparedClaim,
    PrepareError,
    UnprepareError,
)
from fakeapi.kubelet.plugins.services import DRAService, HealthService, go_error

__all__ = ["HEALTH_RETRY_SECONDS", "MAX_HEALTH_MESSAGE", "ExternalDriver", "Plugin"]

log = logging.getLogger("fakeapi.kubelet.plugins")

Obj = dict[str, Any]
#: how long after a health stream ended it is opened again
HEALTH_RETRY_SECONDS = 5.0
#: upstream's limit on a device health message
MAX_HEALTH_MESSAGE = 1024
_HEALTH_NAMES = {0: "Unknown", 1: "Healthy", 2: "Unhealthy"}


@dataclass(slots=True)
class Plugin:
    """One registered endpoint of a driver."""

    endpoint: str
    service: DRAService
    #: the health services to try, in order
    health_services: tuple[HealthService, ...]
    channel: Any
    health_task: asyncio.Task[None] | None = None
    #: the health service the stream uses (None: none yet, or none implemented)
    health_service: HealthService | None = field(default=None)


def _rpc_error(method: str, exc: grpc.aio.AioRpcError) -> str:
    code = exc.code().name
    details = exc.details() or ""
    if code == "DEADLINE_EXCEEDED":  # what Go's context says
        details = "context deadline exceeded"
    return f"{method}: {go_error(code, details)}"


def _claim_id(claim: Obj) -> ClaimID:
    meta = claim.get("metadata") or {}
    return ClaimID(
        namespace=str(meta.get("namespace") or ""),
        uid=str(meta.get("uid") or ""),
        name=str(meta.get("name") or ""),
    )


class ExternalDriver:
    """One driver name's registered plugins on one node; see the module docstring."""

    def __init__(
        self,
        *,
        name: str,
        node_name: str,
        clock: Clock,
        call_timeout: float,
        reports_health: bool,
        health_lost: Callable[[str], None],
    ) -> None:
        self.name = name
        self.node_name = node_name
        self.clock = clock
        self.call_timeout = call_timeout
        #: the ResourceHealthStatus gate: without it no health stream is opened
        self.reports_health = reports_health
        self._health_lost = health_lost
        self._plugins: list[Plugin] = []
        self._prepared: dict[str, PreparedClaim] = {}
        self._sink: HealthSink | None = None
        self._unhealthy: dict[str, str] = {}
        self.silenced = False
        #: NodePrepareResources / NodeUnprepareResources calls made (method, claim UIDs)
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    # --- the driver interface --------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return bool(self._plugins)

    @property
    def endpoints(self) -> list[str]:
        return [p.endpoint for p in self._plugins]

    @property
    def service(self) -> DRAService | None:
        """The DRA service of the plugin calls go to (None: not registered)."""
        return self._plugins[-1].service if self._plugins else None

    def start(self, *, health_sink: HealthSink | None = None) -> None:
        self._sink = health_sink

    async def stop(self, *, remove_slices: bool = True) -> None:
        """Close every plugin's connection (the kubelet stops); the manager wipes slices."""
        plugins, self._plugins = self._plugins, []
        for plugin in plugins:
            await self._close(plugin)

    def resync(self) -> None:
        """The driver publishes its own slices: nothing to compare on this side."""

    def prepared(self) -> dict[str, PreparedClaim]:
        return dict(self._prepared)

    def set_unhealthy(self, devices: Mapping[str, str]) -> None:
        self._unhealthy = dict(devices)

    # --- plugins ---------------------------------------------------------------------------------
    def add_plugin(
        self, *, endpoint: str, service: DRAService, health_services: tuple[HealthService, ...]
    ) -> Plugin:
        """A plugin registered: connect (lazily, as gRPC does) and start its health stream."""
        channel = grpc.aio.insecure_channel(f"unix:{endpoint}")
        plugin = Plugin(endpoint=endpoint, service=service, health_services=health_services,
                        channel=channel)
        self._plugins.append(plugin)
        if self.reports_health and health_services:
            plugin.health_task = asyncio.get_running_loop().create_task(
                self._watch_health(plugin), name=f"{self.name} health stream"
            )
        return plugin

    async def remove_plugin(self, endpoint: str) -> None:
        """A plugin's registration socket went: forget it; the last one going unregisters the
        driver, and its devices turn Unknown."""
        gone = [p for p in self._plugins if p.endpoint == endpoint]
        self._plugins = [p for p in self._plugins if p.endpoint != endpoint]
        for plugin in gone:
            await self._close(plugin)
        if gone and not self._plugins:
            self._health_lost(self.name)

    async def _close(self, plugin: Plugin) -> None:
        task, plugin.health_task = plugin.health_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await plugin.channel.close()

    def _plugin(self, error: type[Exception]) -> Plugin:
        if not self._plugins:
            raise error(f"DRA driver {self.name} is not registered")
        return self._plugins[-1]

    # --- prepare / unprepare ---------------------------------------------------------------------
    async def prepare_claims(self, claims: Sequence[Obj]) -> dict[str, PreparedClaim]:
        out: dict[str, PreparedClaim] = {}
        todo: dict[str, ClaimID] = {}
        for claim in claims:
            ref = _claim_id(claim)
            known = self._prepared.get(ref.uid)
            if known is not None:
                out[ref.uid] = known
            else:
                todo[ref.uid] = ref
        if not todo:
            return out
        plugin = self._plugin(PrepareError)
        pb = plugin.service.messages
        request = pb.NodePrepareResourcesRequest(
            claims=[pb.Claim(namespace=c.namespace, uid=c.uid, name=c.name) for c in todo.values()]
        )
        self.calls.append(("NodePrepareResources", tuple(todo)))
        call = plugin.service.node_prepare_resources.client(plugin.channel)
        try:
            response = await call(request, timeout=self.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise PrepareError(_rpc_error("NodePrepareResources", exc)) from None
        for uid, result in response.claims.items():
            asked = todo.get(uid)
            if asked is None:
                raise PrepareError(
                    f"NodePrepareResources returned result for unknown claim UID {uid}"
                )
            if result.error:
                raise PrepareError(
                    f"NodePrepareResources failed for ResourceClaim {asked.name}: {result.error}"
                )
            devices = [
                (str(d.pool_name), str(d.device_name), str(getattr(d, "share_id", "") or ""))
                for d in result.devices
            ]
            cdi = [tuple(str(i) for i in d.cdi_device_ids) for d in result.devices]
            prepared = PreparedClaim(
                uid=uid,
                namespace=asked.namespace,
                name=asked.name,
                devices=tuple(devices),
                cdi_device_ids=tuple(i for ids in cdi for i in ids),
                device_cdi_ids=tuple(cdi),
            )
            self._prepared[uid] = out[uid] = prepared
        unfinished = len(todo) - len(response.claims)
        if unfinished:
            raise PrepareError(f"NodePrepareResources skipped {unfinished} ResourceClaims")
        return out

    async def unprepare_claims(self, claims: Sequence[ClaimID]) -> None:
        if not claims:
            return
        plugin = self._plugin(UnprepareError)
        pb = plugin.service.messages
        by_uid = {c.uid: c for c in claims}
        request = pb.NodeUnprepareResourcesRequest(
            claims=[pb.Claim(namespace=c.namespace, uid=c.uid, name=c.name) for c in claims]
        )
        self.calls.append(("NodeUnprepareResources", tuple(by_uid)))
        call = plugin.service.node_unprepare_resources.client(plugin.channel)
        try:
            response = await call(request, timeout=self.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise UnprepareError(_rpc_error("NodeUnprepareResources", exc)) from None
        for uid, result in response.claims.items():
            asked = by_uid.get(uid)
            if asked is None:
                raise UnprepareError(
                    f"NodeUnprepareResources returned result for unknown claim UID {uid}"
                )
            if result.error:
                raise UnprepareError(
                    f"NodeUnprepareResources failed for ResourceClaim {asked.name}: "
                    f"{result.error}"
                )
        unfinished = len(by_uid) - len(response.claims)
        if unfinished:
            raise UnprepareError(f"NodeUnprepareResources skipped {unfinished} ResourceClaims")
        for uid in by_uid:
            self._prepared.pop(uid, None)

    # --- health ----------------------------------------------------------------------------------
    async def _watch_health(self, plugin: Plugin) -> None:
        services = list(plugin.health_services)
        while services:
            service = services[0]
            plugin.health_service = service
            method = service.node_watch_resources
            stream = method.client(plugin.channel)(service.messages.NodeWatchResourcesRequest())
            try:
                async for response in stream:
                    self._on_health(response)
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                    services.pop(0)  # try the older version at once; none left: not again
                    plugin.health_service = None
                    continue
                log.info("%s on %s: health stream %s ended: %s", self.name, self.node_name,
                         service.name, exc.details())
            self._health_lost(self.name)
            await self.clock.sleep(HEALTH_RETRY_SECONDS)
        log.info("%s on %s: the driver implements no health service", self.name, self.node_name)

    def _on_health(self, response: Any) -> None:
        if self.silenced or self._sink is None:
            return
        reports = []
        for entry in response.devices:
            device = str(entry.device.device_name)
            health = _HEALTH_NAMES.get(int(entry.health), "Unknown")
            message = str(entry.message)
            if device in self._unhealthy:
                health, message = "Unhealthy", self._unhealthy[device]
            if len(message) > MAX_HEALTH_MESSAGE:
                message = message[: MAX_HEALTH_MESSAGE - 3] + "..."
            timeout = int(entry.health_check_timeout_seconds)
            reports.append(
                DeviceHealthReport(
                    pool=str(entry.device.pool_name),
                    device=device,
                    health=health,
                    message=message,
                    last_updated=float(entry.last_updated_time),
                    timeout_seconds=timeout if timeout > 0 else None,
                )
            )
        self._sink(self.name, reports)
