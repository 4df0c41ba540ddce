"""CEL's standard functions: ``size``, the type conversions and ``dyn``.

The conversions mirror cel-go's edge cases (int64 and uint64 overflow, the strings ``bool()``
accepts, how a double prints) because a selector that errors or differs here would allocate
differently from upstream. Strings convert to numbers by Go's ``strconv`` rules, which are
stricter than Python's ``int()``/``float()`` (no spaces, underscores or non-ASCII digits; hex
floats need a ``p`` exponent; out-of-range values are errors), and doubles print like Go's
``%g``. String, list and Kubernetes functions live in their own libraries.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from fakeapi.cel.ast import UInt
from fakeapi.cel.errors import EvalError
from fakeapi.cel.overloads import Function, arity
from fakeapi.cel.semver import Semver
from fakeapi.cel.time_library import format_duration, format_timestamp
from fakeapi.cel.time_values import Duration, Timestamp
from fakeapi.cel.values import CelType, no_overload, type_name
from fakeapi.quantity import INT64_MAX, INT64_MIN, Quantity

__all__ = ["STANDARD_GLOBALS", "STANDARD_MEMBERS", "format_double", "to_string"]


def _size(*args: object) -> object:
    arity("size", args, 1)
    value = args[0]
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return len(value)
    raise no_overload("size", value)


def _to_int(*args: object) -> object:
    arity("int", args, 1)
    value = args[0]
    if isinstance(value, bool):
        raise no_overload("int", value)
    if isinstance(value, int):
        if value > INT64_MAX:
            raise EvalError("integer overflow")
        return int(value)
    if isinstance(value, float):
        # cel-go rejects MinInt64 itself too: float64(MinInt64) is a bound it does not accept.
        if math.isnan(value) or not INT64_MIN < value < 2.0**63:
            raise EvalError("integer overflow")
        return int(value)
    if isinstance(value, str):
        if _GO_INT.fullmatch(value) is None or not INT64_MIN <= int(value) <= INT64_MAX:
            raise EvalError("type conversion error from 'string' to 'int'")
        return int(value)
    if isinstance(value, Timestamp):
        return value.nanos // 1_000_000_000
    if isinstance(value, Duration):
        return value.nanos
    raise no_overload("int", value)


# strconv.ParseInt / ParseUint / ParseFloat syntax (base 10; floats also hex and inf/nan).
_GO_INT = re.compile(r"[+-]?[0-9]+")
_GO_UINT = re.compile(r"[0-9]+")
_GO_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GO_HEX_FLOAT = re.compile(
    r"[+-]?0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
)
_GO_FLOAT_SPECIALS = {
    **dict.fromkeys(("inf", "+inf", "infinity", "+infinity"), math.inf),
    **dict.fromkeys(("-inf", "-infinity"), -math.inf),
    "nan": math.nan,
}


def _parse_go_float(text: str) -> float | None:
    special = _GO_FLOAT_SPECIALS.get(text.lower())
    if special is not None:
        return special
    try:
        if _GO_FLOAT.fullmatch(text):
            parsed = float(text)
        elif _GO_HEX_FLOAT.fullmatch(text):
            parsed = float.fromhex(text)
        else:
            return None
    except OverflowError:
        return None
    return None if math.isinf(parsed) else parsed  # strconv reports a range error


def _to_uint(*args: object) -> object:
    arity("uint", args, 1)
    value = args[0]
    if isinstance(value, bool):
        raise no_overload("uint", value)
    if isinstance(value, (int, float)):
        if math.isnan(value) or not 0 <= value < 2.0**64:
            raise EvalError("unsigned integer overflow")
        return UInt(int(value))
    if isinstance(value, str):
        if _GO_UINT.fullmatch(value) is None or int(value) > 2**64 - 1:
            raise EvalError("type conversion error from 'string' to 'uint'")
        return UInt(int(value))
    raise no_overload("uint", value)


def _to_double(*args: object) -> object:
    arity("double", args, 1)
    value = args[0]
    if isinstance(value, bool):
        raise no_overload("double", value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        parsed = _parse_go_float(value)
        if parsed is None:
            raise EvalError("type conversion error from 'string' to 'double'")
        return parsed
    raise no_overload("double", value)


def _to_string(*args: object) -> object:
    arity("string", args, 1)
    value = args[0]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, float):
        return _fmt_double(value)
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(value, Timestamp):
        return format_timestamp(value)
    if isinstance(value, Duration):
        return format_duration(value)
    if isinstance(value, (Quantity, Semver)) or getattr(value, "cel_type_name", "") in (
        "net.IP",
        "net.CIDR",
    ):
        return str(value)
    raise no_overload("string", value)


def _fmt_double(value: float) -> str:
    """Go's ``%g``: the shortest round-trip digits, in exponent form when the decimal exponent
    is below -4 or at least 6 (``1e+06``, ``1.5e-07``), else positional (``123456``)."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    _, digit_tuple, exp = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exp += len(digit_tuple) - len(digits)  # value = sign * digits * 10**exp
    sign = "-" if value < 0 else ""
    exponent = len(digits) - 1 + exp
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{exponent:+03d}"
    if exp >= 0:
        return sign + digits + "0" * exp
    point = len(digits) + exp
    if point > 0:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    return f"{sign}0.{'0' * -point}{digits}"


def format_double(value: float) -> str:
    """A double as CEL's string() prints it."""
    return _fmt_double(value)


def to_string(value: object) -> str:
    """CEL's string() conversion (raises :class:`EvalError` like the function)."""
    return str(_to_string(value))


def _type(*args: object) -> object:
    arity("type", args, 1)
    value = args[0]
    if isinstance(value, Quantity):
        return CelType("kubernetes.Quantity")
    return CelType(type_name(value))


def _to_bool(*args: object) -> object:
    arity("bool", args, 1)
    value = args[0]
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "True", "TRUE", "t", "T", "1"):
            return True
        if value in ("false", "False", "FALSE", "f", "F", "0"):
            return False
        raise EvalError("type conversion error from 'string' to 'bool'")
    raise no_overload("bool", value)


def _to_bytes(*args: object) -> object:
    arity("bytes", args, 1)
    value = args[0]
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise no_overload("bytes", value)


def _dyn(*args: object) -> object:
    arity("dyn", args, 1)
    return args[0]


STANDARD_GLOBALS: dict[str, Function] = {
    "size": _size,
    "int": _to_int,
    "uint": _to_uint,
    "double": _to_double,
    "string": _to_string,
    "bool": _to_bool,
    "bytes": _to_bytes,
    "dyn": _dyn,
    "type": _type,
}

STANDARD_MEMBERS: dict[str, Function] = {"size": _size}
