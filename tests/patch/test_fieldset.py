"""Field sets: upstream's FieldsV1 encoding, the set algebra, and which paths an object sets."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakeapi.models.base import K8sModel, RawJSON, atomic_list, atomic_map, map_list, set_list
from fakeapi.models.meta import ObjectMeta
from fakeapi.patch import FieldSet, path_string, to_field_set
from fakeapi.patch.fieldset import (
    element_sort_key,
    key_element,
    sorted_elements,
    value_element,
)
from fakeapi.patch.typed import ensure_named_fields_are_members
from fakeapi.schema import schema_for


class Port(K8sModel):
    """A port."""

    container_port: int
    """Number."""
    protocol: str | None = None
    """Protocol."""


class Selector(K8sModel):
    """An atomic struct."""

    key: str | None = None
    """Key."""


class Container(K8sModel):
    """A container."""

    name: str
    """Name."""
    image: str | None = None
    """Image."""
    args: Annotated[list[str] | None, atomic_list()] = None
    """Replaced as a whole."""
    ports: Annotated[list[Port] | None, map_list("containerPort", "protocol")] = None
    """Keyed by two fields."""


class Spec(K8sModel):
    """A spec."""

    containers: Annotated[list[Container] | None, map_list("name")] = None
    """Containers."""
    gates: Annotated[list[str] | None, set_list()] = None
    """A set."""
    selector: Annotated[Selector | None, atomic_map()] = None
    """Atomic struct."""
    data: dict[str, str] | None = None
    """A granular map."""
    raw: RawJSON = None
    """Free-form."""
    replicas: int | None = None
    """A scalar."""


class Thing(K8sModel):
    """A thing."""

    api_version: str | None = None
    """Version."""
    kind: str | None = None
    """Kind."""
    metadata: ObjectMeta | None = None
    """Metadata."""
    spec: Spec | None = None
    """Spec."""


SCHEMA = schema_for(Thing)


def fields_of(obj: dict[str, Any]) -> dict[str, Any]:
    return to_field_set(obj, SCHEMA).to_fields_v1()


TO_FIELD_SET: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("scalar_is_a_leaf", {"spec": {"replicas": 1}}, {"f:spec": {"f:replicas": {}}}),
    ("map_list_items_by_key_with_dot", {"spec": {"containers": [{"name": "c", "image": "i"}]}},
     {"f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}}}}),
    ("multi_key_items_sorted_by_key_name",
     {"spec": {"containers": [{"name": "c", "ports": [{"protocol": "TCP", "containerPort": 80}]}]}},
     {"f:spec": {"f:containers": {'k:{"name":"c"}': {
         ".": {}, "f:name": {},
         "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {
             ".": {}, "f:containerPort": {}, "f:protocol": {}}}}}}}),
    ("set_list_items_by_value", {"spec": {"gates": ["b", "a"]}},
     {"f:spec": {"f:gates": {'v:"a"': {}, 'v:"b"': {}}}}),
    ("atomic_list_is_one_leaf", {"spec": {"containers": [{"name": "c", "args": ["x"]}]}},
     {"f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:args": {}, "f:name": {}}}}}),
    ("atomic_struct_is_one_leaf", {"spec": {"selector": {"key": "k"}}},
     {"f:spec": {"f:selector": {}}}),
    ("map_entries_are_leaves", {"metadata": {"labels": {"b": "1", "a": "2"}}},
     {"f:metadata": {"f:labels": {"f:a": {}, "f:b": {}}}}),
    ("raw_json_is_one_leaf", {"spec": {"raw": {"deep": {"x": 1}}}}, {"f:spec": {"f:raw": {}}}),
    ("empty_map_is_a_member", {"spec": {"data": {}}}, {"f:spec": {"f:data": {}}}),
    ("null_is_a_member", {"spec": {"replicas": None}}, {"f:spec": {"f:replicas": {}}}),
    ("empty_granular_list_contributes_nothing", {"spec": {"gates": []}}, {}),
    ("fields_sorted_bytewise", {"spec": {"replicas": 1, "data": {"Z": "1", "a": "1"}}},
     {"f:spec": {"f:data": {"f:Z": {}, "f:a": {}}, "f:replicas": {}}}),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in TO_FIELD_SET],
                         ids=[c[0] for c in TO_FIELD_SET])
def test_to_field_set(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    encoded = fields_of(obj)
    assert encoded == expected
    assert json.dumps(encoded) == json.dumps(expected)  # key order too


def test_encoding_orders_fields_keys_values_like_upstream() -> None:
    fs = FieldSet.from_paths(
        ("v:2",), ('v:"a"',), ("v:true",), ('k:{"name":"b"}',), ('k:{"name":"a"}',), ("f:z",),
        ("f:a",), ("i:1",),
    )
    assert list(fs.to_fields_v1()) == [
        "f:a", "f:z", 'k:{"name":"a"}', 'k:{"name":"b"}', "v:2", 'v:"a"', "v:true", "i:1",
    ]


@given(st.lists(st.one_of(
    st.builds(lambda name: "f:" + name, st.text(min_size=1, max_size=4)),
    st.builds(lambda name: key_element({"name": name}), st.text(max_size=3)),
    st.builds(value_element, st.one_of(st.integers(-3, 3), st.text(max_size=3), st.booleans())),
    st.builds(lambda index: f"i:{index}", st.integers(0, 20)),
), unique=True))
def test_the_plain_string_sort_of_field_only_nodes_keeps_upstreams_order(
    elements: list[str],
) -> None:
    assert sorted_elements(elements) == sorted(elements, key=element_sort_key)


def test_member_with_children_carries_dot_first() -> None:
    fs = FieldSet.from_paths(("f:spec",), ("f:spec", "f:x"))
    assert json.dumps(fs.to_fields_v1()) == '{"f:spec": {".": {}, "f:x": {}}}'


DECODE: list[tuple[str, dict[str, Any], list[str]]] = [
    ("leaf", {"f:a": {}}, [".a"]),
    ("dot_makes_member", {"f:a": {".": {}, "f:b": {}}}, [".a", ".a.b"]),
    ("no_dot_not_member", {"f:a": {"f:b": {}}}, [".a.b"]),
    ("key_respelled_canonically", {'k:{ "b": 1, "a": "x" }': {}}, ['[a="x",b=1]']),
    ("value_element", {"f:l": {'v:"x"': {}, "v:1": {}}}, ['.l[=1]', '.l[="x"]']),
    ("index_element", {"f:l": {"i:0": {}}}, [".l[0]"]),
    ("unknown_kind_dropped", {"x:what": {}, "f:a": {}}, [".a"]),
]


@pytest.mark.parametrize(("data", "paths"), [c[1:] for c in DECODE], ids=[c[0] for c in DECODE])
def test_decode_fields_v1(data: dict[str, Any], paths: list[str]) -> None:
    fs = FieldSet.from_fields_v1(data)
    assert [path_string(p) for p in fs.paths()] == paths


def test_decode_encode_round_trip_is_exact() -> None:
    data = {
        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}}}},
    }
    assert json.dumps(FieldSet.from_fields_v1(data).to_fields_v1()) == json.dumps(data)


@pytest.mark.parametrize("bad", [[], {"f:a": 1}, {"k:notjson": {}}, {"q": {}}])
def test_decode_rejects_malformed(bad: Any) -> None:
    with pytest.raises(ValueError):
        FieldSet.from_fields_v1(bad)


A = FieldSet.from_paths(("f:a",), ("f:b", "f:x"), ("f:b", "f:y"), ("f:c",), ("f:c", "f:z"))
B = FieldSet.from_paths(("f:b", "f:x"), ("f:c",), ("f:d",))

ALGEBRA: list[tuple[str, FieldSet, list[str]]] = [
    ("union", A.union(B), [".a", ".c", ".d", ".b.x", ".b.y", ".c.z"]),
    ("intersection", A.intersection(B), [".c", ".b.x"]),
    ("difference_is_exact", A.difference(B), [".a", ".b.y", ".c.z"]),
    ("recursive_difference_drops_subtrees", A.recursive_difference(B), [".a", ".b.y"]),
]


@pytest.mark.parametrize(("result", "paths"), [c[1:] for c in ALGEBRA], ids=[c[0] for c in ALGEBRA])
def test_set_algebra(result: FieldSet, paths: list[str]) -> None:
    assert [path_string(p) for p in result.paths()] == paths


def test_sets_are_not_modified_by_algebra() -> None:
    before = A.to_fields_v1()
    A.union(B), A.difference(B), A.intersection(B), A.recursive_difference(B)
    assert A.to_fields_v1() == before


def test_has_and_emptiness() -> None:
    assert A.has(("f:b", "f:x"))
    assert not A.has(("f:b",))
    assert FieldSet().is_empty()
    assert A.difference(A).is_empty()


def test_path_string_like_upstream_conflicts() -> None:
    path = ("f:spec", "f:containers", 'k:{"name":"c"}', "f:ports",
            'k:{"containerPort":80,"protocol":"TCP"}', "f:protocol")
    assert path_string(path) == (
        '.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].protocol'
    )
    assert path_string(("f:metadata", "f:finalizers", 'v:"x"')) == '.metadata.finalizers[="x"]'


def test_ensure_named_fields_are_members_adds_struct_fields_only() -> None:
    fs = FieldSet.from_paths(
        ("f:spec", "f:containers", 'k:{"name":"c"}', "f:image"),
        ("f:metadata", "f:labels", "f:app"),
    )
    named = ensure_named_fields_are_members(fs, SCHEMA)
    assert [path_string(p) for p in named.paths()] == [
        ".metadata", ".spec", ".metadata.labels", ".metadata.labels.app", ".spec.containers",
        '.spec.containers[name="c"].image',
    ]


def test_memoised_elements_keep_a_boolean_apart_from_the_number_it_equals() -> None:
    # Python holds ``True == 1`` and ``False == 0``; JSON, and so a path element, does not
    for first, second in ((1, True), (True, 1), (0, False), (1.5, "1.5")):
        assert value_element(first) == "v:" + json.dumps(first)
        assert value_element(second) == "v:" + json.dumps(second)
        assert key_element({"port": first}) == f"k:{{\"port\":{json.dumps(first)}}}"
        assert key_element({"port": second}) == f"k:{{\"port\":{json.dumps(second)}}}"
