"""Helpers over JSON-shaped API objects that every layer needs: keys, safe lookups, private copies.

Objects at rest are plain dicts decoded from JSON, shared by every reader and never mutated in
place; whoever changes one starts from :func:`deep_copy`. An orjson round trip is that copy: the
objects hold only JSON types, and it is many times faster than ``copy.deepcopy``.

:func:`as_dict` and :func:`as_list` read optional fields defensively: they return the value itself
(no copy) when it has the expected type, and a fresh empty container otherwise, so code may fill
the result and store it back into an object it owns.

:func:`object_key` is the key storage, registry, informers and work queues agree on:
``namespace/name``, or ``name`` for cluster-scoped objects (client-go's ``MetaNamespaceKeyFunc``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import orjson

__all__ = ["as_dict", "as_list", "deep_copy", "dig", "key_for", "object_key", "text"]

T = TypeVar("T")


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else a new empty dict."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else a new empty list."""
    return value if isinstance(value, list) else []


def deep_copy(value: T) -> T:
    """A private deep copy of a JSON-shaped value."""
    copied: T = orjson.loads(orjson.dumps(value))
    return copied


def dig(obj: Any, *keys: str) -> Any:
    """``obj[k1][k2]...``, or None as soon as a level is missing or not a mapping."""
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def text(value: Any) -> str:
    """A string field's value, ``""`` when unset."""
    return value if isinstance(value, str) else ""


def key_for(namespace: str | None, name: str) -> str:
    """The key of the object ``name`` in ``namespace`` (None or "" for cluster-scoped objects)."""
    return f"{namespace}/{name}" if namespace else name


def object_key(obj: dict[str, Any]) -> str:
    """The key of ``obj``, from its ``metadata.namespace`` and ``metadata.name``."""
    meta = as_dict(obj.get("metadata"))
    return key_for(meta.get("namespace"), str(meta.get("name", "")))
