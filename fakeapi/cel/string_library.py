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

from fakeapi.cel.ast import UInt
from fakeapi.cel.errors import EvalError
from fakeapi.cel.format_library import string_format
from fakeapi.cel.overloads import Function, arity
from fakeapi.cel.values import equals, no_overload

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


# Go's unicode.IsSpace, which strings.TrimSpace strips.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)


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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, (bool, UInt))


def _typed(name: str, args: tuple[object, ...], *shapes: tuple[type, ...]) -> None:
    """Reject ``args`` unless they fit one of the overload ``shapes`` (int means int64)."""
    for shape in shapes:
        if len(shape) == len(args) and all(
            _is_int(a) if t is int else isinstance(a, t) for a, t in zip(args, shape, strict=True)
        ):
            return
    raise no_overload(name, *args)


def _substring(*args: object) -> object:
    _typed("substring", args, (str, int), (str, int, int))
    text = args[0]
    assert isinstance(text, str)
    start = int(args[1])  # type: ignore[call-overload]
    if len(args) == 2:
        if not 0 <= start <= len(text):
            raise EvalError(f"index out of range: {start}")
        return text[start:]
    end = int(args[2])  # type: ignore[call-overload]
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    if not 0 <= start <= len(text):
        raise EvalError(f"index out of range: {start}")
    if not 0 <= end <= len(text):
        raise EvalError(f"index out of range: {end}")
    return text[start:end]


def _char_at(*args: object) -> object:
    _typed("charAt", args, (str, int))
    text, index = args
    assert isinstance(text, str) and isinstance(index, int)
    if not 0 <= index <= len(text):
        raise EvalError(f"index out of range: {index}")
    return text[index : index + 1]


def _index_of(*args: object) -> object:
    if len(args) >= 2 and isinstance(args[0], (list, tuple)):
        for i, item in enumerate(args[0]):
            if equals(item, args[1]):
                return i
        return -1
    _typed("indexOf", args, (str, str), (str, str, int))
    text, sub = args[0], args[1]
    assert isinstance(text, str) and isinstance(sub, str)
    offset = int(args[2]) if len(args) == 3 else 0  # type: ignore[call-overload]
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if sub == "":
        return min(offset, len(text))
    if offset >= len(text):
        return -1
    return text.find(sub, offset)


def _last_index_of(*args: object) -> object:
    if len(args) >= 2 and isinstance(args[0], (list, tuple)):
        for i in range(len(args[0]) - 1, -1, -1):
            if equals(args[0][i], args[1]):
                return i
        return -1
    _typed("lastIndexOf", args, (str, str), (str, str, int))
    text, sub = args[0], args[1]
    assert isinstance(text, str) and isinstance(sub, str)
    if len(args) == 2:
        if sub == "":
            return len(text)
        return text.rfind(sub)
    offset = int(args[2])  # type: ignore[call-overload]
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if sub == "":
        return min(offset, len(text))
    if offset >= len(text):
        return -1
    return text.rfind(sub, 0, offset + len(sub))


def _split(*args: object) -> object:
    _typed("split", args, (str, str), (str, str, int))
    text, sep = args[0], args[1]
    assert isinstance(text, str) and isinstance(sep, str)
    limit = int(args[2]) if len(args) == 3 else -1  # type: ignore[call-overload]
    if limit == 0:
        return []
    if sep == "":
        parts = list(text)
        if 0 < limit < len(parts):
            parts = [*parts[: limit - 1], "".join(parts[limit - 1 :])]
        return parts
    return text.split(sep, limit - 1 if limit > 0 else -1)


def _join(*args: object) -> object:
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)):
        raise no_overload("join", *args)
    separator = args[1] if len(args) == 2 else ""
    if not isinstance(separator, str):
        raise no_overload("join", *args)
    for item in args[0]:
        if not isinstance(item, str):
            raise EvalError(f"join: invalid input: {item}")
    return separator.join(args[0])


def _replace(*args: object) -> object:
    _typed("replace", args, (str, str, str), (str, str, str, int))
    text, old, new = args[0], args[1], args[2]
    assert isinstance(text, str) and isinstance(old, str) and isinstance(new, str)
    count = int(args[3]) if len(args) == 4 else -1  # type: ignore[call-overload]
    return text.replace(old, new, count)


def _find(*args: object) -> object:
    _typed("find", args, (str, str))
    text, pattern = args
    assert isinstance(text, str) and isinstance(pattern, str)
    found = _regex(pattern).search(text)
    return found.group(0) if found else ""


def _find_all(*args: object) -> object:
    _typed("findAll", args, (str, str), (str, str, int))
    text, pattern = args[0], args[1]
    assert isinstance(text, str) and isinstance(pattern, str)
    matches = [m.group(0) for m in _regex(pattern).finditer(text)]
    if len(args) == 3:
        limit = int(args[2])  # type: ignore[call-overload]
        if limit >= 0:
            matches = matches[:limit]
    return matches


_QUOTED = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _quote(*args: object) -> object:
    _typed("strings.quote", args, (str,))
    text = args[0]
    assert isinstance(text, str)
    body = "".join(_QUOTED.get(c, c if not 0xD800 <= ord(c) <= 0xDFFF else "\ufffd") for c in text)
    return f'"{body}"'


STRING_GLOBALS: dict[str, Function] = {
    "matches": _matches,
    "strings.quote": _quote,
}


def _format(*args: object) -> object:
    _typed("format", args, (str, list), (str, tuple))
    text, values = args
    assert isinstance(text, str) and isinstance(values, (list, tuple))
    return string_format(text, values)


STRING_MEMBERS: dict[str, Function] = {
    "format": _format,
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
    "trim": _string_fn("trim", lambda s: s.strip(_GO_SPACE), str),
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
