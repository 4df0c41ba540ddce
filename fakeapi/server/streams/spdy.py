"""SPDY/3.1 framing, as much as ``kubectl port-forward`` needs of it.

kubectl 1.30+ reaches ``pods/portforward`` over a WebSocket with the subprotocol
``SPDY/3.1+portforward.k8s.io`` (KEP-4006): the WebSocket's binary messages carry a SPDY/3.1 byte
stream (cut anywhere, so :class:`FrameReader` buffers), inside which the client opens one pair of
streams per forwarded connection. This module reads and writes the frames of that stream:

- a control frame is ``1 | version (15 bits) | type (16) | flags (8) | length (24) | data``; the
  types used are SYN_STREAM (1), SYN_REPLY (2), RST_STREAM (3), SETTINGS (4), PING (6), GOAWAY
  (7), HEADERS (8) and WINDOW_UPDATE (9);
- a data frame is ``0 | stream id (31) | flags (8) | length (24) | data``, flag FIN (1) ending the
  sender's half of the stream;
- a header block (SYN_STREAM, SYN_REPLY, HEADERS) is ``count (32)`` then ``length (32) name
  length (32) value`` pairs, compressed with zlib over the SPDY/3 dictionary, one compression
  context per direction for the whole session (each block ends with a sync flush).

The dictionary is the one the SPDY/3 draft defines (section 2.6.10.1): length-prefixed header
names, then a run of common values; built here from those parts. zlib checks it (the stream
names the dictionary's Adler-32), so a wrong byte fails the first header block at once. Flow
control (WINDOW_UPDATE) is left out, as Kubernetes' SPDY library leaves it out.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "DICTIONARY",
    "FLAG_FIN",
    "ControlFrame",
    "DataFrame",
    "FrameReader",
    "HeaderCodec",
    "SpdyError",
    "control_frame",
    "data_frame",
]

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = (
    1, 2, 3, 4, 6, 7, 8, 9
)
FLAG_FIN = 0x01
#: RST_STREAM status codes used here
PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, CANCEL, INTERNAL_ERROR = 1, 2, 3, 5, 6


def _dictionary() -> bytes:
    names = (
        "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
        "accept-encoding", "accept-language", "accept-ranges", "age", "allow", "authorization",
        "cache-control", "connection", "content-base", "content-encoding", "content-language",
        "content-length", "content-location", "content-md5", "content-range", "content-type",
        "date", "etag", "expect", "expires", "from", "host", "if-match", "if-modified-since",
        "if-none-match", "if-range", "if-unmodified-since", "last-modified", "location",
        "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
        "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent",
        "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
        "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin",
    )
    prefixed = b"".join(struct.pack(">I", len(n)) + n.encode() for n in names)
    tail = (
        "100101201202205206300302303304305306307402405406407408409410411412413414415416417502"
        "504505203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad "
        "Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not "
        "Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec "
        "00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,"
        "image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,"
        "publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
    )
    return prefixed + tail.encode()


#: the SPDY/3 header compression dictionary
DICTIONARY = _dictionary()


class SpdyError(ValueError):
    """Bytes that are not a SPDY/3 frame stream."""


@dataclass(frozen=True, slots=True)
class ControlFrame:
    type: int
    flags: int
    data: bytes


@dataclass(frozen=True, slots=True)
class DataFrame:
    stream_id: int
    flags: int
    data: bytes

    @property
    def fin(self) -> bool:
        return bool(self.flags & FLAG_FIN)


class FrameReader:
    """Frames out of a byte stream fed in arbitrary pieces."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[ControlFrame | DataFrame]:
        self._buffer += data
        frames: list[ControlFrame | DataFrame] = []
        while len(self._buffer) >= 8:
            first, flags_length = struct.unpack_from(">II", self._buffer)
            length = flags_length & 0xFFFFFF
            if len(self._buffer) < 8 + length:
                break
            payload = bytes(self._buffer[8 : 8 + length])
            del self._buffer[: 8 + length]
            flags = flags_length >> 24
            if first & 0x80000000:
                version = (first >> 16) & 0x7FFF
                if version != VERSION:
                    raise SpdyError(f"SPDY version {version}, not 3")
                frames.append(ControlFrame(first & 0xFFFF, flags, payload))
            else:
                frames.append(DataFrame(first & 0x7FFFFFFF, flags, payload))
        return frames


def control_frame(frame_type: int, data: bytes, *, flags: int = 0) -> bytes:
    return struct.pack(">HHI", 0x8000 | VERSION, frame_type, (flags << 24) | len(data)) + data


def data_frame(stream_id: int, data: bytes, *, fin: bool = False) -> bytes:
    flags = FLAG_FIN if fin else 0
    return struct.pack(">II", stream_id & 0x7FFFFFFF, (flags << 24) | len(data)) + data


class HeaderCodec:
    """One session's header compression: a compressor for what we send, a decompressor for
    what we receive, each over the SPDY/3 dictionary."""

    def __init__(self) -> None:
        self._out = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15, 9,
                                     zlib.Z_DEFAULT_STRATEGY, DICTIONARY)
        self._in = zlib.decompressobj(zdict=DICTIONARY)

    def encode(self, headers: Mapping[str, str]) -> bytes:
        block = struct.pack(">I", len(headers))
        for name, value in headers.items():
            raw_name, raw_value = name.lower().encode(), value.encode()
            block += struct.pack(">I", len(raw_name)) + raw_name
            block += struct.pack(">I", len(raw_value)) + raw_value
        return self._out.compress(block) + self._out.flush(zlib.Z_SYNC_FLUSH)

    def decode(self, compressed: bytes) -> dict[str, str]:
        try:
            block = self._in.decompress(compressed)
        except zlib.error as exc:
            raise SpdyError(f"header block: {exc}") from None
        headers: dict[str, str] = {}
        try:
            (count,) = struct.unpack_from(">I", block)
            offset = 4
            for _ in range(count):
                (size,) = struct.unpack_from(">I", block, offset)
                name = block[offset + 4 : offset + 4 + size].decode()
                offset += 4 + size
                (size,) = struct.unpack_from(">I", block, offset)
                value = block[offset + 4 : offset + 4 + size].decode()
                offset += 4 + size
                # several values of one name are NUL-separated: the first is enough here
                headers[name.lower()] = value.split("\x00", 1)[0]
        except (struct.error, UnicodeDecodeError) as exc:
            raise SpdyError(f"header block: {exc}") from None
        return headers


def stream_id_of(frame: ControlFrame) -> int:
    """The stream a SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS or WINDOW_UPDATE is about."""
    (value,) = struct.unpack_from(">I", frame.data)
    return int(value & 0x7FFFFFFF)
