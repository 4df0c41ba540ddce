"""SPDY/3.1 framing for port-forward: frames cut anywhere are reassembled, header blocks share one
compression context per direction, and the dictionary is SPDY/3's (zlib names it by its
Adler-32 in every block, so a peer with another dictionary could not read ours)."""

from __future__ import annotations

import struct
import zlib

import pytest

from fakeapi.server.streams import spdy


def test_frames_are_read_whatever_the_pieces_they_arrive_in() -> None:
    stream = (spdy.control_frame(spdy.PING, struct.pack(">I", 7))
              + spdy.data_frame(3, b"hello", fin=True) + spdy.data_frame(5, b""))
    reader = spdy.FrameReader()
    frames = [frame for i in range(len(stream)) for frame in reader.feed(stream[i : i + 1])]
    assert frames == [spdy.ControlFrame(spdy.PING, 0, struct.pack(">I", 7)),
                      spdy.DataFrame(3, spdy.FLAG_FIN, b"hello"), spdy.DataFrame(5, 0, b"")]
    assert frames[1].fin and not frames[2].fin


def test_another_spdy_version_is_refused() -> None:
    frame = struct.pack(">HHI", 0x8002, spdy.PING, 4) + b"\0\0\0\1"
    with pytest.raises(spdy.SpdyError, match="SPDY version 2, not 3"):
        spdy.FrameReader().feed(frame)


def test_header_blocks_keep_one_compression_context_per_direction() -> None:
    client, server = spdy.HeaderCodec(), spdy.HeaderCodec()
    blocks = [{"streamType": "error", "port": "80", "requestID": "0"},
              {"streamType": "data", "port": "80", "requestID": "0"}]
    encoded = [client.encode(block) for block in blocks]
    assert [server.decode(block) for block in encoded] == [
        {"streamtype": "error", "port": "80", "requestid": "0"},
        {"streamtype": "data", "port": "80", "requestid": "0"},
    ]


def test_the_dictionary_is_spdy_3s() -> None:
    # the draft's dictionary: 1423 bytes, whose Adler-32 every SPDY/3 header stream announces
    assert (len(spdy.DICTIONARY), zlib.adler32(spdy.DICTIONARY)) == (1423, 0xE3C6A7C2)
    block = spdy.HeaderCodec().encode({})
    assert block[2:6] == struct.pack(">I", 0xE3C6A7C2)  # zlib's DICTID after the header
