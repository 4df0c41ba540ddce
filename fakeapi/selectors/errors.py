"""The error type of selectors and the upstream error text it carries.

Clients show the server's error text verbatim (a malformed ``kubectl get -l`` prints our
message), so this module renders errors the way apimachinery does: ``field.Invalid`` lines with
Go-quoted values, aggregated in brackets when there are several. Label key and value rules are
the same checks (and messages) as object metadata, from :mod:`fakeapi.name_syntax`, under
the names this package has always exported.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from fakeapi.name_syntax import is_qualified_name, is_valid_label_value

__all__ = [
    "SelectorError",
    "aggregate_errors",
    "go_quote",
    "invalid_value",
    "label_key_errors",
    "label_value_errors",
]


class SelectorError(ValueError):
    """A selector that does not parse or validate; ``message`` is upstream's error text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def label_key_errors(key: str) -> list[str]:
    """Why ``key`` is not a qualified name (optional DNS-subdomain prefix, '/', name).

    Returns upstream's messages, or [] for a valid key.
    """
    return is_qualified_name(key)


def label_value_errors(value: str) -> list[str]:
    """Why ``value`` is not a valid label value (at most 63 bytes, name characters); [] if valid."""
    return is_valid_label_value(value)


_GO_ESCAPES = {
    "\a": r"\a",
    "\b": r"\b",
    "\f": r"\f",
    "\n": r"\n",
    "\r": r"\r",
    "\t": r"\t",
    "\v": r"\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (strconv.Quote), as upstream renders bad values."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = []
    for ch in text:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def invalid_value(path: str, value: object, detail: str) -> str:
    """One rendered ``field.Invalid`` error: ``path: Invalid value: <value>: detail``."""
    if isinstance(value, str):
        shown = go_quote(value)
    else:
        shown = orjson.dumps(value).decode()
    return f"{path}: Invalid value: {shown}: {detail}"


def aggregate_errors(errors: Sequence[str]) -> str:
    """Upstream's aggregate error text: one message as is, several de-duplicated in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
