"""LIST: consistent pages, resourceVersion semantics, selectors.

The first page is read at the current resourceVersion; its continue token records that version
and the last key, and later pages are read *as of that version* (the storage rebuilds the
snapshot from its event history), so a paged list is consistent however the objects change in
between. A token older than the retained history answers 410 Expired, as upstream does when etcd
has compacted it.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from itertools import islice

import orjson

from fakeapi import errors
from fakeapi.objects import object_key
from fakeapi.registry.options import ListOptions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.selection import build_predicate
from fakeapi.storage.events import Stored
from fakeapi.storage.interface import Storage, TooOldError, key_range

__all__ = [
    "ListResult",
    "check_get_version",
    "decode_continue",
    "encode_continue",
    "list_objects",
]

#: the resourceVersion of a continue token that reads the rest of a list at the newest version
_CONTINUE_AT_NEWEST = -1
#: upstream's words for a list at a resourceVersion the storage has compacted away
_EXPIRED_LIST = "The resourceVersion for the provided list is too old."
_EXPIRED_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list."
)


@dataclass(slots=True)
class ListResult:
    items: list[Stored]
    resource_version: str
    continue_token: str = ""
    remaining: int | None = None


def encode_continue(rv: int, start: str) -> str:
    raw = orjson.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = orjson.loads(base64.urlsafe_b64decode(padded.encode()))
        rv, start = int(data["rv"]), str(data["start"])
    except (ValueError, KeyError, TypeError, binascii.Error, orjson.JSONDecodeError):
        raise errors.bad_request(
            "continue key is not valid: incorrect encoded start resourceVersion (version "
            "meta.k8s.io/v1)"
        ) from None
    if rv <= 0 and rv != _CONTINUE_AT_NEWEST:
        raise errors.bad_request(
            "continue key is not valid: incorrect encoded start "
            "resourceVersion (version meta.k8s.io/v1)"
        )
    return rv, start


def _parse_rv(text: str) -> int:
    # what Go's ParseUint(text, 10, 64) reads; past 64 bits it fails as for any other text
    if not (text.isascii() and text.isdigit()) or int(text) >= 2**64:
        raise errors.bad_request(f"invalid resource version: {text!r}")
    return int(text)


def check_get_version(storage: Storage, resource_version: str) -> None:
    """A GET's ``resourceVersion`` (not older than it): one the server has not reached yet is
    upstream's Too large resource version error; "" and "0" take any version."""
    if resource_version in ("", "0"):
        return
    requested = _parse_rv(resource_version)
    if requested > storage.resource_version:
        raise errors.too_large_resource_version(requested, storage.resource_version)


def list_objects(
    storage: Storage, rt: ResourceType, namespace: str | None, options: ListOptions
) -> ListResult:
    predicate = build_predicate(rt, options.label_selector, options.field_selector)
    objects = rt.store(storage)
    prefix, upper = key_range(namespace)
    current_rv = storage.resource_version
    after: str | None = None
    snapshot_rv: int | None = None
    if options.continue_token:
        if options.resource_version not in ("", "0") or options.resource_version_match:
            raise errors.bad_request(
                "specifying resource version is not allowed when using continue"
            )
        snapshot_rv, after = decode_continue(options.continue_token)
        if snapshot_rv == _CONTINUE_AT_NEWEST:  # handed out with an expired page's 410
            snapshot_rv = None
    elif options.resource_version_match == "Exact" or (
        options.resource_version not in ("", "0")
        and options.limit
        and options.resource_version_match != "NotOlderThan"
    ):
        snapshot_rv = _parse_rv(options.resource_version)
    elif options.resource_version not in ("", "0"):
        requested = _parse_rv(options.resource_version)
        if requested > current_rv:
            raise errors.too_large_resource_version(requested, current_rv)
    if snapshot_rv is not None and snapshot_rv > current_rv:
        raise errors.too_large_resource_version(snapshot_rv, current_rv)
    list_rv = snapshot_rv if snapshot_rv is not None else current_rv

    # fast path: metadata.name=X (kubectl wait/delete, kr8s get) is a key lookup
    fsel = options.field_selector
    exact_name = fsel.exact_match("metadata.name") if fsel is not None else None
    if exact_name is not None and snapshot_rv is None and (namespace or not rt.namespaced):
        key = f"{namespace}/{exact_name}" if namespace else exact_name
        stored = objects.get(key)
        items = (
            [stored] if stored is not None and (predicate is None or predicate(stored.obj)) else []
        )
        return ListResult(items, str(list_rv))

    try:
        if snapshot_rv is not None:
            source = objects.scan_at(snapshot_rv, prefix, upper, after)
        else:
            source = objects.scan(prefix, upper, after)
        if predicate is not None:
            source = (s for s in source if predicate(s.obj))
        limit = options.limit if options.limit > 0 else 0
        if not limit:
            return ListResult(list(source), str(list_rv))
        items = list(islice(source, limit + 1))
    except TooOldError:
        if options.continue_token:
            # upstream's inconsistent continue: the rest of the list at the newest version
            raise errors.expired(
                _EXPIRED_CONTINUE, continue_token=encode_continue(_CONTINUE_AT_NEWEST, after or "")
            ) from None
        raise errors.expired(_EXPIRED_LIST) from None
    if len(items) <= limit:
        return ListResult(items, str(list_rv))
    items = items[:limit]
    last = object_key(items[-1].obj)
    remaining: int | None = None
    if predicate is None:
        if snapshot_rv is None:
            remaining = objects.count_after(prefix, upper, last)
        else:
            remaining = objects.count_at(snapshot_rv, prefix, upper, last)
    return ListResult(items, str(list_rv), encode_continue(list_rv, last), remaining)
