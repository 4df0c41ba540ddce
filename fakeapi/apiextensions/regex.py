"""Go's regular expressions (RE2) on Python's ``re``: the syntax CRD schemas and kube-openapi use.

``pattern`` in a schema is an RE2 expression. RE2 has no look-around and no back-references
(refused as Go refuses them, with Go's message), spells end-of-text ``\\z`` and knows Unicode
classes (``\\p{L}``). Everything else a schema pattern commonly uses means the same in both. A
pattern is compiled once per text.
"""

from __future__ import annotations

import functools
import re

__all__ = ["compile_go_regex"]

_LOOKAROUND = re.compile(r"\(\?(<?[=!])")
_BACKREF = re.compile(r"\\([1-9])")
#: Unicode classes RE2 knows, as Python character-class bodies (an approximation of the Unicode
#: tables that covers the common scripts)
_LETTERS = (
    "A-Za-z\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02c1\u0370-\u03ff"
    "\u0400-\u052f\u0531-\u0587\u05d0-\u05ea\u0620-\u064a\u0900-\u0dff\u0e00-\u0e7f"
    "\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
)
_CLASSES = {
    "L": _LETTERS,
    "Lu": "A-Z\u00c0-\u00d6\u00d8-\u00de",
    "Ll": "a-z\u00df-\u00f6\u00f8-\u00ff",
    "N": "0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19",
    "Nd": "0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19",
    "S": "$+<=>^`|~\u00a2-\u00a9\u00ac\u00ae-\u00b1\u00b4\u00b8\u00d7\u00f7\u02c2-\u02c5"
    "\u2010-\u2bff",
    "P": "!-#%-*,-/:;?@\\[-\\]_{}\u00a1\u00a7\u00ab\u00b6\u00b7\u00bb\u00bf",
    "Z": " \u00a0\u2000-\u200a\u2028\u2029\u3000",
    "Zs": " \u00a0\u2000-\u200a\u3000",
}
_UNICODE_CLASS = re.compile(r"\\([pP])(?:\{(\w+)\}|([A-Z]))")


class _Unsupported(re.error):
    pass


@functools.lru_cache(maxsize=4096)
def compile_go_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled with RE2's meaning; raises :class:`re.error` with Go's message
    (``error parsing regexp: ...``) for what RE2 refuses."""
    match = _LOOKAROUND.search(pattern)
    if match is not None:
        raise _Unsupported(
            f"error parsing regexp: invalid or unsupported Perl syntax: `{match.group(0)}`"
        )
    match = _BACKREF.search(pattern)
    if match is not None:
        raise _Unsupported(f"error parsing regexp: invalid escape sequence: `{match.group(0)}`")
    try:
        return re.compile(_translate(pattern))
    except _Unsupported:
        raise
    except re.error as exc:
        raise re.error(f"error parsing regexp: {_go_reason(exc, pattern)}") from None


def _go_reason(exc: re.error, pattern: str) -> str:
    """Go's wording of the commonest syntax errors (Python's otherwise)."""
    message = exc.msg
    at = exc.pos if exc.pos is not None else 0
    if message == "nothing to repeat" or message.startswith("multiple repeat"):
        return f"missing argument to repetition operator: `{pattern[at:at + 1]}`"
    if message.startswith("missing ), unterminated subpattern"):
        return f"missing closing ): `{pattern}`"
    if message.startswith("unbalanced parenthesis"):
        return f"unexpected ): `{pattern}`"
    if message.startswith("unterminated character set"):
        return f"missing closing ]: `{pattern[at:]}`"
    if message.startswith("bad character range"):
        return f"invalid character class range: `{message.removeprefix('bad character range ')}`"
    return f"{message}: `{pattern}`"


def _translate(pattern: str) -> str:
    """``\\z`` and the Unicode classes in Python's spelling, inside brackets and out."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            match = _UNICODE_CLASS.match(pattern, i)
            if match is not None:
                out.append(_class(match, in_class))
                i = match.end()
                continue
            escaped = pattern[i : i + 2]
            out.append("\\Z" if escaped == "\\z" else escaped)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and not (out and out[-1] in ("[", "[^")):
            in_class = False
        out.append(char)
        i += 1
    return "".join(out)


def _class(match: re.Match[str], in_class: bool) -> str:
    negated = match.group(1) == "P"
    name = match.group(2) or match.group(3)
    body = _CLASSES.get(name)
    if body is None:
        raise _Unsupported(
            f"error parsing regexp: invalid character class range: `{match.group(0)}`"
        )
    if in_class:
        if negated:
            raise _Unsupported(
                f"error parsing regexp: invalid character class range: `{match.group(0)}`"
            )
        return body
    return f"[^{body}]" if negated else f"[{body}]"
