"""CEL ``google.protobuf.Timestamp`` and ``google.protobuf.Duration`` values.

Both are whole nanoseconds (a timestamp counts from the Unix epoch), so arithmetic is exact
integer arithmetic and the ranges cel-go enforces are simple bounds: timestamps from
0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, durations within Go's int64
nanoseconds (about ±292 years).
This module has no dependencies so that the value layer can do arithmetic on them.
"""

from __future__ import annotations

from functools import total_ordering

from fakeapi.cel.errors import EvalError

__all__ = ["Duration", "Timestamp", "add_time", "sub_time"]

NANOS = 1_000_000_000
MIN_TIMESTAMP = -62_135_596_800 * NANOS
MAX_TIMESTAMP = 253_402_300_799 * NANOS + NANOS - 1
MAX_DURATION = 2**63 - 1  # Go's time.Duration: int64 nanoseconds (about 292 years)


@total_ordering
class Timestamp:
    __slots__ = ("nanos",)
    cel_type_name = "google.protobuf.Timestamp"

    def __init__(self, nanos: int) -> None:
        if not MIN_TIMESTAMP <= nanos <= MAX_TIMESTAMP:
            raise EvalError("timestamp out of range")
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.nanos == self.nanos

    def __lt__(self, other: Timestamp) -> bool:
        return self.nanos < other.nanos

    def __hash__(self) -> int:
        return hash(("ts", self.nanos))

    def __repr__(self) -> str:
        return f"Timestamp({self.nanos})"


@total_ordering
class Duration:
    __slots__ = ("nanos",)
    cel_type_name = "google.protobuf.Duration"

    def __init__(self, nanos: int) -> None:
        if not -MAX_DURATION <= nanos <= MAX_DURATION:
            raise EvalError("duration out of range")
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.nanos == self.nanos

    def __lt__(self, other: Duration) -> bool:
        return self.nanos < other.nanos

    def __hash__(self) -> int:
        return hash(("dur", self.nanos))

    def __repr__(self) -> str:
        return f"Duration({self.nanos})"


def add_time(left: object, right: object) -> object | None:
    """``left + right`` for timestamp/duration operands, None for other types."""
    if isinstance(left, Duration) and isinstance(right, Duration):
        return Duration(left.nanos + right.nanos)
    if isinstance(left, Timestamp) and isinstance(right, Duration):
        return Timestamp(left.nanos + right.nanos)
    if isinstance(left, Duration) and isinstance(right, Timestamp):
        return Timestamp(left.nanos + right.nanos)
    return None


def sub_time(left: object, right: object) -> object | None:
    """``left - right`` for timestamp/duration operands, None for other types."""
    if isinstance(left, Duration) and isinstance(right, Duration):
        return Duration(left.nanos - right.nanos)
    if isinstance(left, Timestamp) and isinstance(right, Duration):
        return Timestamp(left.nanos - right.nanos)
    if isinstance(left, Timestamp) and isinstance(right, Timestamp):
        return Duration(left.nanos - right.nanos)
    return None
