"""Service (core/v1): defaults, validation and ``kubectl get svc`` columns, as upstream's.

Defaults (upstream ``SetDefaults_Service``): ``type: ClusterIP``, ``sessionAffinity: None`` (and a
10800 s timeout for ClientIP), each port's ``protocol: TCP`` and ``targetPort`` = ``port``,
``internalTrafficPolicy: Cluster`` (not for ExternalName), ``externalTrafficPolicy: Cluster`` for
NodePort and LoadBalancer, ``allocateLoadBalancerNodePorts: true`` for LoadBalancer. Virtual IPs
and node ports are allocated by the ``ServiceAllocation`` admission plugin, which sees the other
services; it first gives a write that leaves out an allocated value (a PUT without
``clusterIP``) the stored one (:func:`keep_allocated`, upstream's ``patchAllocatedValues``). The
cluster IP never changes once set.

The validation covers what clients commonly get wrong, in upstream's words: the type, ports
(required but for headless and ExternalName services, named when several, unique, in range, a
known protocol, a valid target port, no node port on a ClusterIP service), the cluster IP, the
external name, session affinity and the selector's labels.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime
from typing import Any, ClassVar

from fakeapi.name_syntax import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_port_name,
)
from fakeapi.objects import as_dict, as_list, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from fakeapi.validation.meta import validate_labels

__all__ = ["NODE_PORTS", "SERVICE_CIDR", "ServiceStrategy", "service_ports_cell"]

#: upstream's defaults: ``--service-cluster-ip-range`` and ``--service-node-port-range``
SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORTS = range(30000, 32768)
_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_AFFINITIES = ("ClientIP", "None")
_PORT_RANGE = "must be between 1 and 65535, inclusive"
_SPEC = Path("spec")


def _cluster_ip_cell(obj: Obj, _now: datetime) -> str:
    ips = as_list(as_dict(obj.get("spec")).get("clusterIPs"))
    return text(ips[0]) if ips else "<none>"


def _external_ip_cell(obj: Obj, _now: datetime) -> str:
    spec = as_dict(obj.get("spec"))
    kind = text(spec.get("type")) or "ClusterIP"
    external = [text(ip) for ip in as_list(spec.get("externalIPs"))]
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or "<none>"
    if kind == "ExternalName":
        return text(spec.get("externalName"))
    if kind == "LoadBalancer":
        ingress = as_list(as_dict(as_dict(obj.get("status")).get("loadBalancer")).get("ingress"))
        addresses = [text(as_dict(i).get("ip") or as_dict(i).get("hostname")) for i in ingress]
        if addresses or external:
            return ",".join([*addresses, *external])
        return "<pending>"
    return "<unknown>"


def service_ports_cell(obj: Obj, _now: datetime) -> str:
    """``80/TCP,443:30443/TCP``: each port, its node port if any, and its protocol."""
    cells = []
    for port in as_list(as_dict(obj.get("spec")).get("ports")):
        port = as_dict(port)
        node_port = port.get("nodePort")
        head = f"{port.get('port')}:{node_port}" if node_port else f"{port.get('port')}"
        cells.append(f"{head}/{text(port.get('protocol')) or 'TCP'}")
    return ",".join(cells) or "<none>"


def _selector_cell(obj: Obj, _now: datetime) -> str:
    selector = as_dict(as_dict(obj.get("spec")).get("selector"))
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>"


def _is_headless(spec: Obj) -> bool:
    return text(spec.get("clusterIP")) == "None"


class ServiceStrategy(Strategy):
    """Namespaced; a status (load balancer) subresource; allocated values kept on update."""

    status_subresource: ClassVar[bool] = True
    # a Service name is a DNS label (a leading digit allowed, as with upstream's
    # RelaxedServiceNameValidation): no dots, at most 63 characters
    name_rule: ClassVar[str] = "label"
    field_labels: ClassVar[tuple[str, ...]] = ("spec.clusterIP", "spec.type")
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Type", lambda obj, _now: text(as_dict(obj.get("spec")).get("type")),
               description="The type of the service."),
        Column("Cluster-IP", _cluster_ip_cell, description="The virtual IP of the service."),
        Column("External-IP", _external_ip_cell,
               description="The addresses the service is reachable at from outside."),
        Column("Port(s)", service_ports_cell, description="The ports the service exposes."),
        AGE_COLUMN,
        Column("Selector", _selector_cell, priority=1,
               description="The labels of the pods the service sends traffic to."),
    )

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        spec = as_dict(obj.get("spec"))
        return {"spec.clusterIP": text(spec.get("clusterIP")), "spec.type": text(spec.get("type"))}

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        kind = spec.setdefault("type", "ClusterIP")
        affinity = spec.setdefault("sessionAffinity", "None")
        if affinity == "ClientIP":
            config = spec.setdefault("sessionAffinityConfig", {})
            if isinstance(config, dict):
                client = config.setdefault("clientIP", {})
                if isinstance(client, dict):
                    client.setdefault("timeoutSeconds", 10800)
        for port in as_list(spec.get("ports")):
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                if port.get("targetPort") in (None, 0, ""):
                    port["targetPort"] = port.get("port")
        if kind != "ExternalName":
            spec.setdefault("internalTrafficPolicy", "Cluster")
        if kind in ("NodePort", "LoadBalancer"):
            spec.setdefault("externalTrafficPolicy", "Cluster")
        if kind == "LoadBalancer":
            spec.setdefault("allocateLoadBalancerNodePorts", True)

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj["status"] = {"loadBalancer": {}}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        errors: list[FieldError] = []
        kind = text(spec.get("type"))
        if kind not in _TYPES:
            errors.append(not_supported(_SPEC.child("type"), kind, _TYPES))
        ports = [as_dict(p) for p in as_list(spec.get("ports"))]
        if not ports and not _is_headless(spec) and kind != "ExternalName":
            errors.append(required(_SPEC.child("ports")))
        errors.extend(_port_errors(ports, kind))
        cluster_ip = text(spec.get("clusterIP"))
        if cluster_ip and cluster_ip != "None":
            try:
                ipaddress.ip_address(cluster_ip)
            except ValueError:
                errors.append(invalid(_SPEC.child("clusterIPs").index(0), cluster_ip,
                                      "must be a valid IP address, (e.g. 10.9.8.7 or "
                                      "2001:db8::ffff)"))
        if kind == "ExternalName":
            name = text(spec.get("externalName"))
            if not name:
                errors.append(required(_SPEC.child("externalName")))
            else:
                errors.extend(invalid(_SPEC.child("externalName"), name, msg)
                              for msg in is_dns1123_subdomain(name))
        affinity = text(spec.get("sessionAffinity"))
        if affinity not in _AFFINITIES:
            errors.append(not_supported(_SPEC.child("sessionAffinity"), affinity, _AFFINITIES))
        errors.extend(validate_labels(as_dict(spec.get("selector")), path=_SPEC.child("selector")))
        return errors

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errors = self.validate(new, ctx)
        before = text(as_dict(old.get("spec")).get("clusterIP"))
        after = text(as_dict(new.get("spec")).get("clusterIP"))
        if before and after != before:
            errors.append(invalid(_SPEC.child("clusterIPs").index(0), after,
                                  "may not change once set"))
        return errors


def _port_errors(ports: list[dict[str, Any]], kind: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    keys: set[tuple[Any, str]] = set()
    for i, port in enumerate(ports):
        at = _SPEC.child("ports").index(i)
        name = text(port.get("name"))
        if len(ports) > 1 and not name:
            errors.append(required(at.child("name")))
        elif name:
            errors.extend(invalid(at.child("name"), name, m) for m in is_dns1123_label(name))
            if name in names:
                errors.append(duplicate(at.child("name"), name))
            names.add(name)
        number = port.get("port")
        if not isinstance(number, int) or not 1 <= number <= 65535:
            errors.append(invalid(at.child("port"), number, _PORT_RANGE))
        protocol = text(port.get("protocol"))
        if protocol not in _PROTOCOLS:
            errors.append(not_supported(at.child("protocol"), protocol, _PROTOCOLS))
        target = port.get("targetPort")
        if isinstance(target, int):
            if not 1 <= target <= 65535:
                errors.append(invalid(at.child("targetPort"), target, _PORT_RANGE))
        elif isinstance(target, str):
            errors.extend(invalid(at.child("targetPort"), target, m)
                          for m in is_valid_port_name(target))
        if port.get("nodePort") and kind == "ClusterIP":
            errors.append(forbidden(at.child("nodePort"),
                                    "may not be used when `type` is 'ClusterIP'"))
        key = (number, protocol)
        if key in keys:
            errors.append(duplicate(at, {"port": number, "protocol": protocol}))
        keys.add(key)
    return errors


def keep_allocated(new: Obj, old: Obj) -> None:
    """A write that leaves out what was allocated keeps it (upstream ``patchAllocatedValues``):
    the cluster IPs while the service stays other than ExternalName, and node ports (by port
    and protocol) while it stays NodePort or LoadBalancer."""
    spec, before = new.get("spec"), as_dict(old.get("spec"))
    if not isinstance(spec, dict):
        return
    kind = text(spec.get("type")) or "ClusterIP"
    if kind != "ExternalName" and not spec.get("clusterIP") and before.get("clusterIP"):
        spec["clusterIP"] = before["clusterIP"]
        spec.setdefault("clusterIPs", before.get("clusterIPs"))
        for key in ("ipFamilies", "ipFamilyPolicy"):
            if key in before:
                spec.setdefault(key, before[key])
    if kind in ("NodePort", "LoadBalancer"):
        allocated = {
            (as_dict(p).get("port"), text(as_dict(p).get("protocol"))): as_dict(p).get("nodePort")
            for p in as_list(before.get("ports"))
        }
        for port in as_list(spec.get("ports")):
            if isinstance(port, dict) and not port.get("nodePort"):
                found = allocated.get((port.get("port"), text(port.get("protocol"))))
                if found:
                    port["nodePort"] = found
