"""Driver profiles: what a simulated DRA driver publishes, as data.

A :class:`DriverProfile` is parsed from a YAML mapping (the shipped ones live in the fixtures'
``data/profiles/``; docs/kubelet.md describes every field). It names the driver, its CDI vendor
and class, where it runs (``scope: node`` — one instance per kubelet, pools per node — or
``scope: cluster`` — one control-plane instance, pools selected by ``nodeSelector`` or
``allNodes``), and its pools as *templates*: device groups with a ``count`` (and optionally
``partitions``) expand into devices, and strings in names, attributes, capacities and counters
are formatted with these variables:

``{node}``       the node name (cluster-scoped pools: empty)
``{index}``      0 .. count-1 within the device group (or counter-set group)
``{partition}``  0 .. partitions-1 when the group has ``partitions``
``{group}``      ``index // groupSize`` (``groupSize`` defaults to 1), e.g. a PCIe root per 4 GPUs
``{uuid}``       a UUID derived from node, pool and device name (uuid5), stable across restarts

An attribute ``{int: "{index}"}`` is formatted and then turned into an integer, so templates work
for every attribute type. ``behavior: package.module:Class`` names a Python class
(:class:`~.driver.DriverBehavior`) that decides what the driver's prepare and unprepare answer
and how its devices' health changes; a profile built in Python may hold the class itself.

A profile with ``command`` is a *real* driver instead: the cluster runs the command once per node
(as a DaemonSet would, with the placeholders of ``fakeapi sandbox --driver-command``), the node's
kubelet talks to it over the kubelet plugin sockets, and the driver publishes its own slices, so
such a profile has no pools (docs/kubelet.md, "Real DRA drivers").

Expanding a profile is pure and deterministic: the same node always gets the same devices, which
is what makes slices comparable when a driver republishes.
"""

from __future__ import annotations

import pkgutil
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fakeapi.kubelet.dra.profile_check import ProfileError, check_profile
from fakeapi.objects import Obj

__all__ = [
    "DeviceGroup",
    "CounterSetGroup",
    "DriverProfile",
    "PoolTemplate",
    "ProfileError",
    "RenderedPool",
]

Scope = Literal["node", "cluster"]

_UUID_NAMESPACE = uuid.UUID("6f1d2c1e-2b8a-4f7e-9c61-3a0d5e7b9f42")
_DEVICE_KEYS = frozenset(
    {
        "name",
        "count",
        "partitions",
        "groupSize",
        "attributes",
        "capacity",
        "consumesCounters",
        "allowMultipleAllocations",
        "taints",
        "bindsToNode",
        "bindingConditions",
        "bindingFailureConditions",
    }
)


def _format(value: Any, variables: Mapping[str, Any]) -> Any:
    """Format every string inside ``value``; ``{int: "..."}`` values become integers."""
    if isinstance(value, str):
        try:
            return value.format_map(variables)
        except (KeyError, IndexError, ValueError) as exc:
            raise ProfileError(f"template {value!r}: {exc}") from None
    if isinstance(value, list):
        return [_format(item, variables) for item in value]
    if isinstance(value, dict):
        out = {str(k).format_map(variables): _format(v, variables) for k, v in value.items()}
        if set(out) == {"int"} and isinstance(out["int"], str):
            try:
                out["int"] = int(out["int"])
            except ValueError:
                raise ProfileError(f"int attribute {out['int']!r}: not an integer") from None
        if set(out) == {"bool"} and isinstance(out["bool"], str):
            out["bool"] = out["bool"].lower() == "true"
        return out
    return value


def _positive_int(data: Mapping[str, Any], key: str, where: str, default: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ProfileError(f"{where}.{key}: must be a positive integer, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class DeviceGroup:
    """``count`` × ``partitions`` devices from one template (the rest of the mapping)."""

    name: str
    count: int
    partitions: int
    group_size: int
    template: Mapping[str, Any]

    @classmethod
    def parse(cls, data: Any, where: str) -> DeviceGroup:
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise ProfileError(f"{where}: a device group needs a name template")
        unknown = set(data) - _DEVICE_KEYS
        if unknown:
            raise ProfileError(f"{where}: unknown fields {sorted(unknown)}")
        return cls(
            name=data["name"],
            count=_positive_int(data, "count", where, 1),
            partitions=_positive_int(data, "partitions", where, 1),
            group_size=_positive_int(data, "groupSize", where, 1),
            template={k: v for k, v in data.items() if k not in ("name", "count", "partitions",
                                                                   "groupSize")},
        )

    def expand(self, *, node: str, pool: str) -> list[Obj]:
        devices = []
        for index in range(self.count):
            for partition in range(self.partitions):
                variables: dict[str, Any] = {
                    "node": node,
                    "index": index,
                    "partition": partition,
                    "group": index // self.group_size,
                }
                name = _format(self.name, variables)
                variables["uuid"] = str(uuid.uuid5(_UUID_NAMESPACE, f"{node}/{pool}/{name}"))
                device: Obj = {"name": name, **_format(dict(self.template), variables)}
                devices.append(device)
        return devices


@dataclass(frozen=True, slots=True)
class CounterSetGroup:
    """``count`` shared counter sets from one template."""

    name: str
    count: int
    counters: Mapping[str, Any]

    @classmethod
    def parse(cls, data: Any, where: str) -> CounterSetGroup:
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise ProfileError(f"{where}: a counter set needs a name template")
        counters = data.get("counters")
        if not isinstance(counters, Mapping) or not counters:
            raise ProfileError(f"{where}.counters: required")
        return cls(name=data["name"], count=_positive_int(data, "count", where, 1),
                   counters=counters)

    def expand(self, *, node: str) -> list[Obj]:
        out = []
        for index in range(self.count):
            variables = {"node": node, "index": index, "partition": 0, "group": index}
            out.append(
                {
                    "name": _format(self.name, variables),
                    "counters": _format(dict(self.counters), variables),
                }
            )
        return out


@dataclass(frozen=True, slots=True)
class RenderedPool:
    """One pool of one node (or of the cluster), ready to be cut into ResourceSlices."""

    name: str
    devices: list[Obj]
    shared_counters: list[Obj]
    node_name: str = ""
    node_selector: Obj | None = None
    all_nodes: bool = False


@dataclass(frozen=True, slots=True)
class PoolTemplate:
    """A pool: its name template, node selection (cluster scope) and device templates."""

    name: str
    devices: tuple[DeviceGroup, ...]
    shared_counters: tuple[CounterSetGroup, ...] = ()
    node_selector: Mapping[str, Any] | None = None
    all_nodes: bool = False

    @classmethod
    def parse(cls, data: Any, where: str, scope: Scope) -> PoolTemplate:
        if not isinstance(data, Mapping):
            raise ProfileError(f"{where}: must be a mapping")
        name = data.get("name", "{node}" if scope == "node" else "")
        if not isinstance(name, str) or not name:
            raise ProfileError(f"{where}.name: required")
        devices = tuple(
            DeviceGroup.parse(item, f"{where}.devices[{i}]")
            for i, item in enumerate(data.get("devices") or [])
        )
        counters = tuple(
            CounterSetGroup.parse(item, f"{where}.sharedCounters[{i}]")
            for i, item in enumerate(data.get("sharedCounters") or [])
        )
        node_selector = data.get("nodeSelector")
        all_nodes = data.get("allNodes") is True
        if scope == "cluster" and (node_selector is None) == (not all_nodes):
            raise ProfileError(f"{where}: a cluster pool needs exactly one of nodeSelector, "
                               "allNodes")
        if scope == "node" and (node_selector is not None or all_nodes):
            raise ProfileError(f"{where}: node-scoped pools belong to their node; "
                               "nodeSelector and allNodes need scope: cluster")
        return cls(name=name, devices=devices, shared_counters=counters,
                   node_selector=node_selector, all_nodes=all_nodes)

    def render(self, *, node: str) -> RenderedPool:
        pool = _format(self.name, {"node": node})
        devices = [d for group in self.devices for d in group.expand(node=node, pool=pool)]
        counters = [c for group in self.shared_counters for c in group.expand(node=node)]
        return RenderedPool(
            name=pool,
            devices=devices,
            shared_counters=counters,
            node_name=node,
            node_selector=dict(self.node_selector) if self.node_selector is not None else None,
            all_nodes=self.all_nodes,
        )


#: what a real driver's profile may say besides ``command``: the rest describes simulated devices
_EXTERNAL_KEYS = frozenset({"name", "driver", "command", "scope", "nodeLabels", "description"})


def _check_external(data: Mapping[str, Any], command: Any, scope: Any) -> None:
    if not isinstance(command, str) or not command.strip():
        raise ProfileError(f"command: must be a command line, got {command!r}")
    if scope != "node":
        raise ProfileError("scope: a driver run by command serves its node: scope must be node")
    extra = sorted(set(data) - _EXTERNAL_KEYS)
    if extra:
        raise ProfileError(
            f"{extra[0]}: a driver run by command publishes its own devices and decides its own "
            f"answers; leave out {', '.join(extra)}"
        )


@dataclass(frozen=True)
class DriverProfile:
    """A simulated DRA driver: name, CDI naming, scope, health reporting and pools."""

    name: str
    driver: str
    pools: tuple[PoolTemplate, ...]
    scope: Scope = "node"
    cdi_vendor: str = ""
    cdi_class: str = "device"
    #: how often the driver streams the health of all its devices (seconds)
    health_interval_seconds: float = 5.0
    #: the per-device timeout it asks for (KEP-4680); None = the kubelet's default (30 s)
    health_timeout_seconds: int | None = None
    #: False: the driver has no health service, its devices are always Unknown
    reports_health: bool = True
    #: how long its controller takes to attach a device with binding conditions (seconds)
    attach_delay_seconds: float = 1.0
    #: labels a node running this driver registers with (``--node-labels``), e.g. the fabric
    #: a cluster-scoped pool's node selector picks
    node_labels: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    #: the driver's :class:`~.driver.DriverBehavior`: a class (or factory taking the driver), or
    #: its ``module:attribute`` name (None: the simulated driver decides alone)
    behavior: str | Callable[..., Any] | None = None
    #: a real driver's command line, run once per node ({node}, {registry_dir}, {plugins_dir},
    #: {root_dir}, {kubeconfig} filled in); None: the driver is simulated from ``pools``
    command: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_mapping(cls, data: Any) -> DriverProfile:
        """Parse a profile mapping (as loaded from YAML); ProfileError says what is wrong, with
        the field's path and what was expected (:mod:`.profile_check` checks the shape first)."""
        check_profile(data)
        driver = data.get("driver")
        if not isinstance(driver, str) or not driver:
            raise ProfileError("driver: required")
        scope = data.get("scope", "node")
        if scope not in ("node", "cluster"):
            raise ProfileError(f"scope: must be node or cluster, got {scope!r}")
        command = data.get("command")
        if command is not None:
            _check_external(data, command, scope)
            pools: tuple[PoolTemplate, ...] = ()
        else:
            pools_data = data.get("pools")
            if not isinstance(pools_data, list) or not pools_data:
                raise ProfileError("pools: at least one pool is required")
            pools = tuple(PoolTemplate.parse(p, f"pools[{i}]", scope) for i, p in
                          enumerate(pools_data))
        cdi = data.get("cdi") or {}
        health = data.get("health") or {}
        timeout = health.get("timeoutSeconds")
        node_labels = data.get("nodeLabels") or {}
        if not isinstance(node_labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in node_labels.items()
        ):
            raise ProfileError("nodeLabels: must map label names to string values")
        behavior = data.get("behavior")
        if behavior is not None and (not isinstance(behavior, str) or ":" not in behavior):
            raise ProfileError(f"behavior: must name a class as module:Class, got {behavior!r}")
        attach = data.get("attach") or {}
        delay = attach.get("delaySeconds", 1.0) if isinstance(attach, Mapping) else None
        if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
            raise ProfileError(f"attach.delaySeconds: must be a number >= 0, got {delay!r}")
        return cls(
            name=str(data.get("name") or driver),
            driver=driver,
            pools=pools,
            scope=scope,
            cdi_vendor=str(cdi.get("vendor") or f"k8s.{driver}"),
            cdi_class=str(cdi.get("class") or "device"),
            health_interval_seconds=float(health.get("intervalSeconds", 5.0)),
            health_timeout_seconds=int(timeout) if timeout else None,
            reports_health=health.get("enabled", True) is not False,
            attach_delay_seconds=float(delay),
            node_labels=dict(node_labels),
            description=str(data.get("description") or ""),
            behavior=behavior,
            command=command,
            source=dict(data),
        )

    def behavior_factory(self) -> Callable[..., Any] | None:
        """What makes the driver's behaviour: the class itself, imported when named (raises
        ProfileError when it cannot be)."""
        if self.behavior is None or callable(self.behavior):
            return self.behavior
        try:
            found = pkgutil.resolve_name(self.behavior)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ProfileError(f"behavior {self.behavior!r}: {exc}") from None
        if not callable(found):
            raise ProfileError(f"behavior {self.behavior!r}: not a class")
        return found  # type: ignore[no-any-return]

    def render(self, *, node: str = "") -> list[RenderedPool]:
        """The pools of ``node`` (cluster scope: ``node`` is ignored)."""
        if self.scope == "cluster":
            node = ""
        return [pool.render(node=node) for pool in self.pools]

    def cdi_device_id(self, device: str) -> str:
        """The fully qualified CDI name of a device: ``<vendor>/<class>=<device>``."""
        return f"{self.cdi_vendor}/{self.cdi_class}={device}"
