"""Defaulting: absent fields take their schema's ``default``, on writes and on reads.

Upstream's ``structuraldefaulting.Default``: for an object, every declared property with a
default that is absent (or ``null`` where the schema is not nullable) gets a copy of the default;
then each present value is defaulted by its own schema, so a defaulted object has its own
defaults applied too. A ``null`` list item or map value where null is not allowed takes the
items' or values' default. The API server does this when it decodes a request body (so the
writer owns the defaulted fields) and when it reads an object from storage (so a default added
to the schema later shows on old objects).

:func:`apply_defaults` changes the object in place: callers hand in a private copy.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.apiextensions.structural import NO_DEFAULT, Structural

__all__ = ["apply_defaults", "has_defaults"]


def _copy(value: Any) -> Any:
    if isinstance(value, dict | list):
        return orjson.loads(orjson.dumps(value))
    return value


def _non_nullable_null(value: Any, schema: Structural | None) -> bool:
    return value is None and schema is not None and not schema.nullable


def apply_defaults(obj: Any, schema: Structural | None) -> None:
    """Fill in the defaults ``schema`` declares below ``obj``."""
    if schema is None or not schema.defaults_below:
        return
    if isinstance(obj, dict):
        properties = schema.properties
        if properties:
            for name, sub in properties.items():
                if sub.default is NO_DEFAULT:
                    continue
                if name not in obj or _non_nullable_null(obj[name], sub):
                    obj[name] = _copy(sub.default)
        extra = schema.additional_schema
        for key, value in obj.items():
            declared = properties.get(key) if properties else None
            if declared is not None:
                apply_defaults(value, declared)
            elif extra is not None:
                if _non_nullable_null(value, extra) and extra.default is not NO_DEFAULT:
                    obj[key] = value = _copy(extra.default)
                apply_defaults(value, extra)
    elif isinstance(obj, list):
        items = schema.items
        if items is None:
            return
        for i, value in enumerate(obj):
            if _non_nullable_null(value, items) and items.default is not NO_DEFAULT:
                obj[i] = value = _copy(items.default)
            apply_defaults(value, items)


def has_defaults(schema: Structural | None) -> bool:
    """Whether any node of ``schema`` declares a default (defaulting is skipped otherwise)."""
    if schema is None:
        return False
    return schema.default is not NO_DEFAULT or schema.defaults_below
