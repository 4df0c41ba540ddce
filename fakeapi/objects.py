"""The one vocabulary for JSON-shaped API objects: every layer reads objects through it.

Objects at rest are plain dicts decoded from JSON (:data:`Obj`), shared by every reader and never
mutated in place; whoever changes one starts from :func:`deep_copy`. An orjson round trip is that
copy: the objects hold only JSON types, and it is many times faster than ``copy.deepcopy``.

Reads are defensive because a stored object may lack any optional field, or hold ``null`` there:

- :func:`as_dict` and :func:`as_list` return the value itself (no copy) when it has the expected
  type, and a fresh empty container otherwise, so code may fill the result and store it back
  into an object it owns;
- :func:`dig` walks a path of keys and answers None as soon as a level is missing;
- :func:`text` is a string field's value, ``""`` when unset or not a string;
- :func:`meta` is an object's metadata.

:func:`object_key` is the key storage, registry, informers and work queues agree on:
``namespace/name``, or ``name`` for cluster-scoped objects (client-go's ``MetaNamespaceKeyFunc``).

Owner references are read as apimachinery reads them: :func:`controller_ref` is
``metav1.GetControllerOf`` (the reference with ``controller: true``), :func:`is_controlled_by`
``metav1.IsControlledBy`` (that reference names the owner's UID).

These sit on hot paths (the scheduler reads pods and nodes per pod × node), so each is a plain
function of a few dict lookups, with no copies and no validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import orjson

__all__ = [
    "Obj",
    "as_dict",
    "as_list",
    "controller_ref",
    "deep_copy",
    "dig",
    "is_controlled_by",
    "is_deleting",
    "key_for",
    "meta",
    "object_key",
    "owner_uids",
    "text",
]

#: A JSON-shaped API object (a decoded body, a stored version, an informer's cached object).
Obj = dict[str, Any]

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
        # a dict first: the ABC check of Mapping is a Python-level call, and objects are dicts
        if not isinstance(obj, dict) and not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def text(value: Any) -> str:
    """A string field's value, ``""`` when unset (or not a string)."""
    return value if isinstance(value, str) else ""


def meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The object's ``metadata`` (a fresh empty dict when it has none)."""
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def is_deleting(obj: Mapping[str, Any]) -> bool:
    """Whether the object carries a ``deletionTimestamp`` (it waits for its finalizers)."""
    return bool(meta(obj).get("deletionTimestamp"))


def key_for(namespace: str | None, name: str) -> str:
    """The key of the object ``name`` in ``namespace`` (None or "" for cluster-scoped objects)."""
    return f"{namespace}/{name}" if namespace else name


def object_key(obj: Mapping[str, Any]) -> str:
    """The key of ``obj``, from its ``metadata.namespace`` and ``metadata.name``."""
    metadata = meta(obj)
    return key_for(metadata.get("namespace"), str(metadata.get("name", "")))


def controller_ref(obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The owner reference with ``controller: true``, if any (``metav1.GetControllerOf``)."""
    for ref in as_list(meta(obj).get("ownerReferences")):
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def is_controlled_by(obj: Mapping[str, Any], *, owner_uid: str) -> bool:
    """Whether ``obj``'s controller reference names ``owner_uid`` (``metav1.IsControlledBy``)."""
    ref = controller_ref(obj)
    return ref is not None and bool(owner_uid) and ref.get("uid") == owner_uid


def owner_uids(obj: Mapping[str, Any]) -> list[str]:
    """The uids of every owner reference (an informer index function)."""
    return [
        text(ref.get("uid"))
        for ref in as_list(meta(obj).get("ownerReferences"))
        if isinstance(ref, dict) and ref.get("uid")
    ]
