"""The Swagger 2.0 document of ``/openapi/v2``, converted from the per-group-version v3 ones.

kubectl still reads v2 where v3 cannot stand in: client-side validation of a ``kind: List``
(``kubectl get -o yaml | kubectl apply -f -``) looks up every item's schema in v2, ``kubectl
explain --output=plaintext-openapiv2`` prints from it, and ``kubectl apply``'s fallback patch
calculation reads the PATCH operation's ``consumes``. kube-apiserver writes its v2 and v3
documents from the same Go types; fakeapi has only the v3 builders, so v2 is their output
converted the way kube-openapi's v2 output differs from its v3:

- ``$ref`` points into ``#/definitions/`` rather than ``#/components/schemas/``;
- ``allOf`` around a single ``$ref`` (v3's way of giving a reference a description or default)
  becomes the ``$ref`` itself with those keys beside it, as kube-openapi writes v2 references;
- a ``oneOf`` of plain types (Quantity's string-or-number, IntOrString's integer-or-string)
  becomes ``type: string``, the type kube-openapi's v2 gives them; Swagger 2.0 has no ``oneOf``,
  ``anyOf``, ``not`` or ``nullable``, so any other use of them is dropped, which leaves the
  value unchecked rather than wrongly checked;
- an operation's ``requestBody`` becomes a ``body`` parameter plus ``consumes``, its responses'
  ``content`` a ``schema`` plus ``produces``, and a parameter's ``schema`` its inline ``type``.

One document serves every group-version, so their definitions are merged. Shared ones
(ObjectMeta, Status, ...) agree; the group-version-kind lists are united, which tags
DeleteOptions and WatchEvent with every group-version as upstream's are. A name that two
group-versions use for different schemas keeps the first meaning; the later one is renamed by
inserting its group-version before the class name (the segment kubectl prints stays), along
with every schema of that group-version that leads to it, so each reference keeps its meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.features import EMULATED_VERSION
from fakeapi.resources import ResourceTable
from fakeapi.server.openapi.documents import openapi_document
from fakeapi.server.openapi.refs import SCHEMA_REF, Doc

__all__ = ["DEFINITION_REF", "swagger_document"]

DEFINITION_REF = "#/definitions/"
GVK = "x-kubernetes-group-version-kind"
#: v3 schema keywords Swagger 2.0 cannot express (``oneOf`` is converted when it can be)
_V3_ONLY = frozenset({"anyOf", "not", "nullable", "oneOf"})


def swagger_document(resources: ResourceTable) -> Doc:
    """The Swagger 2.0 document of every served group-version: definitions and paths."""
    definitions: dict[str, Doc] = {}
    paths: Doc = {}
    for group, version in resources.group_versions():
        document = openapi_document(resources, group, version)
        assert document is not None  # a served group-version always has one
        schemas: dict[str, Doc] = document["components"]["schemas"]
        converted = {name: convert_schema(schema) for name, schema in schemas.items()}
        renames = _renames(converted, definitions, _segment(group, version))
        if renames:
            converted = {
                renames.get(name, name): convert_schema(schema, renames)
                for name, schema in schemas.items()
            }
        for name, schema in converted.items():
            if name in definitions:
                definitions[name] = _with_kinds_of(definitions[name], schema)
            else:
                definitions[name] = schema
        for path, item in document["paths"].items():
            paths[path] = _path_item(item, renames)
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": EMULATED_VERSION.git_version},
        "paths": paths,
        "definitions": definitions,
    }


# --- schemas -----------------------------------------------------------------------------------


def convert_schema(schema: Doc, renames: Mapping[str, str] | None = None) -> Doc:
    """One v3 schema as Swagger 2.0; ``renames`` maps component names to definition names.

    The input is not modified (the v3 builders share some sub-objects between documents).
    """
    renames = renames or {}
    out: Doc = {}
    for key, value in schema.items():
        if key == "$ref":
            out[key] = _ref(value, renames)
        elif key == "allOf":
            members = [convert_schema(member, renames) for member in value]
            # kube-openapi refuses a v2 reference with a type or properties beside it
            if (
                len(members) == 1
                and members[0].keys() == {"$ref"}
                and not schema.keys() & {"type", "properties"}
            ):
                out["$ref"] = members[0]["$ref"]
            else:
                out[key] = members
        elif key == "properties":
            out[key] = {name: convert_schema(sub, renames) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = convert_schema(value, renames)
        elif key == "oneOf":
            if "type" not in schema and _one_of_plain_types(value):
                out["type"] = "string"
        elif key not in _V3_ONLY:
            out[key] = value
    return out


def _ref(ref: str, renames: Mapping[str, str]) -> str:
    if not ref.startswith(SCHEMA_REF):
        return ref
    name = ref.removeprefix(SCHEMA_REF)
    return DEFINITION_REF + renames.get(name, name)


def _one_of_plain_types(members: list[Doc]) -> bool:
    """A ``oneOf`` of bare types that includes string, so every value has a string form."""
    if not all(member.keys() == {"type"} for member in members):
        return False
    return "string" in [member["type"] for member in members]


def _with_kinds_of(kept: Doc, other: Doc) -> Doc:
    """``kept`` tagged with the group-version-kinds of both (kept's first, no repeats)."""
    extra = [gvk for gvk in other.get(GVK, ()) if gvk not in kept.get(GVK, ())]
    if not extra:
        return kept
    return {**kept, GVK: [*kept.get(GVK, ()), *extra]}


def _without_kinds(schema: Doc) -> Doc:
    return {key: value for key, value in schema.items() if key != GVK}


def _refs_in(value: Any, found: set[str]) -> set[str]:
    """Every definition name ``value`` references, anywhere below it."""
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "$ref" and isinstance(sub, str):
                found.add(sub.removeprefix(DEFINITION_REF))
            else:
                _refs_in(sub, found)
    elif isinstance(value, list):
        for sub in value:
            _refs_in(sub, found)
    return found


def _segment(group: str, version: str) -> str:
    """The name segment a renamed definition gets: ``corev1``, ``examplev1alpha1``."""
    return f"{group.split('.')[0] if group else 'core'}{version}"


def _renames(
    converted: Mapping[str, Doc], definitions: Mapping[str, Doc], segment: str
) -> dict[str, str]:
    """New names for the schemas whose names earlier group-versions gave another meaning.

    A schema that clashes is renamed; so is any already defined schema of this group-version
    that leads to a renamed one, since the earlier definition of that name leads elsewhere.
    """
    clashing = {
        name
        for name, schema in converted.items()
        if name in definitions and _without_kinds(definitions[name]) != _without_kinds(schema)
    }
    if not clashing:
        return {}
    refs = {name: _refs_in(schema, set()) for name, schema in converted.items()}
    grew = True
    while grew:
        grew = False
        for name, targets in refs.items():
            if name not in clashing and name in definitions and targets & clashing:
                clashing.add(name)
                grew = True
    renames: dict[str, str] = {}
    taken = set(definitions) | set(converted)
    for name in sorted(clashing):
        head, tail = name.rsplit(".", 1) if "." in name else ("", name)
        inserted, counter = segment, 1
        while ".".join(filter(None, (head, inserted, tail))) in taken:
            counter += 1
            inserted = f"{segment}{counter}"
        renames[name] = ".".join(filter(None, (head, inserted, tail)))
        taken.add(renames[name])
    return renames


# --- paths -------------------------------------------------------------------------------------

_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch"})


def _path_item(item: Doc, renames: Mapping[str, str]) -> Doc:
    out: Doc = {}
    for key, value in item.items():
        if key in _METHODS:
            out[key] = _operation(value, renames)
        elif key == "parameters":
            out[key] = [_parameter(parameter) for parameter in value]
        else:
            out[key] = value
    return out


def _parameter(parameter: Doc) -> Doc:
    """A v3 query/path/header parameter: its ``schema`` (type, format, ...) moves inline."""
    out = {key: value for key, value in parameter.items() if key != "schema"}
    out.update(parameter.get("schema", {}))
    return out


def _operation(operation: Doc, renames: Mapping[str, str]) -> Doc:
    parameters = [_parameter(parameter) for parameter in operation.get("parameters", ())]
    consumes: list[str] = []
    body = operation.get("requestBody")
    if body is not None:
        content: Doc = body["content"]
        consumes = list(content)
        parameter: Doc = {"in": "body", "name": "body"}
        if body.get("required"):
            parameter["required"] = True
        parameter["schema"] = convert_schema(next(iter(content.values()))["schema"], renames)
        parameters.insert(0, parameter)
    produces: list[str] = []
    responses: Doc = {}
    for code, response in operation.get("responses", {}).items():
        converted: Doc = {"description": response.get("description", "")}
        content = response.get("content") or {}
        produces += [media for media in content if media not in produces]
        if content:
            converted["schema"] = convert_schema(next(iter(content.values()))["schema"], renames)
        responses[code] = converted
    out: Doc = {}
    for key, value in operation.items():
        if key == "parameters":
            continue
        if key == "responses":
            out[key] = responses
        elif key != "requestBody":
            out[key] = value
    if consumes:
        out["consumes"] = consumes
    if produces:
        out["produces"] = produces
    if parameters:
        out["parameters"] = parameters
    return out
