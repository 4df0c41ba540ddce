"""Kubernetes CEL libraries used by device selectors: quantity and semver.

Kept apart from the standard functions because these are the ones that operate on the
Kubernetes-specific value types (:class:`~fakeapi.quantity.Quantity`,
:class:`~fakeapi.cel.semver.Semver`); ``compareTo``/``isGreaterThan``/``isLessThan`` serve both
types and dispatch on the receiver at run time.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.cel.errors import EvalError
from fakeapi.cel.semver import Semver, SemverError, parse_semver
from fakeapi.cel.values import no_overload
from fakeapi.quantity import Quantity, QuantityError, parse_quantity, quantity_from_int

__all__ = ["KUBERNETES_GLOBALS", "KUBERNETES_MEMBERS"]

Function = Callable[..., object]


def _arity(name: str, args: tuple[object, ...], *counts: int) -> None:
    if len(args) not in counts:
        raise no_overload(name, *args)


# -- quantity -------------------------------------------------------------------------------------
def _quantity(*args: object) -> object:
    if len(args) != 1 or not isinstance(args[0], str):
        raise no_overload("quantity", *args)
    try:
        return parse_quantity(args[0])
    except QuantityError as exc:
        raise EvalError(str(exc)) from None


def _is_quantity(*args: object) -> object:
    if len(args) != 1 or not isinstance(args[0], str):
        raise no_overload("isQuantity", *args)
    try:
        parse_quantity(args[0])
    except QuantityError:
        return False
    return True


def _quantity_operand(name: str, target: object, other: object) -> tuple[Quantity, Quantity]:
    if isinstance(target, Quantity):
        if isinstance(other, Quantity):
            return target, other
        if isinstance(other, int) and not isinstance(other, bool):
            return target, quantity_from_int(other)
    raise no_overload(name, target, other)


def _q_add(*args: object) -> object:
    _arity("add", args, 2)
    left, right = _quantity_operand("add", *args)
    return left + right


def _q_sub(*args: object) -> object:
    _arity("sub", args, 2)
    left, right = _quantity_operand("sub", *args)
    return left - right


def _q_unary(name: str, impl: Callable[[Quantity], object]) -> Function:
    def call(*args: object) -> object:
        if len(args) != 1 or not isinstance(args[0], Quantity):
            raise no_overload(name, *args)
        return impl(args[0])

    return call


def _as_integer(q: Quantity) -> object:
    try:
        return q.as_int64()
    except OverflowError:
        raise EvalError("cannot convert value to integer") from None


# -- semver ---------------------------------------------------------------------------------------
def _semver(*args: object) -> object:
    if (
        not (1 <= len(args) <= 2)
        or not isinstance(args[0], str)
        or (len(args) == 2 and not isinstance(args[1], bool))
    ):
        raise no_overload("semver", *args)
    try:
        return parse_semver(args[0], normalize=bool(args[1]) if len(args) == 2 else False)
    except SemverError as exc:
        raise EvalError(str(exc)) from None  # blang/semver's words, as Kubernetes returns them


def _is_semver(*args: object) -> object:
    if not (1 <= len(args) <= 2) or not isinstance(args[0], str):
        raise no_overload("isSemver", *args)
    try:
        parse_semver(args[0], normalize=bool(args[1]) if len(args) == 2 else False)
    except SemverError:
        return False
    return True


def _version_part(name: str) -> Function:
    def call(*args: object) -> object:
        if len(args) != 1 or not isinstance(args[0], Semver):
            raise no_overload(name, *args)
        return int(getattr(args[0], name))

    return call


# -- shared comparison methods (quantity and semver) -------------------------------------------
def _cmp(name: str, *args: object) -> int:
    _arity(name, args, 2)
    left, right = args
    if isinstance(left, Quantity) and isinstance(right, Quantity):
        return left.compare(right)
    if isinstance(left, Semver) and isinstance(right, Semver):
        return left.compare(right)
    raise no_overload(name, left, right)


def _compare_to(*args: object) -> object:
    return _cmp("compareTo", *args)


def _greater(*args: object) -> object:
    return _cmp("isGreaterThan", *args) > 0


def _less(*args: object) -> object:
    return _cmp("isLessThan", *args) < 0


KUBERNETES_GLOBALS: dict[str, Function] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "semver": _semver,
    "isSemver": _is_semver,
}

KUBERNETES_MEMBERS: dict[str, Function] = {
    "isInteger": _q_unary("isInteger", lambda q: q.is_integer()),
    "asInteger": _q_unary("asInteger", _as_integer),
    "asApproximateFloat": _q_unary("asApproximateFloat", lambda q: q.as_float()),
    "sign": _q_unary("sign", lambda q: q.sign()),
    "add": _q_add,
    "sub": _q_sub,
    "compareTo": _compare_to,
    "isGreaterThan": _greater,
    "isLessThan": _less,
    "major": _version_part("major"),
    "minor": _version_part("minor"),
    "patch": _version_part("patch"),
}
