"""The CEL types and values of a CRD schema, as upstream's ``SchemaDeclType`` and
``UnstructuredToVal`` make them.

A schema node's CEL type: objects are object types whose fields are the declared properties
(names escaped as upstream escapes them: ``x-prop`` is ``x__dash__prop``, ``namespace`` is
``__namespace__``), maps and lists have their item types, ``date-time``/``date`` strings are
timestamps, ``duration`` strings durations, ``byte`` strings bytes,
``x-kubernetes-int-or-string`` is ``dyn``; a resource root (and every embedded resource) shows
``apiVersion``, ``kind`` and ``metadata.name``/``metadata.generateName`` only; fields of unknown
type (preserved, untyped) are not there at all. Each type carries the largest size its schema
allows (``maxLength``, ``maxItems``, ``maxProperties``, or what fits in a 3 MiB request), which
the cost estimate reads.

Values follow the same schema: lists of type ``set`` and ``map`` compare without regard to
order and merge with ``+``.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field, replace
from typing import Any

from fakeapi.apiextensions.formats import parse_go_duration
from fakeapi.apiextensions.structural import NO_DEFAULT, Structural
from fakeapi.cel.cost import SizeDecl
from fakeapi.cel.errors import EvalError
from fakeapi.cel.time_library import parse_timestamp
from fakeapi.cel.time_values import Duration
from fakeapi.cel.type_lattice import DYN, Type
from fakeapi.cel.values import KeyedList, equals

__all__ = [
    "MAX_REQUEST_SIZE_BYTES",
    "Decl",
    "declare",
    "escape",
    "to_cel",
    "with_type_and_object_meta",
]

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
_MIN_STRING = 2
_MIN_BOOL = 4
_MIN_NUMBER = 1
_MIN_DURATION = 3
_MAX_DURATION = 32
_DATE_SIZE = 12
_MIN_DATETIME = 21
_MAX_DATETIME = 32
_TIMESTAMP = "google.protobuf.Timestamp"
_DURATION = "google.protobuf.Duration"
_RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
    "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void",
    "while",
})
_VALID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXPAND = re.compile(r"(__|[-./]|[^a-zA-Z0-9-./_])")


def escape(name: str) -> str | None:
    """A property name as a CEL identifier (upstream ``cel.Escape``), or None when it has none."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if _VALID.match(name) and "__" not in name:
        return name
    ok = True

    def expand(match: re.Match[str]) -> str:
        nonlocal ok
        token = match.group(0)
        replacement = {"__": "__underscores__", ".": "__dot__", "-": "__dash__",
                       "/": "__slash__"}.get(token)
        if replacement is None:
            ok = False
            return ""
        return replacement

    escaped = _EXPAND.sub(expand, name)
    return escaped if ok else None


# --- declared types (upstream DeclType) ---------------------------------------------------------

@dataclass(eq=False)
class Decl:
    """The CEL type of a schema node, with the sizes the cost estimate uses."""

    type: Type
    max_elements: int = 0
    min_size: int = 1
    fields: dict[str, Decl] | None = None
    elem: Decl | None = None
    key: Decl | None = None
    #: object types: field name (escaped) -> whether it is required
    required: dict[str, bool] = field(default_factory=dict)

    def objects(self) -> dict[str, dict[str, Type]]:
        """Every object type below (and including) this one: name -> field types."""
        out: dict[str, dict[str, Type]] = {}
        self._collect(out)
        return out

    def _collect(self, out: dict[str, dict[str, Type]]) -> None:
        if self.fields is not None and isinstance(self.type, str) and self.type not in out:
            out[self.type] = {name: sub.type for name, sub in self.fields.items()}
            for sub in self.fields.values():
                sub._collect(out)
        for part in (self.elem, self.key):
            if part is not None:
                part._collect(out)

    def sizes(self) -> SizeDecl:
        return SizeDecl(
            max=self.max_elements,
            key=self.key.sizes() if self.key is not None else None,
            elem=self.elem.sizes() if self.elem is not None else None,
            fields={n: s.sizes() for n, s in (self.fields or {}).items()},
        )


_STRING_KEY = Decl("string", 0, _MIN_STRING)


def _max_string(s: Structural) -> int:
    if s.int_or_string:
        return MAX_REQUEST_SIZE_BYTES - 2
    return {"duration": _MAX_DURATION, "date": _DATE_SIZE, "date-time": _MAX_DATETIME}.get(
        s.format, MAX_REQUEST_SIZE_BYTES - 2
    )


def with_type_and_object_meta(s: Structural) -> Structural:
    """``s`` with ``kind``, ``apiVersion`` and ``metadata`` (name, generateName) declared, as a
    resource root and an embedded resource show themselves to rules."""
    if s.with_object_meta is not None:
        return s.with_object_meta
    props = s.properties or {}
    metadata = props.get("metadata")
    if (
        props.get("kind") is not None and props["kind"].type == "string"
        and props.get("apiVersion") is not None and props["apiVersion"].type == "string"
        and metadata is not None and metadata.type == "object" and metadata.properties
        and metadata.properties.get("name") is not None
        and metadata.properties.get("generateName") is not None
    ):
        s.with_object_meta = s
        return s
    string = Structural(raw={}, type="string")
    meta = Structural(raw={}, type="object", properties={"name": string, "generateName": string})
    s.with_object_meta = replace(
        s, properties={**props, "kind": string, "apiVersion": string, "metadata": meta},
    )
    return s.with_object_meta


def declare(s: Structural | None, *, root: bool, name: str = "selfType") -> Decl | None:
    """Upstream's ``SchemaDeclType``: the CEL type of ``s`` (None: not representable)."""
    if s is None:
        return None
    if s.int_or_string:
        size = 4 * max(s.max_length, 0) if s.max_length is not None else _max_string(s)
        return Decl(DYN, size, 1)
    if root:
        s = with_type_and_object_meta(s)
    kind = s.type
    if kind == "array":
        if s.items is None:
            return None
        items = declare(s.items, root=s.items.embedded_resource, name=f"{name}.@idx")
        if items is None:
            return None
        size = (
            max(s.max_items, 0) if s.max_items is not None
            else (MAX_REQUEST_SIZE_BYTES - 2) // (items.min_size + 1)
        )
        return Decl(("list", items.type), size, 2, elem=items)
    if kind == "object":
        extra = s.additional_schema
        if extra is not None:
            values = declare(extra, root=extra.embedded_resource, name=f"{name}.@elem")
            if values is None:
                return None
            size = (
                max(s.max_properties, 0) if s.max_properties is not None
                else (MAX_REQUEST_SIZE_BYTES - 2) // (values.min_size + 6)
            )
            return Decl(("map", "string", values.type), size, 2, elem=values, key=_STRING_KEY)
        if s.additional_properties is not None:
            return None
        declared: dict[str, Decl] = {}
        required: dict[str, bool] = {}
        min_size = 2
        for prop, sub in (s.properties or {}).items():
            escaped = escape(prop)
            field_type = declare(
                sub, root=sub.embedded_resource, name=f"{name}.{escaped or prop}"
            )
            if field_type is None:
                continue
            if escaped is not None:
                declared[escaped] = field_type
                required[escaped] = prop in s.required
            if prop in s.required and sub.default is NO_DEFAULT:
                min_size += len(prop) + field_type.min_size + 4
        return Decl(name, 0, min_size, fields=declared, required=required)
    if kind == "string":
        if s.format == "byte":
            size = max(s.max_length, 0) if s.max_length is not None else _max_string(s)
            return Decl("bytes", size, _MIN_STRING)
        if s.format == "duration":
            return Decl(_DURATION, _max_string(s), _MIN_DURATION)
        if s.format == "date":
            return Decl(_TIMESTAMP, _max_string(s), _DATE_SIZE)
        if s.format == "date-time":
            return Decl(_TIMESTAMP, _max_string(s), _MIN_DATETIME)
        if s.max_length is not None:
            size = 4 * max(s.max_length, 0)
        elif s.enum:
            size = max((len(v) for v in s.enum if isinstance(v, str)), default=0)
        else:
            size = _max_string(s)
        return Decl("string", size, _MIN_STRING)
    if kind == "boolean":
        return Decl("bool", 0, _MIN_BOOL)
    if kind == "number":
        return Decl("double", 0, _MIN_NUMBER)
    if kind == "integer":
        return Decl("int", 0, _MIN_NUMBER)
    return None


# --- values -----------------------------------------------------------------------------------

class _SetList(KeyedList):
    """A list of type set: equal to a list with the same items in any order; ``+`` unites."""

    __slots__ = ()

    def cel_equals(self, other: list[object] | tuple[object, ...]) -> bool:
        if len(self) != len(other):
            return False
        return all(any(equals(o, s) for s in self) for o in other)

    def cel_add(self, other: list[object] | tuple[object, ...]) -> list[object]:
        out = _SetList(self)
        for item in other:
            if not any(equals(item, s) for s in out):
                out.append(item)
        return out


class _MapList(KeyedList):
    """A list of type map: items identified by their key fields; ``+`` overwrites by key."""

    __slots__ = ("keys",)

    def __init__(self, items: list[object], keys: tuple[str, ...]) -> None:
        super().__init__(items)
        self.keys = keys

    def _key(self, item: object) -> tuple[object, ...] | None:
        if not isinstance(item, dict):
            return None
        return tuple(item.get(k) for k in self.keys)

    def _find(self, key: tuple[object, ...] | None) -> int:
        for i, item in enumerate(self):
            mine = self._key(item)
            if mine is not None and key is not None and all(
                equals(a, b) for a, b in zip(mine, key, strict=True)
            ):
                return i
        return -1

    def cel_equals(self, other: list[object] | tuple[object, ...]) -> bool:
        if len(self) != len(other):
            return False
        for item in other:
            found = self._find(self._key(item))
            if found < 0 or not equals(self[found], item):
                return False
        return True

    def cel_add(self, other: list[object] | tuple[object, ...]) -> list[object]:
        out = _MapList(list(self), self.keys)
        for item in other:
            found = out._find(out._key(item))
            if found >= 0:
                out[found] = item
            else:
                out.append(item)
        return out


def to_cel(value: Any, s: Structural | None) -> Any:
    """A JSON value as the CEL value its schema says it is."""
    if value is None or s is None:
        return value
    if s.int_or_string:
        return value
    kind = s.type
    if kind == "object" and isinstance(value, dict):
        if s.embedded_resource or s.properties is not None:
            props = (with_type_and_object_meta(s) if s.embedded_resource else s).properties or {}
            out: dict[str, Any] = {}
            for key, sub in value.items():
                declared = props.get(key)
                if declared is None:
                    out[key] = sub
                    continue
                name = escape(key)
                out[name if name is not None else key] = to_cel(sub, declared)
            return out
        extra = s.additional_schema
        if extra is not None:
            return {key: to_cel(sub, extra) for key, sub in value.items()}
        return value
    if kind == "array" and isinstance(value, list):
        items = [to_cel(v, s.items) for v in value]
        if s.list_type == "set":
            return _SetList(items)
        if s.list_type == "map":
            keys = tuple(escape(k) or k for k in s.list_map_keys)
            return _MapList(items, keys)
        return items
    if kind == "string" and isinstance(value, str):
        return _string(value, s.format)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def _string(value: str, fmt: str) -> Any:
    try:
        if fmt == "date-time":
            return parse_timestamp(value)
        if fmt == "date":
            return parse_timestamp(value + "T00:00:00Z")
        if fmt == "duration":
            seconds = parse_go_duration(value)
            if seconds is not None:
                return Duration(round(seconds * 1_000_000_000))
        if fmt == "byte":
            return base64.b64decode(value)
    except (EvalError, ValueError):
        return value
    return value
