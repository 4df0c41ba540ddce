"""ServiceAllocation: a Service's virtual IP and node ports, as kube-apiserver's allocators give.

Upstream allocates in the Service REST storage from bitmaps of the ranges; fakeapi reads the other
services (the same objects a client sees) and picks what none of them holds:

* a cluster IP from ``10.96.0.0/12`` (upstream's default ``--service-cluster-ip-range``) for
  every service but a headless (``clusterIP: None``) or ExternalName one; one the client asked for
  must be free and in the range. ``clusterIPs``, ``ipFamilies: [IPv4]`` and ``ipFamilyPolicy:
  SingleStack`` follow;
* a node port from 30000-32767 for each port of a NodePort service, and of a LoadBalancer service
  unless ``allocateLoadBalancerNodePorts: false``; one asked for must be free and in the range.

A write that leaves out what was allocated keeps it (see ``kinds/service.py``). Refusals are
upstream's 422s (``failed to allocate IP 10.96.0.5: provided IP is already allocated``).
"""

from __future__ import annotations

import ipaddress
import random
from typing import Any

from fakeapi import errors
from fakeapi.objects import as_dict, as_list, text
from fakeapi.registry.admission.interface import Attributes, ObjectReader
from fakeapi.registry.kinds.service import NODE_PORTS, SERVICE_CIDR, keep_allocated
from fakeapi.validation.field import FieldError, Path, causes, invalid

__all__ = ["ServiceAllocation"]

_FIRST = int(SERVICE_CIDR.network_address) + 1
_LAST = int(SERVICE_CIDR.broadcast_address) - 1


class ServiceAllocation:
    """Allocates cluster IPs and node ports of Services on create and update."""

    name = "ServiceAllocation"
    resources = frozenset({("", "services")})

    def __init__(self, *, reader: ObjectReader, rng: random.Random | None = None) -> None:
        self._reader = reader
        self._rng = rng or random.Random()

    def handles(self, attrs: Attributes) -> bool:
        return attrs.group == "" and attrs.resource == "services" and not attrs.subresource

    def admit(self, attrs: Attributes) -> None:
        spec = attrs.obj.get("spec")
        if not isinstance(spec, dict):
            return
        if attrs.old is not None:
            keep_allocated(attrs.obj, attrs.old)
        used_ips, used_ports = self._in_use(attrs)
        errs: list[FieldError] = []
        kind = text(spec.get("type")) or "ClusterIP"
        if kind == "ExternalName":
            pass
        elif text(spec.get("clusterIP")) == "None":
            spec["clusterIPs"] = ["None"]
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")
        else:
            errs.extend(self._cluster_ip(spec, used_ips))
        if kind == "NodePort" or (
            kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False
        ):
            errs.extend(self._node_ports(spec, used_ports))
        if errs:
            raise errors.invalid(kind="Service", group="", name=attrs.name, causes=causes(errs))

    def _in_use(self, attrs: Attributes) -> tuple[set[str], set[int]]:
        """The IPs and node ports other services hold (an update's own service excluded)."""
        own = text(as_dict((attrs.old or {}).get("metadata")).get("uid"))
        ips: set[str] = set()
        ports: set[int] = set()
        for service in self._reader.list_objects(group="", version="v1", resource="services"):
            if own and text(as_dict(service.get("metadata")).get("uid")) == own:
                continue
            spec = as_dict(service.get("spec"))
            ips.update(text(ip) for ip in as_list(spec.get("clusterIPs")))
            ports.update(
                int(as_dict(p).get("nodePort") or 0) for p in as_list(spec.get("ports"))
            )
        return ips, ports

    def _cluster_ip(self, spec: dict[str, Any], used: set[str]) -> list[FieldError]:
        wanted = text(spec.get("clusterIP"))
        if wanted:
            problem = _ip_problem(wanted, used)
            if problem:
                return [invalid(Path("spec.clusterIPs"), [wanted],
                                f"failed to allocate IP {wanted}: {problem}")]
            chosen = wanted
        else:
            chosen = self._free_ip(used)
        spec["clusterIP"] = chosen
        spec["clusterIPs"] = [chosen]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        return []

    def _free_ip(self, used: set[str]) -> str:
        while True:  # the range holds a million addresses; a few thousand services at most
            candidate = str(ipaddress.IPv4Address(self._rng.randint(_FIRST, _LAST)))
            if candidate not in used:
                return candidate

    def _node_ports(self, spec: dict[str, Any], used: set[int]) -> list[FieldError]:
        errs: list[FieldError] = []
        taken = set(used)
        for i, port in enumerate(as_list(spec.get("ports"))):
            if not isinstance(port, dict):
                continue
            wanted = port.get("nodePort")
            if wanted:
                if wanted not in NODE_PORTS:
                    problem = ("provided port is not in the valid range. The range of valid "
                               f"ports is {NODE_PORTS.start}-{NODE_PORTS.stop - 1}")
                elif wanted in taken:
                    problem = "provided port is already allocated"
                else:
                    taken.add(wanted)
                    continue
                errs.append(invalid(Path(f"spec.ports[{i}].nodePort"), wanted, problem))
                continue
            free = [p for p in NODE_PORTS if p not in taken]
            if not free:
                errs.append(invalid(Path(f"spec.ports[{i}].nodePort"), 0,
                                    "failed to allocate a nodePort: range is full"))
                continue
            port["nodePort"] = self._rng.choice(free)
            taken.add(port["nodePort"])
        return errs


def _ip_problem(wanted: str, used: set[str]) -> str:
    try:
        address = ipaddress.ip_address(wanted)
    except ValueError:
        return ""  # not an IP: validation words the refusal
    if address not in SERVICE_CIDR or int(address) in (
        int(SERVICE_CIDR.network_address), int(SERVICE_CIDR.broadcast_address)
    ):
        return f"provided IP is not in the valid range. The range of valid IPs is {SERVICE_CIDR}"
    if wanted in used:
        return "provided IP is already allocated"
    return ""
