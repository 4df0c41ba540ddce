"""Decode the protobuf request bodies that kubectl's imperative generators send.

``kubectl create namespace X`` and ``kubectl create priorityclass ...`` go through the typed
clientset, which POSTs ``application/vnd.kubernetes.protobuf`` and never retries in JSON, so the
server must read these bodies. Nothing else sends protobuf to fakeapi, so instead of a protobuf
dependency and generated classes there is a small hand-written wire-format reader
(:mod:`fakeapi.server.protobuf_reader`) and a decoder for exactly the messages involved: here the
``k8s\\x00`` envelope around ``runtime.Unknown``, TypeMeta, ObjectMeta, Namespace, PriorityClass
and ConfigMap, and in their own modules the Eviction of ``kubectl drain``, the access reviews of
``kubectl auth``, the Services of ``kubectl create service`` and the workloads, identities and
RBAC objects of ``kubectl create deployment|job|serviceaccount|role|...``. This module picks the
decoder by apiVersion and kind. Other kinds decode only TypeMeta and ObjectMeta, and any further
populated field is refused rather than silently dropped.

Go's generated marshallers write every non-pointer field, empty or not, so empty strings and
zero numbers are read as "absent" the way JSON's ``omitempty`` would leave them out.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from fakeapi.server.protobuf_authorization import review_decoder
from fakeapi.server.protobuf_eviction import decode_eviction
from fakeapi.server.protobuf_reader import (
    Field,
    FieldDecoder,
    ProtobufDecodeError,
    as_int32,
    as_int64,
    as_message,
    as_number,
    as_text,
    is_empty,
    read_fields,
    string_map_entry,
)
from fakeapi.server.protobuf_service import decode_service
from fakeapi.server.protobuf_workloads import workload_decoder
from fakeapi.timefmt import format_time

__all__ = ["PROTOBUF_MAGIC", "decode_kubernetes_protobuf"]

PROTOBUF_MAGIC = b"k8s\x00"


def _time(data: bytes) -> str | None:
    """``metav1.Time``: seconds (and ignored nanos); Go writes the zero time as an empty message."""
    seconds = None
    for number, _, value in read_fields(data):
        if number == 1:
            seconds = as_int64(value)
    if seconds is None:
        return None
    try:
        return format_time(datetime.fromtimestamp(seconds, UTC))
    except (OverflowError, OSError, ValueError) as err:
        raise ProtobufDecodeError(f"timestamp out of range: {seconds}") from err


def _owner_reference(data: bytes) -> dict[str, Any]:
    names = {5: "apiVersion", 1: "kind", 3: "name", 4: "uid"}
    flags = {6: "controller", 7: "blockOwnerDeletion"}
    ref: dict[str, Any] = {}
    for number, _, value in read_fields(data):
        if number in names:
            ref[names[number]] = as_text(value)
        elif number in flags:
            ref[flags[number]] = bool(as_number(value))
    return ref


_META_STRINGS = {
    1: "name",
    2: "generateName",
    3: "namespace",
    4: "selfLink",
    5: "uid",
    6: "resourceVersion",
}


def _object_meta(data: bytes) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number in _META_STRINGS:
            if text := as_text(value):
                meta[_META_STRINGS[number]] = text
        elif number == 7:
            if generation := as_int64(value):
                meta["generation"] = generation
        elif number in (8, 9):
            if (stamp := _time(as_message(value))) is not None:
                meta["creationTimestamp" if number == 8 else "deletionTimestamp"] = stamp
        elif number == 10:
            meta["deletionGracePeriodSeconds"] = as_int64(value)
        elif number in (11, 12):
            key, val = string_map_entry(as_message(value))
            meta.setdefault("labels" if number == 11 else "annotations", {})[key] = val
        elif number == 13:
            meta.setdefault("ownerReferences", []).append(_owner_reference(as_message(value)))
        elif number == 14:
            meta.setdefault("finalizers", []).append(as_text(value))
        elif number == 17 and not is_empty(wire, value):
            raise ProtobufDecodeError("metadata.managedFields in protobuf is not supported")
    return meta


def _namespace(fields: list[Field], obj: dict[str, Any]) -> None:
    spec: dict[str, Any] = {}
    status: dict[str, Any] = {}
    for number, wire, value in fields:
        if number == 2:
            for inner, _, item in read_fields(as_message(value)):
                if inner == 1:
                    spec.setdefault("finalizers", []).append(as_text(item))
        elif number == 3:
            for inner, inner_wire, item in read_fields(as_message(value)):
                if inner == 1:
                    if phase := as_text(item):
                        status["phase"] = phase
                elif inner == 2 and not is_empty(inner_wire, item):
                    raise ProtobufDecodeError(
                        "Namespace status.conditions in protobuf is not supported"
                    )
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"Namespace field {number} in protobuf is not supported")
    obj["spec"] = spec
    obj["status"] = status


def _priority_class(fields: list[Field], obj: dict[str, Any]) -> None:
    obj["value"] = 0
    for number, wire, value in fields:
        if number == 2:
            obj["value"] = as_int32(value)
        elif number == 3:
            if as_number(value):
                obj["globalDefault"] = True
        elif number == 4:
            if text := as_text(value):
                obj["description"] = text
        elif number == 5:
            obj["preemptionPolicy"] = as_text(value)
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"PriorityClass field {number} in protobuf is not supported")


def _config_map(fields: list[Field], obj: dict[str, Any]) -> None:
    data: dict[str, str] = {}
    binary: dict[str, str] = {}
    for number, wire, value in fields:
        if number == 2:
            key, text = string_map_entry(as_message(value))
            data[key] = text
        elif number == 3:
            entry = {n: v for n, _, v in read_fields(as_message(value))}
            binary[as_text(entry.get(1, b""))] = base64.b64encode(
                as_message(entry.get(2, b""))).decode()
        elif number == 4:
            obj["immutable"] = bool(as_number(value))
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"ConfigMap field {number} in protobuf is not supported")
    if data:
        obj["data"] = data
    if binary:
        obj["binaryData"] = binary


def _metadata_only(kind: str) -> FieldDecoder:
    def decode(fields: list[Field], obj: dict[str, Any]) -> None:
        for number, wire, value in fields:
            if not is_empty(wire, value):
                raise ProtobufDecodeError(
                    f"cannot decode {kind} from protobuf: field {number} is set"
                )

    return decode


def _decoder_for(api_version: str, kind: str) -> FieldDecoder:
    group = api_version.rpartition("/")[0]
    if group == "" and kind == "Namespace":
        return _namespace
    if group == "scheduling.k8s.io" and kind == "PriorityClass":
        return _priority_class
    if group == "" and kind == "ConfigMap":
        return _config_map
    if group == "policy" and kind == "Eviction":
        return decode_eviction
    if group == "" and kind == "Service":
        return decode_service
    if group in ("authorization.k8s.io", "authentication.k8s.io"):
        return review_decoder(group, kind) or _metadata_only(kind)
    return workload_decoder(group, kind, _object_meta) or _metadata_only(kind)


def decode_kubernetes_protobuf(body: bytes) -> dict[str, Any]:
    """The JSON-shaped object inside a ``application/vnd.kubernetes.protobuf`` request body.

    Raises :class:`ProtobufDecodeError` for anything malformed, encoded, or not decodable.
    """
    if not body.startswith(PROTOBUF_MAGIC):
        raise ProtobufDecodeError("body does not start with the Kubernetes protobuf prefix")
    api_version = kind = ""
    raw = b""
    for number, _, value in read_fields(body[len(PROTOBUF_MAGIC) :]):
        if number == 1:
            for inner, _, item in read_fields(as_message(value)):
                if inner == 1:
                    api_version = as_text(item)
                elif inner == 2:
                    kind = as_text(item)
        elif number == 2:
            raw = as_message(value)
        elif number == 3 and as_text(value):
            raise ProtobufDecodeError(f"unsupported content encoding {as_text(value)!r}")
    if not api_version or not kind:
        raise ProtobufDecodeError("protobuf body carries no apiVersion and kind")
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": {}}
    rest: list[Field] = []
    for number, wire, value in read_fields(raw):
        if number == 1:
            obj["metadata"] = _object_meta(as_message(value))
        else:
            rest.append((number, wire, value))
    _decoder_for(api_version, kind)(rest, obj)
    return obj
