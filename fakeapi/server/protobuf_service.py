"""Decode the protobuf body of a core/v1 Service (``kubectl create service ...``).

``kubectl create service clusterip|nodeport|loadbalancer|externalname`` creates through the typed
clientset, in protobuf; this adds the Service message (field numbers of upstream's core/v1
``generated.proto``) to the hand-written decoder in :mod:`fakeapi.server.protobuf`. The status a
client sends is ignored (a create clears it anyway).
"""

from __future__ import annotations

from typing import Any

from fakeapi.server.protobuf_reader import (
    Field,
    ProtobufDecodeError,
    as_int32,
    as_message,
    as_number,
    as_text,
    is_empty,
    read_fields,
    string_map_entry,
)

__all__ = ["decode_service"]

_SPEC_STRINGS = {
    3: "clusterIP", 4: "type", 7: "sessionAffinity", 8: "loadBalancerIP", 10: "externalName",
    11: "externalTrafficPolicy", 17: "ipFamilyPolicy", 21: "loadBalancerClass",
    22: "internalTrafficPolicy", 23: "trafficDistribution",
}
_SPEC_LISTS = {5: "externalIPs", 9: "loadBalancerSourceRanges", 18: "clusterIPs", 19: "ipFamilies"}


def _int_or_string(data: bytes) -> int | str:
    fields = {number: value for number, _, value in read_fields(data)}
    if as_number(fields.get(1, 0)) == 1:
        return as_text(fields.get(3, b""))
    return as_int32(fields.get(2, 0))


def _port(data: bytes) -> dict[str, Any]:
    port: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number in (1, 2, 6):
            if text := as_text(value):
                port[{1: "name", 2: "protocol", 6: "appProtocol"}[number]] = text
        elif number == 3:
            port["port"] = as_int32(value)
        elif number == 4:
            target = _int_or_string(as_message(value))
            if target not in (0, ""):
                port["targetPort"] = target
        elif number == 5:
            if node_port := as_int32(value):
                port["nodePort"] = node_port
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"ServicePort field {number} in protobuf is not supported")
    return port


def _spec(data: bytes) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number == 1:
            spec.setdefault("ports", []).append(_port(as_message(value)))
        elif number == 2:
            key, text = string_map_entry(as_message(value))
            spec.setdefault("selector", {})[key] = text
        elif number in _SPEC_STRINGS:
            if text := as_text(value):
                spec[_SPEC_STRINGS[number]] = text
        elif number in _SPEC_LISTS:
            spec.setdefault(_SPEC_LISTS[number], []).append(as_text(value))
        elif number == 12:
            if port := as_int32(value):
                spec["healthCheckNodePort"] = port
        elif number in (13, 20):
            key = "publishNotReadyAddresses" if number == 13 else "allocateLoadBalancerNodePorts"
            spec[key] = bool(as_number(value))
        elif number == 14:
            config = {n: v for n, _, v in read_fields(as_message(value))}
            if 1 in config:
                client = {n: v for n, _, v in read_fields(as_message(config[1]))}
                spec["sessionAffinityConfig"] = {"clientIP": (
                    {"timeoutSeconds": as_int32(client[1])} if 1 in client else {})}
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"ServiceSpec field {number} in protobuf is not supported")
    if spec.get("publishNotReadyAddresses") is False:
        del spec["publishNotReadyAddresses"]  # Go writes the zero value; JSON would omit it
    return spec


def decode_service(fields: list[Field], obj: dict[str, Any]) -> None:
    """Fill ``obj`` (metadata already decoded) from the Service's remaining fields."""
    for number, _, value in fields:
        if number == 2:
            obj["spec"] = _spec(as_message(value))
