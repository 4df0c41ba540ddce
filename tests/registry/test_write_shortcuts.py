"""The write path's shortcuts give exactly what the long way gives.

The registry skips work it can prove redundant: a created object that the decoder produced is
only checked for required fields instead of walked a second time (and a ``checked`` decoding
leaves only its top level to check); field sets keep their FieldsV1
encoding per node; the paths of a whole added sub-tree are one set shared by every sub-tree of
that shape, a create's comparison of its spec and status and an applied configuration's set
are memoised per top-level part; managedFields entries handed out are decoded, and when
unchanged handed out again, without being read or built; a plain string or boolean field
is taken as it is without a look at its schema; a uid is formatted without ``uuid.UUID``; a pod
spec that
passed the create rules is remembered; an update built from the stored version skips the fields
it kept; a time already in its stored form is not parsed. Each
test here takes objects of every served kind, damaged at random (fields removed, set to
``null``, ``{}`` or a list of ``null``), and compares the shortcut's result with the full
computation, byte for byte.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.objects import deep_copy
from fakeapi.patch.fieldset import FieldSet
from fakeapi.patch.managed import (
    ManagedEntry,
    ManagerKey,
    decode_managed_fields,
    encode_managed_fields,
)
from fakeapi.patch.typed import (
    Comparison,
    _compare,
    _to_set,
    compare,
    to_field_set,
    zero_object,
)
from fakeapi.registry import go_time, metadata, typed_decode
from fakeapi.registry.decode import check_decoded, check_types, decode_object
from fakeapi.registry.options import ListOptions, WriteOptions
from fakeapi.resources import ResourceType, default_resources

from ..support.samples import sample

KINDS = list(default_resources())
Path = tuple[str | int, ...]


def all_paths(value: Any, prefix: Path = ()) -> list[Path]:
    out: list[Path] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            out.append((*prefix, key))
            out.extend(all_paths(sub, (*prefix, key)))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            out.append((*prefix, index))
            out.extend(all_paths(sub, (*prefix, index)))
    return out


def picked(obj: dict[str, Any], pick: int) -> tuple[Any, str | int] | None:
    """The container and key of the ``pick``-th path of ``obj`` (wrapping); None when it has
    no paths."""
    paths = all_paths(obj)
    if not paths:
        return None
    path = paths[pick % len(paths)]
    parent: Any = obj
    for part in path[:-1]:
        parent = parent[part]
    return parent, path[-1]


def damaged(obj: dict[str, Any], changes: list[tuple[int, int]]) -> dict[str, Any]:
    """``obj`` with the paths picked by ``changes`` removed or replaced by an empty value."""
    out = deep_copy(obj)
    for pick, how in changes:
        found = picked(out, pick)
        if found is None:
            break
        parent, last = found
        if how == 0:
            del parent[last]
        else:
            parent[last] = (None, {}, [None], [{}])[how - 1]
    return out


def samples() -> list[tuple[ResourceType, dict[str, Any]]]:
    out = []
    for rt in KINDS:
        try:
            out.append((rt, sample(rt.api_version, rt.kind)))
        except KeyError:
            continue
    return out


SAMPLES = samples()
CHANGES = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 4)), max_size=4)


def test_every_served_kind_has_a_sample_to_damage() -> None:
    assert len(SAMPLES) >= len(KINDS) - 2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), CHANGES)
def test_a_decoded_object_needs_only_its_required_fields_checked(
    kind_sample: tuple[ResourceType, dict[str, Any]], changes: list[tuple[int, int]]
) -> None:
    rt, obj = kind_sample
    try:
        decoded, _ = decode_object(rt, damaged(obj, changes), WriteOptions())
    except StatusError:
        return
    long_way, short_way = deep_copy(decoded), deep_copy(decoded)
    long_missing = check_types(rt, long_way)
    short_missing = check_decoded(rt, short_way)
    assert orjson.dumps(short_way) == orjson.dumps(long_way)
    assert [(e.field, e.message) for e in short_missing] == [
        (e.field, e.message) for e in long_missing
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), CHANGES)
# a null list item of a struct with required fields: its zero value is checked below it
@example(next(s for s in SAMPLES if s[0].kind == "ResourceClaim"), [(403, 1)])
def test_a_checked_decoding_leaves_only_the_top_level_to_check(
    kind_sample: tuple[ResourceType, dict[str, Any]], changes: list[tuple[int, int]]
) -> None:
    rt, obj = kind_sample
    body = damaged(obj, changes)
    try:
        decoded, _ = decode_object(rt, deep_copy(body), WriteOptions())
    except StatusError:
        return
    below: list[str] = []
    checked_way, _ = decode_object(rt, deep_copy(body), WriteOptions(), missing=below)
    long_missing = check_decoded(rt, decoded)
    short_missing = check_decoded(rt, checked_way, below=below)
    assert orjson.dumps(checked_way) == orjson.dumps(decoded)
    assert [(e.field, e.message) for e in short_missing] == [
        (e.field, e.message) for e in long_missing
    ]


def checked(rt: ResourceType, obj: dict[str, Any], **stored: Any) -> tuple[bytes, list[str]]:
    try:
        missing = check_types(rt, obj, **stored)
    except StatusError as exc:
        return exc.message.encode(), []
    return orjson.dumps(obj), [f"{e.field}: {e.message}" for e in missing]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), CHANGES, CHANGES)
# a claim stored with a null request: it became {} unwalked, so walking it again finds the
# request's name missing (the shortcut must not skip a copy holding {})
@example(next(s for s in SAMPLES if s[0].kind == "ResourceClaim"), [(403, 1)], [])
def test_an_update_built_from_the_stored_version_is_checked_as_a_whole_walk_checks_it(
    kind_sample: tuple[ResourceType, dict[str, Any]],
    first: list[tuple[int, int]],
    second: list[tuple[int, int]],
) -> None:
    rt, obj = kind_sample
    stored = damaged(obj, first)  # what a write stored: went through the final walk, whole
    try:
        if check_types(rt, stored):
            return  # a required field missing: refused, never stored
    except StatusError:
        return
    new = damaged(stored, second)  # what a strategy or an apply built from it
    assert checked(rt, deep_copy(new), stored=stored) == checked(rt, deep_copy(new))


def rebuilt(fields: FieldSet) -> FieldSet:
    """The same set built afresh path by path: nothing shared, nothing encoded yet."""
    return FieldSet.from_paths(*fields.paths())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), CHANGES, CHANGES)
def test_shared_and_memoised_field_sets_encode_as_sets_built_afresh(
    kind_sample: tuple[ResourceType, dict[str, Any]],
    first: list[tuple[int, int]],
    second: list[tuple[int, int]],
) -> None:
    rt, obj = kind_sample
    old, new = damaged(obj, first), damaged(obj, second)
    try:
        created = compare(zero_object(rt.schema), new, rt.schema)
        changed = compare(old, new, rt.schema)
        applied = to_field_set(new, rt.schema)
    except StatusError:
        return
    sets = [
        created.added, created.modified, changed.added, changed.modified, changed.removed,
        applied, created.changed().union(changed.changed()),
        applied.difference(changed.added), applied.recursive_difference(changed.modified),
    ]
    for fields in sets:
        fresh = rebuilt(fields)
        assert fields == fresh
        assert orjson.dumps(fields.to_fields_v1()) == orjson.dumps(fresh.to_fields_v1())
        assert FieldSet.from_fields_v1(fields.to_fields_v1()) == fields
    # an applied configuration's set is memoised per top-level part: the same as the walk
    walked_set = _to_set(new, rt.schema, ()) or FieldSet()
    assert to_field_set(deep_copy(new), rt.schema) == walked_set == applied
    # a create's comparison is split field by field and memoised for spec and status, its sets
    # shared by shape: a second one, and the plain walk, find the same paths
    walked = Comparison()
    _compare(zero_object(rt.schema), new, rt.schema, walked, ())
    again = compare(zero_object(rt.schema), deep_copy(new), rt.schema)
    for found in (created, again):
        assert (found.added, found.modified, found.removed) == (
            walked.added, walked.modified, walked.removed
        )


def test_a_pod_spec_that_passed_passes_again_and_a_failing_one_fails_every_time() -> None:
    registry = new_registry(clock=FakeClock())
    pods = registry.resources.lookup("", "v1", "pods")
    good = {"containers": [{"name": "app", "image": "app:1"}]}
    bad = {"containers": [{"name": "App_1", "image": "app:1"}]}
    for name in ("a", "b"):
        registry.create(pods, "default", {"metadata": {"name": name}, "spec": deep_copy(good)},
                        WriteOptions())
    messages = []
    for name in ("c", "d"):
        with pytest.raises(StatusError) as raised:
            registry.create(pods, "default", {"metadata": {"name": name}, "spec": deep_copy(bad)},
                            WriteOptions())
        messages.append(raised.value.message.replace(f'"{name}"', '"<name>"'))
    assert messages[0] == messages[1]
    assert "spec.containers[0].name" in messages[0]
    stored = registry.list(pods, "default", ListOptions()).items
    assert [s.obj["metadata"]["name"] for s in stored] == ["a", "b"]


def test_a_status_write_keeps_the_stored_field_order_whatever_order_the_body_has() -> None:
    registry = new_registry(clock=FakeClock())
    pods = registry.resources.lookup("", "v1", "pods")
    body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}}
    stored = registry.create(pods, "default", body, WriteOptions(field_manager="t")).obj
    order = list(stored)
    assert order[-1] == "status"
    reordered = {key: stored[key] for key in reversed(order)}
    reordered = deep_copy(reordered)
    reordered["status"]["phase"] = "Running"
    result = registry.update(pods, "default", "p", reordered, WriteOptions(field_manager="t"),
                             subresource="status")
    assert list(orjson.loads(result.raw)) == order
    assert orjson.loads(result.raw)["status"]["phase"] == "Running"
    latest = orjson.loads(result.raw)
    without_status = {key: value for key, value in latest.items() if key != "status"}
    result = registry.update(pods, "default", "p", without_status,
                             WriteOptions(field_manager="t"), subresource="status")
    assert list(orjson.loads(result.raw)) == order  # the pod strategy gives it a status back


def normalised(text: str, micro: bool) -> tuple[str, str | None]:
    try:
        return "ok", go_time.normalize_time(text, micro=micro)
    except Exception as exc:  # whatever the full parse raises, the shortcut must raise too
        return type(exc).__name__, str(exc)


@settings(max_examples=300, deadline=None)
@given(
    st.tuples(
        st.sampled_from([0, 1, 1970, 2024, 9999]) | st.integers(0, 9999),
        st.integers(0, 13), st.integers(0, 32), st.integers(0, 25), st.integers(0, 61),
        st.integers(0, 61), st.integers(0, 999_999),
    ),
    st.booleans(),
    st.sampled_from(["Z", "z", "+00:00", "+02:00"]),
)
def test_a_time_already_in_stored_form_comes_back_as_the_full_parse_gives_it(
    parts: tuple[int, ...], micro: bool, zone: str
) -> None:
    year, month, day, hour, minute, second, fraction = parts
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    text += (f".{fraction:06d}" if micro else "") + zone
    shortcut = normalised(text, micro)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(go_time, "_already_canonical", lambda _text, _micro: False)
        assert normalised(text, micro) == shortcut


def test_a_field_set_shared_by_shape_stays_each_objects_own_through_later_writes() -> None:
    registry = new_registry(clock=FakeClock())
    pods = registry.resources.lookup("", "v1", "pods")
    spec = {"containers": [{"name": "app", "image": "app:1", "ports": [{"containerPort": 80}]}]}
    for name in ("a", "b"):
        registry.create(pods, "default", {"metadata": {"name": name}, "spec": deep_copy(spec)},
                        WriteOptions(field_manager="maker"))
    entries_of_a = orjson.dumps(registry.get(pods, "default", "a").obj["metadata"]["managedFields"])
    # another manager takes b's image and adds a label: maker gives up the image, nothing more
    b = deep_copy(registry.get(pods, "default", "b").obj)
    b["spec"]["containers"][0]["image"] = "app:2"
    b["metadata"]["labels"] = {"tier": "web"}
    registry.update(pods, "default", "b", b, WriteOptions(field_manager="editor"))
    managed = {
        entry["manager"]: entry["fieldsV1"]
        for entry in registry.get(pods, "default", "b").obj["metadata"]["managedFields"]
    }
    makers_container = managed["maker"]["f:spec"]["f:containers"]['k:{"name":"app"}']
    editors_container = managed["editor"]["f:spec"]["f:containers"]['k:{"name":"app"}']
    assert "f:image" not in makers_container and "f:image" in editors_container
    assert 'k:{"containerPort":80,"protocol":"TCP"}' in makers_container["f:ports"]
    assert set(editors_container) == {"f:image"}
    assert managed["editor"]["f:metadata"] == {"f:labels": {".": {}, "f:tier": {}}}
    # a's entries, made of the same shared sets, did not move
    assert orjson.dumps(
        registry.get(pods, "default", "a").obj["metadata"]["managedFields"]
    ) == entries_of_a
    # and a third pod of the first shape is owned whole again
    registry.create(pods, "default", {"metadata": {"name": "c"}, "spec": deep_copy(spec)},
                    WriteOptions(field_manager="maker"))
    third = registry.get(pods, "default", "c").obj["metadata"]["managedFields"][0]["fieldsV1"]
    assert "f:image" in third["f:spec"]["f:containers"]['k:{"name":"app"}']


#: values a field may be sent with, of every JSON type (a plain string or boolean field's own
#: class among them), for the decoder's table of plain fields
RETYPED = (None, "x", True, 1, 1.5, {}, [None], "")


def retyped(obj: dict[str, Any], changes: list[tuple[int, int]]) -> dict[str, Any]:
    """``obj`` with the paths picked by ``changes`` set to a value of another type."""
    out = deep_copy(obj)
    for pick, how in changes:
        found = picked(out, pick)
        if found is None:
            break
        parent, last = found
        parent[last] = deep_copy(RETYPED[how])
    return out


def decoding(rt: ResourceType, obj: dict[str, Any], mode: str) -> bytes:
    """Everything a decoder of ``mode`` answers for ``obj``: the object, or its error, and what
    it reported."""
    decoder = rt.new_decoder(mode)  # type: ignore[arg-type]
    try:
        out = decoder.decode(rt.schema, deep_copy(obj))
    except typed_decode.DecodeError as exc:
        return b"error: " + exc.message.encode()
    return orjson.dumps(
        [out, decoder.unknown, decoder.missing, getattr(decoder, "apply_errors", [])]
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SAMPLES),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, len(RETYPED) - 1)), max_size=4),
    st.sampled_from(["decode", "checked", "apply", "final"]),
)
def test_plain_fields_decode_as_the_walk_of_their_schema_decodes_them(
    kind_sample: tuple[ResourceType, dict[str, Any]],
    changes: list[tuple[int, int]],
    mode: str,
) -> None:
    rt, obj = kind_sample
    body = retyped(obj, changes)
    shortcut = decoding(rt, body, mode)
    with pytest.MonkeyPatch.context() as patch:  # no field is taken as plain: each is walked
        patch.setattr(typed_decode, "_plain_fields", {})
        patch.setattr(typed_decode, "_plain_fields_of", lambda node: {})
        assert decoding(rt, body, mode) == shortcut


def _entry(fields: tuple[str, ...], version: str = "v1", time: str | None = "t1") -> ManagedEntry:
    return ManagedEntry(FieldSet.from_paths(*((f,) for f in fields)), version, time)


def _moved(managers: dict[ManagerKey, ManagedEntry]) -> None:
    """An entry moved to another manager as it is (as ``ancient-changes`` takes one over)."""
    key = next(iter(managers))
    managers[("ancient-changes", "Update", key[2], "")] = managers.pop(key)


def _replaced(managers: dict[ManagerKey, ManagedEntry]) -> None:
    key = next(iter(managers))
    managers[key] = _entry(("f:replaced",), time="t9")


def _timeless(managers: dict[ManagerKey, ManagedEntry]) -> None:
    key = next(iter(managers))
    managers[key] = ManagedEntry(managers[key].fields, managers[key].api_version, "")


def _emptied(managers: dict[ManagerKey, ManagedEntry]) -> None:
    key = next(iter(managers))
    managers[key] = ManagedEntry(FieldSet(), "v1", "t1")


@pytest.mark.parametrize("change", [None, _moved, _replaced, _timeless, _emptied])
@pytest.mark.parametrize(
    "managers",
    [
        {("a", "Update", "v1", ""): _entry(("f:spec",))},
        {
            ("a", "Update", "v1", ""): _entry(("f:spec",), time="t2"),
            ("b", "Update", "v1", "status"): _entry(("f:status",), time="t1"),
            ("c", "Apply", "", ""): _entry(("f:metadata",), version="v2", time=None),
        },
        {
            ("b", "Update", "v2", ""): _entry(("f:x",)),
            ("b", "Update", "v1", ""): _entry(("f:x",)),
        },
    ],
)
def test_handed_out_managed_fields_entries_decode_and_encode_as_their_json_does(
    managers: dict[ManagerKey, ManagedEntry], change: Any
) -> None:
    entries = encode_managed_fields(dict(managers))
    # the next write of the object decodes the very entries handed out (the shortcut), where
    # the long way reads them again from their JSON
    short = decode_managed_fields(entries)
    long = decode_managed_fields(orjson.loads(orjson.dumps(entries)))
    assert sorted(short) == sorted(long)
    assert all(short[key].fields == long[key].fields for key in short)
    for decoded in (short, long):
        if change is not None:
            change(decoded)
    assert orjson.dumps(encode_managed_fields(short)) == orjson.dumps(
        encode_managed_fields(long)
    )


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=16, max_size=16))
def test_a_new_uid_reads_as_uuid4_reads_the_same_random_bytes(random: bytes) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metadata.os, "urandom", lambda size: random)
        uid = metadata.new_uid()
    assert uid == str(uuid.UUID(bytes=random, version=4))
