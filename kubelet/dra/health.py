"""The kubelet's device health cache (KEP-4680) and the pod status it feeds.

Drivers stream the health of all their devices (:class:`~.driver.DeviceHealthReport`); the
kubelet keeps the last word per device, keyed ``<driver>/<pool>/<device>``; in pod status
(``allocatedResourcesStatus``) a device's ``resourceID`` is its first CDI device ID, as
upstream's ``buildResourceHealth`` writes it (``<driver>/<pool>/<device>`` only for a device
its driver returned no CDI ID for):

- a report sets the device's health and message and restarts its timeout;
- a device not reported within its timeout (the driver's ``health_check_timeout_seconds``, else
  :data:`DEFAULT_HEALTH_TIMEOUT_SECONDS`) turns ``Unknown`` when :meth:`HealthCache.expire` runs;
- a driver that unregisters turns all its devices ``Unknown`` at once;
- a device nobody ever reported on is ``Unknown``.

Every mutator returns the resource IDs whose (health, message) changed, so the kubelet updates
only the pods that use them, and logs each change of a device's health (upstream's "Health info
changed"), except a device's first report of Healthy, which every device makes as its driver
starts. :func:`pod_health_status` turns a pod's allocated devices and the
cache into the ``allocatedResourcesStatus`` entries for its containers and for the pod itself.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi import klog
from fakeapi.kubelet.dra.driver import DeviceHealthReport

__all__ = [
    "DEFAULT_HEALTH_TIMEOUT_SECONDS",
    "AllocatedDevice",
    "containers_using",
    "HealthCache",
    "pod_health_status",
    "resource_id",
]

DEFAULT_HEALTH_TIMEOUT_SECONDS = 30.0
HEALTHY, UNHEALTHY, UNKNOWN = "Healthy", "Unhealthy", "Unknown"
log = logging.getLogger("fakeapi.kubelet.dra")


def resource_id(driver: str, pool: str, device: str) -> str:
    return f"{driver}/{pool}/{device}"


@dataclass(slots=True)
class _Entry:
    driver: str
    health: str
    message: str
    last_updated: float
    timeout: float


class HealthCache:
    """Health per device; times are ``clock.monotonic()`` seconds."""

    def __init__(
        self, *, default_timeout: float = DEFAULT_HEALTH_TIMEOUT_SECONDS, node: str = ""
    ) -> None:
        self.default_timeout = default_timeout
        #: the node whose kubelet keeps the cache (for the log)
        self.node = node
        self._entries: dict[str, _Entry] = {}

    def _log(self, rid: str, entry: _Entry) -> None:
        klog.info(log, "Health info changed", node=self.node, device=rid, health=entry.health,
                  message=entry.message)

    def get(self, rid: str) -> tuple[str, str]:
        entry = self._entries.get(rid)
        return (entry.health, entry.message) if entry is not None else (UNKNOWN, "")

    def _set(self, rid: str, entry: _Entry, changed: set[str]) -> None:
        old = self._entries.get(rid)
        if old is None or (old.health, old.message) != (entry.health, entry.message):
            changed.add(rid)
            if (old.health if old else HEALTHY) != entry.health:
                self._log(rid, entry)
        self._entries[rid] = entry

    def report(
        self, *, driver: str, reports: Sequence[DeviceHealthReport], now: float
    ) -> set[str]:
        """Apply one stream message from ``driver``."""
        changed: set[str] = set()
        for report in reports:
            timeout = float(report.timeout_seconds or 0) or self.default_timeout
            entry = _Entry(driver, report.health, report.message, now, timeout)
            self._set(resource_id(driver, report.pool, report.device), entry, changed)
        return changed

    def expire(self, *, now: float) -> set[str]:
        """Devices whose last report is older than their timeout become Unknown."""
        changed: set[str] = set()
        for rid, entry in self._entries.items():
            if entry.health != UNKNOWN and now - entry.last_updated > entry.timeout:
                entry.health = UNKNOWN
                entry.message = f"no health report from the driver for {entry.timeout:g}s"
                changed.add(rid)
                self._log(rid, entry)
        return changed

    def next_expiry(self) -> float | None:
        """The earliest time a device with known health would turn Unknown."""
        times = [e.last_updated + e.timeout for e in self._entries.values() if e.health != UNKNOWN]
        return min(times) if times else None

    def unregister(self, *, driver: str) -> set[str]:
        """The driver is gone: each of its devices is Unknown."""
        changed: set[str] = set()
        for rid, entry in self._entries.items():
            if entry.driver == driver and entry.health != UNKNOWN:
                entry.health = UNKNOWN
                entry.message = f"DRA driver {driver} is not registered"
                changed.add(rid)
                self._log(rid, entry)
        return changed


@dataclass(frozen=True, slots=True)
class AllocatedDevice:
    """A device a pod uses: through which pod claim and request, and which containers under
    which ``allocatedResourcesStatus`` name (see :func:`containers_using`)."""

    claim: str  # the pod's spec.resourceClaims[].name
    request: str
    driver: str
    pool: str
    device: str
    #: (container name, entry name); empty: not tied to a container (pod level)
    containers: tuple[tuple[str, str], ...]
    #: what the driver's NodePrepareResources returned for the device
    cdi_device_ids: tuple[str, ...] = ()

    @property
    def resource_id(self) -> str:
        """The health cache's key for the device: ``<driver>/<pool>/<device>``."""
        return resource_id(self.driver, self.pool, self.device)

    @property
    def status_id(self) -> str:
        """The ``resourceID`` in pod status, as upstream's ``buildResourceHealth``: the
        device's first CDI device ID, ``<driver>/<pool>/<device>`` only when it has none."""
        return self.cdi_device_ids[0] if self.cdi_device_ids else self.resource_id

    @property
    def status_name(self) -> str:
        """The pod-level entry's name: ``claim:<pod claim>/<request>``."""
        return f"claim:{self.claim}/{self.request}"


def _health_entry(device: AllocatedDevice, cache: HealthCache) -> dict[str, Any]:
    health, message = cache.get(device.resource_id)
    entry: dict[str, Any] = {"resourceID": device.status_id, "health": health}
    if message:
        entry["message"] = message
    return entry


def _statuses(
    devices: Iterable[tuple[str, AllocatedDevice]], cache: HealthCache
) -> list[dict[str, Any]]:
    by_name: dict[str, dict[str, dict[str, Any]]] = {}
    for name, device in devices:  # one entry per resourceID, as upstream dedupes them
        by_name.setdefault(name, {}).setdefault(device.status_id, _health_entry(device, cache))
    return [
        {"name": name, "resources": [resources[rid] for rid in sorted(resources)]}
        for name, resources in sorted(by_name.items())
    ]


def pod_health_status(
    *, devices: Sequence[AllocatedDevice], cache: HealthCache, containers: Sequence[str]
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """(per container name: its allocatedResourcesStatus, the pod-level list)."""
    per_container: dict[str, list[dict[str, Any]]] = {}
    for container in containers:
        mine = [(entry, d) for d in devices for name, entry in d.containers if name == container]
        if mine:
            per_container[container] = _statuses(mine, cache)
    pod_level = _statuses([(d.status_name, d) for d in devices if not d.containers], cache)
    return per_container, pod_level


def containers_using(
    pod: Mapping[str, Any], claim: str, request: str
) -> tuple[tuple[str, str], ...]:
    """The pod's containers whose ``resources.claims`` use ``claim`` (and ``request``), each with
    the name its health goes under, as upstream validates it: ``claim:<claim>/<request>`` for
    an entry naming the request, ``claim:<claim>`` for one taking the whole claim. For the pod's
    extended-resource claim: the containers its request mappings give the request, under the
    extended resource's name (``example.com/gpu``, one of the container's resource requests)."""
    spec = pod.get("spec") or {}
    uses: list[tuple[str, str]] = []
    base_request = request.split("/", 1)[0]
    extended = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    if claim and extended.get("resourceClaimName") == claim:
        return tuple(dict.fromkeys(
            (str(m.get("containerName")), str(m.get("resourceName")))
            for m in extended.get("requestMappings") or ()
            if m.get("requestName") == base_request
        ))
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            for ref in (container.get("resources") or {}).get("claims") or []:
                if ref.get("name") != claim:
                    continue
                wanted = ref.get("request")
                if not wanted or wanted == base_request:
                    name = f"claim:{claim}/{wanted}" if wanted else f"claim:{claim}"
                    uses.append((str(container.get("name")), name))
                    break
    return tuple(uses)


def overlay_health(
    status: dict[str, Any], *, devices: Sequence[AllocatedDevice], cache: HealthCache
) -> None:
    """Write the devices' health into ``status`` (a pod status the caller owns): each container
    status gets its ``allocatedResourcesStatus``, and the pod level gets the rest."""
    if not devices:
        return
    names = [str(c.get("name")) for c in status.get("containerStatuses") or []]
    per_container, pod_level = pod_health_status(devices=devices, cache=cache, containers=names)
    statuses = []
    for entry in status.get("containerStatuses") or []:
        entry = dict(entry)
        health = per_container.get(str(entry.get("name")))
        if health:
            entry["allocatedResourcesStatus"] = health
        statuses.append(entry)
    if statuses:
        status["containerStatuses"] = statuses
    if pod_level:
        status["allocatedResourcesStatus"] = pod_level
