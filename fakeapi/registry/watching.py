"""WATCH: where a stream starts, and what it sends before live changes.

- resourceVersion unset/"0" (or ``sendInitialEvents=true``): a synthetic ADDED per current object
  that matches, then live changes; with ``sendInitialEvents`` a BOOKMARK annotated
  ``k8s.io/initial-events-end`` marks the end of the initial state.
- resourceVersion N: every retained event after N (filtered with transitions), then live changes;
  older than the history → 410 Expired.

All of this runs without awaiting, so no write can slip between the initial state and the live
subscription.
"""

from __future__ import annotations

from typing import Any

from fakeapi import errors
from fakeapi.registry.options import WatchOptions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.selection import build_predicate, watch_index
from fakeapi.storage.events import encode
from fakeapi.storage.interface import Storage, TooOldError, key_range
from fakeapi.storage.watch import Watcher

__all__ = ["open_watch", "bookmark"]

INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def bookmark(
    rt: ResourceType, rv: int, *, initial_events_end: bool = False
) -> tuple[str, dict[str, Any], bytes]:
    meta: dict[str, Any] = {"resourceVersion": str(rv)}
    if initial_events_end:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    obj = {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta}
    return ("BOOKMARK", obj, encode(obj))


def open_watch(
    storage: Storage, rt: ResourceType, namespace: str | None, options: WatchOptions
) -> Watcher:
    predicate = build_predicate(rt, options.label_selector, options.field_selector)
    objects = rt.store(storage)
    prefix, upper = key_range(namespace)
    rv_text = options.resource_version
    if rv_text.isdigit() and int(rv_text) > storage.resource_version:
        # a version this server has not reached (upstream's watch cache waits for it, then
        # ends the watch with this error); a client resuming against a restarted server meets it
        raise errors.too_large_resource_version(int(rv_text), storage.resource_version)
    initial = options.send_initial_events
    if initial is None:
        initial = rv_text in ("", "0")
    since: int | None = None
    if not initial:
        if rv_text in ("", "0"):
            since = storage.resource_version
        elif not rv_text.isdigit():
            raise errors.bad_request(f"invalid resource version: {rv_text!r}")
        else:
            since = int(rv_text)
    events = []
    if since is not None:
        try:
            events = objects.events_since(since)
        except TooOldError as exc:
            raise errors.expired(str(exc)) from None
    index = watch_index(rt, options.field_selector) if predicate is not None else None
    watcher = objects.watch(prefix=prefix, predicate=predicate, index=index)
    if initial:
        for stored in objects.scan(prefix, upper, None):
            if predicate is None or predicate(stored.obj):
                watcher.push_initial(("ADDED", stored.obj, stored.raw))
        if options.send_initial_events:
            watcher.push_initial(bookmark(rt, storage.resource_version, initial_events_end=True))
    else:
        for event in events:
            watcher.offer(event)
    return watcher
