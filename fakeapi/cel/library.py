"""Functions of the selector environment: CEL standard functions plus the Kubernetes libraries
that device selectors use (quantity, semver, strings, lists, sets, regex) and DRA's ``includes``.

Each function is registered with its result type so the checker can reject, at compile time,
expressions whose result is known not to be a bool, exactly as cel-go's type checker would.
Member functions receive the target as the first argument; one name may serve several receiver
types (``compareTo`` on quantities and on semvers), so dispatch happens on the runtime type.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from fakeapi.quantity import (
    INT64_MAX,
    INT64_MIN,
    Quantity,
)

from .ast import UInt
from .errors import EvalError
from .kubernetes_library import KUBERNETES_GLOBALS, KUBERNETES_MEMBERS
from .semver import Semver
from .values import compare, equals, no_overload, type_name

__all__ = [
    "GLOBAL_FUNCTIONS",
    "LIST_ATTRIBUTE_FUNCTIONS",
    "MAX_LIST_VALUES",
    "MEMBER_FUNCTIONS",
    "RESULT_TYPES",
]

Function = Callable[..., object]

MAX_LIST_VALUES = 48


def _arity(name: str, args: Sequence[object], *counts: int) -> None:
    if len(args) not in counts:
        raise no_overload(name, *args)


# -- standard -------------------------------------------------------------------------------------
def _size(*args: object) -> object:
    _arity("size", args, 1)
    value = args[0]
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return len(value)
    raise no_overload("size", value)


def _string_fn(name: str, impl: Callable[..., object], *arg_types: type) -> Function:
    def call(*args: object) -> object:
        if len(args) != len(arg_types) or not all(
            isinstance(a, t) and not (t is int and isinstance(a, bool))
            for a, t in zip(args, arg_types, strict=True)
        ):
            raise no_overload(name, *args)
        return impl(*args)

    return call


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise EvalError(f"error parsing regexp: {exc}") from None


def _to_int(*args: object) -> object:
    _arity("int", args, 1)
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
    _arity("uint", args, 1)
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
    _arity("double", args, 1)
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
    _arity("string", args, 1)
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
    _arity("bool", args, 1)
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
    _arity("bytes", args, 1)
    value = args[0]
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise no_overload("bytes", value)


def _dyn(*args: object) -> object:
    _arity("dyn", args, 1)
    return args[0]


def _matches(*args: object) -> object:
    _arity("matches", args, 2)
    text, pattern = args
    if not isinstance(text, str) or not isinstance(pattern, str):
        raise no_overload("matches", *args)
    return _regex(pattern).search(text) is not None


# -- strings --------------------------------------------------------------------------------------
def _substring(*args: object) -> object:
    if (
        len(args) not in (2, 3)
        or not isinstance(args[0], str)
        or not all(isinstance(a, int) and not isinstance(a, bool) for a in args[1:])
    ):
        raise no_overload("substring", *args)
    text = args[0]
    start = args[1]
    end = args[2] if len(args) == 3 else len(text)
    assert isinstance(start, int) and isinstance(end, int)
    if start < 0 or end > len(text) or start > end:
        raise EvalError(f"index out of range: {start if start < 0 or start > len(text) else end}")
    return text[start:end]


def _char_at(*args: object) -> object:
    if (
        len(args) != 2
        or not isinstance(args[0], str)
        or not isinstance(args[1], int)
        or isinstance(args[1], bool)
    ):
        raise no_overload("charAt", *args)
    text, index = args[0], args[1]
    if not 0 <= index <= len(text):
        raise EvalError(f"index out of range: {index}")
    return text[index : index + 1]


def _index_of(*args: object) -> object:
    if len(args) >= 2 and isinstance(args[0], (list, tuple)):
        for i, item in enumerate(args[0]):
            if equals(item, args[1]):
                return i
        return -1
    if len(args) not in (2, 3) or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise no_overload("indexOf", *args)
    start = args[2] if len(args) == 3 else 0
    assert isinstance(start, int)
    if start < 0 or start > len(args[0]):
        raise EvalError(f"index out of range: {start}")
    return args[0].find(args[1], start)


def _last_index_of(*args: object) -> object:
    if len(args) >= 2 and isinstance(args[0], (list, tuple)):
        for i in range(len(args[0]) - 1, -1, -1):
            if equals(args[0][i], args[1]):
                return i
        return -1
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise no_overload("lastIndexOf", *args)
    return args[0].rfind(args[1])


def _split(*args: object) -> object:
    if len(args) not in (2, 3) or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise no_overload("split", *args)
    limit = args[2] if len(args) == 3 else -1
    assert isinstance(limit, int)
    if limit == 0:
        return []
    if args[1] == "":
        parts = list(args[0])
        if limit > 0 and len(parts) > limit:
            parts = [*parts[: limit - 1], "".join(parts[limit - 1 :])]
        return parts
    return args[0].split(args[1], limit - 1 if limit > 0 else -1)


def _join(*args: object) -> object:
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)):
        raise no_overload("join", *args)
    separator = args[1] if len(args) == 2 else ""
    if not isinstance(separator, str) or not all(isinstance(s, str) for s in args[0]):
        raise no_overload("join", *args)
    return separator.join(args[0])


def _replace(*args: object) -> object:
    if len(args) not in (3, 4) or not all(isinstance(a, str) for a in args[:3]):
        raise no_overload("replace", *args)
    count = args[3] if len(args) == 4 else -1
    assert isinstance(count, int) and isinstance(args[0], str)
    return args[0].replace(args[1], args[2], count)  # type: ignore[arg-type]


def _find(*args: object) -> object:
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise no_overload("find", *args)
    found = _regex(args[1]).search(args[0])
    return found.group(0) if found else ""


def _find_all(*args: object) -> object:
    if len(args) not in (2, 3) or not isinstance(args[0], str) or not isinstance(args[1], str):
        raise no_overload("findAll", *args)
    matches = [m.group(0) for m in _regex(args[1]).finditer(args[0])]
    if len(args) == 3:
        limit = args[2]
        assert isinstance(limit, int)
        if limit >= 0:
            matches = matches[:limit]
    return matches


# -- lists and sets -------------------------------------------------------------------------------
def _list_arg(name: str, args: Sequence[object]) -> Sequence[object]:
    if not args or not isinstance(args[0], (list, tuple)):
        raise no_overload(name, *args)
    return args[0]


def _is_sorted(*args: object) -> object:
    items = _list_arg("isSorted", args)
    return all(compare("isSorted", items[i], items[i + 1]) <= 0 for i in range(len(items) - 1))


def _sum(*args: object) -> object:
    from .values import add

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
    from functools import cmp_to_key

    return sorted(items, key=cmp_to_key(lambda a, b: compare("sort", a, b)))


def _sets_contains(*args: object) -> object:
    _arity("sets.contains", args, 2)
    haystack, needles = _list_arg("sets.contains", args), args[1]
    if not isinstance(needles, (list, tuple)):
        raise no_overload("sets.contains", *args)
    return all(any(equals(n, h) for h in haystack) for n in needles)


def _sets_equivalent(*args: object) -> object:
    return bool(_sets_contains(*args)) and bool(_sets_contains(args[1], args[0]))


def _sets_intersects(*args: object) -> object:
    _arity("sets.intersects", args, 2)
    left, right = _list_arg("sets.intersects", args), args[1]
    if not isinstance(right, (list, tuple)):
        raise no_overload("sets.intersects", *args)
    return any(equals(a, b) for a in left for b in right)


def _includes(*args: object) -> object:
    _arity("includes", args, 2)
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


def _strict(name: str, impl: Callable[..., object]) -> Function:
    def call(*args: object) -> object:
        try:
            return impl(*args)
        except (TypeError, AttributeError):
            raise no_overload(name, *args) from None

    return call


GLOBAL_FUNCTIONS: dict[str, Function] = {
    **KUBERNETES_GLOBALS,
    "size": _size,
    "int": _to_int,
    "uint": _to_uint,
    "double": _to_double,
    "string": _to_string,
    "bool": _to_bool,
    "bytes": _to_bytes,
    "dyn": _dyn,
    "matches": _matches,
    "sets.contains": _sets_contains,
    "sets.equivalent": _sets_equivalent,
    "sets.intersects": _sets_intersects,
    "strings.quote": _strict(
        "strings.quote", lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
    "lists.range": _strict("lists.range", lambda n: list(range(n))),
    "math.greatest": _strict("math.greatest", lambda *a: _extreme("math.greatest", 1)(list(a))),
    "math.least": _strict("math.least", lambda *a: _extreme("math.least", -1)(list(a))),
}

MEMBER_FUNCTIONS: dict[str, Function] = {
    **KUBERNETES_MEMBERS,
    "size": _size,
    "matches": _matches,
    "contains": _string_fn("contains", lambda s, t: t in s, str, str),
    "startsWith": _string_fn("startsWith", lambda s, t: s.startswith(t), str, str),
    "endsWith": _string_fn("endsWith", lambda s, t: s.endswith(t), str, str),
    "lowerAscii": _string_fn(
        "lowerAscii", lambda s: "".join(c.lower() if c.isascii() else c for c in s), str
    ),
    "upperAscii": _string_fn(
        "upperAscii", lambda s: "".join(c.upper() if c.isascii() else c for c in s), str
    ),
    "trim": _string_fn("trim", lambda s: s.strip(), str),
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "substring": _substring,
    "split": _split,
    "join": _join,
    "replace": _replace,
    "reverse": _reverse,
    "find": _find,
    "findAll": _find_all,
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

# Result types known to the checker ("dyn" when it depends on the arguments).
RESULT_TYPES: dict[str, str] = {
    "size": "int",
    "int": "int",
    "uint": "uint",
    "double": "double",
    "string": "string",
    "bool": "bool",
    "bytes": "bytes",
    "matches": "bool",
    "quantity": "kubernetes.Quantity",
    "isQuantity": "bool",
    "semver": "kubernetes.Semver",
    "isSemver": "bool",
    "sets.contains": "bool",
    "sets.equivalent": "bool",
    "sets.intersects": "bool",
    "strings.quote": "string",
    "contains": "bool",
    "startsWith": "bool",
    "endsWith": "bool",
    "lowerAscii": "string",
    "upperAscii": "string",
    "trim": "string",
    "charAt": "string",
    "indexOf": "int",
    "lastIndexOf": "int",
    "substring": "string",
    "join": "string",
    "replace": "string",
    "find": "string",
    "isSorted": "bool",
    "isInteger": "bool",
    "asInteger": "int",
    "asApproximateFloat": "double",
    "sign": "int",
    "add": "kubernetes.Quantity",
    "sub": "kubernetes.Quantity",
    "compareTo": "int",
    "isGreaterThan": "bool",
    "isLessThan": "bool",
    "major": "int",
    "minor": "int",
    "patch": "int",
    "includes": "bool",
}


def describe(value: object) -> str:
    """Type name for messages (re-exported for the program module)."""
    return type_name(value)
