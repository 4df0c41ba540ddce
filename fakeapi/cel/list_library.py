"""CEL's list functions: cel-go's ext.Lists (version 3) and ext.Sets, the Kubernetes lists
library and DRA's ``includes``. (ext.Math, with ``math.greatest``/``least``, is not part of the
Kubernetes environment.)

Elements compare with CEL equality and ordering (:func:`~fakeapi.cel.values.equals`,
:func:`~fakeapi.cel.values.compare`), not Python's, so ``1 == 1.0`` and mixed-type errors
behave as in cel-go. ``includes`` is served only on list-valued attributes and refuses lists
longer than the environment's declared maximum.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cmp_to_key

from fakeapi.cel.errors import EvalError
from fakeapi.cel.overloads import Function, arity, strict
from fakeapi.cel.values import add, compare, equals, no_overload

__all__ = ["LIST_ATTRIBUTE_FUNCTIONS", "LIST_GLOBALS", "LIST_MEMBERS", "MAX_LIST_VALUES"]

MAX_LIST_VALUES = 48


def _list_arg(name: str, args: Sequence[object]) -> Sequence[object]:
    if not args or not isinstance(args[0], (list, tuple)):
        raise no_overload(name, *args)
    return args[0]


def _is_sorted(*args: object) -> object:
    items = _list_arg("isSorted", args)
    return all(compare("isSorted", items[i], items[i + 1]) <= 0 for i in range(len(items) - 1))


def _sum(*args: object) -> object:
    items = _list_arg("sum", args)
    total: object = 0
    if items and isinstance(items[0], float):
        total = 0.0
    for item in items:
        total = add(total, item)
    return total


def _extreme(name: str, sign: int) -> Function:
    def call(*args: object) -> object:
        items = _list_arg(name, args)
        if not items:
            raise EvalError(f"{name}(list) called on an empty list")
        best = items[0]
        for item in items[1:]:
            if compare(name, item, best) * sign > 0:
                best = item
        return best

    return call


def _distinct(*args: object) -> object:
    out: list[object] = []
    for item in _list_arg("distinct", args):
        if not any(equals(item, seen) for seen in out):
            out.append(item)
    return out


def _flatten(*args: object) -> object:
    items = _list_arg("flatten", args)
    depth = args[1] if len(args) > 1 else 1
    assert isinstance(depth, int)

    def flat(values: Sequence[object], level: int) -> list[object]:
        out: list[object] = []
        for value in values:
            if isinstance(value, (list, tuple)) and level > 0:
                out.extend(flat(value, level - 1))
            else:
                out.append(value)
        return out

    return flat(items, depth)


def _reverse(*args: object) -> object:
    if len(args) == 1 and isinstance(args[0], str):
        return args[0][::-1]
    return list(reversed(_list_arg("reverse", args)))


def _slice(*args: object) -> object:
    items = _list_arg("slice", args)
    start, end = args[1], args[2]
    assert isinstance(start, int) and isinstance(end, int)
    if start < 0 or end > len(items) or start > end:
        raise EvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def _sort(*args: object) -> object:
    items = list(_list_arg("sort", args))
    return sorted(items, key=cmp_to_key(lambda a, b: compare("sort", a, b)))


def _sets_contains(*args: object) -> object:
    arity("sets.contains", args, 2)
    haystack, needles = _list_arg("sets.contains", args), args[1]
    if not isinstance(needles, (list, tuple)):
        raise no_overload("sets.contains", *args)
    return all(any(equals(n, h) for h in haystack) for n in needles)


def _sets_equivalent(*args: object) -> object:
    return bool(_sets_contains(*args)) and bool(_sets_contains(args[1], args[0]))


def _sets_intersects(*args: object) -> object:
    arity("sets.intersects", args, 2)
    left, right = _list_arg("sets.intersects", args), args[1]
    if not isinstance(right, (list, tuple)):
        raise no_overload("sets.intersects", *args)
    return any(equals(a, b) for a in left for b in right)


def _includes(*args: object) -> object:
    arity("includes", args, 2)
    target, item = args
    if isinstance(target, (list, tuple)):
        for i, value in enumerate(target):
            if i >= MAX_LIST_VALUES:
                raise EvalError(
                    "'includes' function cannot be applied to lists longer than "
                    f"{MAX_LIST_VALUES} values"
                )
            if equals(value, item):
                return True
        return False
    return equals(target, item)


LIST_GLOBALS: dict[str, Function] = {
    "sets.contains": _sets_contains,
    "sets.equivalent": _sets_equivalent,
    "sets.intersects": _sets_intersects,
    "lists.range": strict("lists.range", lambda n: list(range(n))),
}

LIST_MEMBERS: dict[str, Function] = {
    "reverse": _reverse,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", -1),
    "max": _extreme("max", 1),
    "distinct": _distinct,
    "flatten": _flatten,
    "slice": _slice,
    "sort": _sort,
}

LIST_ATTRIBUTE_FUNCTIONS: dict[str, Function] = {"includes": _includes}
