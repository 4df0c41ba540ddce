"""The protobuf wire-format writer produces the bytes the protobuf encoding guide documents.

The known encodings are the guide's own examples (``Test1.a = 150`` is ``08 96 01``, ...), plus
the proto3 rules a Go reader relies on: zero scalars are left out, oneof members and embedded
messages are written even when empty, and negative int64s take ten bytes.
"""

from __future__ import annotations

import struct

import pytest

from fakeapi.server.protobuf_writer import MessageWriter, varint


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (150, "9601"),
        (300, "ac02"),
        (2**63 - 1, "ffffffffffffffff7f"),
        (-1, "ffffffffffffffffff01"),
    ],
)
def test_varints_are_little_endian_base_128_and_negatives_take_ten_bytes(
    value: int, encoded: str
) -> None:
    assert varint(value).hex() == encoded


def test_the_encoding_guides_examples_come_out_byte_for_byte() -> None:
    test1 = MessageWriter().int64(1, 150).to_bytes()
    assert test1.hex() == "089601"
    assert MessageWriter().string(2, "testing").to_bytes().hex() == "120774657374696e67"
    assert MessageWriter().message(3, test1).to_bytes().hex() == "1a03089601"


def test_zero_scalars_are_left_out_as_proto3_writers_leave_them() -> None:
    message = MessageWriter().string(1, "").boolean(2, False).int64(3, 0).double(4, 0.0).to_bytes()
    assert message == b""


def test_oneof_members_and_embedded_messages_are_written_even_when_empty() -> None:
    assert MessageWriter().boolean(2, False, present=True).to_bytes() == b"\x10\x00"
    assert MessageWriter().string(1, "", present=True).to_bytes() == b"\x0a\x00"
    assert MessageWriter().message(5, b"").to_bytes() == b"\x2a\x00"


def test_repeated_fields_write_every_element_in_order_even_empty_ones() -> None:
    strings = MessageWriter().strings(1, ["a", "", "bc"]).to_bytes()
    assert strings == b"\x0a\x01a\x0a\x00\x0a\x02bc"
    messages = MessageWriter().messages(2, [b"\x08\x01", b""]).to_bytes()
    assert messages == b"\x12\x02\x08\x01\x12\x00"


def test_scalars_use_their_wire_types() -> None:
    assert MessageWriter().boolean(16, True).to_bytes() == b"\x80\x01\x01"  # key 16<<3|0
    assert MessageWriter().double(7, 1.5).to_bytes() == b"\x39" + struct.pack("<d", 1.5)
    assert MessageWriter().int64(11, -2).to_bytes() == b"\x58" + varint(-2)


def test_strings_are_utf8_and_lengths_count_bytes() -> None:
    encoded = MessageWriter().string(1, "día").to_bytes()
    assert encoded == b"\x0a\x04d\xc3\xada"


def test_long_payloads_get_multi_byte_lengths() -> None:
    payload = b"x" * 300
    assert MessageWriter().message(1, payload).to_bytes() == b"\x0a\xac\x02" + payload


def test_field_number_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="field number 0"):
        MessageWriter().string(0, "x")
