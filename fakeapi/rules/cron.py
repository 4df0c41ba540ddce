"""Cron schedules as a CronJob's ``spec.schedule`` gives them (robfig/cron's ``ParseStandard``).

The API server validates a schedule with this parser (its error texts are robfig's, which
upstream's validation passes on) and the CronJob controller asks it for the scheduled times
between two instants. Five fields — minute, hour, day of month, month, day of week — each ``*``,
``?``, a number, a name (``jan``, ``mon``), a range ``a-b``, a step ``/n``, or a comma list of
those; or a descriptor (``@yearly``, ``@monthly``, ``@weekly``, ``@daily``, ``@hourly``,
``@every 1h30m``). As in robfig, when both the day of month and the day of week are restricted a
day matches either; when one of them is ``*`` both must match.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["CronError", "Schedule", "parse_schedule"]

_MONTHS = {n: i + 1 for i, n in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
)}
_DAYS = {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
#: (minimum, maximum, names) of the five fields
_FIELDS: tuple[tuple[int, int, dict[str, int]], ...] = (
    (0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS)
)
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0,
}
#: how far ahead :meth:`Schedule.next_after` looks before it gives up (robfig: five years)
_SEARCH_YEARS = 5


class CronError(ValueError):
    """A schedule that does not parse; the message is robfig's."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """A parsed schedule: the allowed values of each field, or a fixed interval."""

    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days_of_month: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    days_of_week: frozenset[int] = frozenset()
    #: both day fields are restricted: a day matching either is enough
    either_day: bool = False
    #: ``@every <duration>``: seconds between activations
    every: float | None = None

    def next_after(self, t: datetime) -> datetime | None:
        """The first activation strictly after ``t`` (UTC), or None within five years."""
        t = t.astimezone(UTC)
        if self.every is not None:
            step = max(1.0, float(int(self.every)))
            return t.replace(microsecond=0) + timedelta(seconds=step)
        candidate = t.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = candidate.replace(year=candidate.year + _SEARCH_YEARS)
        while candidate < limit:
            if candidate.month not in self.months:
                year, month = candidate.year, candidate.month + 1
                if month > 12:
                    year, month = year + 1, 1
                candidate = candidate.replace(year=year, month=month, day=1, hour=0, minute=0)
                continue
            if not self._day_matches(candidate):
                candidate = (candidate + timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if candidate.hour not in self.hours:
                candidate = (candidate + timedelta(hours=1)).replace(minute=0)
                continue
            if candidate.minute not in self.minutes:
                candidate += timedelta(minutes=1)
                continue
            return candidate
        return None

    def times_between(self, start: datetime, end: datetime) -> Iterator[datetime]:
        """Every activation after ``start`` up to and including ``end``."""
        current = self.next_after(start)
        while current is not None and current <= end:
            yield current
            current = self.next_after(current)

    def _day_matches(self, t: datetime) -> bool:
        dom = t.day in self.days_of_month
        dow = (t.isoweekday() % 7) in self.days_of_week
        return (dom or dow) if self.either_day else (dom and dow)


def _number(text: str, names: dict[str, int]) -> int:
    lowered = text.lower()
    if lowered in names:
        return names[lowered]
    if not re.fullmatch(r"-?\d+", text):
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": '
                        "invalid syntax")
    value = int(text)
    if value < 0:
        raise CronError(f"negative number ({value}) not allowed: {text}")
    return value


def _range(expr: str, low: int, high: int, names: dict[str, int]) -> tuple[set[int], bool]:
    """The values of one comma-separated part; whether it was a star."""
    range_and_step = expr.split("/")
    if len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expr}")
    bounds = range_and_step[0].split("-")
    if len(bounds) > 2:
        raise CronError(f"too many hyphens: {expr}")
    star = bounds[0] in ("*", "?")
    if star:
        start, end = low, high
    else:
        start = _number(bounds[0], names)
        end = _number(bounds[1], names) if len(bounds) == 2 else start
    step = 1
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], {})
        if len(bounds) == 1 and not star:  # "n/step" runs to the field's maximum
            end = high
        if step <= 0:
            raise CronError(f"step of range should be a positive number: {expr}")
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    return set(range(start, end + 1, step)), star and step == 1


def _field(text: str, index: int) -> tuple[frozenset[int], bool]:
    low, high, names = _FIELDS[index]
    values: set[int] = set()
    star = False
    for part in text.split(","):
        found, was_star = _range(part, low, high, names)
        values |= found
        star = star or was_star
    return frozenset(values), star


def _duration(text: str) -> float:
    if not text or _DURATION_PART.sub("", text) != "":
        raise CronError(f'failed to parse duration @every {text}: time: invalid duration "{text}"')
    return sum(float(n) * _DURATION_UNITS[unit] for n, unit in _DURATION_PART.findall(text))


def parse_schedule(spec: str) -> Schedule:
    """Parse a standard cron schedule; raises :class:`CronError` with robfig's message."""
    if not spec:
        raise CronError("empty spec string")
    stripped = spec.strip()
    if stripped.startswith("@"):
        if stripped.startswith("@every "):
            return Schedule(every=_duration(stripped[len("@every "):].strip()))
        expanded = _DESCRIPTORS.get(stripped)
        if expanded is None:
            raise CronError(f"unrecognized descriptor: {stripped}")
        stripped = expanded
    fields = stripped.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    minutes, _ = _field(fields[0], 0)
    hours, _ = _field(fields[1], 1)
    days_of_month, dom_star = _field(fields[2], 2)
    months, _ = _field(fields[3], 3)
    days_of_week, dow_star = _field(fields[4], 4)
    return Schedule(
        minutes=minutes,
        hours=hours,
        days_of_month=days_of_month,
        months=months,
        days_of_week=days_of_week,
        either_day=not dom_star and not dow_star,
    )
