"""CEL's tokens, as cel-go's ANTLR lexer cuts them.

The token kinds and their order are the grammar's (``CEL.g4``): syntax errors list the tokens
they expected in that order, quoted for fixed tokens (``'('``) and by name for the others
(``NUM_INT``, ``IDENTIFIER``). A character that starts no token is reported like ANTLR does
(``token recognition error at: '$'``) and skipped, so the parser still sees the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SYMBOLIC", "TOKEN_ORDER", "Token", "display", "tokenize"]

# Fixed tokens in grammar order, then the named ones.
TOKEN_ORDER: tuple[str, ...] = (
    "==",
    "!=",
    "in",
    "<",
    "<=",
    ">=",
    ">",
    "&&",
    "||",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ".",
    ",",
    "-",
    "!",
    "?",
    ":",
    "+",
    "*",
    "/",
    "%",
    "true",
    "false",
    "null",
    "NUM_FLOAT",
    "NUM_INT",
    "NUM_UINT",
    "STRING",
    "BYTES",
    "IDENTIFIER",
    "ESC_IDENTIFIER",
)
SYMBOLIC = frozenset(
    {"NUM_FLOAT", "NUM_INT", "NUM_UINT", "STRING", "BYTES", "IDENTIFIER", "ESC_IDENTIFIER"}
)
_RANK = {name: i for i, name in enumerate(TOKEN_ORDER)}
_KEYWORDS = frozenset({"in", "true", "false", "null"})

_STRING_BODY = r"""
    (?:[rR](?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"[^"\n\r]*"|'[^'\n\r]*'))
  | (?:\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?''')
  | (?:"(?:\\[\s\S]|[^\\"\n\r])*"|'(?:\\[\s\S]|[^\\'\n\r])*')
"""
_EXP = "(?:[eE][+-]?[0-9]+)"
_TOKEN_RE = re.compile(
    rf"""
    (?P<ws>[\t \r\n\f]+|//[^\n]*)
  | (?P<BYTES>[bB](?:{_STRING_BODY}))
  | (?P<STRING>{_STRING_BODY})
  | (?P<NUM_FLOAT>[0-9]+\.[0-9]+{_EXP}?|[0-9]+{_EXP}|\.[0-9]+{_EXP}?)
  | (?P<NUM_UINT>(?:0x[0-9a-fA-F]+|[0-9]+)[uU])
  | (?P<NUM_INT>0x[0-9a-fA-F]+|[0-9]+)
  | (?P<IDENTIFIER>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ESC_IDENTIFIER>`[A-Za-z0-9_.\-/ ]+`)
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>\[\]{{}}().,\-!?:+*/%])
    """,
    re.X,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # an entry of TOKEN_ORDER, or "EOF"
    text: str
    offset: int
    line: int
    column: int  # 1-based, in code points as cel-go counts

    @property
    def rank(self) -> int:
        return _RANK.get(self.kind, -1)


def display(kind: str) -> str:
    """How an expected token is spelled in a syntax error."""
    if kind == "EOF":
        return "<EOF>"
    return kind if kind in SYMBOLIC else f"'{kind}'"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")
    return starts


def tokenize(text: str) -> tuple[list[Token], list[tuple[int, int, str]]]:
    """Tokens (ending with EOF) and lexer errors as (line, column, message)."""
    starts = _line_starts(text)

    def where(offset: int) -> tuple[int, int]:
        line = 0
        while line + 1 < len(starts) and starts[line + 1] <= offset:
            line += 1
        return line + 1, offset - starts[line] + 1

    tokens: list[Token] = []
    errors: list[tuple[int, int, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            bad = _unrecognized(text, pos)
            line, column = where(pos)
            errors.append((line, column, f"token recognition error at: '{bad}'"))
            pos += len(bad)
            continue
        kind = match.lastgroup or ""
        value = match.group()
        if kind != "ws":
            if kind == "op" or (kind == "IDENTIFIER" and value in _KEYWORDS):
                kind = value
            line, column = where(pos)
            tokens.append(Token(kind, value, pos, line, column))
        pos = match.end()
    line, column = where(len(text))
    tokens.append(Token("EOF", "<EOF>", len(text), line, column))
    return tokens, errors


def _unrecognized(text: str, pos: int) -> str:
    """What ANTLR shows for a character that starts no token: an unterminated string is shown
    up to the end of its line; a lone ``&`` or ``|`` with the character after it."""
    char = text[pos]
    if char in "\"'" or (char in "rRbB" and pos + 1 < len(text) and text[pos + 1] in "\"'"):
        end = text.find("\n", pos)
        return text[pos : end if end >= 0 else len(text)]
    if char in "&|=`" and pos + 1 < len(text):
        return text[pos : pos + 2]
    return char
