"""Timestamps as the API writes them and ages as kubectl prints them.

``format_time`` writes RFC 3339 with whole seconds and ``Z`` (``metav1.Time``); ``human_duration``
reproduces Go's ``duration.HumanDuration`` used for the Age column.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["format_time", "format_micro_time", "go_duration", "parse_time", "human_duration"]


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = timedelta(seconds=1)
#: the last second formatted, and its text: every write stamps a time, mostly the same second
_last_formatted: tuple[int, str] = (0, "1970-01-01T00:00:00Z")


def format_time(moment: datetime) -> str:
    """``2026-01-01T00:00:00Z``: whole seconds, UTC."""
    global _last_formatted
    if moment.tzinfo is None:  # local time: no cache (it depends on the process's zone)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    second = (moment - _EPOCH) // _SECOND  # exact integer arithmetic, floor for any instant
    last_second, text = _last_formatted
    if second != last_second:
        text = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        _last_formatted = (second, text)
    return text


def format_micro_time(moment: datetime) -> str:
    """``metav1.MicroTime``: ``2026-01-01T00:00:00.000000Z``."""
    utc = moment.astimezone(UTC)
    return f"{format_time(utc)[:-1]}.{utc.microsecond:06d}Z"


def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 timestamp (``Z`` or an offset, optional fraction).

    Go's years start at 0 and Python's at 1: a time stored in year 0 reads as the first instant
    Python has (a year late at most, for a time nobody means)."""
    if text.startswith("0000-"):
        return datetime.min.replace(tzinfo=UTC)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String()``: ``500ms``, ``1.5s``, ``5s``, ``1m0s``, ``1h2m3s`` (how
    upstream's messages print a timeout or a back-off)."""
    if seconds <= 0:
        return "0s"
    if seconds < 1:
        return f"{seconds * 1000:g}ms"
    whole = int(seconds)
    fraction = seconds - whole
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{secs + fraction:.9f}".rstrip("0").rstrip(".") if fraction else str(secs)) + "s"
    if hours or minutes:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return text


def human_duration(elapsed: timedelta) -> str:
    """Go's ``duration.HumanDuration``: ``45s``, ``2m30s``, ``95m``, ``3h10m``, ``2d3h``."""
    seconds = int(elapsed.total_seconds())
    if elapsed.total_seconds() < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    days = hours // 24
    if days < 365 * 2:
        return f"{days}d"
    if days < 365 * 8:
        d = days % 365
        return f"{days // 365}y" if d == 0 else f"{days // 365}y{d}d"
    return f"{days // 365}y"
