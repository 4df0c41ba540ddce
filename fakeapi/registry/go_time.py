"""Timestamps decoded as ``metav1.Time`` and ``metav1.MicroTime`` decode them, errors included.

Upstream parses a ``Time`` with Go's ``time.Parse(time.RFC3339, s)`` and a ``MicroTime`` with the
layout ``2006-01-02T15:04:05.000000Z07:00``, then writes them back in UTC: whole seconds for
``Time``, exactly six fractional digits for ``MicroTime``. A client that sends
``2026-01-01T02:00:00.5+02:00`` therefore reads back ``2026-01-01T00:00:00Z``, and one that sends
``yesterday`` gets Go's parse error verbatim::

    parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"

Go's parser walks the layout element by element (four-digit year, two-digit month and day, a one-
or two-digit hour, ...) and reports the element it could not match together with the rest of the
input; :func:`parse_go_time` walks the same elements so its messages are the same. The zero time
(``0001-01-01T00:00:00Z``) encodes as ``null`` upstream, so it decodes to ``None`` here.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

__all__ = ["GoTimeError", "RFC3339", "RFC3339_MICRO", "normalize_time"]

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"

# (layout element, how to read it); literals are matched character by character
_SECONDS_LAYOUT = (
    ("2006", "year"),
    ("-", "lit"),
    ("01", "month"),
    ("-", "lit"),
    ("02", "day"),
    ("T", "lit"),
    ("15", "hour"),
    (":", "lit"),
    ("04", "minute"),
    (":", "lit"),
    ("05", "second"),
)
_RFC3339_ELEMENTS = (*_SECONDS_LAYOUT, ("Z07:00", "zone"))
_MICRO_ELEMENTS = (*_SECONDS_LAYOUT, (".000000", "frac6"), ("Z07:00", "zone"))
_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
_ZERO_TIME_NAIVE = datetime(1, 1, 1)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class GoTimeError(ValueError):
    """A timestamp Go's parser rejects; the message is Go's ``time.ParseError`` text."""


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _BadError(Exception):
    pass


def _digits(value: str, n: int) -> int:
    if len(value) < n or not value[:n].isascii() or not value[:n].isdigit():
        raise _BadError
    return int(value[:n])


def _num(value: str, *, fixed: bool) -> tuple[int, str]:
    """Go's ``getnum``: one or two digits (exactly two when ``fixed``)."""
    if not value[:1].isdigit() or not value[:1].isascii():
        raise _BadError
    if not value[1:2].isdigit() or not value[1:2].isascii():
        if fixed:
            raise _BadError
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def _parse(text: str, *, micro: bool) -> tuple[list[int], int, int]:
    """([year, month, day, hour, minute, second], nanoseconds, zone offset in minutes)."""
    layout = RFC3339_MICRO if micro else RFC3339
    fields: list[int] = []
    nanos = 0
    offset = 0
    value = text

    def fail(elem: str, rest: str, message: str = "") -> GoTimeError:
        if message:
            return GoTimeError(f"parsing time {_quote(text)}{message}")
        return GoTimeError(
            f"parsing time {_quote(text)} as {_quote(layout)}: cannot parse {_quote(rest)} as "
            f"{_quote(elem)}"
        )

    for elem, how in _MICRO_ELEMENTS if micro else _RFC3339_ELEMENTS:
        hold = value
        try:
            if how == "lit":
                if not value.startswith(elem):
                    raise _BadError
                value = value[len(elem) :]
                continue
            if how == "year":
                fields.append(_digits(value, 4))
                value = value[4:]
            elif how in ("month", "day", "minute", "second", "hour"):
                number, value = _num(value, fixed=how != "hour")
                limit = {"month": 12, "day": 31, "hour": 23, "minute": 59, "second": 59}[how]
                low = 1 if how == "month" else 0
                if number < low or number > limit:
                    raise fail(elem, value, f": {how} out of range")
                fields.append(number)
                fraction = value[:1] in (".", ",") and value[1:2].isdigit()
                if how == "second" and not micro and fraction:
                    n = 1
                    while n < len(value) and value[n].isdigit() and value[n].isascii():
                        n += 1
                    nanos = int((value[1:n] + "000000000")[:9])
                    value = value[n:]
            elif how == "frac6":
                if value[:1] not in (".", ","):
                    raise _BadError
                nanos = _digits(value[1:], 6) * 1000
                value = value[7:]
            else:  # zone: Z or ±hh:mm
                if value.startswith("Z"):
                    value = value[1:]
                    continue
                if len(value) < 6 or value[3] != ":" or value[0] not in "+-":
                    raise _BadError
                hours, _ = _num(value[1:3], fixed=True)
                minutes, _ = _num(value[4:6], fixed=True)
                if hours > 24:
                    raise fail(elem, value[6:], ": time zone offset hour out of range")
                if minutes > 60:
                    raise fail(elem, value[6:], ": time zone offset minute out of range")
                offset = (hours * 60 + minutes) * (1 if value[0] == "+" else -1)
                value = value[6:]
        except _BadError:
            raise fail(elem, hold) from None
    if value:
        raise fail("", value, f": extra text: {_quote(value)}")
    year, month, day = fields[0], fields[1], fields[2]
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day < 1 or day > (_DAYS[month - 1] if month != 2 or leap else 28):
        raise fail("", "", ": day out of range")
    return fields, nanos, offset


_CANONICAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_CANONICAL_MICRO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


def _already_canonical(text: str, micro: bool) -> bool:
    """Whether ``text`` is a valid time already written as it is stored (what clients and the
    server itself send almost always): then normalising it gives it back unchanged."""
    if not (_CANONICAL_MICRO if micro else _CANONICAL).fullmatch(text):
        return False
    try:
        moment = datetime(
            int(text[0:4]), int(text[5:7]), int(text[8:10]),
            int(text[11:13]), int(text[14:16]), int(text[17:19]),
        )
    except ValueError:  # out of range (or year 0): the full parse words the error
        return False
    return moment != _ZERO_TIME_NAIVE


def normalize_time(text: str, *, micro: bool) -> str | None:
    """``text`` as upstream stores it (UTC); None for the zero time; raises :class:`GoTimeError`."""
    if _already_canonical(text, micro):
        return text
    (year, month, day, hour, minute, second), nanos, offset = _parse(text, micro=micro)
    if year == 0:
        year_text = "0000"
        moment = None
    else:
        zone = timezone(timedelta(minutes=offset)) if offset else UTC
        moment = datetime(year, month, day, hour, minute, second, tzinfo=zone).astimezone(UTC)
        year_text = f"{moment.year:04d}"
    if moment is None:
        stamp = f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    else:
        if moment == _ZERO_TIME and nanos == 0:
            return None  # the zero time encodes as null
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0")
        stamp = f"{year_text}{stamp[stamp.index('-') :]}"
    if micro:
        return f"{stamp}.{nanos // 1000:06d}Z"
    return f"{stamp}Z"
