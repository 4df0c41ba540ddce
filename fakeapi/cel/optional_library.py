"""CEL optional values (cel-go's OptionalTypes, enabled by Kubernetes since 1.28).

``optional.of(x)``, ``optional.none()`` and ``optional.ofNonZeroValue(x)`` make optional
values; ``hasValue()``, ``value()``, ``orValue(default)`` and ``or(other)`` read them. The
syntax that produces them (``a.?b``, ``m[?k]``, ``[?x]``, ``{?k: v}``) and the ``optMap`` /
``optFlatMap`` macros live in the parser and the program.
"""

from __future__ import annotations

from fakeapi.cel.errors import EvalError
from fakeapi.cel.overloads import Function, arity
from fakeapi.cel.values import NONE, OptionalValue, no_overload

__all__ = ["OPTIONAL_GLOBALS", "OPTIONAL_MEMBERS"]


def _of(*args: object) -> object:
    arity("optional.of", args, 1)
    return OptionalValue(args[0])


def _none(*args: object) -> object:
    arity("optional.none", args, 0)
    return NONE


def _is_zero(value: object) -> bool:
    if value is None or value is False:
        return True
    if isinstance(value, (int, float, str, bytes, list, tuple, dict)) and not isinstance(
        value, bool
    ):
        return not value
    if isinstance(value, OptionalValue):
        return not value.has_value
    return False


def _of_non_zero(*args: object) -> object:
    arity("optional.ofNonZeroValue", args, 1)
    return NONE if _is_zero(args[0]) else OptionalValue(args[0])


def _optional(name: str, args: tuple[object, ...], count: int) -> OptionalValue:
    if len(args) != count or not isinstance(args[0], OptionalValue):
        raise no_overload(name, *args)
    return args[0]


def _has_value(*args: object) -> object:
    return _optional("hasValue", args, 1).has_value


def _value(*args: object) -> object:
    target = _optional("value", args, 1)
    if not target.has_value:
        raise EvalError("optional.none() dereference")
    return target.value


def _or_value(*args: object) -> object:
    target = _optional("orValue", args, 2)
    return target.value if target.has_value else args[1]


def _or(*args: object) -> object:
    target = _optional("or", args, 2)
    if target.has_value:
        return target
    if not isinstance(args[1], OptionalValue):
        raise no_overload("or", *args)
    return args[1]


OPTIONAL_GLOBALS: dict[str, Function] = {
    "optional.of": _of,
    "optional.none": _none,
    "optional.ofNonZeroValue": _of_non_zero,
}

OPTIONAL_MEMBERS: dict[str, Function] = {
    "hasValue": _has_value,
    "value": _value,
    "orValue": _or_value,
    "or": _or,
}
