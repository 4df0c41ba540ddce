"""Server-owned metadata: what the store sets on create, keeps on update and checks on both.

These are the parts of upstream's ``BeforeCreate``/``BeforeUpdate`` that are the same for every
kind; the store applies them around the kind's strategy hooks.
"""

from __future__ import annotations

import os
from datetime import datetime

from fakeapi import errors
from fakeapi.name_syntax import is_dns1123_label, is_dns1123_subdomain, is_path_segment_name
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Obj, Strategy
from fakeapi.timefmt import format_time
from fakeapi.validation import field as fe
from fakeapi.validation.meta import validate_object_meta

__all__ = [
    "new_uid",
    "set_namespace",
    "stamp_new_object",
    "keep_server_fields",
    "drop_empty_maps",
    "spec_changed",
    "merge_errors",
    "validate_metadata",
]

#: set by the server on create, whatever the client sent
_CLEARED_ON_CREATE = (
    "uid",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
)
#: owned by the server after create: an update keeps the stored values
_KEPT_ON_UPDATE = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "namespace",
)


def set_namespace(rt: ResourceType, meta: Obj, namespace: str | None) -> str | None:
    """Reconcile the URL's namespace with the body's; returns the object's namespace."""
    if not rt.namespaced:
        meta.pop("namespace", None)
        return None
    body_ns = meta.get("namespace")
    if body_ns and namespace and body_ns != namespace:
        raise errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    ns = namespace or body_ns
    if not ns:
        raise errors.bad_request("the namespace of the object must be set")
    meta["namespace"] = ns
    return str(ns)


def stamp_new_object(strategy: Strategy, meta: Obj, *, now: datetime) -> None:
    """uid, creationTimestamp and (for kinds that track it) generation 1."""
    if _set_resource_version(meta.get("resourceVersion")):
        raise errors.bad_request("resourceVersion should not be set on objects to be created")
    meta.pop("resourceVersion", None)
    for name in _CLEARED_ON_CREATE:
        meta.pop(name, None)
    drop_empty_maps(meta)
    meta["uid"] = new_uid()
    meta["creationTimestamp"] = format_time(now)
    if strategy.tracks_generation:
        meta["generation"] = 1


_UINT64_MAX = 2**64 - 1
#: the bits of a 128-bit number a version 4 (random) UUID of the RFC 4122 variant fixes
_UUID4_KEPT = ~((0xF000 << 64) | (0xC000 << 48)) & (2**128 - 1)
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)


def new_uid() -> str:
    """A random (version 4) UUID as text, ``str(uuid.uuid4())`` without building the
    ``uuid.UUID`` (whose constructor costs twice the rest on a create's path)."""
    value = int.from_bytes(os.urandom(16)) & _UUID4_KEPT | _UUID4_SET
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _set_resource_version(value: object) -> bool:
    """Whether a create's ``resourceVersion`` counts as set: as upstream's storage, only a value
    that parses as a non-zero unsigned 64-bit integer does; anything else ("0", "v1", "-1") is
    dropped and the object created."""
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        return False
    return 0 < int(value) <= _UINT64_MAX


def keep_server_fields(meta: Obj, old_meta: Obj) -> None:
    """An update cannot change what the server owns: restore it from the stored object."""
    for name in _KEPT_ON_UPDATE:
        if name in old_meta:
            meta[name] = old_meta[name]
        else:
            meta.pop(name, None)
    meta.pop("selfLink", None)
    drop_empty_maps(meta)


def drop_empty_maps(meta: Obj) -> None:
    """Go's ``omitempty``: an empty map or list is not stored (so ``kubectl diff`` sees none)."""
    for key in ("labels", "annotations", "finalizers", "ownerReferences"):
        if key in meta and not meta[key]:
            del meta[key]


def spec_changed(strategy: Strategy, new: Obj, old: Obj) -> bool:
    """Anything outside metadata and status changed (what bumps ``metadata.generation``)."""
    keys = (set(new) | set(old)) - strategy.non_spec_fields
    return any(new.get(k) != old.get(k) for k in keys)


def merge_errors(errs: list[fe.FieldError], missing: list[fe.FieldError]) -> list[fe.FieldError]:
    """The kind's errors plus schema-required fields it did not already report."""
    if not missing:
        return errs
    reported = {e.field for e in errs}
    return errs + [e for e in missing if e.field not in reported]


#: how a kind's names are checked (``Strategy.name_rule``)
_NAME_RULES = {
    "label": is_dns1123_label,
    "subdomain": is_dns1123_subdomain,
    "path-segment": is_path_segment_name,
}


def validate_metadata(rt: ResourceType, obj: Obj) -> list[fe.FieldError]:
    """Errors of an object's metadata on its own: its name by the kind's rule, its namespace by
    the resource's scope, labels, annotations, finalizers and owners."""
    rule = _NAME_RULES.get(rt.strategy.name_rule, is_dns1123_subdomain)
    return validate_object_meta(
        obj.get("metadata") or {},
        namespaced=rt.namespaced,
        name_validator=rule,
        path=fe.Path("metadata"),
    )
