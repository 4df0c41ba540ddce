"""Pruning: a custom resource keeps only the fields its structural schema declares.

Upstream's ``structuralpruning.Prune``: at the resource root and in every embedded resource,
``apiVersion``, ``kind`` and ``metadata`` are kept whatever the schema says; below a schema with
``x-kubernetes-preserve-unknown-fields`` nothing is pruned (but declared fields further down are
still walked); anything else not declared by ``properties`` or ``additionalProperties`` goes.
The paths of the dropped fields (``spec.foo``, ``spec.list[0].bar``) are what ``fieldValidation``
reports (Warn: warnings, Strict: a 400). :func:`prune_nulls` is upstream's
``PruneNonNullableNullsWithoutDefaults``: a ``null`` where the schema is neither nullable nor has
a default is dropped, as decoding into a Go struct would.

Both change the object in place: callers hand in a private copy.
"""

from __future__ import annotations

from typing import Any

from fakeapi.apiextensions.structural import NO_DEFAULT, Structural

__all__ = ["prune", "prune_nulls"]

_META_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


def prune(obj: Any, schema: Structural | None, *, resource_root: bool = True) -> list[str]:
    """Drop what ``schema`` does not declare from ``obj``; the dropped paths, sorted."""
    unknown: list[str] = []
    _prune(obj, schema, "", unknown, embedded=resource_root or bool(
        schema is not None and schema.embedded_resource
    ))
    unknown.sort()
    return unknown


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _prune(obj: Any, schema: Structural | None, path: str, unknown: list[str], *,
           embedded: bool) -> None:
    if schema is not None and schema.preserve_unknown_fields:
        _skip_prune(obj, schema, path, unknown, embedded=embedded)
        return
    if isinstance(obj, dict):
        if schema is None:
            for key in list(obj):
                unknown.append(_join(path, key))
                del obj[key]
            return
        properties = schema.properties or {}
        extra = schema.additional_schema
        allows_any = schema.additional_properties is not None
        for key in list(obj):
            if embedded and key in _META_FIELDS:
                continue
            sub = properties.get(key)
            if sub is not None:
                _prune(obj[key], sub, _join(path, key), unknown, embedded=sub.embedded_resource)
            elif allows_any:
                _prune(obj[key], extra, _join(path, key), unknown,
                       embedded=bool(extra is not None and extra.embedded_resource))
            else:
                if key not in _META_FIELDS or path:
                    unknown.append(_join(path, key))
                del obj[key]
    elif isinstance(obj, list):
        items = schema.items if schema is not None else None
        for i, value in enumerate(obj):
            _prune(value, items, f"{path}[{i}]", unknown,
                   embedded=bool(items is not None and items.embedded_resource))


def _skip_prune(obj: Any, schema: Structural, path: str, unknown: list[str], *,
                embedded: bool) -> None:
    if isinstance(obj, dict):
        properties = schema.properties or {}
        extra = schema.additional_schema
        allows_any = schema.additional_properties is not None
        for key, value in obj.items():
            if embedded and key in _META_FIELDS:
                continue
            sub = properties.get(key)
            if sub is not None:
                _prune(value, sub, _join(path, key), unknown, embedded=sub.embedded_resource)
            elif allows_any:
                _prune(value, extra, _join(path, key), unknown,
                       embedded=bool(extra is not None and extra.embedded_resource))
    elif isinstance(obj, list):
        items = schema.items
        if items is None:
            return
        for i, value in enumerate(obj):
            _skip_prune(value, items, f"{path}[{i}]", unknown, embedded=items.embedded_resource)


def _field_schema(key: str, schema: Structural | None) -> Structural | None:
    if schema is None:
        return None
    if schema.properties is not None:
        found = schema.properties.get(key)
        if found is not None:
            return found
    return schema.additional_schema


def prune_nulls(obj: Any, schema: Structural | None) -> None:
    """Drop map entries that are ``null`` where the schema neither allows null nor defaults."""
    if isinstance(obj, dict):
        for key in list(obj):
            sub = _field_schema(key, schema)
            value = obj[key]
            if value is None and sub is not None and not sub.nullable and sub.default is NO_DEFAULT:
                del obj[key]
            else:
                prune_nulls(value, sub)
    elif isinstance(obj, list):
        items = schema.items if schema is not None else None
        for value in obj:
            prune_nulls(value, items)
