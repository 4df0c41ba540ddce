"""Kubernetes resource quantities (``1Gi``, ``500m``, ``2e3``) with exact arithmetic.

The API server validates capacity values and request policies with these, the CEL environment
exposes them through ``quantity()``, and the structured allocator adds and compares them while
it accounts consumed capacity and counters. All three must agree to the last nano-unit, so values
are held as :class:`fractions.Fraction` (never floats) and rounded the way apimachinery rounds:
anything finer than ``1n`` is rounded up, away from zero, when parsed.

The canonical string form follows ``resource.Quantity.String()``: the suffix family of the parsed
text (binary, decimal, or exponent) is kept, the mantissa is an integer, and the largest suffix
that keeps it an integer is chosen. Binary quantities that are fractional or smaller than 1024 in
magnitude are printed with decimal suffixes, as upstream does.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache, total_ordering

__all__ = [
    "parse_quantity_cached",
    "Quantity",
    "QuantityError",
    "QuantityFormat",
    "parse_quantity",
    "quantity_from_int",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

_NANO = Fraction(1, 10**9)

_QUANTITY_RE = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")
_EXPONENT_RE = re.compile(r"^[eE]([+-]?[0-9]+)$")

_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_DECIMAL_BY_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_SHIFT = {shift: suffix for suffix, shift in _BINARY_SUFFIXES.items()}

FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR = "unable to parse quantity's suffix"


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity; the message is apimachinery's."""


class QuantityFormat(StrEnum):
    """The suffix family a quantity was written in; it decides the canonical form."""

    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"
    DECIMAL_EXPONENT = "DecimalExponent"


@total_ordering
class Quantity:
    """An exact quantity: a rational value plus the suffix family used to print it.

    Equality, ordering and hashing use the value only (``1Ki == 1024``).
    """

    __slots__ = ("_canonical", "format", "value")

    def __init__(
        self, value: Fraction | int, fmt: QuantityFormat = QuantityFormat.DECIMAL_SI
    ) -> None:
        self.value = Fraction(value)
        self.format = fmt
        self._canonical: str | None = None

    # -- comparison -------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def compare(self, other: Quantity) -> int:
        """-1, 0 or 1 like ``Quantity.Cmp``."""
        if self.value < other.value:
            return -1
        return 1 if self.value > other.value else 0

    # -- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.value + other.value, self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        return Quantity(self.value - other.value, self.format)

    def __neg__(self) -> Quantity:
        return Quantity(-self.value, self.format)

    def sign(self) -> int:
        """-1, 0 or 1."""
        return (self.value > 0) - (self.value < 0)

    def is_integer(self) -> bool:
        """True when the value is a whole number that fits an int64 (CEL ``isInteger``)."""
        return self.value.denominator == 1 and INT64_MIN <= self.value.numerator <= INT64_MAX

    def as_int64(self) -> int:
        """The value as an int64; raises :class:`OverflowError` on loss of precision or overflow."""
        if not self.is_integer():
            raise OverflowError("cannot convert value to integer")
        return self.value.numerator

    def as_float(self) -> float:
        """The closest float (CEL ``asApproximateFloat``)."""
        return float(self.value)

    def ceil_int(self) -> int:
        """The value rounded up to a whole number (``Quantity.Value()``)."""
        return math.ceil(self.value)

    # -- printing -----------------------------------------------------------------------------
    def __str__(self) -> str:
        if self._canonical is None:
            self._canonical = _canonical(self.value, self.format)
        return self._canonical

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def quantity_from_int(value: int, fmt: QuantityFormat = QuantityFormat.DECIMAL_SI) -> Quantity:
    """A quantity for a whole number, as ``resource.NewQuantity`` builds it."""
    return Quantity(Fraction(value), fmt)


def parse_quantity(text: str) -> Quantity:
    """Parse a quantity string; raises :class:`QuantityError` with apimachinery's message."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    match = _QUANTITY_RE.match(text)
    if match is None:
        raise QuantityError(FORMAT_ERROR)
    sign, whole, frac, suffix = match.groups()
    if not whole and not frac:
        raise QuantityError(FORMAT_ERROR)
    mantissa = Fraction(int(whole or "0"))
    if frac:
        mantissa += Fraction(int(frac), 10 ** len(frac))
    if sign == "-":
        mantissa = -mantissa

    if suffix in _BINARY_SUFFIXES:
        value = mantissa * (2 ** _BINARY_SUFFIXES[suffix])
        fmt = QuantityFormat.BINARY_SI
    elif suffix in _DECIMAL_SUFFIXES:
        value = mantissa * Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
        fmt = QuantityFormat.DECIMAL_SI
    else:
        exp_match = _EXPONENT_RE.match(suffix)
        if exp_match is None:
            if re.fullmatch(r"[eEinumkKMGTP]*[-+]?[0-9]*", suffix):
                raise QuantityError(SUFFIX_ERROR)
            raise QuantityError(FORMAT_ERROR)
        exponent = int(exp_match.group(1))
        if abs(exponent) > 1000:
            raise QuantityError(SUFFIX_ERROR)
        value = mantissa * Fraction(10) ** exponent
        fmt = QuantityFormat.DECIMAL_EXPONENT
    return Quantity(_round_to_nano(value), fmt)


def _round_to_nano(value: Fraction) -> Fraction:
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    rounded = math.ceil(scaled) if scaled > 0 else math.floor(scaled)
    return Fraction(rounded) * _NANO


def _canonical(value: Fraction, fmt: QuantityFormat) -> str:
    if value == 0:
        return "0"
    if fmt is QuantityFormat.BINARY_SI:
        if value.denominator == 1 and abs(value) >= 1024:
            return _binary_form(value.numerator)
        fmt = QuantityFormat.DECIMAL_SI
    mantissa, exponent = _decimal_mantissa(value)
    if fmt is QuantityFormat.DECIMAL_EXPONENT:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    if exponent > 18:
        return f"{mantissa * 10 ** (exponent - 18)}E"
    return f"{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"


def _binary_form(number: int) -> str:
    shift = 0
    while shift < 60 and number % (1 << (shift + 10)) == 0:
        shift += 10
    return f"{number >> shift}{_BINARY_BY_SHIFT.get(shift, '')}"


def _decimal_mantissa(value: Fraction) -> tuple[int, int]:
    """Integer mantissa and the largest exponent (a multiple of 3, at least -9) keeping it whole."""
    exponent = -9
    mantissa = value * 10**9
    # Values are rounded to nano units on parse; arithmetic keeps them there.
    if mantissa.denominator != 1:
        mantissa = Fraction(math.ceil(mantissa))
    number = mantissa.numerator
    while number % 1000 == 0:
        number //= 1000
        exponent += 3
    return number, exponent


@lru_cache(maxsize=4096)
def parse_quantity_cached(text: str) -> Quantity:
    """``parse_quantity(text)``, memoised: every pod write reads the same few requests and
    limits. The result is shared, so callers only read it; a bad quantity raises every time."""
    return parse_quantity(text)
