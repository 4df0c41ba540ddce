"""Guard for fakeapi.rules.cron: CronJob schedules as robfig/cron's ParseStandard reads them.

Cases follow robfig/cron's parser and spec tests: fields, ranges, steps, names, descriptors, the
either-day rule when both day fields are restricted, and the error texts the API server passes on.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakeapi.rules.cron import CronError, parse_schedule

START = datetime(2026, 1, 1, 0, 3, tzinfo=UTC)  # a Thursday


def _at(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# (schedule, the first activation after START)
NEXT = [
    ("* * * * *", _at(2026, 1, 1, 0, 4)),
    ("*/5 * * * *", _at(2026, 1, 1, 0, 5)),
    ("0 * * * *", _at(2026, 1, 1, 1, 0)),
    ("30 9 * * *", _at(2026, 1, 1, 9, 30)),
    ("0 9 * * mon", _at(2026, 1, 5, 9, 0)),
    ("0 9 * * 1-5", _at(2026, 1, 1, 9, 0)),
    ("0 0 1 * *", _at(2026, 2, 1, 0, 0)),
    ("0 0 * feb *", _at(2026, 2, 1, 0, 0)),
    ("10-20/5 * * * *", _at(2026, 1, 1, 0, 10)),
    ("5/20 * * * *", _at(2026, 1, 1, 0, 5)),
    ("0 0 13 * 5", _at(2026, 1, 2, 0, 0)),  # both days restricted: either matches (Friday)
    ("@hourly", _at(2026, 1, 1, 1, 0)),
    ("@daily", _at(2026, 1, 2, 0, 0)),
    ("@weekly", _at(2026, 1, 4, 0, 0)),
    ("@monthly", _at(2026, 2, 1, 0, 0)),
    ("@yearly", _at(2027, 1, 1, 0, 0)),
    ("@every 90s", _at(2026, 1, 1, 0, 4, 30)),
]


@pytest.mark.parametrize(("schedule", "expected"), NEXT)
def test_the_next_activation_follows_the_schedule(schedule: str, expected: datetime) -> None:
    assert parse_schedule(schedule).next_after(START) == expected


def test_activations_between_two_instants_are_listed_in_order() -> None:
    got = list(parse_schedule("*/20 * * * *").times_between(START, _at(2026, 1, 1, 1, 0)))
    assert got == [_at(2026, 1, 1, 0, 20), _at(2026, 1, 1, 0, 40), _at(2026, 1, 1, 1, 0)]


# (schedule, robfig's message)
ERRORS = [
    ("", "empty spec string"),
    ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
    ("61 * * * *", "end of range (61) above maximum (59): 61"),
    ("* 0-24 * * *", "end of range (24) above maximum (23): 0-24"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/1/2 * * * *", "too many slashes: */1/2"),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
]


@pytest.mark.parametrize(("schedule", "message"), ERRORS)
def test_bad_schedules_fail_with_robfigs_messages(schedule: str, message: str) -> None:
    with pytest.raises(CronError) as failure:
        parse_schedule(schedule)
    assert str(failure.value) == message
