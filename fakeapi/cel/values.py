"""CEL value semantics on plain Python values.

Values are native Python objects so that evaluation needs no wrapping: ``bool``, ``int`` (int64),
:class:`~fakeapi.cel.ast.UInt`, ``float``, ``str``, ``bytes``, ``None``, ``list``/``tuple``,
``dict``, :class:`~fakeapi.quantity.Quantity` and :class:`~fakeapi.cel.semver.Semver`. This
module supplies what Python's operators get wrong for CEL: ``bool`` is not a number, integer
arithmetic is checked for int64 overflow and truncates toward zero, numbers compare across types
(CrossTypeNumericComparisons), equality is heterogeneous (``1 == "1"`` is false, not an error), and
map keys ``true`` and ``1`` are different keys although Python's ``True == 1``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from fakeapi.cel.ast import UInt
from fakeapi.cel.errors import EvalError
from fakeapi.cel.semver import Semver
from fakeapi.cel.time_values import Duration, Timestamp, add_time, sub_time
from fakeapi.quantity import Quantity

__all__ = [
    "MISSING",
    "NONE",
    "CelType",
    "DomainMap",
    "KeyedList",
    "OptionalValue",
    "add",
    "compare",
    "div",
    "equals",
    "map_find",
    "mod",
    "mul",
    "negate",
    "sub",
    "type_name",
]

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1
UINT_MAX = 2**64 - 1


class DomainMap(dict[str, object]):
    """``device.attributes`` / ``device.capacity``: an unknown domain reads as an empty map."""

    __slots__ = ()


class KeyedList(list[object]):
    """A list whose items are identified by value or key rather than position: a Kubernetes
    list of type ``set`` or ``map`` (CRD schemas). Equality ignores order and ``+`` merges
    instead of concatenating; subclasses say how (see ``fakeapi.apiextensions.rules``)."""

    __slots__ = ()

    def cel_equals(self, other: list[object] | tuple[object, ...]) -> bool:
        raise NotImplementedError

    def cel_add(self, other: list[object] | tuple[object, ...]) -> list[object]:
        raise NotImplementedError


EMPTY_MAP: Mapping[str, object] = {}

MISSING = object()
"""What :func:`map_find` returns for an absent key."""


def map_find(mapping: Mapping[object, object], key: object) -> object:
    """``mapping[key]`` with CEL key equality, or :data:`MISSING`.

    Numeric keys match across int, uint and double by value, which Python's hashing already
    does; but a bool key never matches a number, where Python finds ``True`` under ``1``.
    Only 0 and 1 can collide with a bool, so string keys (every key the DRA maps have) take
    the plain dictionary lookup.
    """
    try:
        value = mapping[key]
    except (KeyError, TypeError):
        return MISSING
    if isinstance(key, (int, float)) and (key == 0 or key == 1):
        is_bool = isinstance(key, bool)
        if not any(isinstance(stored, bool) is is_bool and stored == key for stored in mapping):
            return MISSING
    return value


class OptionalValue:
    """An ``optional(T)`` value: :data:`NONE` or a present value (which may be null)."""

    __slots__ = ("value",)

    def __init__(self, value: object = MISSING) -> None:
        self.value = value

    @property
    def has_value(self) -> bool:
        return self.value is not MISSING

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OptionalValue):
            return NotImplemented
        if not (self.has_value and other.has_value):
            return self.has_value is other.has_value
        return equals(self.value, other.value)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value else "optional.none()"


NONE = OptionalValue()


class CelType:
    """A type as a value (``type(1) == int``), compared by name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name


def type_name(value: object) -> str:
    """CEL type name of a runtime value, as used in error messages."""
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Quantity):
        return "kubernetes.Quantity"
    if isinstance(value, Semver):
        return "kubernetes.Semver"
    if isinstance(value, OptionalValue):
        return "optional_type"
    if isinstance(value, CelType):
        return "type"
    return str(getattr(value, "cel_type_name", type(value).__name__))


def no_overload(op: str, *values: object) -> EvalError:
    return EvalError(f"no such overload: {op}({', '.join(type_name(v) for v in values)})")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def equals(left: object, right: object) -> bool:
    """CEL heterogeneous equality."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _is_number(left) and _is_number(right):
        if (isinstance(left, float) and math.isnan(left)) or (
            isinstance(right, float) and math.isnan(right)
        ):
            return False
        a, b = _numeric_pair(left, right)  # type: ignore[arg-type]
        return a == b
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        if isinstance(left, KeyedList):
            return left.cel_equals(right)
        if isinstance(right, KeyedList):
            return right.cel_equals(left)
        return len(left) == len(right) and all(
            equals(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict) and isinstance(right, dict):
        if len(left) != len(right):
            return False
        for key, value in left.items():
            other = map_find(right, key)
            if other is MISSING or not equals(value, other):
                return False
        return True
    if type(left) is not type(right):
        return False
    return left == right


def _numeric_pair(left: float, right: float) -> tuple[float, float]:
    """Mixed int/uint-and-double operands as cel-go compares them: the integer is converted to
    a double (losing precision), after doubles outside the integer range are placed below or
    above every integer."""
    if isinstance(left, float) is isinstance(right, float):
        return left, right
    number = left if isinstance(left, float) else right
    integer = right if isinstance(left, float) else left
    low = 0.0 if isinstance(integer, UInt) else float(INT_MIN)
    high = float(UINT_MAX) if isinstance(integer, UInt) else float(INT_MAX)
    if number < low:
        converted = math.inf  # every integer of the type is greater
    elif number > high:
        converted = -math.inf
    else:
        converted = float(integer)
    return (number, converted) if isinstance(left, float) else (converted, number)


def compare(op: str, left: object, right: object) -> int:
    """-1/0/1 for ordered comparisons; raises ``no such overload`` for unordered types."""
    a: object
    b: object
    if _is_number(left) and _is_number(right):
        a, b = _numeric_pair(left, right)  # type: ignore[arg-type]
    elif isinstance(left, bool) and isinstance(right, bool):
        a, b = int(left), int(right)
    elif (
        (isinstance(left, str) and isinstance(right, str))
        or (isinstance(left, bytes) and isinstance(right, bytes))
        or (isinstance(left, Timestamp) and isinstance(right, Timestamp))
        or (isinstance(left, Duration) and isinstance(right, Duration))
    ):
        a, b = left, right
    else:
        raise no_overload(op, left, right)
    if a < b:  # type: ignore[operator]
        return -1
    return 1 if a > b else 0  # type: ignore[operator]


def _check_int(value: int) -> int:
    if not INT_MIN <= value <= INT_MAX:
        raise EvalError("integer overflow")
    return value


def _check_uint(value: int) -> UInt:
    if not 0 <= value <= UINT_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(value)


def _int_kind(left: object, right: object) -> str | None:
    if isinstance(left, bool) or isinstance(right, bool):
        return None
    if isinstance(left, UInt) and isinstance(right, UInt):
        return "uint"
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and not isinstance(left, UInt)
        and not isinstance(right, UInt)
    ):
        return "int"
    return None


def add(left: object, right: object) -> object:
    kind = _int_kind(left, right)
    if kind == "int":
        return _check_int(left + right)  # type: ignore[operator]
    if kind == "uint":
        return _check_uint(left + right)  # type: ignore[operator]
    if isinstance(left, float) and isinstance(right, float):
        return left + right
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, bytes) and isinstance(right, bytes):
        return left + right
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        if isinstance(left, KeyedList):
            return left.cel_add(right)
        return [*left, *right]
    summed = add_time(left, right)
    if summed is not None:
        return summed
    raise no_overload("_+_", left, right)


def sub(left: object, right: object) -> object:
    kind = _int_kind(left, right)
    if kind == "int":
        return _check_int(left - right)  # type: ignore[operator]
    if kind == "uint":
        return _check_uint(left - right)  # type: ignore[operator]
    if isinstance(left, float) and isinstance(right, float):
        return left - right
    difference = sub_time(left, right)
    if difference is not None:
        return difference
    raise no_overload("_-_", left, right)


def mul(left: object, right: object) -> object:
    kind = _int_kind(left, right)
    if kind == "int":
        return _check_int(left * right)  # type: ignore[operator]
    if kind == "uint":
        return _check_uint(left * right)  # type: ignore[operator]
    if isinstance(left, float) and isinstance(right, float):
        return left * right
    raise no_overload("_*_", left, right)


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def div(left: object, right: object) -> object:
    kind = _int_kind(left, right)
    if kind is not None:
        if right == 0:
            raise EvalError("division by zero")
        result = _trunc_div(left, right)  # type: ignore[arg-type]
        return _check_int(result) if kind == "int" else _check_uint(result)
    if isinstance(left, float) and isinstance(right, float):
        if right == 0.0:
            if left == 0.0 or math.isnan(left):
                return math.nan
            return math.copysign(math.inf, left) * math.copysign(1.0, right)
        return left / right
    raise no_overload("_/_", left, right)


def mod(left: object, right: object) -> object:
    kind = _int_kind(left, right)
    if kind is not None:
        if right == 0:
            raise EvalError("modulus by zero")
        if kind == "int" and left == INT_MIN and right == -1:
            raise EvalError("integer overflow")  # as cel-go, though the remainder would be 0
        a, b = left, right
        result = a - b * _trunc_div(a, b)  # type: ignore[operator, arg-type]
        return _check_int(result) if kind == "int" else _check_uint(result)
    raise no_overload("_%_", left, right)


def negate(value: object) -> object:
    if isinstance(value, (bool, UInt)):
        raise no_overload("-_", value)
    if isinstance(value, int):
        return _check_int(-value)
    if isinstance(value, float):
        return -value
    raise no_overload("-_", value)
