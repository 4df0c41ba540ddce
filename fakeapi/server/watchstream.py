"""Streaming a watch over HTTP: one JSON document per line, a batch of events per write.

A watcher's queue is drained whole and written with one ``write`` call, so bursts cost one
syscall. Tables are produced per event for ``kubectl get -w``. The stream ends at the request's
``timeoutSeconds`` (or the server's default), when the watcher is closed for falling behind, or
when the client goes away: a write to a client that has hung up ends the watch quietly, as
upstream's watch server ends it (nothing failed on the server's side).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from fakeapi import errors
from fakeapi.registry.watching import bookmark
from fakeapi.resources import ResourceType
from fakeapi.server.partial_metadata import View, partial_object
from fakeapi.server.printing import render_table
from fakeapi.storage.watch import Delivery, Watcher

__all__ = ["stream_watch", "error_stream"]


def _frame(etype: str, raw: bytes) -> bytes:
    return b'{"type":"' + etype.encode() + b'","object":' + raw + b"}\n"


#: what comes before and after an object's bytes in a frame of each event type
_HEADS = {
    etype: b'{"type":"' + etype.encode() + b'","object":'
    for etype in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR")
}
_TAIL = b"}\n"


async def error_stream(request: web.Request, error: errors.StatusError) -> web.StreamResponse:
    """A watch that fails before it starts (410 Expired, 504 too large a resourceVersion): 200
    with one ERROR event."""
    response = web.StreamResponse(status=200)
    response.headers["Content-Type"] = "application/json"
    response.headers["Cache-Control"] = "no-cache, private"
    try:
        await response.prepare(request)
        await response.write(_frame("ERROR", orjson.dumps(error.status())))
        await response.write_eof()
    except ConnectionResetError:  # the client went away
        pass
    return response

#: upstream's last heartbeat comes this long before a watch's deadline
_BOOKMARK_BEFORE_DEADLINE = 2.0


async def stream_watch(
    request: web.Request,
    *,
    rt: ResourceType,
    watcher: Watcher,
    timeout: float,
    allow_bookmarks: bool,
    bookmark_interval: float,
    current_rv: Callable[[], int],
    view: View,
    include: str,
    now: Callable[[], Any],
) -> web.StreamResponse:
    response = web.StreamResponse(status=200)
    response.headers["Content-Type"] = "application/json"
    response.headers["Cache-Control"] = "no-cache, private"
    response.enable_chunked_encoding()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def next_bookmark(moment: float) -> float:
        """Upstream's heartbeat: every ``bookmark_interval``, and once 2 s before the deadline
        so that a client resumes from a fresh resourceVersion; never after that."""
        at = min(moment + bookmark_interval, deadline - _BOOKMARK_BEFORE_DEADLINE)
        return at if at > moment else math.inf

    bookmark_due = next_bookmark(loop.time()) if allow_bookmarks else math.inf
    first_table = True

    def encode(delivery: Delivery) -> bytes:
        nonlocal first_table
        etype, obj, raw = delivery
        if etype == "BOOKMARK":
            return _frame(etype, raw)
        if view == "Table":
            body = render_table(rt, [obj], now=now(), include=include, columns=first_table)
            first_table = False
            return _frame(etype, orjson.dumps(body))
        # metadata only (PartialObjectMetadata)
        return _frame(etype, orjson.dumps(partial_object(obj)))

    def batch(deliveries: list[Delivery]) -> bytes:
        """The frames of a drained queue, as one chunk. The stored objects' own bytes (no
        view) are joined between constant frame heads and tails: one copy of each object."""
        if view:
            return b"".join(encode(d) for d in deliveries if d[0] != "BOOKMARK" or allow_bookmarks)
        parts: list[bytes] = []
        for etype, _, raw in deliveries:
            if etype == "BOOKMARK" and not allow_bookmarks:
                continue
            parts += (_HEADS[etype], raw, _TAIL)
        return b"".join(parts)

    # one timer at a time wakes the stream for its next bookmark or its deadline (None once
    # it has rung: a loop that wakes a little before its time arms it again)
    timer: asyncio.TimerHandle | None = None

    def ring() -> None:
        nonlocal timer
        timer = None
        watcher.wake()

    try:
        await response.prepare(request)
        while True:
            moment = loop.time()
            if moment >= deadline:
                break
            due = min(deadline, bookmark_due)
            if timer is None or timer.when() != due:
                if timer is not None:
                    timer.cancel()
                timer = loop.call_at(due, ring)
            await watcher.wait()
            if watcher.queue:
                chunk = batch(watcher.drain())
                if chunk:
                    await response.write(chunk)
            if watcher.closed:
                break
            moment = loop.time()
            if bookmark_due <= moment < deadline:
                await response.write(_frame("BOOKMARK", bookmark(rt, current_rv())[2]))
                bookmark_due = next_bookmark(moment)
        await response.write_eof()
    except ConnectionResetError:  # the client went away mid-stream: nobody is left to tell
        pass
    finally:
        if timer is not None:
            timer.cancel()
        watcher.close()
    return response
