"""Decode the protobuf request bodies that kubectl's imperative generators send.

``kubectl create namespace X`` and ``kubectl create priorityclass ...`` go through the typed
clientset, which POSTs ``application/vnd.kubernetes.protobuf`` and never retries in JSON, so the
server must read these bodies. Nothing else sends protobuf to fakeapi, so instead of a protobuf
dependency and generated classes there is a small hand-written wire-format reader and a decoder
for exactly the messages involved: the ``k8s\\x00`` envelope around ``runtime.Unknown``,
TypeMeta, ObjectMeta, Namespace and PriorityClass (and, in their own modules, the Eviction of
``kubectl drain``, the access reviews of ``kubectl auth`` and the Services of ``kubectl create
service``). Other kinds decode only TypeMeta and
ObjectMeta, and any further populated field is refused rather than silently dropped.

Go's generated marshallers write every non-pointer field, empty or not, so empty strings and
zero numbers are read as "absent" the way JSON's ``omitempty`` would leave them out.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from fakeapi.timefmt import format_time

__all__ = ["PROTOBUF_MAGIC", "ProtobufDecodeError", "decode_kubernetes_protobuf"]

PROTOBUF_MAGIC = b"k8s\x00"

_VARINT, _FIXED64, _BYTES, _GROUP_START, _GROUP_END, _FIXED32 = 0, 1, 2, 3, 4, 5
_MAX_GROUP_DEPTH = 64


class ProtobufDecodeError(ValueError):
    """The body is not a protobuf object this server can read (answered with 415)."""


# --------------------------------------------------------------------------------------------
# Wire format.

Field = tuple[int, int, "int | bytes"]


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """An unsigned varint of at most 10 bytes starting at ``pos``; returns (value, next pos)."""
    result = shift = 0
    end = min(len(data), pos + 10)
    while pos < end:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & 0xFFFF_FFFF_FFFF_FFFF, pos
        shift += 7
    raise ProtobufDecodeError("truncated or overlong varint")


def _skip_group(data: bytes, pos: int, number: int, depth: int) -> int:
    """Skip a (deprecated) group up to its matching end tag; returns the position after it."""
    if depth > _MAX_GROUP_DEPTH:
        raise ProtobufDecodeError("groups nested too deeply")
    while pos < len(data):
        key, pos = _varint(data, pos)
        inner, wire = key >> 3, key & 7
        if wire == _GROUP_END:
            if inner != number:
                raise ProtobufDecodeError("mismatched end of group")
            return pos
        pos, _ = _field_value(data, pos, wire, inner, depth + 1)
    raise ProtobufDecodeError("unterminated group")


def _field_value(
    data: bytes, pos: int, wire: int, number: int, depth: int
) -> tuple[int, int | bytes]:
    if wire == _VARINT:
        value, pos = _varint(data, pos)
        return pos, value
    if wire == _BYTES:
        size, pos = _varint(data, pos)
        if pos + size > len(data):
            raise ProtobufDecodeError("length-delimited field runs past the end of its message")
        return pos + size, data[pos : pos + size]
    if wire in (_FIXED64, _FIXED32):
        width = 8 if wire == _FIXED64 else 4
        if pos + width > len(data):
            raise ProtobufDecodeError("fixed-width field runs past the end of its message")
        return pos + width, int.from_bytes(data[pos : pos + width], "little")
    if wire == _GROUP_START:
        start = pos
        pos = _skip_group(data, pos, number, depth)
        return pos, data[start:pos]
    raise ProtobufDecodeError(f"invalid wire type {wire}")


def _fields(data: bytes) -> Iterator[Field]:
    """Every (field number, wire type, value) of one message; bytes for length-delimited."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtobufDecodeError("field number 0 is not allowed")
        pos, value = _field_value(data, pos, wire, number, 0)
        yield number, wire, value


def _text(value: int | bytes) -> str:
    if not isinstance(value, bytes):
        raise ProtobufDecodeError("expected a length-delimited string")
    try:
        return value.decode()
    except UnicodeDecodeError as err:
        raise ProtobufDecodeError("string field is not valid UTF-8") from err


def _message(value: int | bytes) -> bytes:
    if not isinstance(value, bytes):
        raise ProtobufDecodeError("expected an embedded message")
    return value


def _number(value: int | bytes) -> int:
    if isinstance(value, bytes):
        raise ProtobufDecodeError("expected a varint")
    return value


def _int64(value: int | bytes) -> int:
    raw = _number(value)
    return raw - (1 << 64) if raw >= 1 << 63 else raw


def _int32(value: int | bytes) -> int:
    # Go keeps the low 32 bits; negatives arrive sign-extended to 64 bits
    raw = _number(value) & 0xFFFF_FFFF
    return raw - (1 << 32) if raw >= 1 << 31 else raw


def _is_empty(wire: int, value: int | bytes) -> bool:
    return value == 0 if wire in (_VARINT, _FIXED32, _FIXED64) else value == b""


# --------------------------------------------------------------------------------------------
# Kubernetes messages.


def _time(data: bytes) -> str | None:
    """``metav1.Time``: seconds (and ignored nanos); Go writes the zero time as an empty message."""
    seconds = None
    for number, _, value in _fields(data):
        if number == 1:
            seconds = _int64(value)
    if seconds is None:
        return None
    try:
        return format_time(datetime.fromtimestamp(seconds, UTC))
    except (OverflowError, OSError, ValueError) as err:
        raise ProtobufDecodeError(f"timestamp out of range: {seconds}") from err


def _string_map_entry(data: bytes) -> tuple[str, str]:
    key = val = ""
    for number, _, value in _fields(data):
        if number == 1:
            key = _text(value)
        elif number == 2:
            val = _text(value)
    return key, val


def _owner_reference(data: bytes) -> dict[str, Any]:
    names = {5: "apiVersion", 1: "kind", 3: "name", 4: "uid"}
    flags = {6: "controller", 7: "blockOwnerDeletion"}
    ref: dict[str, Any] = {}
    for number, _, value in _fields(data):
        if number in names:
            ref[names[number]] = _text(value)
        elif number in flags:
            ref[flags[number]] = bool(_number(value))
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
    for number, wire, value in _fields(data):
        if number in _META_STRINGS:
            if text := _text(value):
                meta[_META_STRINGS[number]] = text
        elif number == 7:
            if generation := _int64(value):
                meta["generation"] = generation
        elif number in (8, 9):
            if (stamp := _time(_message(value))) is not None:
                meta["creationTimestamp" if number == 8 else "deletionTimestamp"] = stamp
        elif number == 10:
            meta["deletionGracePeriodSeconds"] = _int64(value)
        elif number in (11, 12):
            key, val = _string_map_entry(_message(value))
            meta.setdefault("labels" if number == 11 else "annotations", {})[key] = val
        elif number == 13:
            meta.setdefault("ownerReferences", []).append(_owner_reference(_message(value)))
        elif number == 14:
            meta.setdefault("finalizers", []).append(_text(value))
        elif number == 17 and not _is_empty(wire, value):
            raise ProtobufDecodeError("metadata.managedFields in protobuf is not supported")
    return meta


def _namespace(fields: list[Field], obj: dict[str, Any]) -> None:
    spec: dict[str, Any] = {}
    status: dict[str, Any] = {}
    for number, wire, value in fields:
        if number == 2:
            for inner, _, item in _fields(_message(value)):
                if inner == 1:
                    spec.setdefault("finalizers", []).append(_text(item))
        elif number == 3:
            for inner, inner_wire, item in _fields(_message(value)):
                if inner == 1:
                    if phase := _text(item):
                        status["phase"] = phase
                elif inner == 2 and not _is_empty(inner_wire, item):
                    raise ProtobufDecodeError(
                        "Namespace status.conditions in protobuf is not supported"
                    )
        elif not _is_empty(wire, value):
            raise ProtobufDecodeError(f"Namespace field {number} in protobuf is not supported")
    obj["spec"] = spec
    obj["status"] = status


def _priority_class(fields: list[Field], obj: dict[str, Any]) -> None:
    obj["value"] = 0
    for number, wire, value in fields:
        if number == 2:
            obj["value"] = _int32(value)
        elif number == 3:
            if _number(value):
                obj["globalDefault"] = True
        elif number == 4:
            if text := _text(value):
                obj["description"] = text
        elif number == 5:
            obj["preemptionPolicy"] = _text(value)
        elif not _is_empty(wire, value):
            raise ProtobufDecodeError(f"PriorityClass field {number} in protobuf is not supported")


def _config_map(fields: list[Field], obj: dict[str, Any]) -> None:
    data: dict[str, str] = {}
    binary: dict[str, str] = {}
    for number, wire, value in fields:
        if number == 2:
            key, text = _string_map_entry(_message(value))
            data[key] = text
        elif number == 3:
            entry = {n: v for n, _, v in _fields(_message(value))}
            binary[_text(entry.get(1, b""))] = base64.b64encode(
                _message(entry.get(2, b""))).decode()
        elif number == 4:
            obj["immutable"] = bool(_number(value))
        elif not _is_empty(wire, value):
            raise ProtobufDecodeError(f"ConfigMap field {number} in protobuf is not supported")
    if data:
        obj["data"] = data
    if binary:
        obj["binaryData"] = binary


def _metadata_only(kind: str) -> Callable[[list[Field], dict[str, Any]], None]:
    def decode(fields: list[Field], obj: dict[str, Any]) -> None:
        for number, wire, value in fields:
            if not _is_empty(wire, value):
                raise ProtobufDecodeError(
                    f"cannot decode {kind} from protobuf: field {number} is set"
                )

    return decode


def _decoder_for(api_version: str, kind: str) -> Callable[[list[Field], dict[str, Any]], None]:
    group = api_version.rpartition("/")[0]
    if group == "" and kind == "Namespace":
        return _namespace
    if group == "scheduling.k8s.io" and kind == "PriorityClass":
        return _priority_class
    if group == "" and kind == "ConfigMap":
        return _config_map
    if group == "policy" and kind == "Eviction":
        from fakeapi.server.protobuf_eviction import decode_eviction

        return decode_eviction
    if group == "" and kind == "Service":
        from fakeapi.server.protobuf_service import decode_service

        return decode_service
    if group in ("authorization.k8s.io", "authentication.k8s.io"):
        from fakeapi.server.protobuf_authorization import review_decoder

        return review_decoder(group, kind) or _metadata_only(kind)
    return _metadata_only(kind)


def decode_kubernetes_protobuf(body: bytes) -> dict[str, Any]:
    """The JSON-shaped object inside a ``application/vnd.kubernetes.protobuf`` request body.

    Raises :class:`ProtobufDecodeError` for anything malformed, encoded, or not decodable.
    """
    if not body.startswith(PROTOBUF_MAGIC):
        raise ProtobufDecodeError("body does not start with the Kubernetes protobuf prefix")
    api_version = kind = ""
    raw = b""
    for number, _, value in _fields(body[len(PROTOBUF_MAGIC) :]):
        if number == 1:
            for inner, _, item in _fields(_message(value)):
                if inner == 1:
                    api_version = _text(item)
                elif inner == 2:
                    kind = _text(item)
        elif number == 2:
            raw = _message(value)
        elif number == 3 and _text(value):
            raise ProtobufDecodeError(f"unsupported content encoding {_text(value)!r}")
    if not api_version or not kind:
        raise ProtobufDecodeError("protobuf body carries no apiVersion and kind")
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": {}}
    rest: list[Field] = []
    for number, wire, value in _fields(raw):
        if number == 1:
            obj["metadata"] = _object_meta(_message(value))
        else:
            rest.append((number, wire, value))
    _decoder_for(api_version, kind)(rest, obj)
    return obj
