"""Immutable records the storage hands out: a stored version and a change event.

A stored version keeps the object *and* its encoded bytes, so GET, LIST and every watcher reuse
one serialisation. Objects handed out are shared: nobody may mutate them (writers build new
dicts; readers that want to change something copy first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

__all__ = ["Stored", "Event", "EventType", "encode"]

EventType = Literal["ADDED", "MODIFIED", "DELETED"]


def encode(obj: Any) -> bytes:
    return orjson.dumps(obj)


@dataclass(frozen=True, slots=True)
class Stored:
    """One version of one object: the dict, its JSON bytes and its resourceVersion."""

    obj: dict[str, Any]
    raw: bytes
    rv: int


@dataclass(frozen=True, slots=True)
class Event:
    """A change: ``obj``/``raw`` is the new state (the last state, re-versioned, for DELETED);
    ``prev`` is the state before (None for ADDED)."""

    type: EventType
    key: str
    rv: int
    obj: dict[str, Any]
    raw: bytes
    prev: Stored | None
    #: ``(type, obj, raw)``: what a watcher queues, built once and shared by all of them
    delivery: tuple[str, dict[str, Any], bytes] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "delivery", (self.type, self.obj, self.raw))
