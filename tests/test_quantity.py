"""fakeapi.quantity: parsing, canonical form, exact arithmetic, apimachinery's error messages."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fakeapi.quantity import (
    FORMAT_ERROR,
    SUFFIX_ERROR,
    QuantityFormat,
    parse_quantity,
    quantity_from_int,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("1Ki", 1024),
        ("2Mi", 2 * 2**20),
        ("1Gi", 2**30),
        ("1Ti", 2**40),
        ("1Pi", 2**50),
        ("1Ei", 2**60),
        ("1n", Fraction(1, 10**9)),
        ("1u", Fraction(1, 10**6)),
        ("500m", Fraction(1, 2)),
        ("1k", 1000),
        ("1M", 10**6),
        ("1G", 10**9),
        ("1T", 10**12),
        ("1P", 10**15),
        ("1E", 10**18),
        ("1e3", 1000),
        ("1E3", 1000),
        ("2.5e-3", Fraction(25, 10**4)),
        ("1.5Gi", 3 * 2**29),
        (".5", Fraction(1, 2)),
        ("5.", 5),
        ("+7", 7),
        ("-1.5k", -1500),
    ],
)
def test_parses_every_suffix_family_exactly(text: str, value: Fraction | int) -> None:
    assert parse_quantity(text).value == value


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ki", "512"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("1.001k", "1001"),
        ("0.1", "100m"),
        ("1000m", "1"),
        ("1e3", "1e3"),
        ("12e6", "12e6"),
        ("0", "0"),
        ("0Gi", "0"),
        ("-1.5Gi", "-1536Mi"),
    ],
)
def test_canonical_string_keeps_suffix_family_and_largest_whole_suffix(
    text: str, canonical: str
) -> None:
    assert str(parse_quantity(text)) == canonical


def test_precision_finer_than_nano_rounds_up_away_from_zero() -> None:
    assert str(parse_quantity("0.0000000001")) == "1n"
    assert str(parse_quantity("-0.0000000001")) == "-1n"
    assert str(parse_quantity("1.0000000001")) == "1000000001n"


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", ".", "1 Gi", "--1", "Gi"])
def test_malformed_text_reports_the_format_regex(text: str) -> None:
    with pytest.raises(ValueError, match="quantities must match the regular expression") as err:
        parse_quantity(text)
    assert str(err.value) == FORMAT_ERROR


@pytest.mark.parametrize("text", ["1K", "5ki", "1e", "1Gii"])
def test_unknown_suffix_reports_suffix_error(text: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_quantity(text)
    assert str(err.value) == SUFFIX_ERROR


def test_equality_and_order_compare_values_across_formats() -> None:
    assert parse_quantity("1Ki") == parse_quantity("1024")
    assert hash(parse_quantity("1Ki")) == hash(parse_quantity("1024"))
    assert parse_quantity("1Gi") > parse_quantity("1G")
    assert parse_quantity("999m") < parse_quantity("1")
    assert parse_quantity("2").compare(parse_quantity("2000m")) == 0
    assert sorted(["1Gi", "1M", "10"], key=parse_quantity) == ["10", "1M", "1Gi"]


def test_arithmetic_is_exact_and_keeps_the_receivers_format() -> None:
    total = parse_quantity("1Gi") + parse_quantity("512Mi")
    assert str(total) == "1536Mi"
    assert total.format is QuantityFormat.BINARY_SI
    assert parse_quantity("0.1") + parse_quantity("0.2") == parse_quantity("300m")
    assert str(parse_quantity("1") - parse_quantity("1500m")) == "-500m"
    assert (-parse_quantity("2k")).sign() == -1


def test_integer_conversion_rejects_fractions_and_int64_overflow() -> None:
    assert parse_quantity("2Gi").as_int64() == 2 * 2**30
    assert parse_quantity("1500m").is_integer() is False
    with pytest.raises(OverflowError):
        parse_quantity("1500m").as_int64()
    with pytest.raises(OverflowError):
        parse_quantity("16Ei").as_int64()
    assert parse_quantity("1500m").ceil_int() == 2
    assert parse_quantity("1.5").as_float() == 1.5


def test_quantity_from_int_prints_in_the_requested_family() -> None:
    assert str(quantity_from_int(4096, QuantityFormat.BINARY_SI)) == "4Ki"
    assert str(quantity_from_int(4000)) == "4k"
