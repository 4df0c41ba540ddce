"""Small helpers the core kinds share: memoised quantities and printer cells.

Safe lookups in JSON-shaped objects (``dig``, ``text``, ``as_dict``...) are the one vocabulary of
:mod:`fakeapi.objects`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.quantity import parse_quantity_cached as quantity
from fakeapi.timefmt import human_duration, parse_time

__all__ = ["quantity", "since_cell"]


def since_cell(timestamp: Any, now: datetime) -> str:
    """kubectl's ``translateTimestampSince``: the age of ``timestamp`` or ``<unknown>``."""
    if not isinstance(timestamp, str) or not timestamp:
        return "<unknown>"
    try:
        return human_duration(now - parse_time(timestamp))
    except ValueError:
        return "<unknown>"
