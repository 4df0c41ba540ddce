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
from datetime import UTC, datetime

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
            int(text[0:4]),
            int(text[5:7]),
            int(text[8:10]),
            int(text[11:13]),
            int(text[14:16]),
            int(text[17:19]),
        )
    except ValueError:  # out of range (or year 0): the full parse words the error
        return False
    return moment != _ZERO_TIME_NAIVE


def normalize_time(text: str, *, micro: bool) -> str | None:
    """``text`` as upstream stores it (UTC); None for the zero time; raises :class:`GoTimeError`.

    The shift to UTC is done on day numbers, not with :mod:`datetime`, because Go's years start
    at 0 (``0001-01-01T00:00:00+02:00`` is ``0000-12-31T22:00:00Z``) and Python's at 1. A
    result outside the years 0-9999 cannot be written as RFC 3339 and is refused with Go's
    ``MarshalJSON`` words.
    """
    if _already_canonical(text, micro):
        return text
    (year, month, day, hour, minute, second), nanos, offset = _parse(text, micro=micro)
    minutes = _days_from_civil(year, month, day) * 1440 + hour * 60 + minute - offset
    days, minute_of_day = divmod(minutes, 1440)
    year, month, day = _civil_from_days(days)
    if not 0 <= year <= 9999:
        raise GoTimeError(
            f"parsing time {_quote(text)}: Time.MarshalJSON: year outside of range [0,9999]"
        )
    if (year, month, day, minute_of_day, second, nanos) == (1, 1, 1, 0, 0, 0):
        return None  # the zero time encodes as null
    hour, minute = divmod(minute_of_day, 60)
    stamp = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if micro:
        return f"{stamp}.{nanos // 1000:06d}Z"
    return f"{stamp}Z"


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year, 0 included)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) ``days`` after 1970-01-01."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + (3 if shifted_month < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day
