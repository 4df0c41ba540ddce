"""CEL's string functions: the standard ``matches`` plus the Kubernetes strings and regex
libraries (``contains``, ``indexOf``, ``split``, ``find``, ...).

Regular expressions are compiled once per pattern (a selector runs against every device), and
a bad pattern is an evaluation error, as in cel-go. ``indexOf``/``lastIndexOf`` also accept a
list receiver, as the Kubernetes lists library overloads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from .errors import EvalError
from .overloads import Function, arity, strict
from .values import equals, no_overload

__all__ = ["STRING_GLOBALS", "STRING_MEMBERS"]


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


def _matches(*args: object) -> object:
    arity("matches", args, 2)
    text, pattern = args
    if not isinstance(text, str) or not isinstance(pattern, str):
        raise no_overload("matches", *args)
    return _regex(pattern).search(text) is not None


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


STRING_GLOBALS: dict[str, Function] = {
    "matches": _matches,
    "strings.quote": strict(
        "strings.quote", lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
}

STRING_MEMBERS: dict[str, Function] = {
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
    "find": _find,
    "findAll": _find_all,
}
