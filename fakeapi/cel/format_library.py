"""``"...".format([args])`` as Kubernetes has it: cel-go's ext.Strings at version 2.

That version formats with cel-go's first formatter (the later one, version 4, prints lists and
maps differently): ``%s`` prints lists and maps CEL-quoted (``["abc", 3.140000]``,
``{"k":1}``), ``%d`` takes only integers, ``%f``/``%e`` doubles (or the strings ``NaN``,
``Infinity``, ``-Infinity``), ``%b`` integers and bools, ``%x``/``%X`` integers, strings and
bytes, ``%o`` integers; ``%%`` is a percent sign. A literal format string with a literal list
is also checked at compile time, as cel-go's validator does, with the same messages.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from fakeapi.cel.ast import UInt
from fakeapi.cel.errors import EvalError
from fakeapi.cel.standard_library import format_double, to_string
from fakeapi.cel.time_values import Duration, Timestamp
from fakeapi.cel.values import CelType, type_name

__all__ = ["FormatError", "check_format", "string_format"]

DEFAULT_PRECISION = 6


class FormatError(Exception):
    """A format string or argument problem; ``arg`` is the offending argument's index."""

    def __init__(self, message: str, arg: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.arg = arg


_CLAUSE_ERRORS = {
    "s": "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
    "types, durations, and timestamps, was given {}",
    "d": "decimal clause can only be used on integers, was given {}",
    "f": "fixed-point clause can only be used on doubles, was given {}",
    "e": "scientific clause can only be used on doubles, was given {}",
    "b": "only integers and bools can be formatted as binary, was given {}",
    "x": "only integers, byte buffers, and strings can be formatted as hex, was given {}",
    "o": "octal clause can only be used on integers, was given {}",
}
_ALLOWED = {
    "s": frozenset(
        {
            *("list", "map", "int", "uint", "double", "bool", "string", "bytes", "type"),
            *("null_type", "google.protobuf.Timestamp", "google.protobuf.Duration"),
        }
    ),
    "d": frozenset({"int", "uint"}),
    "f": frozenset({"double", "string"}),
    "e": frozenset({"double", "string"}),
    "b": frozenset({"int", "uint", "bool"}),
    "x": frozenset({"int", "uint", "string", "bytes"}),
    "o": frozenset({"int", "uint"}),
}
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _parse(
    text: str, count: int, clause: Callable[[str, int | None, int], str], *, checking: bool
) -> tuple[str, int]:
    """Walk ``text``; ``clause(verb, precision, arg_index)`` renders one clause. Returns the
    output and the number of arguments used."""
    out: list[str] = []
    i = 0
    used = 0
    while i < len(text):
        char = text[i]
        if char != "%":
            out.append(char)
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        if not checking and used >= count:
            raise FormatError(f"index {used} out of range")
        if i + 1 >= len(text):
            raise FormatError("unexpected end of string")
        if used >= count:
            raise FormatError(f"index {used} out of range")
        i += 1
        precision: int | None = None
        if text[i] == ".":
            i += 1
            digits = ""
            while True:
                if i >= len(text):
                    raise FormatError(
                        "could not parse formatting clause: error while parsing precision: "
                        "could not find end of precision specifier"
                    )
                if not text[i].isascii() or not text[i].isdigit():
                    break
                digits += text[i]
                i += 1
            precision = int(digits or "0")
        verb = text[i]
        i += 1
        key = verb.lower() if verb in "xX" else verb
        if key not in _ALLOWED:
            raise FormatError(
                f'could not parse formatting clause: unrecognized formatting clause "{verb}"'
            )
        out.append(clause(verb, precision, used))
        used += 1
    return "".join(out), used


def string_format(text: str, args: Sequence[object]) -> str:
    """Runtime formatting; raises :class:`EvalError` with cel-go's messages."""

    def clause(verb: str, precision: int | None, index: int) -> str:
        value = args[index]
        key = verb.lower() if verb in "xX" else verb
        kind = type_name(value)
        allowed = kind in _ALLOWED[key]
        if kind == "string" and key in "fe":
            allowed = value in _SPECIAL_FLOATS
        if not allowed:
            raise FormatError("error during formatting: " + _CLAUSE_ERRORS[key].format(kind))
        return _render(verb, precision, value)

    try:
        return _parse(text, len(args), clause, checking=False)[0]
    except FormatError as exc:
        raise EvalError(exc.message) from None


def check_format(text: str, arg_types: Sequence[str | None]) -> FormatError | None:
    """Compile-time check of a literal format string against literal arguments' types
    (``None`` for a type the checker does not know: anything goes)."""

    def clause(verb: str, precision: int | None, index: int) -> str:
        kind = arg_types[index]
        key = verb.lower() if verb in "xX" else verb
        if kind is not None and kind not in _ALLOWED[key]:
            raise FormatError(_CLAUSE_ERRORS[key].format(kind), index)
        return ""

    try:
        _, used = _parse(text, len(arg_types), clause, checking=True)
    except FormatError as exc:
        return exc
    if len(arg_types) > used:
        return FormatError(
            f"too many arguments supplied to string.format (expected {used}, got {len(arg_types)})"
        )
    return None


def _render(verb: str, precision: int | None, value: object) -> str:
    if verb == "s":
        return _as_string(value)
    if verb == "d":
        return str(int(value))  # type: ignore[call-overload]
    if verb in "fe":
        number = _SPECIAL_FLOATS[value] if isinstance(value, str) else float(value)  # type: ignore[arg-type]
        digits = DEFAULT_PRECISION if precision is None else precision
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "+Inf" if number > 0 else "-Inf"
        return f"{number:.{digits}{verb}}"
    if verb == "b":
        if isinstance(value, bool):
            return "1" if value else "0"
        return format(int(value), "b")  # type: ignore[call-overload]
    if verb == "o":
        return format(int(value), "o")  # type: ignore[call-overload]
    upper = verb == "X"
    if isinstance(value, (str, bytes)):
        data = value.encode() if isinstance(value, str) else value
        hexed = data.hex()
    else:
        hexed = format(int(value), "x")  # type: ignore[call-overload]
    return hexed.upper() if upper else hexed


def _as_string(value: object) -> str:
    """``%s``: strings as they are, numbers and the rest through string(), lists and maps
    with their elements formatted and CEL-quoted."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_quoted(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            if isinstance(key, (str, bool)):
                key_text = _quoted(key) if isinstance(key, str) else to_string(key)
            elif isinstance(key, int):
                key_text = str(int(key))
            else:
                raise FormatError(
                    "error during formatting: no formatting function for map key of type "
                    + type_name(key)
                )
            pairs.append((key_text, _quoted(item)))
        pairs.sort(key=lambda pair: pair[0])
        return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"
    if isinstance(value, CelType):
        return value.name
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, (bool, int, float, str, Timestamp, Duration)):
        return str(to_string(value))
    raise FormatError("error during formatting: " + _CLAUSE_ERRORS["s"].format(type_name(value)))


def _quoted(value: object) -> str:
    """A list element or map value as cel-go's first formatter prints it."""
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, bytes):
        return "b" + _go_quote(value.decode(errors="replace"))
    if isinstance(value, float):
        text = f"{value:.{DEFAULT_PRECISION}f}" if math.isfinite(value) else format_double(value)
        return text if math.isfinite(value) else f'"{text}"'
    if isinstance(value, bool) or value is None:
        return _as_string(value)
    if isinstance(value, int) and not isinstance(value, UInt):
        return str(value)
    if isinstance(value, CelType):
        return f"type({value.name})"
    if isinstance(value, Timestamp):
        return f'timestamp("{to_string(value)}")'
    if isinstance(value, Duration):
        return f'duration("{to_string(value)}")'
    return _as_string(value)


_GO_ESCAPES = {
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


def _go_quote(text: str) -> str:
    """Go's ``%q`` of a string: printable characters kept, the rest escaped."""
    out = []
    for char in text:
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'
