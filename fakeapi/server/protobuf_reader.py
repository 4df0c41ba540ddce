"""Reading the protocol buffers wire format, for the request bodies fakeapi accepts as protobuf.

The reading side of :mod:`fakeapi.server.protobuf_writer`: a message is a run of (field number,
wire type, value) triples, and a decoder of one Kubernetes message walks them and turns the
values it knows into JSON-shaped fields. This module is that walk and the conversions every
decoder shares; the messages themselves are decoded in :mod:`fakeapi.server.protobuf` (the
envelope, ObjectMeta and the small kinds) and in one module per larger kind
(``protobuf_eviction``, ``protobuf_service``, ``protobuf_authorization``), which all sit above
this one, so the dispatcher can import every kind's decoder.

Go's generated marshallers write every non-pointer field, empty or not, so :func:`is_empty` tells
a decoder which fields it may ignore the way JSON's ``omitempty`` would have left them out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "Field",
    "FieldDecoder",
    "ProtobufDecodeError",
    "as_int32",
    "as_int64",
    "as_message",
    "as_number",
    "as_text",
    "read_fields",
    "is_empty",
    "string_map_entry",
]

_VARINT, _FIXED64, _BYTES, _GROUP_START, _GROUP_END, _FIXED32 = 0, 1, 2, 3, 4, 5
_MAX_GROUP_DEPTH = 64

#: (field number, wire type, value): bytes for length-delimited fields, else an unsigned integer
Field = tuple[int, int, "int | bytes"]
#: fills a JSON-shaped object (metadata already decoded) from a message's remaining fields
FieldDecoder = Callable[[list[Field], dict[str, Any]], None]


class ProtobufDecodeError(ValueError):
    """The body is not a protobuf object this server can read (answered with 415)."""


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


def read_fields(data: bytes) -> Iterator[Field]:
    """Every (field number, wire type, value) of one message; bytes for length-delimited."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtobufDecodeError("field number 0 is not allowed")
        pos, value = _field_value(data, pos, wire, number, 0)
        yield number, wire, value


def as_text(value: int | bytes) -> str:
    """A ``string`` field's value."""
    if not isinstance(value, bytes):
        raise ProtobufDecodeError("expected a length-delimited string")
    try:
        return value.decode()
    except UnicodeDecodeError as err:
        raise ProtobufDecodeError("string field is not valid UTF-8") from err


def as_message(value: int | bytes) -> bytes:
    """An embedded message's bytes, for :func:`read_fields`."""
    if not isinstance(value, bytes):
        raise ProtobufDecodeError("expected an embedded message")
    return value


def as_number(value: int | bytes) -> int:
    """A varint field's unsigned value (``bool`` and enums too)."""
    if isinstance(value, bytes):
        raise ProtobufDecodeError("expected a varint")
    return value


def as_int64(value: int | bytes) -> int:
    """An ``int64`` field's value."""
    raw = as_number(value)
    return raw - (1 << 64) if raw >= 1 << 63 else raw


def as_int32(value: int | bytes) -> int:
    """An ``int32`` field's value."""
    # Go keeps the low 32 bits; negatives arrive sign-extended to 64 bits
    raw = as_number(value) & 0xFFFF_FFFF
    return raw - (1 << 32) if raw >= 1 << 31 else raw


def is_empty(wire: int, value: int | bytes) -> bool:
    """Whether a field holds its zero value, which Go writes for every non-pointer field."""
    return value == 0 if wire in (_VARINT, _FIXED32, _FIXED64) else value == b""


def string_map_entry(data: bytes) -> tuple[str, str]:
    """One (key, value) entry of a ``map<string, string>`` field."""
    key = val = ""
    for number, _, value in read_fields(data):
        if number == 1:
            key = as_text(value)
        elif number == 2:
            val = as_text(value)
    return key, val
