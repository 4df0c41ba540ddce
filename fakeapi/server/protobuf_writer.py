"""Writing the protocol buffers wire format, for the few messages fakeapi sends as protobuf.

kubectl reads ``/openapi/v2`` only as protobuf (gnostic's ``openapi_v2.Document``) and there is
no protobuf library with those messages to lean on. What the server sends needs only a sliver of
the format: varints, 64-bit doubles and length-delimited fields (strings and embedded
messages), written in the order the caller chooses. So instead of a dependency and generated
classes, :class:`MessageWriter` writes exactly that, and :mod:`fakeapi.server.protobuf_reader` is
the reading side, for request bodies.

The writer follows proto3 as Go's ``proto.Marshal`` does, because the reader on the other end
is Go: a singular scalar equal to its zero value (``""``, ``0``, ``False``) is left out, since a
proto3 reader cannot tell it from an absent field anyway; members of a ``oneof`` and embedded
messages have presence and are written even when empty (an empty message still says "set");
every element of a repeated field is written, empty or not.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["MessageWriter", "varint"]

_VARINT, _FIXED64, _LEN = 0, 1, 2
_UINT64 = (1 << 64) - 1


def varint(value: int) -> bytes:
    """``value`` as a base-128 varint; a negative int64 as its 10-byte two's complement."""
    if value < 0:
        value &= _UINT64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@lru_cache(maxsize=512)
def _key(number: int, wire: int) -> bytes:
    """A field's key (its number and wire type); few distinct ones, so each is built once."""
    if number < 1:
        raise ValueError(f"field number {number} is not allowed")
    return varint(number << 3 | wire)


class MessageWriter:
    """One message's fields, appended in call order; :meth:`to_bytes` gives the encoding.

    Methods return the writer so a message reads as one chain. An embedded message is passed as
    its finished bytes: its length must precede it, so messages are built inside out.
    """

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def to_bytes(self) -> bytes:
        return b"".join(self._parts)

    def _length_delimited(self, number: int, payload: bytes) -> None:
        self._parts += (_key(number, _LEN), varint(len(payload)), payload)

    # --- singular fields: left out when zero, unless ``present`` (a member of a oneof) --------
    def string(self, number: int, value: str, *, present: bool = False) -> MessageWriter:
        if value or present:
            self._length_delimited(number, value.encode())
        return self

    def boolean(self, number: int, value: bool, *, present: bool = False) -> MessageWriter:
        if value or present:
            self._parts += (_key(number, _VARINT), b"\x01" if value else b"\x00")
        return self

    def int64(self, number: int, value: int) -> MessageWriter:
        if value:
            self._parts += (_key(number, _VARINT), varint(value))
        return self

    def double(self, number: int, value: float) -> MessageWriter:
        if value:
            self._parts += (_key(number, _FIXED64), struct.pack("<d", value))
        return self

    def message(self, number: int, encoded: bytes) -> MessageWriter:
        """An embedded message, already encoded; written even when empty (it is set)."""
        self._length_delimited(number, encoded)
        return self

    # --- repeated fields: every element written --------------------------------------------------
    def strings(self, number: int, values: Iterable[str]) -> MessageWriter:
        for value in values:
            self._length_delimited(number, value.encode())
        return self

    def messages(self, number: int, encoded: Iterable[bytes]) -> MessageWriter:
        for payload in encoded:
            self._length_delimited(number, payload)
        return self
