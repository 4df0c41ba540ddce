"""Uniqueness of the lists a schema types as sets or maps (upstream ``ValidateListSetsAndMaps``).

A list with ``x-kubernetes-list-type: set`` may not hold a value twice, and one of type ``map``
may not hold two items with the same values of its ``x-kubernetes-list-map-keys``: server-side
apply could not tell the entries apart. Duplicates are reported at their second occurrence
(``Duplicate value``), with the item (sets) or its key fields (maps) as the value; numbers
compare as JSON decodes them, so ``1`` and ``1.0`` are different values as in Go.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.apiextensions.structural import Structural
from fakeapi.validation import field as fe

__all__ = ["validate_list_sets_and_maps"]

_UNSPECIFIED = b"\x00unspecified"


def validate_list_sets_and_maps(schema: Structural | None, obj: Any) -> list[fe.FieldError]:
    """The duplicate items of every set and map list below the object ``obj``."""
    if schema is None or not schema.list_types_below or not isinstance(obj, dict):
        return []
    return _object(fe.Path(), schema, obj)


def _object(path: fe.Path, schema: Structural, obj: dict[str, Any]) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    extra = schema.additional_schema
    if extra is not None:
        for key, value in obj.items():
            errs += _value(path.key(key), extra, value)
    if schema.properties:
        for key, value in obj.items():
            sub = schema.properties.get(key)
            if sub is not None:
                errs += _value(path.child(key), sub, value)
    return errs


def _value(path: fe.Path, schema: Structural, value: Any) -> list[fe.FieldError]:
    if schema.list_type not in ("set", "map") and not schema.list_types_below:
        return []
    if isinstance(value, list):
        return _array(path, schema, value)
    if isinstance(value, dict):
        return _object(path, schema, value)
    return []


def _identity(value: Any) -> bytes:
    """What makes two JSON values the same for Go's map keys and marshalled compounds."""
    if isinstance(value, bool):
        return b"b" + orjson.dumps(value)
    if isinstance(value, int):
        return b"i" + str(value).encode()
    if isinstance(value, float):
        return b"f" + repr(value).encode()
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _duplicates(keys: list[bytes]) -> list[int]:
    """The indexes of second occurrences (upstream reports each repeated value once)."""
    seen: dict[bytes, int] = {}
    out: list[int] = []
    for i, key in enumerate(keys):
        times = seen.get(key, 0)
        if times == 1:
            out.append(i)
        seen[key] = times + 1
    return out


def _array(path: fe.Path, schema: Structural, items: list[Any]) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    if schema.list_type == "set":
        for i in _duplicates([_identity(v) for v in items]):
            errs.append(fe.duplicate(path.index(i), items[i]))
    elif schema.list_type == "map":
        errs += _map_list(path, schema, items)
    if schema.items is not None:
        for i, item in enumerate(items):
            errs += _value(path.index(i), schema.items, item)
    return errs


def _map_list(path: fe.Path, schema: Structural, items: list[Any]) -> list[fe.FieldError]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [fe.invalid(
                path.index(i), item, "must be an object for an array of list-type map"
            )]
    if len(items) <= 1:
        return []
    keys = schema.list_map_keys
    shown: list[dict[str, Any]] = []
    identities: list[bytes] = []
    for item in items:
        if len(keys) == 1:
            if item is None or keys[0] not in item:
                shown.append({})
                identities.append(_UNSPECIFIED)
            else:
                shown.append({keys[0]: item[keys[0]]})
                identities.append(_identity(item[keys[0]]))
            continue
        key = {k: item[k] for k in keys if item is not None and k in item}
        shown.append(key)
        identities.append(_identity(key))
    return [fe.duplicate(path.index(i), shown[i]) for i in _duplicates(identities)]
