"""Immutable records the storage hands out: a stored version and a change event.

A stored version keeps the object *and* its encoded bytes, so GET, LIST and every watcher reuse
one serialisation. Objects handed out are shared: nobody may mutate them (writers build new
dicts; readers that want to change something copy first).

The event history keeps every version of every object for watches that resume and for paged
lists that read an older state, but those are rare, while a decoded object costs several times
its bytes in memory and in garbage-collector work. So once a version is superseded the storage
calls :meth:`Stored.release`: it keeps its bytes and decodes them again only if someone asks for
the object (equal content, a different dict).
"""

from __future__ import annotations

from typing import Any, Literal

import orjson

__all__ = ["Stored", "Event", "EventType", "encode"]

EventType = Literal["ADDED", "MODIFIED", "DELETED"]


def encode(obj: Any) -> bytes:
    return orjson.dumps(obj)


class Stored:
    """One version of one object: the dict, its JSON bytes and its resourceVersion."""

    __slots__ = ("_obj", "raw", "rv")

    def __init__(self, obj: dict[str, Any], raw: bytes, rv: int) -> None:
        self._obj: dict[str, Any] | None = obj
        self.raw = raw
        self.rv = rv

    @property
    def obj(self) -> dict[str, Any]:
        obj = self._obj
        if obj is None:
            obj = self._obj = orjson.loads(self.raw)
        return obj

    @classmethod
    def encoded(cls, raw: bytes, rv: int) -> Stored:
        """A version known only by its bytes (read back from disk): decoded on first use."""
        stored = cls({}, raw, rv)
        stored._obj = None
        return stored

    def release(self) -> None:
        """Drop the decoded object (a superseded version); :attr:`obj` decodes it again."""
        self._obj = None

    def __repr__(self) -> str:
        return f"Stored(rv={self.rv}, raw={self.raw[:60]!r}...)"


class Event:
    """A change: ``obj``/``raw`` is the new state (the last state, re-versioned, for DELETED);
    ``prev`` is the state before (None for ADDED)."""

    __slots__ = ("_delivery", "key", "prev", "type", "version")

    def __init__(self, type: EventType, key: str, version: Stored, prev: Stored | None) -> None:
        self.type: EventType = type
        self.key = key
        self.version = version
        self.prev = prev
        self._delivery: tuple[str, dict[str, Any], bytes] | None = None

    @property
    def rv(self) -> int:
        return self.version.rv

    @property
    def obj(self) -> dict[str, Any]:
        return self.version.obj

    @property
    def raw(self) -> bytes:
        return self.version.raw

    @property
    def delivery(self) -> tuple[str, dict[str, Any], bytes]:
        """``(type, obj, raw)``: what a watcher queues, built once and shared by all of them."""
        delivery = self._delivery
        if delivery is None:
            delivery = self._delivery = (self.type, self.version.obj, self.version.raw)
        return delivery

    def forget_delivery(self) -> None:
        """Stop holding the shared delivery (and with it the decoded object)."""
        self._delivery = None

    def __repr__(self) -> str:
        return f"Event({self.type}, {self.key!r}, rv={self.rv})"
