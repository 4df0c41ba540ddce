"""Conversion loses nothing: every served version of every kind round-trips through storage.

For each row served through a converter (every version but a kind's storage version, in 1.37 and
in 1.36), hypothesis builds objects from the row's own schema — every optional field sometimes
set, map lists with distinct keys — and checks that converting to the storage version and back
gives the object again. Where the storage version can hold every field of the served one, the
other direction is checked too, from objects built from the storage schema: resource.k8s.io v1
<-> v1beta2 and v1beta1, and the seed's scheduling v1alpha1 <-> v1beta1 and v1alpha3 (v1alpha2,
1.36's shape, has no place for the claims, and events.k8s.io/v1 none for a few core fields: both
are only checked from their own side).

The generated objects follow the canonical forms upstream's conversion fuzzers keep: a v1beta1
device always has ``basic`` (conversion always writes it), and plain values whose zero means
"unset" in the other version (v1beta1 ``spec.nodeName: ""``, ``spec.allNodes: false``) are never
their zero.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.features import KubernetesVersion
from fakeapi.resources import ResourceType, default_resources
from fakeapi.schema import SchemaNode

_ROWS: dict[tuple[str, str], ResourceType] = {}
for _release in (37, 36):
    for _rt in default_resources(emulated_version=KubernetesVersion(1, _release)):
        if _rt.converter is not None:
            _ROWS.setdefault((_rt.api_version, _rt.kind), _rt)
CONVERTED = list(_ROWS.values())
#: rows whose storage version holds every field they have (checked from the storage side too)
LOSSLESS_FROM_STORAGE = [
    rt
    for rt in CONVERTED
    if rt.group == "resource.k8s.io" or rt.version in ("v1beta1", "v1alpha3")
]
_STORAGE = {
    (rt.group, rt.plural): rt for rt in default_resources() if rt.converter is None
}

EXAMPLES = 40
_SCALARS = {
    "string": st.text(alphabet="abcdefgh-", min_size=1, max_size=6),
    "integer": st.integers(min_value=1, max_value=50),
    "number": st.floats(min_value=0.5, max_value=10, allow_nan=False),
    "boolean": st.just(True),
}


def _scalar(node: SchemaNode) -> st.SearchStrategy[Any]:
    if node.enum:
        return st.sampled_from(node.enum)
    if node.format == "date-time":
        return st.just("2026-01-01T00:00:00Z")
    if node.format in ("quantity", "int-or-string"):
        return st.sampled_from(["1", "2Gi", "500m"])
    return _SCALARS.get(node.scalar_type, _SCALARS["string"])


def objects(node: SchemaNode, depth: int = 0) -> st.SearchStrategy[Any]:
    """JSON values of ``node``'s shape: required properties always, others sometimes."""
    if node.kind == "scalar":
        return _scalar(node)
    if node.kind == "any" or depth > 7:
        return st.just({"free": "form"}) if node.kind == "any" else st.just({})
    if node.kind == "map":
        assert node.item is not None
        return st.dictionaries(
            st.sampled_from(["a", "b", "example.com/c"]), objects(node.item, depth + 1), max_size=2
        )
    if node.kind == "array":
        assert node.item is not None
        keys = node.list_meta.map_keys if node.list_meta else ()
        unique_by = (lambda item: tuple(str(item.get(k)) for k in keys)) if keys else None
        return st.lists(objects(node.item, depth + 1), max_size=2, unique_by=unique_by)
    required = {
        name: objects(child, depth + 1)
        for name, child in node.properties.items()
        if name in node.required
    }
    optional = {
        name: objects(child, depth + 1)
        for name, child in node.properties.items()
        if name not in node.required and name not in ("apiVersion", "kind", "metadata")
    }
    return st.fixed_dictionaries(required, optional=optional)


def _canonical(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The canonical form of a generated object (see the module docstring)."""
    obj = copy.deepcopy(obj)
    obj["apiVersion"], obj["kind"] = rt.api_version, rt.kind
    obj["metadata"] = {"name": "sample", "namespace": "default", "labels": {"app": "x"}}
    spec = obj.get("spec")
    if rt.api_version == "resource.k8s.io/v1beta1" and rt.kind == "ResourceSlice":
        for device in spec.get("devices") or []:
            device.setdefault("basic", {})
    return obj


def _storage_row(rt: ResourceType) -> ResourceType:
    return _STORAGE[(rt.group if rt.group != "events.k8s.io" else "", rt.plural)]


@pytest.mark.parametrize("rt", CONVERTED, ids=lambda rt: f"{rt.qualified_plural}-{rt.version}")
def test_served_objects_survive_a_trip_through_storage(rt: ResourceType) -> None:
    converter = rt.converter
    assert converter is not None

    @settings(
        max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(objects(rt.schema))
    def check(generated: dict[str, Any]) -> None:
        served = _canonical(rt, generated)
        frozen = copy.deepcopy(served)
        stored = converter.to_storage(served)
        assert served == frozen  # the converter left its argument alone
        assert stored["apiVersion"] != rt.api_version
        assert converter.from_storage(stored) == served

    check()


@pytest.mark.parametrize(
    "rt", LOSSLESS_FROM_STORAGE, ids=lambda rt: f"{rt.qualified_plural}-{rt.version}"
)
def test_stored_objects_survive_a_trip_through_every_served_version(rt: ResourceType) -> None:
    converter = rt.converter
    assert converter is not None
    storage = _storage_row(rt)

    @settings(
        max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(objects(storage.schema))
    def check(generated: dict[str, Any]) -> None:
        stored = _canonical(storage, generated)
        frozen = copy.deepcopy(stored)
        assert converter.to_storage(converter.from_storage(stored)) == stored
        assert stored == frozen

    check()
