"""``metadata.managedFields`` entries: decoding, identity, ordering and the cap on updaters.

Upstream identifies a manager by its name, operation, subresource and — for ``Update`` only —
the API version it wrote with (an applier keeps one entry whatever version it applies). Entries
are written sorted by operation (``Apply`` before ``Update``), then time, manager, API version and
subresource; at most ten ``Update`` entries are kept, the oldest folded into ``ancient-changes``.
Decoding errors carry upstream's messages; callers decide whether they are fatal (apply) or mean
"use the live object's entries" (update).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.patch.errors import go_json
from fakeapi.patch.fieldset import FieldSet

__all__ = [
    "MAX_UPDATE_MANAGERS",
    "ManagedEntry",
    "ManagedFieldsError",
    "ManagerKey",
    "cap_update_managers",
    "decode_managed_fields",
    "describe_manager",
    "encode_managed_fields",
    "managed_fields_for_write",
    "managed_fields_to_start_from",
    "manager_key",
    "sorted_keys",
]

#: (manager, operation, apiVersion — empty for Apply, subresource)
ManagerKey = tuple[str, str, str, str]

MAX_UPDATE_MANAGERS = 10
_ANCIENT = "ancient-changes"


class ManagedFieldsError(ValueError):
    """managedFields that do not decode; the message is upstream's."""


@dataclass(slots=True)
class ManagedEntry:
    """One manager's decoded entry (never modified: a change makes a new one)."""

    fields: FieldSet
    api_version: str
    time: str | None


#: entries handed out by :func:`encode_managed_fields`, by the identity of the entry dict, with
#: the manager and decoded entry they encode. A stored object's entries are those very dicts
#: (shared, never modified, as their ``fieldsV1``), so the next write of the object decodes them
#: without reading them again, and an entry the write leaves as it was (the same
#: :class:`ManagedEntry` under the same manager) is handed out again as the same dict instead of
#: being built anew. Each map holds what it is keyed by, so an id cannot be reused while kept;
#: both are emptied when full (cheaper than keeping them in order of use: a miss only means
#: the long way).
_HANDED_OUT_SIZE = 4096
_by_dict: dict[int, tuple[dict[str, Any], ManagerKey, ManagedEntry]] = {}
_by_entry: dict[int, tuple[ManagedEntry, ManagerKey, dict[str, Any]]] = {}


def _remember(out: dict[str, Any], key: ManagerKey, entry: ManagedEntry) -> None:
    if len(_by_entry) >= _HANDED_OUT_SIZE:
        _by_dict.clear()
        _by_entry.clear()
    manager, operation, _, subresource = key
    # decoding ``out`` names its manager from what it says, as reading it would
    read_as = manager_key(manager, operation, entry.api_version, subresource)
    _by_dict[id(out)] = (out, read_as, entry)
    _by_entry[id(entry)] = (entry, key, out)


def manager_key(manager: str, operation: str, api_version: str, subresource: str) -> ManagerKey:
    return (manager, operation, "" if operation == "Apply" else api_version, subresource)


def _identifier(key: ManagerKey) -> str:
    # upstream's identifier is the entry's JSON without fields, type and time; used for sorting
    manager, operation, api_version, subresource = key
    entry: dict[str, str] = {}
    if manager:
        entry["manager"] = manager
    if operation:
        entry["operation"] = operation
    if api_version:
        entry["apiVersion"] = api_version
    if subresource:
        entry["subresource"] = subresource
    return go_json(entry)


def describe_manager(key: ManagerKey, api_version: str) -> str:
    """How conflicts name a manager: ``"kubectl-create" using apps/v1``, ``"kubectl"``."""
    manager, operation, _, subresource = key
    text = go_json(manager)
    if subresource:
        text += f" with subresource {go_json(subresource)}"
    if operation == "Update":
        text += f" using {api_version}"
    return text


def sorted_keys(keys: list[ManagerKey]) -> list[ManagerKey]:
    return sorted(keys, key=_identifier)


def decode_managed_fields(entries: Any) -> dict[ManagerKey, ManagedEntry]:
    """The entries of ``metadata.managedFields`` by manager; ManagedFieldsError if malformed."""
    managers: dict[ManagerKey, ManagedEntry] = {}
    if not entries:
        return managers
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    for index, entry in enumerate(entries):
        handed_out = _by_dict.get(id(entry))
        if handed_out is not None and handed_out[0] is entry:
            managers[handed_out[1]] = handed_out[2]
            continue
        if not isinstance(entry, dict):
            raise ManagedFieldsError(f"managed fields entry {index} is not an object")
        operation = entry.get("operation") or ""
        if operation not in ("Apply", "Update"):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion") or ""
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType") or ""
        if not fields_type:
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {index}")
        if fields_type != "FieldsV1":
            raise ManagedFieldsError(
                f"invalid fieldsType {go_json(fields_type)} in managed fields entry {index}"
            )
        raw = entry.get("fieldsV1")
        try:
            fields = FieldSet.from_fields_v1(raw if raw is not None else {})
        except ValueError as exc:
            raise ManagedFieldsError(f"error decoding set: {exc}") from None
        key = manager_key(
            entry.get("manager") or "", operation, api_version, entry.get("subresource") or ""
        )
        managers[key] = ManagedEntry(fields, api_version, entry.get("time"))
    return managers


def encode_managed_fields(managers: dict[ManagerKey, ManagedEntry]) -> list[dict[str, Any]]:
    """Entries in upstream's field order and entry order; empty sets are dropped."""
    rows: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for key, entry in managers.items():
        manager, operation, _, subresource = key
        order = (operation, entry.time or "", manager, entry.api_version, subresource)
        handed_out = _by_entry.get(id(entry))
        if handed_out is not None and handed_out[0] is entry and handed_out[1] == key:
            rows.append((order, handed_out[2]))  # not empty: it was encoded before
            continue
        if entry.fields.is_empty():
            continue
        out: dict[str, Any] = {}
        if manager:
            out["manager"] = manager
        out["operation"] = operation
        out["apiVersion"] = entry.api_version
        if entry.time:
            out["time"] = entry.time
        out["fieldsType"] = "FieldsV1"
        out["fieldsV1"] = entry.fields.entry_fields_v1()
        if subresource:
            out["subresource"] = subresource
        _remember(out, key, entry)
        rows.append((order, out))
    rows.sort(key=lambda row: row[0])
    return [row[1] for row in rows]


def cap_update_managers(
    managers: dict[ManagerKey, ManagedEntry], *, limit: int = MAX_UPDATE_MANAGERS
) -> None:
    """Fold the oldest ``Update`` entries, per API version, into ``ancient-changes``."""
    updaters = [key for key in managers if key[1] == "Update"]
    if len(updaters) <= limit:
        return
    updaters.sort(key=lambda k: (managers[k].time or "", _identifier(k)))
    first_of_version: dict[str, ManagerKey] = {}
    count = len(updaters)
    for key in updaters:
        if count <= limit:
            break
        entry = managers[key]
        version = entry.api_version
        bucket = manager_key(_ANCIENT, "Update", version, "")
        first = first_of_version.get(version)
        if first is None:
            first_of_version[version] = key
            continue
        if bucket not in managers:
            managers[bucket] = managers.pop(first)
        base = managers[bucket]
        managers[bucket] = ManagedEntry(entry.fields.union(base.fields), version, entry.time)
        del managers[key]
        count -= 1


def managed_fields_for_write(
    *, live: Any, request: Any, subresource: str
) -> list[dict[str, Any]]:
    """Which managedFields an update or patch starts from (upstream's ``decodeLiveOrNew``).

    A subresource write always starts from the live object's entries. Otherwise the request's
    own entries win when they decode and are not empty — that is how a client edits or drops
    them; ``[]`` or ``[{}]`` resets them; anything else falls back to the live entries.
    """
    return managed_fields_to_start_from(live=live, request=request, subresource=subresource)[0]


def managed_fields_to_start_from(
    *, live: Any, request: Any, subresource: str
) -> tuple[list[dict[str, Any]], dict[ManagerKey, ManagedEntry] | None]:
    """:func:`managed_fields_for_write` and, when choosing the request's entries took decoding
    them, those decoded entries (a fresh dict), so that the write does not decode them again."""
    live_entries = live if isinstance(live, list) else []
    if subresource:
        return live_entries, None
    if isinstance(request, list):
        if not request or (len(request) == 1 and request[0] == {}):
            return [], None
        # a client mostly sends back the entries it read: equal to the live ones, whose dicts
        # were handed out by this server and decode without being read again
        source = live_entries if live_entries and request == live_entries else request
        try:
            decoded = decode_managed_fields(source)
        except ManagedFieldsError:
            decoded = {}
        if decoded:
            return request, decoded
    return live_entries, None
