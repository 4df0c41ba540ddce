"""Reading stored timestamps back into Python."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from fakeapi.timefmt import parse_time


def test_rfc3339_with_zone_or_offset_and_fraction_parses_to_an_aware_time() -> None:
    assert parse_time("2026-01-01T00:00:00Z") == datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_time("2026-01-01T02:00:00.5+02:00") == datetime(
        2026, 1, 1, 2, 0, 0, 500000, tzinfo=timezone(timedelta(hours=2))
    )


def test_a_time_stored_in_go_year_zero_reads_as_pythons_first_instant() -> None:
    assert parse_time("0000-12-31T22:00:00Z") == datetime.min.replace(tzinfo=UTC)
