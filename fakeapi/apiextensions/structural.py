"""Structural schemas: a CRD version's schema compiled once into the tree every rule walks.

Upstream calls a schema *structural* when its types are declared outside of the logic junctors
(``allOf``, ``anyOf``, ``oneOf``, ``not``): then pruning, defaulting, server-side apply and CEL
rules can read one type per position. :func:`new_structural` compiles a ``JSONSchemaProps`` (as
stored: a JSON-shaped dict) into a :class:`Structural` tree, keeping the raw dict of each node
for the value validator (:mod:`fakeapi.apiextensions.openapi_validation`), which also needs the
junctors. :func:`validate_structural` is upstream's ``ValidateStructural`` with its messages:
the structural invariants and the completeness of the junctors (every field they name is
declared outside them too).

Trees are compiled from a schema's JSON and cached by it (:func:`structural_for`), so the
versions of one definition and the definitions that repeat a schema share one tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from fakeapi.validation.field import FieldError, Path, forbidden, invalid, required

__all__ = [
    "NO_DEFAULT",
    "Structural",
    "StructuralError",
    "new_structural",
    "structural_for",
    "validate_structural",
    "walk_schemas",
]

#: a schema without ``default`` (``null`` is not a default upstream either)
NO_DEFAULT: Any = object()

_UNSUPPORTED = (
    ("id", "'id'"),
    ("$schema", "'schema'"),
    ("$ref", "'$ref'"),
    ("patternProperties", "'patternProperties'"),
    ("dependencies", "'dependencies'"),
    ("additionalItems", "'additionalItems'"),
    ("definitions", "'definitions'"),
)
_JUNCTORS = ("allOf", "anyOf", "oneOf")


class StructuralError(Exception):
    """The schema cannot be compiled at all (upstream ``NewStructural``'s errors)."""


@dataclass(eq=False, slots=True)
class Structural:
    """One position of a structural schema: its type, extensions and children."""

    raw: Mapping[str, Any]
    type: str = ""
    format: str = ""
    nullable: bool = False
    default: Any = NO_DEFAULT
    properties: dict[str, Structural] | None = None
    items: Structural | None = None
    #: ``additionalProperties``: a schema, True (anything), False (nothing) or None (absent)
    additional_properties: Structural | bool | None = None
    preserve_unknown_fields: bool = False
    embedded_resource: bool = False
    int_or_string: bool = False
    list_type: str | None = None
    list_map_keys: tuple[str, ...] = ()
    map_type: str | None = None
    validations: tuple[Mapping[str, Any], ...] = ()
    required: tuple[str, ...] = ()
    max_length: int | None = None
    max_items: int | None = None
    max_properties: int | None = None
    enum: tuple[Any, ...] | None = None
    #: ``allOf`` clauses, compiled as structural trees (CEL rules may sit in them)
    all_of: tuple[Structural, ...] = field(default=())
    #: What the nodes strictly below this one (properties, items, map values) declare, so the
    #: walks over an object skip the subtrees where they have nothing to do.
    embedded_below: bool = False
    list_types_below: bool = False
    defaults_below: bool = False
    #: This node as rules see a resource root or an embedded resource (type meta and metadata
    #: declared), made once when first asked for (``celtypes.with_type_and_object_meta``).
    with_object_meta: Structural | None = field(default=None, repr=False)

    @property
    def additional_schema(self) -> Structural | None:
        """The schema of a map's values (None when additionalProperties is no schema)."""
        extra = self.additional_properties
        return extra if isinstance(extra, Structural) else None

    def child(self, name: str) -> Structural | None:
        """The schema of property ``name``, or of any map value; None when undeclared."""
        if self.properties is not None:
            found = self.properties.get(name)
            if found is not None:
                return found
        return self.additional_schema


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def new_structural(raw: Mapping[str, Any]) -> Structural:
    """The structural tree of ``raw``; raises :class:`StructuralError` as upstream's
    ``NewStructural`` does (unsupported fields, ``items`` given as an array)."""
    _check_unsupported(raw)
    preserve = raw.get("x-kubernetes-preserve-unknown-fields")
    if preserve is False:
        raise StructuralError(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
        )
    node = Structural(
        raw=raw,
        type=_str(raw.get("type")),
        format=_str(raw.get("format")),
        nullable=raw.get("nullable") is True,
        default=raw["default"] if raw.get("default") is not None else NO_DEFAULT,
        preserve_unknown_fields=preserve is True,
        embedded_resource=raw.get("x-kubernetes-embedded-resource") is True,
        int_or_string=raw.get("x-kubernetes-int-or-string") is True,
        list_type=_opt_str(raw.get("x-kubernetes-list-type")),
        list_map_keys=tuple(_strings(raw.get("x-kubernetes-list-map-keys"))),
        map_type=_opt_str(raw.get("x-kubernetes-map-type")),
        validations=tuple(v for v in raw.get("x-kubernetes-validations") or () if _is_dict(v)),
        required=tuple(_strings(raw.get("required"))),
        max_length=_int(raw.get("maxLength")),
        max_items=_int(raw.get("maxItems")),
        max_properties=_int(raw.get("maxProperties")),
        enum=tuple(raw["enum"]) if isinstance(raw.get("enum"), list) else None,
    )
    items = raw.get("items")
    if isinstance(items, list):
        raise StructuralError("OpenAPIV3Schema 'items' must be a schema, but is an array")
    if isinstance(items, dict):
        node.items = new_structural(items)
    properties = raw.get("properties")
    if isinstance(properties, dict) and properties:
        node.properties = {
            name: new_structural(sub) for name, sub in properties.items() if _is_dict(sub)
        }
    extra = raw.get("additionalProperties")
    if isinstance(extra, dict):
        node.additional_properties = new_structural(extra)
    elif isinstance(extra, bool):
        node.additional_properties = extra
    for junctor in _JUNCTORS:
        for clause in raw.get(junctor) or ():
            if _is_dict(clause):
                _check_nested(clause)
    if _is_dict(raw.get("not")):
        _check_nested(raw["not"])
    node.all_of = tuple(new_structural(c) for c in raw.get("allOf") or () if _is_dict(c))
    _summarize_below(node)
    return node


def _summarize_below(node: Structural) -> None:
    children = [*(node.properties or {}).values()]
    for child in (node.items, node.additional_schema):
        if child is not None:
            children.append(child)
    node.embedded_below = any(c.embedded_resource or c.embedded_below for c in children)
    node.list_types_below = any(
        c.list_type in ("set", "map") or c.list_types_below for c in children
    )
    node.defaults_below = any(c.default is not NO_DEFAULT or c.defaults_below for c in children)


def _check_nested(raw: Mapping[str, Any]) -> None:
    """The conversion checks of a nested value validation (upstream
    ``newNestedValueValidation``)."""
    _check_unsupported(raw)
    if raw.get("x-kubernetes-preserve-unknown-fields") is False:
        raise StructuralError(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
        )
    items = raw.get("items")
    if isinstance(items, list):
        raise StructuralError("OpenAPIV3Schema 'items' must be a schema, but is an array")
    for sub in _nested_children(raw):
        _check_nested(sub)


def _nested_children(raw: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    if _is_dict(raw.get("items")):
        yield raw["items"]
    for sub in (raw.get("properties") or {}).values():
        if _is_dict(sub):
            yield sub
    if _is_dict(raw.get("additionalProperties")):
        yield raw["additionalProperties"]
    for junctor in _JUNCTORS:
        for clause in raw.get(junctor) or ():
            if _is_dict(clause):
                yield clause
    if _is_dict(raw.get("not")):
        yield raw["not"]


def _check_unsupported(raw: Mapping[str, Any]) -> None:
    for key, name in _UNSUPPORTED:
        value = raw.get(key)
        if value or (key == "additionalItems" and value is not None):
            raise StructuralError(f"OpenAPIV3Schema {name} is not supported")


_CACHE: dict[bytes, Structural | StructuralError] = {}


def structural_for(raw: Mapping[str, Any]) -> Structural:
    """:func:`new_structural`, cached by the schema's JSON (a schema is compiled once however
    many versions and definitions repeat it)."""
    key = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)
    cached = _CACHE.get(key)
    if cached is None:
        try:
            cached = new_structural(orjson.loads(key))
        except StructuralError as exc:
            cached = exc
        if len(_CACHE) > 1024:
            _CACHE.clear()
        _CACHE[key] = cached
    if isinstance(cached, StructuralError):
        raise cached
    return cached


def walk_schemas(raw: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every schema in ``raw`` (itself included), as upstream's ``SchemaHas`` visits them."""
    yield raw
    items = raw.get("items")
    if _is_dict(items):
        yield from walk_schemas(items)
    elif isinstance(items, list):
        for sub in items:
            if _is_dict(sub):
                yield from walk_schemas(sub)
    for junctor in _JUNCTORS:
        for sub in raw.get(junctor) or ():
            if _is_dict(sub):
                yield from walk_schemas(sub)
    if _is_dict(raw.get("not")):
        yield from walk_schemas(raw["not"])
    for key in ("properties", "patternProperties", "definitions"):
        for sub in (raw.get(key) or {}).values():
            if _is_dict(sub):
                yield from walk_schemas(sub)
    for key in ("additionalProperties", "additionalItems"):
        if _is_dict(raw.get(key)):
            yield from walk_schemas(raw[key])
    for sub in (raw.get("dependencies") or {}).values():
        if _is_dict(sub):
            yield from walk_schemas(sub)


# --- structural validation ------------------------------------------------------------------

_ROOT, _ITEM, _FIELD = "root", "item", "field"
_EMPTY_TYPE = {
    _ROOT: "must not be empty at the root",
    _ITEM: "must not be empty for specified array items",
    _FIELD: "must not be empty for specified object fields",
}
#: the nested clauses of int-or-string's two allowed shapes
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]


def validate_structural(raw: Mapping[str, Any], path: Path) -> list[FieldError]:
    """Upstream's ``ValidateStructural`` of a ``JSONSchemaProps``: errors sorted as it sorts
    them (by their text)."""
    errors = _invariants(raw, _ROOT, path)
    errors += _completeness_of_value_validation(raw, raw, path, path)
    return sorted(errors, key=str)


def _invariants(raw: Mapping[str, Any], level: str, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = _str(raw.get("type"))
    items = raw.get("items")
    if kind == "array" and not _is_dict(items):
        errors.append(required(path.child("items"), "must be specified"))
    if _is_dict(items):
        errors += _invariants(items, _ITEM, path.child("items"))
    properties = raw.get("properties") or {}
    for name, sub in properties.items():
        if _is_dict(sub):
            errors += _invariants(sub, _FIELD, path.child("properties").key(name))
    extra = raw.get("additionalProperties")
    if extra is not None:
        if level == _ROOT:
            errors.append(
                forbidden(path.child("additionalProperties"), "must not be used at the root")
            )
        if _is_dict(extra):
            errors += _invariants(extra, _FIELD, path.child("additionalProperties"))
    int_or_string = raw.get("x-kubernetes-int-or-string") is True
    preserve = raw.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = raw.get("x-kubernetes-embedded-resource") is True
    if int_or_string and preserve:
        errors.append(invalid(
            path.child("x-kubernetes-preserve-unknown-fields"), True,
            "must be false if x-kubernetes-int-or-string is true",
        ))
    if int_or_string and embedded:
        errors.append(invalid(
            path.child("x-kubernetes-embedded-resource"), True,
            "must be false if x-kubernetes-int-or-string is true",
        ))
    skip_any_of = _is_int_or_string_any_of(raw)
    skip_first_all_of = _is_int_or_string_all_of(raw)
    errors += _value_validation(raw, skip_any_of, skip_first_all_of, level, path)
    check_metadata = level == _ROOT or embedded
    if embedded and kind != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        if not kind:
            errors.append(required(path.child("type"), detail))
        else:
            errors.append(invalid(path.child("type"), kind, detail))
    elif not kind and not int_or_string and not preserve:
        errors.append(required(path.child("type"), _EMPTY_TYPE[level]))
    if embedded and extra is not None:
        errors.append(forbidden(
            path.child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ))
    if level == _ROOT and kind and kind != "object":
        errors.append(invalid(path.child("type"), kind, "must be object at the root"))
    if check_metadata:
        for name in ("kind", "apiVersion"):
            sub = properties.get(name)
            if _is_dict(sub) and _str(sub.get("type")) != "string":
                errors.append(invalid(
                    path.child("properties").key(name).child("type"), _str(sub.get("type")),
                    "must be string",
                ))
    metadata = properties.get("metadata")
    if _is_dict(metadata):
        errors += _metadata_invariants(
            metadata, check_metadata, level, path.child("properties").key("metadata")
        )
    if embedded and not preserve and not properties:
        errors.append(required(
            path.child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without "
            "x-kubernetes-preserve-unknown-fields",
        ))
    return errors


def _metadata_invariants(
    raw: Mapping[str, Any], check_metadata: bool, level: str, path: Path
) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = _str(raw.get("type"))
    if check_metadata and kind != "object":
        errors.append(invalid(path.child("type"), kind, "must be object"))
    if level == _ROOT:
        rest = {k: v for k, v in raw.items() if k not in ("type", "default")}
        properties = rest.get("properties")
        if isinstance(properties, dict) and set(properties) <= {"name", "generateName"}:
            rest.pop("properties")
        if _meaningful(rest):
            errors.append(forbidden(
                path,
                "must not specify anything other than name and generateName, but metadata is "
                "implicitly specified",
            ))
    return errors


def _is_zero(value: Any) -> bool:
    """Whether a JSON value reads as its Go field's zero value (false, empty, absent)."""
    if value is None or value is False:
        return True
    if isinstance(value, str | list | dict):
        return not value
    return False


def _meaningful(raw: Mapping[str, Any]) -> bool:
    """Whether ``raw`` sets anything that is not its Go zero value."""
    return any(not _is_zero(value) for value in raw.values())


def _stripped(raw: Any) -> Any:
    if isinstance(raw, dict):
        return {k: v for k, v in raw.items() if not _is_zero(v)}
    return raw


def _is_int_or_string_any_of(raw: Mapping[str, Any]) -> bool:
    any_of = raw.get("anyOf")
    return isinstance(any_of, list) and [_stripped(c) for c in any_of] == _INT_OR_STRING


def _is_int_or_string_all_of(raw: Mapping[str, Any]) -> bool:
    all_of = raw.get("allOf")
    if not isinstance(all_of, list) or not all_of or not _is_dict(all_of[0]):
        return False
    return _is_int_or_string_any_of(all_of[0])


def _value_validation(
    raw: Mapping[str, Any], skip_any_of: bool, skip_first_all_of: bool, level: str, path: Path
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not skip_any_of:
        for i, clause in enumerate(raw.get("anyOf") or ()):
            if _is_dict(clause):
                errors += _nested(clause, False, level, path.child("anyOf").index(i))
    for i, clause in enumerate(raw.get("allOf") or ()):
        if _is_dict(clause):
            errors += _nested(
                clause, skip_first_all_of and i == 0, level, path.child("allOf").index(i)
            )
    for i, clause in enumerate(raw.get("oneOf") or ()):
        if _is_dict(clause):
            errors += _nested(clause, False, level, path.child("oneOf").index(i))
    if _is_dict(raw.get("not")):
        errors += _nested(raw["not"], False, level, path.child("not"))
    pattern = raw.get("pattern")
    if isinstance(pattern, str) and pattern:
        problem = regex_problem(pattern)
        if problem is not None:
            errors.append(invalid(
                path.child("pattern"), pattern,
                f"must be a valid regular expression, but isn't: {problem}",
            ))
    return errors


_NESTED_FORBIDDEN: tuple[tuple[str, str], ...] = (
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def _nested(raw: Mapping[str, Any], skip_any_of: bool, level: str, path: Path) -> list[FieldError]:
    """A value validation under a logic junctor: no types, defaults or extensions of its own."""
    errors = _value_validation(raw, skip_any_of, False, level, path)
    if _is_dict(raw.get("items")):
        errors += _nested(raw["items"], False, level, path.child("items"))
    for name, sub in (raw.get("properties") or {}).items():
        if _is_dict(sub):
            errors += _nested(sub, False, _FIELD, path.child("properties").key(name))
    if _str(raw.get("type")):
        errors.append(forbidden(path.child("type"), "must be empty to be structural"))
    extra = raw.get("additionalProperties")
    if extra is not None and extra is not False:
        errors.append(
            forbidden(path.child("additionalProperties"), "must be undefined to be structural")
        )
    for key, detail in _NESTED_FORBIDDEN:
        value = raw.get(key)
        if key in ("default", "x-kubernetes-list-type", "x-kubernetes-map-type"):
            present = value is not None
        else:
            present = not _is_zero(value)
        if present:
            errors.append(forbidden(path.child(key), detail))
    if "metadata" in (raw.get("properties") or {}):
        errors.append(forbidden(
            path.child("properties").key("metadata"), "must not be specified in a nested context"
        ))
    return errors


def _completeness_of_value_validation(
    v: Mapping[str, Any], s: Mapping[str, Any] | None, s_path: Path, v_path: Path
) -> list[FieldError]:
    if s is None:
        return [required(s_path, f"because it is defined in {v_path}")]
    errors: list[FieldError] = []
    if _is_dict(v.get("not")):
        errors += _completeness_of_nested(v["not"], s, s_path, v_path.child("not"))
    for junctor in ("allOf", "anyOf", "oneOf"):
        for i, clause in enumerate(v.get(junctor) or ()):
            if _is_dict(clause):
                errors += _completeness_of_nested(clause, s, s_path, v_path.child(junctor).index(i))
    return errors


def _completeness_of_nested(
    v: Mapping[str, Any], s: Mapping[str, Any] | None, s_path: Path, v_path: Path
) -> list[FieldError]:
    if s is None:
        return [required(s_path, f"because it is defined in {v_path}")]
    errors = _completeness_of_value_validation(v, s, s_path, v_path)
    if _is_dict(v.get("items")):
        items = s.get("items")
        errors += _completeness_of_nested(
            v["items"], items if _is_dict(items) else None, s_path.child("items"),
            v_path.child("items"),
        )
    s_properties = s.get("properties") or {}
    for name, sub in (v.get("properties") or {}).items():
        if not _is_dict(sub):
            continue
        declared = s_properties.get(name)
        if not _is_dict(declared):
            errors.append(required(
                s_path.child("properties").key(name),
                f"because it is defined in {v_path.child('properties').key(name)}",
            ))
        else:
            errors += _completeness_of_nested(
                sub, declared, s_path.child("properties").key(name),
                v_path.child("properties").key(name),
            )
    return errors


# --- helpers ----------------------------------------------------------------------------------

def _is_dict(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def regex_problem(pattern: str) -> str | None:
    """Why Go's RE2 would refuse ``pattern`` (Python's ``re`` standing in), or None."""
    from fakeapi.apiextensions.regex import compile_go_regex

    try:
        compile_go_regex(pattern)
    except re.error as exc:
        return str(exc)
    return None
