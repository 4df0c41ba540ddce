"""CEL's standard functions: ``size``, the type conversions and ``dyn``.

The conversions mirror cel-go's edge cases (int64 and uint64 overflow, the strings ``bool()``
accepts, how a double prints) because a selector that errors or differs here would allocate
differently from upstream. String, list and Kubernetes functions live in their own libraries.
"""

from __future__ import annotations

import math

from fakeapi.quantity import INT64_MAX, INT64_MIN, Quantity

from .ast import UInt
from .errors import EvalError
from .overloads import Function, arity
from .semver import Semver
from .values import no_overload

__all__ = ["STANDARD_GLOBALS", "STANDARD_MEMBERS"]


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
        if math.isnan(value) or not INT64_MIN <= value < 2.0**63:
            raise EvalError("integer overflow")
        return int(value)
    if isinstance(value, str):
        try:
            parsed = int(value, 10)
        except ValueError:
            raise EvalError("type conversion error from 'string' to 'int'") from None
        if not INT64_MIN <= parsed <= INT64_MAX:
            raise EvalError("integer overflow")
        return parsed
    raise no_overload("int", value)


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
        try:
            return UInt(int(value, 10))
        except ValueError:
            raise EvalError("type conversion error from 'string' to 'uint'") from None
    raise no_overload("uint", value)


def _to_double(*args: object) -> object:
    arity("double", args, 1)
    value = args[0]
    if isinstance(value, bool):
        raise no_overload("double", value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise EvalError("type conversion error from 'string' to 'double'") from None
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
    if isinstance(value, (Quantity, Semver)):
        return str(value)
    raise no_overload("string", value)


def _fmt_double(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def _to_bool(*args: object) -> object:
    arity("bool", args, 1)
    value = args[0]
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "True", "TRUE", "t", "1"):
            return True
        if value in ("false", "False", "FALSE", "f", "0"):
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
}

STANDARD_MEMBERS: dict[str, Function] = {"size": _size}
