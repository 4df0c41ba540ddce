"""``/openapi/v2``: the Swagger 2.0 document, its gnostic protobuf and the endpoint serving both.

kubectl validates a ``kind: List`` and runs ``explain --output=plaintext-openapiv2`` against
this document, decoding it from protobuf with kube-openapi, which refuses the whole document
for one dangling reference or a ``$ref`` with a ``type`` beside it. So the tests check the
converted document's shape, then decode the protobuf with a reader written here from gnostic's
``OpenAPIv2.proto`` (independently of the writer's tables) and compare it with the JSON, field
for field, and finally the HTTP negotiation, ETag and 304 of the endpoint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest
import yaml
from pydantic import create_model

from fakeapi.bootstrap import new_registry
from fakeapi.models.base import K8sModel
from fakeapi.models.meta import ObjectMeta
from fakeapi.registry.strategy import Strategy
from fakeapi.resources import ResourceTable, ResourceType, default_resources
from fakeapi.server import openapi
from fakeapi.server.openapi.swagger import convert_schema
from fakeapi.server.openapi_v2 import PROTOBUF, negotiate
from fakeapi.server.runner import ApiServer

DEF = "#/definitions/"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"
KUBECTL_ACCEPT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi.swagger_document(default_resources())


def _walk(value: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    """Visit every schema and operation; a ``properties`` map's keys are field names (the CRD
    schema type has fields called ``$ref``, ``not``, ``anyOf``...), so only its values are."""
    if isinstance(value, dict):
        visit(value)
        for key, sub in value.items():
            if key == "properties" and isinstance(sub, dict):
                for field in sub.values():
                    _walk(field, visit)
            else:
                _walk(sub, visit)
    elif isinstance(value, list):
        for sub in value:
            _walk(sub, visit)


# --- the Swagger 2.0 document ------------------------------------------------------------------


def test_every_served_kind_has_a_definition_tagged_with_its_group_version_kind(
    document: dict[str, Any],
) -> None:
    tagged = {
        (gvk["group"], gvk["version"], gvk["kind"]): name
        for name, schema in document["definitions"].items()
        for gvk in schema.get("x-kubernetes-group-version-kind", ())
    }
    for rt in default_resources():
        assert (rt.group, rt.version, rt.kind) in tagged, rt.kind
    assert tagged["", "v1", "ConfigMap"] == "io.k8s.api.core.v1.ConfigMap"
    assert (
        tagged["resource.k8s.io", "v1", "ResourceClaimTemplate"]
        == "io.k8s.api.resource.v1.ResourceClaimTemplate"
    )
    assert tagged["", "v1", "PodList"] == "io.k8s.api.core.v1.PodList"


def test_every_reference_points_at_a_definition(document: dict[str, Any]) -> None:
    refs: list[str] = []
    _walk(document, lambda node: refs.extend([node["$ref"]] if "$ref" in node else []))
    assert len(refs) > 500
    for ref in refs:
        assert ref.startswith(DEF), ref
        assert ref.removeprefix(DEF) in document["definitions"], ref


def test_no_v3_construct_is_left_and_no_reference_carries_a_type(
    document: dict[str, Any],
) -> None:
    assert "components" not in document and "openapi" not in document
    assert document["swagger"] == "2.0"

    def check(node: dict[str, Any]) -> None:
        for key in ("oneOf", "anyOf", "not", "nullable", "requestBody", "content"):
            assert key not in node, node
        if "$ref" in node:
            assert "type" not in node and "properties" not in node, node
        members = node.get("allOf")
        if isinstance(members, list):
            assert not (len(members) == 1 and members[0].keys() == {"$ref"}), node

    _walk(document, check)


def test_a_described_reference_becomes_a_ref_with_its_description_beside_it(
    document: dict[str, Any],
) -> None:
    pod = document["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]
    assert pod["spec"]["$ref"] == f"{DEF}io.k8s.api.core.v1.PodSpec"
    assert pod["spec"]["description"]
    containers = document["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["type"] == "array"
    assert containers["items"] == {"$ref": f"{DEF}io.k8s.api.core.v1.Container", "default": {}}
    assert "containers" in document["definitions"]["io.k8s.api.core.v1.PodSpec"]["required"]


def test_quantity_and_int_or_string_are_strings_as_in_upstreams_v2(
    document: dict[str, Any],
) -> None:
    definitions = document["definitions"]
    quantity = definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert quantity["type"] == "string"
    int_or_string = definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
    assert int_or_string["type"] == "string"
    assert int_or_string["format"] == "int-or-string"
    assert int_or_string["x-kubernetes-int-or-string"] is True


def test_a_oneof_without_a_string_form_is_dropped_rather_than_guessed() -> None:
    schema = {"oneOf": [{"type": "integer"}, {"type": "boolean"}], "description": "d"}
    assert convert_schema(schema) == {"description": "d"}


def test_shared_definitions_carry_the_kinds_of_every_group_version(
    document: dict[str, Any],
) -> None:
    delete_options = document["definitions"][f"{META}.DeleteOptions"]
    tagged = {(g["group"], g["version"]) for g in delete_options["x-kubernetes-group-version-kind"]}
    served = set(default_resources().group_versions())
    assert served <= tagged
    assert all(
        g["kind"] == "DeleteOptions" for g in delete_options["x-kubernetes-group-version-kind"]
    )


def test_operations_get_body_parameters_consumes_and_inline_parameter_types(
    document: dict[str, Any],
) -> None:
    item = document["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]
    patch = item["patch"]
    assert "application/strategic-merge-patch+json" in patch["consumes"]
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "",
        "kind": "ConfigMap",
        "version": "v1",
    }
    body, *query = patch["parameters"]
    assert body == {
        "in": "body",
        "name": "body",
        "required": True,
        "schema": {"$ref": f"{DEF}{META}.Patch"},
    }
    validation = next(p for p in query if p["name"] == "fieldValidation")
    assert validation["in"] == "query" and validation["type"] == "string"
    assert "schema" not in validation
    assert patch["responses"]["200"]["schema"] == {"$ref": f"{DEF}io.k8s.api.core.v1.ConfigMap"}
    assert patch["produces"] == ["application/json", "application/yaml"]
    assert item["parameters"][0]["in"] == "path" and item["parameters"][0]["required"] is True
    listing = document["paths"]["/api/v1/namespaces/{namespace}/configmaps"]["get"]
    assert "application/json;stream=watch" in listing["produces"]


# --- one name, two meanings ----------------------------------------------------------------------

PREFIX = "dev.example.v1"


def _clashing_table() -> ResourceTable:
    """Two groups whose kinds hold different models under the same names.

    Each kind's ``spec`` is a ``Holder`` whose ``inner`` is a ``ThingSpec``; the two
    ``ThingSpec`` models differ, so the two ``Holder`` schemas read the same in their own v3
    documents yet mean different things.
    """

    def optional(model: type[K8sModel]) -> Any:
        return model | None

    def holder(inner: type[K8sModel]) -> type[K8sModel]:
        return create_model("Holder", __base__=K8sModel, inner=(optional(inner), None))

    sized = holder(create_model("ThingSpec", __base__=K8sModel, size=(int | None, None)))
    coloured = holder(create_model("ThingSpec", __base__=K8sModel, color=(str | None, None)))

    def row(group: str, name: str, spec: type[K8sModel]) -> ResourceType:
        model = create_model(
            name,
            __base__=K8sModel,
            api_version=(str | None, None),
            kind=(str | None, None),
            metadata=(ObjectMeta | None, None),
            spec=(optional(spec), None),
        )
        return ResourceType(
            group=group,
            version="v1",
            kind=name,
            plural=name.lower() + "s",
            namespaced=True,
            model=model,
            strategy=Strategy(),
            openapi_prefix=PREFIX,
        )

    return ResourceTable(
        [row("a.example.dev", "Thing", sized), row("b.example.dev", "Other", coloured)]
    )


def test_a_name_two_group_versions_give_different_schemas_is_told_apart() -> None:
    definitions = openapi.swagger_document(_clashing_table())["definitions"]

    def follow(name: str, *fields: str) -> str:
        for field in fields:
            ref: str = definitions[name]["properties"][field]["$ref"]
            name = ref.removeprefix(DEF)
        return name

    assert follow(f"{PREFIX}.Thing", "spec") == f"{PREFIX}.Holder"
    assert follow(f"{PREFIX}.Thing", "spec", "inner") == f"{PREFIX}.ThingSpec"
    assert "size" in definitions[f"{PREFIX}.ThingSpec"]["properties"]
    # the class name, the segment kubectl prints, stays last; the holder that leads to the
    # renamed spec is renamed with it, though its own v3 schema reads like the first one
    assert follow(f"{PREFIX}.Other", "spec") == f"{PREFIX}.bv1.Holder"
    assert follow(f"{PREFIX}.Other", "spec", "inner") == f"{PREFIX}.bv1.ThingSpec"
    assert "color" in definitions[f"{PREFIX}.bv1.ThingSpec"]["properties"]
    # what both share is defined once and not renamed
    assert f"{META}.ObjectMeta" in definitions
    assert [name for name in definitions if ".bv1." in name] == [
        f"{PREFIX}.bv1.Holder",
        f"{PREFIX}.bv1.ThingSpec",
    ]


# --- a reader for gnostic's messages, written from OpenAPIv2.proto -------------------------------


def _fields(data: bytes) -> list[tuple[int, Any]]:
    """(field number, value) of one message: ints for varints, bytes for length-delimited."""
    out: list[tuple[int, Any]] = []
    pos = 0

    def read_varint() -> int:
        nonlocal pos
        result = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result

    while pos < len(data):
        key = read_varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, read_varint()))
        elif wire == 2:
            size = read_varint()
            out.append((number, data[pos : pos + size]))
            pos += size
        else:
            raise AssertionError(f"unexpected wire type {wire} for field {number}")
    assert pos == len(data)
    return out


Table = dict[int, tuple[str, Callable[[Any], Any], bool]]
EXTENSION = ("", lambda value: value, False)


def _message(table: Table) -> Callable[[bytes], dict[str, Any]]:
    """Decode with ``table`` (number -> (JSON key, converter, repeated)); an unknown field fails."""

    def decode(data: bytes) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for number, value in _fields(data):
            assert number in table, f"field {number} is not expected here"
            key, convert, repeated = table[number]
            if (key, convert, repeated) == EXTENSION:
                named = _named_any(value)
                out[named[0]] = named[1]
            elif repeated:
                out.setdefault(key, []).append(convert(value))
            else:
                assert key not in out, f"{key} written twice"
                out[key] = convert(value)
        return out

    return decode


def _text(value: Any) -> str:
    assert isinstance(value, bytes)
    return value.decode()


def _flag(value: Any) -> bool:
    assert value in (0, 1)
    return bool(value)


def _yaml_any(value: Any) -> Any:
    fields = dict(_fields(value))
    assert set(fields) == {2}, "an Any holds its YAML in field 2"
    return yaml.safe_load(_text(fields[2]))


def _named_any(value: Any) -> tuple[str, Any]:
    fields = dict(_fields(value))
    return _text(fields[1]), _yaml_any(fields[2])


def _named(decode: Callable[[bytes], Any]) -> Callable[[bytes], dict[str, Any]]:
    """``{repeated Named*{string name = 1; value = 2} = 1}`` -> dict (order kept)."""

    def convert(value: bytes) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for number, pair in _fields(value):
            assert number == 1
            fields = dict(_fields(pair))
            out[_text(fields[1])] = decode(fields[2])
        return out

    return convert


def _schema(data: bytes) -> dict[str, Any]:
    return _SCHEMA(data)


def _type_item(value: bytes) -> str | list[str]:
    names = [_text(v) for n, v in _fields(value) if n == 1]
    return names[0] if len(names) == 1 else names


def _items_item(value: bytes) -> Any:
    schemas = [_schema(v) for n, v in _fields(value) if n == 1]
    return schemas[0] if len(schemas) == 1 else schemas


def _additional(value: bytes) -> Any:
    ((number, inner),) = _fields(value)
    return _schema(inner) if number == 1 else _flag(inner)


_SCHEMA = _message(
    {
        1: ("$ref", _text, False),
        2: ("format", _text, False),
        4: ("description", _text, False),
        5: ("default", _yaml_any, False),
        16: ("uniqueItems", _flag, False),
        19: ("required", _text, True),
        20: ("enum", _yaml_any, True),
        21: ("additionalProperties", _additional, False),
        22: ("type", _type_item, False),
        23: ("items", _items_item, False),
        24: ("allOf", _schema, True),
        25: ("properties", _named(_schema), False),
        31: EXTENSION,
    }
)
_QUERY = _message(
    {
        1: ("required", _flag, False),
        2: ("in", _text, False),
        3: ("description", _text, False),
        4: ("name", _text, False),
        6: ("type", _text, False),
        20: ("uniqueItems", _flag, False),
    }
)
_PATH = _message(
    {
        1: ("required", _flag, False),
        2: ("in", _text, False),
        3: ("description", _text, False),
        4: ("name", _text, False),
        5: ("type", _text, False),
        19: ("uniqueItems", _flag, False),
    }
)
_BODY = _message(
    {
        1: ("description", _text, False),
        2: ("name", _text, False),
        3: ("in", _text, False),
        4: ("required", _flag, False),
        5: ("schema", _schema, False),
    }
)


def _parameters_item(value: bytes) -> dict[str, Any]:
    ((number, parameter),) = _fields(value)
    assert number == 1, "ParametersItem.parameter"
    ((choice, inner),) = _fields(parameter)
    if choice == 1:
        return _BODY(inner)
    assert choice == 2, "Parameter.non_body_parameter"
    ((kind, sub),) = _fields(inner)
    decoded = {3: _QUERY, 4: _PATH}[kind](sub)
    assert decoded["in"] == {3: "query", 4: "path"}[kind]
    return decoded


def _responses(value: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, named in _fields(value):
        assert number == 1, "Responses.response_code"
        fields = dict(_fields(named))
        ((choice, response),) = _fields(fields[2])
        assert choice == 1, "ResponseValue.response"
        out[_text(fields[1])] = _RESPONSE(response)
    return out


def _schema_item(value: bytes) -> dict[str, Any]:
    ((choice, schema),) = _fields(value)
    assert choice == 1, "SchemaItem.schema"
    return _schema(schema)


_RESPONSE = _message({1: ("description", _text, False), 2: ("schema", _schema_item, False)})
_OPERATION = _message(
    {
        1: ("tags", _text, True),
        3: ("description", _text, False),
        5: ("operationId", _text, False),
        6: ("produces", _text, True),
        7: ("consumes", _text, True),
        8: ("parameters", _parameters_item, True),
        9: ("responses", _responses, False),
        13: EXTENSION,
    }
)
_PATH_ITEM = _message(
    {
        2: ("get", _OPERATION, False),
        3: ("put", _OPERATION, False),
        4: ("post", _OPERATION, False),
        5: ("delete", _OPERATION, False),
        8: ("patch", _OPERATION, False),
        9: ("parameters", _parameters_item, True),
    }
)


def _paths(value: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, named in _fields(value):
        assert number == 2, "Paths.path"
        fields = dict(_fields(named))
        out[_text(fields[1])] = _PATH_ITEM(fields[2])
    return out


_DOCUMENT = _message(
    {
        1: ("swagger", _text, False),
        2: ("info", _message({1: ("title", _text, False), 2: ("version", _text, False)}), False),
        8: ("paths", _paths, False),
        9: ("definitions", _named(_schema), False),
    }
)


@pytest.fixture(scope="module")
def encoded(document: dict[str, Any]) -> bytes:
    return openapi.swagger_protobuf(document)


def test_the_protobuf_decodes_back_to_the_json_document(
    document: dict[str, Any], encoded: bytes
) -> None:
    assert _DOCUMENT(encoded) == orjson.loads(openapi.document_bytes(document))


def test_definitions_and_properties_are_written_in_name_order(
    document: dict[str, Any], encoded: bytes
) -> None:
    decoded = _DOCUMENT(encoded)
    assert list(decoded["definitions"]) == sorted(document["definitions"])
    properties = decoded["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]
    assert list(properties) == sorted(properties)
    assert list(decoded["paths"]) == sorted(document["paths"])


def _extension_yaml(encoded: bytes, definition: str, extension: str) -> str:
    """The YAML text of one vendor extension of one definition, read from the raw bytes."""
    document = dict(_fields(encoded))
    for _, named in _fields(document[9]):
        pair = dict(_fields(named))
        if _text(pair[1]) != definition:
            continue
        for number, value in _fields(pair[2]):
            if number != 31:  # Schema.vendor_extension
                continue
            named_any = dict(_fields(value))
            if _text(named_any[1]) == extension:
                return _text(dict(_fields(named_any[2]))[2])
    raise AssertionError(f"no {extension} on {definition}")


def test_the_group_version_kind_extension_is_a_yaml_sequence_of_mappings(encoded: bytes) -> None:
    """kubectl type-asserts each entry to ``map[interface{}]interface{}`` after yaml.v2."""
    text = _extension_yaml(
        encoded, "io.k8s.api.core.v1.ConfigMap", "x-kubernetes-group-version-kind"
    )
    assert text == "- group: ''\n  kind: ConfigMap\n  version: v1\n"


def test_scalar_extension_values_are_plain_yaml_scalars() -> None:
    encoded = openapi.swagger_protobuf(
        {
            "swagger": "2.0",
            "definitions": {
                "a.B": {
                    "type": "object",
                    "x-kubernetes-list-type": "atomic",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "x-kubernetes-map-type": "true",
                }
            },
        }
    )
    schema = _DOCUMENT(encoded)["definitions"]["a.B"]
    assert schema["x-kubernetes-list-type"] == "atomic"
    assert schema["x-kubernetes-preserve-unknown-fields"] is True
    assert schema["x-kubernetes-map-type"] == "true"  # quoted, so it stays a string


def test_an_empty_items_schema_is_still_written() -> None:
    """kube-openapi refuses an array without exactly one items schema, even an empty one."""
    document = {"swagger": "2.0", "definitions": {"a.B": {"type": "array", "items": {}}}}
    assert _DOCUMENT(openapi.swagger_protobuf(document))["definitions"]["a.B"]["items"] == {}


def test_a_key_gnostic_would_refuse_is_an_error_not_a_silent_drop() -> None:
    document = {"swagger": "2.0", "definitions": {"a.B": {"type": "object", "oneOf": []}}}
    with pytest.raises(ValueError, match="oneOf"):
        openapi.swagger_protobuf(document)


# --- the endpoint --------------------------------------------------------------------------------


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with (
        ApiServer(registry=new_registry()) as server,
        httpx.AsyncClient(base_url=server.url, timeout=30) as client,
    ):
        yield client


async def test_the_endpoint_serves_json_by_default_and_protobuf_to_kubectl(
    http: httpx.AsyncClient,
) -> None:
    plain = await http.get("/openapi/v2")
    assert plain.status_code == 200
    assert plain.headers["content-type"] == "application/json"
    document = orjson.loads(plain.content)
    assert document["swagger"] == "2.0"
    assert "io.k8s.api.core.v1.ConfigMap" in document["definitions"]

    proto = await http.get("/openapi/v2", headers={"Accept": KUBECTL_ACCEPT})
    assert proto.status_code == 200
    assert proto.headers["content-type"] == PROTOBUF
    assert proto.content == openapi.swagger_protobuf(document)
    assert _DOCUMENT(proto.content) == document


async def test_both_encodings_share_one_etag_and_vary_on_accept(http: httpx.AsyncClient) -> None:
    plain = await http.get("/openapi/v2", headers={"Accept": "application/json"})
    proto = await http.get("/openapi/v2", headers={"Accept": PROTOBUF})
    assert proto.headers["content-type"] == PROTOBUF
    etag = plain.headers["etag"]
    assert etag == proto.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) == 130
    assert plain.headers["vary"] == proto.headers["vary"] == "Accept"


async def test_a_request_naming_the_current_etag_gets_a_bodiless_304(
    http: httpx.AsyncClient,
) -> None:
    etag = (await http.get("/openapi/v2")).headers["etag"]
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = await http.get(
            "/openapi/v2", headers={"Accept": KUBECTL_ACCEPT, "If-None-Match": header}
        )
        assert response.status_code == 304, header
        assert response.content == b""
        assert response.headers["etag"] == etag
    stale = await http.get("/openapi/v2", headers={"If-None-Match": '"stale"'})
    assert stale.status_code == 200 and stale.content


async def test_an_unacceptable_media_type_is_refused_with_406(http: httpx.AsyncClient) -> None:
    response = await http.get("/openapi/v2", headers={"Accept": "text/html"})
    assert response.status_code == 406
    body = response.json()
    assert body["kind"] == "Status" and body["reason"] == "NotAcceptable"


@pytest.mark.parametrize(
    ("accept", "answer"),
    [
        ("", "application/json"),
        ("*/*", "application/json"),
        ("application/*", "application/json"),
        (KUBECTL_ACCEPT, PROTOBUF),
        (PROTOBUF, PROTOBUF),
        (f"application/json;q=0.5, {KUBECTL_ACCEPT}", PROTOBUF),
        (f"*/*, {KUBECTL_ACCEPT}", PROTOBUF),  # the concrete type outranks the wildcard
        (f"{KUBECTL_ACCEPT};q=0, application/json", "application/json"),
        ("text/html, application/json;q=0.1", "application/json"),
        ("text/html", None),
    ],
)
def test_accept_clauses_are_ranked_as_kube_openapi_ranks_them(
    accept: str, answer: str | None
) -> None:
    assert negotiate(accept) == answer
