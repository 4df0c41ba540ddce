"""CEL's standard timestamp and duration functions (part of every Kubernetes environment).

``timestamp("2009-02-13T23:31:30Z")`` parses RFC 3339 (fractions up to nanoseconds, ``Z`` or a
numeric offset), ``timestamp(int)`` takes Unix seconds; ``duration("1h2m3.5s")`` parses Go's
duration syntax. ``string()`` prints them as cel-go does (RFC 3339 in UTC with trailing zeros of
the fraction dropped; seconds with a minimal fraction and ``s``). The getters take an optional
time zone: an IANA name or a ``[+-]HH:MM`` offset; months, days of the month (``getDayOfMonth``)
and days of the year count from 0, ``getDate`` from 1, and Sunday is day 0 of the week.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fakeapi.cel.errors import EvalError
from fakeapi.cel.overloads import Function
from fakeapi.cel.time_values import NANOS, Duration, Timestamp
from fakeapi.cel.values import no_overload

__all__ = [
    "TIME_GETTERS",
    "TIME_GLOBALS",
    "TIME_MEMBERS",
    "format_duration",
    "format_timestamp",
    "parse_duration",
    "parse_timestamp",
]

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})"
)
_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": NANOS,
    "m": 60 * NANOS,
    "h": 3600 * NANOS,
}
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


def parse_timestamp(text: str) -> Timestamp:
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise EvalError(f"timestamp conversion error: {text!r} is not an RFC 3339 timestamp")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = (match.group(7) or "").ljust(9, "0")
    try:
        days = dt.date(year, month, day).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        raise EvalError(f"timestamp conversion error: {text!r} is not a valid date") from None
    if hour > 23 or minute > 59 or second > 59:
        raise EvalError(f"timestamp conversion error: {text!r} is not a valid time")
    seconds = days * 86400 + hour * 3600 + minute * 60 + second
    zone = match.group(8)
    if zone not in ("Z", "z"):
        sign = -1 if zone[0] == "-" else 1
        seconds -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return Timestamp(seconds * NANOS + int(fraction))


def parse_duration(text: str) -> Duration:
    """Go's ``time.ParseDuration``."""
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return Duration(0)
    if not body:
        raise EvalError(f'invalid duration "{text}"')
    total = Decimal(0)
    pos = 0
    while pos < len(body):
        match = _DURATION_PART.match(body, pos)
        if match is None or not (match.group(1) or match.group(2)):
            raise EvalError(f'time: invalid duration "{text}"')
        number = Decimal(f"{match.group(1) or '0'}.{match.group(2) or '0'}")
        total += number * _UNITS[match.group(3)]
        pos = match.end()
    return Duration(sign * int(total))


def format_timestamp(value: Timestamp) -> str:
    seconds, nanos = divmod(value.nanos, NANOS)
    days, rest = divmod(seconds, 86400)
    date = dt.date.fromordinal(days + _EPOCH_ORDINAL)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    text = f"{date.year:04d}-{date.month:02d}-{date.day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text + "Z"


def format_duration(value: Duration) -> str:
    sign = "-" if value.nanos < 0 else ""
    seconds, nanos = divmod(abs(value.nanos), NANOS)
    fraction = ("." + f"{nanos:09d}".rstrip("0")) if nanos else ""
    return f"{sign}{seconds}{fraction}s"


@lru_cache(maxsize=64)
def _zone(name: str) -> dt.tzinfo:
    offset = re.fullmatch(r"([+-])?(\d{2}):(\d{2})", name)
    if offset is not None:
        sign = -1 if offset.group(1) == "-" else 1
        delta = dt.timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        return dt.timezone(sign * delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise EvalError(f"unknown time zone {name}") from None


def _local(value: Timestamp, zone: str | None) -> dt.datetime:
    """The wall-clock fields (microsecond precision) of ``value`` in ``zone``."""
    seconds = value.nanos // NANOS
    utc = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)
    if zone is None or zone == "UTC":
        return utc
    try:
        return utc.astimezone(_zone(zone))
    except OverflowError:
        offset = _zone(zone).utcoffset(utc.replace(tzinfo=None)) or dt.timedelta()
        return (utc.replace(tzinfo=None) + offset).replace(tzinfo=None)


def _timestamp_getter(name: str) -> Function:
    def call(*args: object) -> object:
        if not args or len(args) > 2 or (len(args) == 2 and not isinstance(args[1], str)):
            raise no_overload(name, *args)
        target = args[0]
        if isinstance(target, Duration) and len(args) == 1:
            return _duration_getter(name, target)
        if not isinstance(target, Timestamp):
            raise no_overload(name, *args)
        zone = args[1] if len(args) == 2 else None
        assert zone is None or isinstance(zone, str)
        local = _local(target, zone)
        if name == "getFullYear":
            return local.year
        if name == "getMonth":
            return local.month - 1
        if name == "getDate":
            return local.day
        if name == "getDayOfMonth":
            return local.day - 1
        if name == "getDayOfWeek":
            return (local.weekday() + 1) % 7
        if name == "getDayOfYear":
            return local.timetuple().tm_yday - 1
        if name == "getHours":
            return local.hour
        if name == "getMinutes":
            return local.minute
        if name == "getSeconds":
            return local.second
        return (target.nanos % NANOS) // 1_000_000  # getMilliseconds

    return call


def _duration_getter(name: str, value: Duration) -> object:
    nanos = value.nanos
    per = {
        "getHours": 3600 * NANOS,
        "getMinutes": 60 * NANOS,
        "getSeconds": NANOS,
        "getMilliseconds": 1_000_000,
    }.get(name)
    if per is None:
        raise no_overload(name, value)
    quotient = abs(nanos) // per
    return -quotient if nanos < 0 else quotient


def _timestamp(*args: object) -> object:
    if len(args) != 1:
        raise no_overload("timestamp", *args)
    value = args[0]
    if isinstance(value, Timestamp):
        return value
    if isinstance(value, str):
        return parse_timestamp(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return Timestamp(value * NANOS)
    raise no_overload("timestamp", *args)


def _duration(*args: object) -> object:
    if len(args) != 1:
        raise no_overload("duration", *args)
    value = args[0]
    if isinstance(value, Duration):
        return value
    if isinstance(value, str):
        return parse_duration(value)
    raise no_overload("duration", *args)


#: the timestamp accessors (``t.getHours()``, ...), all answering an int
TIME_GETTERS = (
    "getFullYear",
    "getMonth",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
)

TIME_GLOBALS: dict[str, Function] = {"timestamp": _timestamp, "duration": _duration}
TIME_MEMBERS: dict[str, Function] = {name: _timestamp_getter(name) for name in TIME_GETTERS}
