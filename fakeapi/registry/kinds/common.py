"""Small helpers the core kinds share: safe lookups in JSON-shaped objects and printer cells.

Strategies read objects that passed schema validation, but optional sub-objects may be absent or
``null``; these helpers turn that into empty values so printing and field selection never raise.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.quantity import parse_quantity_cached as quantity
from fakeapi.timefmt import human_duration, parse_time

__all__ = ["as_dict", "as_list", "dig", "quantity", "since_cell", "text"]


def since_cell(timestamp: Any, now: datetime) -> str:
    """kubectl's ``translateTimestampSince``: the age of ``timestamp`` or ``<unknown>``."""
    if not isinstance(timestamp, str) or not timestamp:
        return "<unknown>"
    try:
        return human_duration(now - parse_time(timestamp))
    except ValueError:
        return "<unknown>"
