"""Server-side apply and the managedFields bookkeeping of every other write.

This follows upstream's structured-merge-diff ``Updater`` step by step:

* **Apply** merges the configuration into the live object, makes the configuration's field set
  the applier's entry, removes what the applier applied last time but no longer applies unless
  some manager still owns it ("prune"), then compares live with the result: a field another
  manager owns that the apply adds or changes is a conflict. Without ``force`` conflicts fail the
  request (409); with ``force`` the other managers lose those fields. A field set to the same
  value is not a conflict: both managers then own it.
* **Update** (create, update, patch) compares old with new; the writer takes every added or
  modified field (all of them on create) away from the other managers, and removed fields leave
  every set. Its entry's time only moves when it took something.

Upstream also strips fields that no manager may own (``apiVersion``, ``kind``, ``metadata.name``,
``resourceVersion``...) from the writer's set, drops empty entries, and keeps at most ten
``Update`` entries. ``ignored_fields`` is upstream's "reset fields": paths a write through this
endpoint never owns and never conflicts on (``status`` for the main resource of a kind with a
status subresource; everything but ``status`` for the subresource).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from fakeapi.patch.errors import ApplyConflict, PatchError, bad_request
from fakeapi.patch.fieldset import FieldSet, Path, path_string
from fakeapi.patch.managed import (
    ManagedEntry,
    ManagedFieldsError,
    ManagerKey,
    cap_update_managers,
    decode_managed_fields,
    describe_manager,
    encode_managed_fields,
    manager_key,
    sorted_keys,
)
from fakeapi.patch.typed import (
    compare,
    ensure_named_fields_are_members,
    merge,
    remove_items,
    to_field_set,
    zero_object,
)
from fakeapi.schema import SchemaNode

__all__ = ["STRIPPED_FIELDS", "apply_patch", "update_managed_fields"]

#: Paths no manager ever owns (upstream's stripMetaManager).
STRIPPED_FIELDS = FieldSet.from_paths(
    ("f:apiVersion",),
    ("f:kind",),
    ("f:metadata",),
    *(
        ("f:metadata", "f:" + name)
        for name in (
            "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
            "generation", "managedFields", "resourceVersion",
        )
    ),
)


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        meta = dict(meta)
        del meta["managedFields"]
        obj = {**obj, "metadata": meta}
    return obj


def _with_managed_fields(obj: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    meta = dict(obj.get("metadata") or {})
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
    return {**obj, "metadata": meta}


#: another version of the kind: how to convert an object to it, and its schema
OtherVersion = Callable[
    [str], "tuple[Callable[[dict[str, Any]], dict[str, Any]], SchemaNode] | None"
]


def _take_from_others(
    managers: dict[ManagerKey, ManagedEntry], writer: ManagerKey, taken: FieldSet,
    removed: FieldSet, *, skip: set[str] | frozenset[str] = frozenset(),
) -> None:
    for key, entry in list(managers.items()):
        if key == writer or entry.api_version in skip:
            continue
        rest = entry.fields.difference(taken).difference(removed)
        if rest.is_empty():
            del managers[key]
        elif rest is not entry.fields:
            managers[key] = ManagedEntry(rest, entry.api_version, entry.time)


def _take_in_version(
    managers: dict[ManagerKey, ManagedEntry],
    writer: ManagerKey,
    version: str,
    other_version: OtherVersion,
    objects: tuple[dict[str, Any], dict[str, Any]],
    written: tuple[FieldSet, FieldSet],
    ignored_fields: FieldSet | None,
) -> None:
    """Take what the writer changed and removed from the entries written at ``version``,
    compared in that version's shape (as written when the shapes are the same or the
    converted objects cannot be compared)."""
    changed, removed = written
    found = other_version(version)
    if found is not None:
        convert, schema = found
        before, new = objects
        try:
            comparison = compare(
                convert(before), convert(_without_managed_fields(new)), schema
            ).exclude(ignored_fields)
            changed, removed = comparison.changed(), comparison.removed
        except PatchError:
            pass
    for key, entry in list(managers.items()):
        if key == writer or entry.api_version != version:
            continue
        rest = entry.fields.difference(changed).difference(removed)
        if rest.is_empty():
            del managers[key]
        elif rest is not entry.fields:
            managers[key] = ManagedEntry(rest, entry.api_version, entry.time)


def update_managed_fields(
    *,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    manager: str,
    managed_fields: list[dict[str, Any]],
    schema: SchemaNode,
    api_version: str,
    now: str,
    subresource: str = "",
    operation: str = "Update",
    ignored_fields: FieldSet | None = None,
    decoded: dict[ManagerKey, ManagedEntry] | None = None,
    other_version: OtherVersion | None = None,
) -> list[dict[str, Any]]:
    """The managedFields after a non-apply write of ``new`` over ``old`` (None on create).

    ``other_version(api_version)`` gives, for another version of the kind, a conversion of an
    object of this write's version into that one and that version's schema (None: the same
    shape): the fields an entry written at that version loses are then found by comparing the
    objects converted to its version, as upstream's field manager does.

    ``managed_fields`` is where the write starts from (see ``managed_fields_for_write``); it is
    returned unchanged when it cannot be decoded or the objects cannot be compared, as upstream
    keeps the previous entries when its bookkeeping fails. ``decoded``: ``managed_fields``
    already decoded (a fresh dict this call may change).
    """
    if decoded is not None:
        managers = decoded
    else:
        try:
            managers = decode_managed_fields(managed_fields)
        except ManagedFieldsError:
            managers = {}
    before = zero_object(schema) if old is None else _without_managed_fields(old)
    try:
        comparison = compare(before, _without_managed_fields(new), schema).exclude(ignored_fields)
    except PatchError:  # a malformed list item: keep the bookkeeping as it was
        return managed_fields
    changed = comparison.changed()
    key = manager_key(manager, operation, api_version, subresource)
    elsewhere = (
        {e.api_version for k, e in managers.items() if k != key} - {api_version}
        if other_version is not None
        else set()
    )
    _take_from_others(managers, key, changed, comparison.removed, skip=elsewhere)
    for version in elsewhere:
        assert other_version is not None
        _take_in_version(
            managers, key, version, other_version, (before, new),
            (changed, comparison.removed), ignored_fields,
        )
    taken = changed.difference(STRIPPED_FIELDS)
    if not taken.is_empty():
        previous = managers.get(key)
        fields = taken if previous is None else previous.fields.union(taken)
        managers[key] = ManagedEntry(fields, api_version, now)
    if operation == "Update":
        cap_update_managers(managers)
    return encode_managed_fields(managers)


def _conflict_error(
    conflicts: dict[ManagerKey, FieldSet], managers: dict[ManagerKey, ManagedEntry]
) -> ApplyConflict:
    rows: list[tuple[str, Path]] = []
    for key in sorted_keys(list(conflicts)):
        who = describe_manager(key, managers[key].api_version)
        rows.extend((who, path) for path in conflicts[key].paths())
    causes = [
        {"reason": "FieldManagerConflict", "message": f"conflict with {who}",
         "field": path_string(path)}
        for who, path in rows
    ]
    if len(rows) == 1:
        who, path = rows[0]
        message = f"Apply failed with 1 conflict: conflict with {who}: {path_string(path)}"
    else:
        lines: list[str] = []
        last = None
        for who, path in rows:
            if who != last:
                lines.append(f"conflicts with {who}:")
                last = who
            lines.append(f"- {path_string(path)}")
        message = f"Apply failed with {len(rows)} conflicts: " + "\n".join(lines)
    return ApplyConflict(message, causes)


def _has_null(value: Any) -> bool:
    try:  # a null anywhere encodes as `null`: without one in the JSON there is none to find
        if b"null" not in orjson.dumps(value):
            return False
    except TypeError:  # not JSON (an integer beyond 64 bits): walked
        pass
    return _holds_null(value)


def _holds_null(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_holds_null(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_null(v) for v in value)
    return False


def _drop_nulls(value: Any) -> Any:
    # an applied `null` is owned like any value, but an API object never stores it
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for key, sub in value.items():
            new = _drop_nulls(sub)
            if new is not sub or sub is None:
                if out is None:
                    out = dict(value)
                if sub is None:
                    del out[key]
                else:
                    out[key] = new
        return value if out is None else out
    if isinstance(value, list):
        items = [_drop_nulls(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def apply_patch(
    *,
    live: dict[str, Any] | None,
    config: dict[str, Any],
    manager: str,
    managed_fields: list[dict[str, Any]],
    schema: SchemaNode,
    force: bool,
    api_version: str,
    now: str,
    subresource: str = "",
    ignored_fields: FieldSet | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Server-side apply of ``config`` by ``manager``: the new object and its managedFields.

    ``live`` is None when the apply creates the object. The returned object carries the new
    entries in ``metadata.managedFields``; when the apply changes nothing it is ``live`` with
    those entries. Raises :class:`ApplyConflict` (409) and ``PatchError`` (400).
    """
    if not isinstance(config, dict):
        raise bad_request("the apply configuration must be a JSON object")
    meta = config.get("metadata")
    if isinstance(meta, dict) and meta.get("managedFields") is not None:
        raise bad_request("metadata.managedFields must be nil")
    try:
        managers = decode_managed_fields(managed_fields)
    except ManagedFieldsError as exc:
        raise bad_request(f"failed to decode managed fields: {exc}") from None
    base = zero_object(schema) if live is None else _without_managed_fields(live)
    key = manager_key(manager, "Apply", api_version, subresource)

    merged = merge(base, config, schema)
    applied = to_field_set(config, schema)
    if ignored_fields is not None:
        applied = applied.recursive_difference(ignored_fields)
    last = managers.get(key)
    previous_fields = last.fields if last is not None else FieldSet()
    managers[key] = ManagedEntry(applied, api_version, last.time if last else None)
    if last is not None and not last.fields.is_empty():
        owned = FieldSet()
        for entry in managers.values():
            owned = owned.union(entry.fields)
        stale = ensure_named_fields_are_members(last.fields, schema).difference(
            ensure_named_fields_are_members(owned, schema)
        )
        merged = remove_items(merged, schema, stale)

    comparison = compare(base, merged, schema).exclude(ignored_fields)
    changed = comparison.changed()
    conflicts: dict[ManagerKey, FieldSet] = {}
    for other, entry in managers.items():
        if other != key:
            clash = entry.fields.intersection(changed)
            if not clash.is_empty():
                conflicts[other] = clash
    if conflicts and not force:
        raise _conflict_error(conflicts, managers)
    _take_from_others(managers, key, changed, comparison.removed)

    mine = managers[key].fields.difference(STRIPPED_FIELDS)
    object_changed = merged != base
    if mine.is_empty():
        del managers[key]
    elif object_changed or mine != previous_fields or last is None:
        managers[key] = ManagedEntry(mine, api_version, now)
    else:
        managers[key] = ManagedEntry(mine, api_version, last.time)
    entries = encode_managed_fields(managers)
    if live is None or _has_null(config):
        merged = _drop_nulls(merged)
    result = live if live is not None and not object_changed else merged
    return _with_managed_fields(result, entries), entries
