"""The label selector grammar: upstream's lexer and parser, and selectors from API objects.

The grammar follows k8s.io/apimachinery ``labels.Parse`` token for token (its lexer, its two
parser contexts in which ``in``/``notin`` are keywords or plain values, its sorted and
de-duplicated value sets) because clients show the server's error text verbatim. A
``metav1.LabelSelector`` object converts to the same :class:`LabelSelector`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakeapi.selectors.errors import SelectorError, go_quote, invalid_value, label_key_errors
from fakeapi.selectors.requirements import (
    BINARY_OPERATORS,
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    LabelSelector,
    Requirement,
    new_requirement,
)

__all__ = ["label_selector_from_api", "parse_label_selector"]

_ERROR, _END, _CLOSE, _COMMA, _NOT, _DOUBLE_EQ, _EQ, _GT, _IDENT, _IN, _LT, _NE, _NOTIN, _OPEN = (
    range(14)
)
_SYMBOLS = {
    ")": _CLOSE,
    ",": _COMMA,
    "!": _NOT,
    "==": _DOUBLE_EQ,
    "=": _EQ,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NE,
    "notin": _NOTIN,
    "(": _OPEN,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_STOP = _SPECIAL | _WHITESPACE | {"\x00"}
_OPERATOR_TOKENS = {
    _IN: IN,
    _NOTIN: NOT_IN,
    _EQ: EQUALS,
    _DOUBLE_EQ: DOUBLE_EQUALS,
    _NE: NOT_EQUALS,
    _GT: GREATER_THAN,
    _LT: LESS_THAN,
}

Token = tuple[int, str]


def _lex(text: str) -> list[Token]:
    """All tokens up to the end token.

    Upstream's lexer reads a NUL byte as end of input: where a token starts it ends the input,
    and right after a token it is swallowed as a separator. Mirrored so odd input fails alike.
    """
    tokens: list[Token] = []
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= size or text[pos] == "\x00":
            tokens.append((_END, ""))
            return tokens
        ch = text[pos]
        if ch in _SPECIAL:
            pair = text[pos : pos + 2]
            if len(pair) == 2 and pair in _SYMBOLS:
                tokens.append((_SYMBOLS[pair], pair))
                pos += 2
            else:
                tokens.append((_SYMBOLS[ch], ch))
                pos += 1
        else:
            start = pos
            while pos < size and text[pos] not in _STOP:
                pos += 1
            word = text[start:pos]
            tokens.append((_SYMBOLS.get(word, _IDENT), word))
        if pos < size and text[pos] == "\x00":
            pos += 1


class _Parser:
    """Recursive descent over the token list; ``values`` context reads keywords as identifiers."""

    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.pos = 0

    def peek(self, *, values: bool = True) -> Token:
        tok, lit = self.tokens[self.pos]
        return (_IDENT, lit) if values and tok in (_IN, _NOTIN) else (tok, lit)

    def take(self, *, values: bool = True) -> Token:
        token = self.peek(values=values)
        self.pos += 1
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            tok, lit = self.peek()
            if tok == _END:
                return requirements
            if tok not in (_IDENT, _NOT):
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except SelectorError as err:
                raise SelectorError(f"unable to parse requirement: {err.message}") from None
            tok, lit = self.take()
            if tok == _END:
                return requirements
            if tok != _COMMA:
                raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            tok, lit = self.peek()
            if tok not in (_IDENT, _NOT):
                raise SelectorError(f"found '{lit}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        operator = ""
        tok, key = self.take()
        if tok == _NOT:
            operator = DOES_NOT_EXIST
            tok, key = self.take()
        if tok != _IDENT:
            raise SelectorError(f"found '{key}', expected: identifier")
        if errors := label_key_errors(key):
            raise SelectorError(invalid_value("<nil>", key, "; ".join(errors)))
        if self.peek()[0] in (_END, _COMMA) and not operator:
            operator = EXISTS
        if operator:
            return new_requirement(key, operator, ())
        tok, lit = self.take(values=False)
        if tok not in _OPERATOR_TOKENS:
            raise SelectorError(f"found '{lit}', expected: {', '.join(BINARY_OPERATORS)}")
        operator = _OPERATOR_TOKENS[tok]
        found = self.value_set() if operator in (IN, NOT_IN) else self.exact_value()
        return new_requirement(key, operator, sorted(found))

    def value_set(self) -> set[str]:
        tok, lit = self.take()
        if tok != _OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok == _CLOSE:
            self.take()
            return {""}
        if tok not in (_IDENT, _COMMA):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        found = self.identifiers()
        if self.take()[0] != _CLOSE:
            raise SelectorError(f"found '{lit}', expected: ')'")
        return found

    def identifiers(self) -> set[str]:
        """A possibly empty list of possibly empty values, stopping before ')'."""
        found: set[str] = set()
        while True:
            tok, lit = self.take()
            if tok == _IDENT:
                found.add(lit)
                tok2, lit2 = self.peek()
                if tok2 == _CLOSE:
                    return found
                if tok2 != _COMMA:
                    raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            elif tok == _COMMA:
                # a leading, doubled or trailing comma stands for the empty value
                if not found:
                    found.add("")
                tok2 = self.peek()[0]
                if tok2 == _CLOSE:
                    found.add("")
                    return found
                if tok2 == _COMMA:
                    found.add("")
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.peek()[0] in (_END, _COMMA):
            return {""}
        tok, lit = self.take()
        if tok == _IDENT:
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a ``labelSelector`` query string; the empty string selects everything."""
    if not text:
        return LabelSelector.everything()
    return LabelSelector(_Parser(text).parse())


def label_selector_from_api(selector: Mapping[str, Any] | None) -> LabelSelector:
    """Convert a ``metav1.LabelSelector`` dict; None selects nothing, ``{}`` everything."""
    if selector is None:
        return LabelSelector.nothing()
    match_labels: Mapping[str, str] = selector.get("matchLabels") or {}
    expressions: Sequence[Mapping[str, Any]] = selector.get("matchExpressions") or ()
    if not match_labels and not expressions:
        return LabelSelector.everything()
    requirements = [new_requirement(k, EQUALS, (v,)) for k, v in match_labels.items()]
    operators = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
    for expr in expressions:
        name = expr.get("operator") or ""
        if name not in operators:
            raise SelectorError(f"{go_quote(str(name))} is not a valid label selector operator")
        values = tuple(expr.get("values") or ())
        requirements.append(
            new_requirement(expr.get("key") or "", operators[name], values, api_values=True)
        )
    return LabelSelector(requirements)
