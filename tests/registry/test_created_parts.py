"""A new object's ``spec`` decoded once per content reads exactly as the walk reads it.

Objects made from one template send the same ``spec`` again and again; the registry keeps the
decoding of such a part (when the walk reported nothing about the object) and copies it into the
next object that sends the same bytes. Each test here compares that shortcut with the full walk
of the decoder: the decoded object byte for byte, its key order, the unknown and missing fields
reported and the decoding errors, for objects of every served kind damaged at random.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.objects import deep_copy
from fakeapi.registry.decode import _decode_created
from fakeapi.registry.typed_decode import DecodeError, TypedDecoder
from fakeapi.resources import ResourceType

from .test_write_shortcuts import CHANGES, SAMPLES, damaged

Outcome = tuple[bytes, list[str], list[str]]


def walked(rt: ResourceType, body: dict[str, Any], mode: Any) -> Outcome:
    decoder = rt.new_decoder(mode)
    try:
        out = decoder.decode(rt.schema, body)
    except DecodeError as exc:
        return exc.message.encode(), [], []
    return orjson.dumps(out), list(decoder.unknown), list(decoder.missing)


def shortcut(rt: ResourceType, body: dict[str, Any], mode: Any) -> Outcome:
    decoder = rt.new_decoder(mode)
    assert isinstance(decoder, TypedDecoder)
    try:
        out = _decode_created(decoder, rt.schema, body)
    except DecodeError as exc:
        return exc.message.encode(), [], []
    return orjson.dumps(out), list(decoder.unknown), list(decoder.missing)


WITH_SPEC = [(rt, obj) for rt, obj in SAMPLES if isinstance(obj.get("spec"), dict) and obj["spec"]]


def test_some_served_kinds_have_a_spec_to_repeat() -> None:
    assert len(WITH_SPEC) >= 10


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(WITH_SPEC), CHANGES, CHANGES, st.sampled_from(["decode", "checked"])
)
def test_a_repeated_spec_decodes_as_the_walk_decodes_it(
    kind_sample: tuple[ResourceType, dict[str, Any]],
    first: list[tuple[int, int]],
    second: list[tuple[int, int]],
    mode: str,
) -> None:
    rt, obj = kind_sample
    one = damaged(obj, first)
    # the same spec (damaged or not) with the rest of the object damaged otherwise
    rest = damaged(obj, second)
    two = {**rest, "spec": deep_copy(one["spec"])} if "spec" in one else rest
    for body in (one, two, one, two, obj):
        assert shortcut(rt, deep_copy(body), mode) == walked(rt, deep_copy(body), mode)


def test_each_object_gets_its_own_copy_of_a_repeated_spec() -> None:
    rt, obj = next((rt, obj) for rt, obj in WITH_SPEC if rt.kind == "Pod")
    decoded = [_decode_created(rt.new_decoder("decode"), rt.schema, deep_copy(obj)) for _ in "ab"]
    assert decoded[0] == decoded[1]
    assert decoded[0]["spec"] is not decoded[1]["spec"]
    decoded[0]["spec"]["containers"].clear()
    again = _decode_created(rt.new_decoder("decode"), rt.schema, deep_copy(obj))
    assert again == decoded[1]


def test_an_unknown_field_in_a_repeated_spec_is_reported_every_time() -> None:
    rt, obj = next((rt, obj) for rt, obj in WITH_SPEC if rt.kind == "Pod")
    body = deep_copy(obj)
    body["spec"]["bogus"] = 1
    for _ in range(3):
        decoder = rt.new_decoder("decode")
        assert isinstance(decoder, TypedDecoder)
        _decode_created(decoder, rt.schema, deep_copy(body))
        assert decoder.unknown == ["spec.bogus"]
