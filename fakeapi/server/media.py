"""Media types of request bodies, apart from the HTTP machinery.

The in-process transport reads them as well (a PATCH's type picks the patch strategy), and it
must not pull in aiohttp to do so: importing aiohttp costs about a quarter of a second (most of
it loading CA certificates for its client), which an in-process cluster never needs.
"""

from __future__ import annotations

__all__ = ["media_type"]


def media_type(content_type: str) -> str:
    """``application/json; charset=utf-8`` -> ``application/json``."""
    return content_type.split(";", 1)[0].strip().lower()
