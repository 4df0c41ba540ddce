"""Small helpers the core kinds share: safe lookups in JSON-shaped objects and printer cells.

Strategies read objects that passed schema validation, but optional sub-objects may be absent or
``null``; these helpers turn that into empty values so printing and field selection never raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from fakeapi.objects import as_dict, as_list
from fakeapi.quantity import Quantity, parse_quantity
from fakeapi.timefmt import human_duration, parse_time

__all__ = ["as_dict", "as_list", "dig", "quantity", "since_cell", "text"]


@lru_cache(maxsize=4096)
def quantity(text: str) -> Quantity:
    """``parse_quantity(text)``, memoised: every pod write reads the same few requests and
    limits. The result is shared, so callers only read it; a bad quantity raises every time."""
    return parse_quantity(text)


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


def since_cell(timestamp: Any, now: datetime) -> str:
    """kubectl's ``translateTimestampSince``: the age of ``timestamp`` or ``<unknown>``."""
    if not isinstance(timestamp, str) or not timestamp:
        return "<unknown>"
    try:
        return human_duration(now - parse_time(timestamp))
    except ValueError:
        return "<unknown>"
