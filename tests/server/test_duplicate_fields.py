"""Repeated keys in a JSON body are found whatever its spacing (Strict refuses, Warn warns).

Compact JSON that re-encodes byte for byte skips the pair-keeping parse; these cases pin that a
repeated key is reported the same with or without that shortcut, escapes and nesting included.
"""

from __future__ import annotations

import orjson
import pytest

from fakeapi.server.encoding import decode_body

CASES = [
    ('{"data":{"k":"v"},"data":{"k":"w"}}', ["data"]),
    ('{"metadata":{"name":"a","name":"b"}}', ["metadata.name"]),
    ('{"spec":{"containers":[{"name":"c"},{"name":"d","name":"e"}]}}',
     ["spec.containers[1].name"]),
    ('{"data":{"a\\u0062":"1","ab":"2"}}', ["data.ab"]),  # the same key, spelled two ways
    ('{"data":{"k":"a \\":\\" b"}}', []),  # a colon and quotes inside a value
    ('{"metadata":{"name":"a"},"data":{"k":"v"}}', []),
]


@pytest.mark.parametrize(("body", "found"), CASES)
@pytest.mark.parametrize("spacing", ["compact", "spaced"])
def test_repeated_keys_are_found_compact_or_spaced(
    body: str, found: list[str], spacing: str
) -> None:
    raw = body.encode() if spacing == "compact" else body.replace(",", ", ").encode()
    value, dups = decode_body(raw, "application/json", want_duplicates=True)
    assert list(dups) == found
    assert value == orjson.loads(raw)
