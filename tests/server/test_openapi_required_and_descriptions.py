"""The OpenAPI documents mark required fields as upstream does and describe fields in its style.

Two sources of truth for ``required``: a table of what upstream's OpenAPI requires at the top of
the kinds DRA users write (the Python client relaxes some of these, so it cannot be the only
source), and the ``kubernetes`` client's models, whose required fields must all be required here
too (a field the client requires but the server may omit breaks the client's reads). Descriptions
are what ``kubectl explain`` prints: no project jargon, no KEP numbers, no file paths.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from typing import Any

import kubernetes.client
import pytest
from pydantic import BaseModel
from pydantic.alias_generators import to_snake

from fakeapi.resources import ResourceType, default_resources
from fakeapi.schema import SchemaNode
from fakeapi.server.openapi import openapi_document

from ..registry.test_typed_decoding_property import CLIENT_MODELS

TABLE = default_resources()
REF = "#/components/schemas/"

#: (api_version, kind) -> {dotted path of an object in the kind: fields upstream requires there}
UPSTREAM_REQUIRED: dict[tuple[str, str], dict[str, set[str]]] = {
    ("resource.k8s.io/v1", "ResourceClaim"): {"": {"spec"}},
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): {"": {"spec"}, "spec": {"spec"}},
    ("resource.k8s.io/v1", "DeviceClass"): {"": {"spec"}},
    ("resource.k8s.io/v1", "ResourceSlice"): {"": {"spec"}, "spec": {"driver", "pool"}},
    ("resource.k8s.io/v1", "DeviceTaintRule"): {"": {"spec"}, "spec": {"taint"}},
    ("scheduling.k8s.io/v1alpha1", "Workload"): {"": {"spec"}},
    ("scheduling.k8s.io/v1alpha1", "PodGroup"): {"": {"spec"}},
    ("scheduling.k8s.io/v1", "PriorityClass"): {"": {"value"}},
    ("events.k8s.io/v1", "Event"): {"": {"eventTime"}},
    ("v1", "Event"): {"": {"metadata", "involvedObject"}},
    ("v1", "Pod"): {"spec": {"containers"}, "spec.containers": {"name"}},
}
JARGON = re.compile(
    r"\b(fakeapi|seed|KEP-?\d*|docs/\S*|in-process|simulated|we|our)\b",
    re.IGNORECASE,
)


def _rt(api_version: str, kind: str) -> ResourceType:
    found = TABLE.by_kind(api_version, kind)
    assert found is not None
    return found


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while True:
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"][len(REF) :]]
        elif "allOf" in schema:
            schema = schema["allOf"][0]
        elif schema.get("type") == "array":
            schema = schema["items"]
        else:
            return schema


@pytest.mark.parametrize(
    ("api_version", "kind", "path", "fields"),
    [(av, k, p, f) for (av, k), table in UPSTREAM_REQUIRED.items() for p, f in table.items()],
)
def test_upstream_required_fields_are_required_in_the_document(
    api_version: str, kind: str, path: str, fields: set[str]
) -> None:
    rt = _rt(api_version, kind)
    document = openapi_document(TABLE, rt.group, rt.version)
    assert document is not None
    schema = next(
        s
        for s in document["components"]["schemas"].values()
        if {"group": rt.group, "kind": kind, "version": rt.version}
        in s.get("x-kubernetes-group-version-kind", [])
    )
    for part in filter(None, path.split(".")):
        schema = _resolve(document, schema["properties"][part])
    assert fields <= set(schema.get("required", ())), (kind, path, schema.get("required"))


def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            tp = args[0]
        elif origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            if len(rest) != 1:
                return None
            tp = rest[0]
        elif origin is list:
            tp = args[0]
        elif origin is dict:
            tp = args[1]
        else:
            return tp


def _client_required_missing(
    node: SchemaNode, client: type[BaseModel], where: str, seen: set[Any]
) -> Iterator[str]:
    if (node.model, client) in seen:
        return
    seen.add((node.model, client))
    fields = client.model_fields
    for wire, child in node.properties.items():
        info = fields.get(to_snake(wire)) or fields.get(wire)
        if info is None:
            continue
        if info.is_required() and wire not in node.required:
            yield f"{where}.{wire}"
        sub = _unwrap(info.annotation)
        target = child.item if child.kind in ("array", "map") else child
        if (
            target is not None
            and target.kind == "object"
            and target.model is not None
            and isinstance(sub, type)
            and issubclass(sub, BaseModel)
        ):
            yield from _client_required_missing(target, sub, f"{where}.{wire}", seen)


def test_every_field_the_kubernetes_client_requires_is_required() -> None:
    missing: list[str] = []
    for rt in TABLE:
        model = CLIENT_MODELS.get((rt.api_version, rt.kind))
        if model is None:
            continue
        client = getattr(kubernetes.client, model)
        missing += _client_required_missing(rt.schema, client, rt.kind, set())
    assert missing == []


def _descriptions(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "description" and isinstance(sub, str):
                yield path, sub
            else:
                yield from _descriptions(sub, f"{path}.{key}")
    elif isinstance(value, list):
        for sub in value:
            yield from _descriptions(sub, path)


def test_descriptions_carry_no_project_jargon() -> None:
    found = []
    for group, version in TABLE.group_versions():
        document = openapi_document(TABLE, group, version)
        assert document is not None
        for path, text in _descriptions(document["components"]):
            match = JARGON.search(text)
            if match:
                found.append(f"{group}/{version}{path}: {match.group(0)!r} in {text[:80]!r}")
    assert found == []
