"""The Swagger 2.0 document as gnostic's ``openapi_v2.Document`` protobuf, which kubectl reads.

client-go's ``OpenAPISchema()`` asks ``/openapi/v2`` for
``application/com.github.proto-openapi.spec.v2@v1.0+protobuf`` only, and decodes gnostic's
messages (``openapiv2/OpenAPIv2.proto`` in google/gnostic-models). kube-apiserver produces
them by parsing its JSON document with gnostic; this module writes the same messages straight
from the JSON-shaped document, with the field numbers of that file. Only what a Kubernetes
document uses is written: the document, its info, paths with their operations, parameters and
responses, and definitions with their schemas. Any other key raises ``ValueError`` (as gnostic
refuses a key it does not know) rather than vanishing from the protobuf while the JSON has it.

Maps (definitions, properties, paths, responses, vendor extensions) are written sorted by name:
the order of the JSON the server sends, and of upstream's, which Go writes from maps; fields in
field-number order, as Go's ``proto.Marshal`` does. Vendor extensions
(``x-kubernetes-group-version-kind``, ``x-kubernetes-list-type``, ...) and the free-form values
(``default``, ``enum``, ``example``) are gnostic ``Any`` messages holding the value as YAML
text: kube-openapi reads an extension by unmarshalling that text with yaml.v2, and kubectl needs
the group-version-kind list to come out as a sequence of mappings. The YAML is block style, as
gnostic's own marshalling writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson
import yaml

from fakeapi.server.protobuf_writer import MessageWriter

__all__ = ["swagger_protobuf"]

Doc = Mapping[str, Any]
#: writes one JSON value as field ``number`` of the message being written
Writer = Callable[["_Encoder", MessageWriter, int, Any], None]
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def swagger_protobuf(document: Doc) -> bytes:
    """The gnostic ``openapi_v2.Document`` encoding of the Swagger 2.0 ``document``."""
    return _Encoder().message(document, _DOCUMENT)


class Spec:
    """One message: which JSON key is which field, and where its vendor extensions go.

    ``extensions`` is the number of the message's ``repeated NamedAny vendor_extension``
    field, 0 when it has none. Entries are given by :meth:`define`, after construction, so a
    message can contain itself (a schema's properties are schemas).
    """

    __slots__ = ("entries", "extensions", "keys", "name")

    def __init__(self, name: str, extensions: int) -> None:
        self.name = name
        self.extensions = extensions
        self.entries: list[tuple[str, int, Writer]] = []
        self.keys: frozenset[str] = frozenset()

    def define(self, entries: list[tuple[str, int, Writer]]) -> Spec:
        self.entries = sorted(entries, key=lambda entry: entry[1])
        self.keys = frozenset(key for key, _, _ in entries)
        return self


class _Encoder:
    """Writes messages by their specs; remembers each value's ``Any`` (most values repeat)."""

    def __init__(self) -> None:
        self._any: dict[bytes, bytes] = {}

    def message(self, node: Doc, spec: Spec) -> bytes:
        unknown = [
            key
            for key in node
            if key not in spec.keys and not (spec.extensions and key.startswith("x-"))
        ]
        if unknown:
            raise ValueError(f"a {spec.name} has keys gnostic does not allow: {sorted(unknown)}")
        out = MessageWriter()
        for key, number, write in spec.entries:
            if key in node:
                write(self, out, number, node[key])
        if spec.extensions:
            self.extensions(out, spec.extensions, node)
        return out.to_bytes()

    def extensions(self, out: MessageWriter, number: int, node: Doc) -> None:
        """Each ``x-`` key of ``node`` as ``NamedAny{name 1, value 2}``."""
        for key in sorted(key for key in node if key.startswith("x-")):
            pair = MessageWriter().string(1, key).message(2, self.any(node[key]))
            out.message(number, pair.to_bytes())

    def any(self, value: Any) -> bytes:
        """gnostic's ``Any``: the value as YAML text, in field 2 (``yaml``)."""
        key = orjson.dumps(value)
        encoded = self._any.get(key)
        if encoded is None:
            encoded = self._any[key] = MessageWriter().string(2, _yaml(value)).to_bytes()
        return encoded


def _yaml(value: Any) -> str:
    """Block-style YAML of a JSON value, without the ``...`` PyYAML ends a lone scalar with."""
    text: str = yaml.dump(
        value,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 30,
    )
    return text.removesuffix("...\n")


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"expected {kind.__name__}, not {value!r}")
    return value


# --- writers of plain fields ---------------------------------------------------------------------


def _string(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.string(number, _typed(value, str))


def _strings(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.strings(number, [_typed(item, str) for item in _typed(value, list)])


def _boolean(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.boolean(number, _typed(value, bool))


def _int64(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.int64(number, _typed(value, int))


def _double(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, not {value!r}")
    out.double(number, float(value))


def _any(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.message(number, encoder.any(value))


def _anys(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    out.messages(number, [encoder.any(item) for item in _typed(value, list)])


def _nested(spec: Spec) -> Writer:
    """A field holding one message of ``spec``."""

    def write(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
        out.message(number, encoder.message(_typed(value, dict), spec))

    return write


def _repeated(spec: Spec) -> Writer:
    """A field holding a list of messages of ``spec``."""

    def write(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
        items = [encoder.message(_typed(item, dict), spec) for item in _typed(value, list)]
        out.messages(number, items)

    return write


def _named(spec: Spec) -> Writer:
    """A ``{name: message}`` map as gnostic has it: ``repeated Named*{name 1, value 2}`` in 1."""

    def write(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
        pairs = [
            MessageWriter()
            .string(1, name)
            .message(2, encoder.message(_typed(item, dict), spec))
            .to_bytes()
            for name, item in sorted(_typed(value, dict).items())
        ]
        out.message(number, MessageWriter().messages(1, pairs).to_bytes())

    return write


# --- writers of fields whose message depends on the value ----------------------------------------


def _paths(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``Paths``: extensions in field 1, each path as ``NamedPathItem`` in field 2."""
    paths = _typed(value, dict)
    inner = MessageWriter()
    encoder.extensions(inner, 1, paths)
    for name, item in sorted(paths.items()):
        if not name.startswith("x-"):
            path_item = encoder.message(_typed(item, dict), _PATH_ITEM)
            inner.message(2, MessageWriter().string(1, name).message(2, path_item).to_bytes())
    out.message(number, inner.to_bytes())


def _parameters(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``repeated ParametersItem``: each a reference (2) or a ``Parameter`` (1), which is a
    body parameter (1) or a ``NonBodyParameter`` (2) holding the message for its ``in``."""
    for parameter in _typed(value, list):
        parameter = _typed(parameter, dict)
        item = MessageWriter()
        if "$ref" in parameter:
            item.message(2, encoder.message(parameter, _JSON_REFERENCE))
        else:
            place = parameter.get("in")
            if place == "body":
                choice = MessageWriter().message(1, encoder.message(parameter, _BODY_PARAMETER))
            elif isinstance(place, str) and place in _NON_BODY:
                field, spec = _NON_BODY[place]
                non_body = MessageWriter().message(field, encoder.message(parameter, spec))
                choice = MessageWriter().message(2, non_body.to_bytes())
            else:
                raise ValueError(f"a parameter is in {place!r}, which Swagger 2.0 does not have")
            item.message(1, choice.to_bytes())
        out.message(number, item.to_bytes())


def _responses(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``Responses``: each code as ``NamedResponseValue`` in field 1, extensions in field 2;
    a ``ResponseValue`` is a response (1) or a reference (2)."""
    responses = _typed(value, dict)
    inner = MessageWriter()
    for code, response in sorted(responses.items()):
        if code.startswith("x-"):
            continue
        response = _typed(response, dict)
        if "$ref" in response:
            choice = MessageWriter().message(2, encoder.message(response, _JSON_REFERENCE))
        else:
            choice = MessageWriter().message(1, encoder.message(response, _RESPONSE))
        inner.message(1, MessageWriter().string(1, code).message(2, choice.to_bytes()).to_bytes())
    encoder.extensions(inner, 2, responses)
    out.message(number, inner.to_bytes())


def _schema_item(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """A response's ``SchemaItem``: a schema (1); the other choice, a file, is never used."""
    schema = encoder.message(_typed(value, dict), _SCHEMA)
    out.message(number, MessageWriter().message(1, schema).to_bytes())


def _type_item(_: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``TypeItem``: one type name or a list of them, as ``repeated string value = 1``."""
    names = [value] if isinstance(value, str) else _typed(value, list)
    inner = MessageWriter()
    _strings(_, inner, 1, names)
    out.message(number, inner.to_bytes())


def _items_item(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``ItemsItem``: one schema or a list of them, as ``repeated Schema schema = 1``."""
    schemas = [value] if isinstance(value, dict) else _typed(value, list)
    encoded = [encoder.message(_typed(schema, dict), _SCHEMA) for schema in schemas]
    out.message(number, MessageWriter().messages(1, encoded).to_bytes())


def _additional_properties(encoder: _Encoder, out: MessageWriter, number: int, value: Any) -> None:
    """``AdditionalPropertiesItem``: a oneof of a schema (1) and a boolean (2)."""
    if isinstance(value, bool):
        inner = MessageWriter().boolean(2, value, present=True)
    else:
        inner = MessageWriter().message(1, encoder.message(_typed(value, dict), _SCHEMA))
    out.message(number, inner.to_bytes())


# --- the messages (field numbers from gnostic's openapiv2/OpenAPIv2.proto) ---------------------

_SCHEMA = Spec("schema", 31)
_SCHEMA.define(
    [
        ("$ref", 1, _string),
        ("format", 2, _string),
        ("title", 3, _string),
        ("description", 4, _string),
        ("default", 5, _any),
        ("multipleOf", 6, _double),
        ("maximum", 7, _double),
        ("exclusiveMaximum", 8, _boolean),
        ("minimum", 9, _double),
        ("exclusiveMinimum", 10, _boolean),
        ("maxLength", 11, _int64),
        ("minLength", 12, _int64),
        ("pattern", 13, _string),
        ("maxItems", 14, _int64),
        ("minItems", 15, _int64),
        ("uniqueItems", 16, _boolean),
        ("maxProperties", 17, _int64),
        ("minProperties", 18, _int64),
        ("required", 19, _strings),
        ("enum", 20, _anys),
        ("additionalProperties", 21, _additional_properties),
        ("type", 22, _type_item),
        ("items", 23, _items_item),
        ("allOf", 24, _repeated(_SCHEMA)),
        ("properties", 25, _named(_SCHEMA)),
        ("discriminator", 26, _string),
        ("readOnly", 27, _boolean),
        ("example", 30, _any),
    ]
)

_JSON_REFERENCE = Spec("reference", 0).define([("$ref", 1, _string), ("description", 2, _string)])

#: the fields every non-body parameter and ``PrimitivesItems`` share, in field order; ``items``
#: (None here) is a nested ``PrimitivesItems``, whose writer :func:`_numbered` is given
_PRIMITIVE: list[tuple[str, Writer | None]] = [
    ("type", _string),
    ("format", _string),
    ("items", None),
    ("collectionFormat", _string),
    ("default", _any),
    ("maximum", _double),
    ("exclusiveMaximum", _boolean),
    ("minimum", _double),
    ("exclusiveMinimum", _boolean),
    ("maxLength", _int64),
    ("minLength", _int64),
    ("pattern", _string),
    ("maxItems", _int64),
    ("minItems", _int64),
    ("uniqueItems", _boolean),
    ("enum", _anys),
    ("multipleOf", _double),
]


def _numbered(
    head: list[tuple[str, int, Writer]], items: Writer
) -> tuple[list[tuple[str, int, Writer]], int]:
    """``head``, then the shared constraints numbered on from it; and the next free number."""
    first = len(head) + 1
    tail = [
        (key, first + offset, items if write is None else write)
        for offset, (key, write) in enumerate(_PRIMITIVE)
    ]
    return head + tail, first + len(tail)


_PRIMITIVES_ITEMS = Spec("primitive items", 18)
_PRIMITIVES_ITEMS.define(_numbered([], _nested(_PRIMITIVES_ITEMS))[0])


def _simple_parameter(name: str, *, allow_empty_value: bool) -> Spec:
    """A query or formData parameter (with ``allowEmptyValue``, field 5) or a path or header
    one (without, so every later field is numbered one lower)."""
    head: list[tuple[str, int, Writer]] = [
        ("required", 1, _boolean),
        ("in", 2, _string),
        ("description", 3, _string),
        ("name", 4, _string),
    ]
    if allow_empty_value:
        head.append(("allowEmptyValue", 5, _boolean))
    entries, extensions = _numbered(head, _nested(_PRIMITIVES_ITEMS))
    return Spec(name, extensions).define(entries)


#: a non-body parameter's ``in`` -> (its field in the ``NonBodyParameter`` oneof, its message)
_NON_BODY = {
    "header": (1, _simple_parameter("header parameter", allow_empty_value=False)),
    "formData": (2, _simple_parameter("formData parameter", allow_empty_value=True)),
    "query": (3, _simple_parameter("query parameter", allow_empty_value=True)),
    "path": (4, _simple_parameter("path parameter", allow_empty_value=False)),
}
_BODY_PARAMETER = Spec("body parameter", 6).define(
    [
        ("description", 1, _string),
        ("name", 2, _string),
        ("in", 3, _string),
        ("required", 4, _boolean),
        ("schema", 5, _nested(_SCHEMA)),
    ]
)
_RESPONSE = Spec("response", 5).define([("description", 1, _string), ("schema", 2, _schema_item)])
_OPERATION = Spec("operation", 13).define(
    [
        ("tags", 1, _strings),
        ("summary", 2, _string),
        ("description", 3, _string),
        ("operationId", 5, _string),
        ("produces", 6, _strings),
        ("consumes", 7, _strings),
        ("parameters", 8, _parameters),
        ("responses", 9, _responses),
        ("schemes", 10, _strings),
        ("deprecated", 11, _boolean),
    ]
)
_PATH_ITEM = Spec("path item", 10).define(
    [
        ("$ref", 1, _string),
        ("get", 2, _nested(_OPERATION)),
        ("put", 3, _nested(_OPERATION)),
        ("post", 4, _nested(_OPERATION)),
        ("delete", 5, _nested(_OPERATION)),
        ("options", 6, _nested(_OPERATION)),
        ("head", 7, _nested(_OPERATION)),
        ("patch", 8, _nested(_OPERATION)),
        ("parameters", 9, _parameters),
    ]
)
_INFO = Spec("info", 7).define(
    [
        ("title", 1, _string),
        ("version", 2, _string),
        ("description", 3, _string),
        ("termsOfService", 4, _string),
    ]
)
_DOCUMENT = Spec("document", 16).define(
    [
        ("swagger", 1, _string),
        ("info", 2, _nested(_INFO)),
        ("host", 3, _string),
        ("basePath", 4, _string),
        ("schemes", 5, _strings),
        ("consumes", 6, _strings),
        ("produces", 7, _strings),
        ("paths", 8, _paths),
        ("definitions", 9, _named(_SCHEMA)),
    ]
)
