"""Kubernetes label and field selectors: upstream grammar and messages, fast matching.

Selectors arrive as query strings (``labelSelector``, ``fieldSelector``) and as API objects
(``metav1.LabelSelector`` in specs). Both kinds are parsed once per request and then matched
against every object of a list and every event of a watch, so parsing builds a tuple of small
precompiled checks and matching is one plain loop over them with early exit.

The label grammar follows k8s.io/apimachinery ``labels.Parse`` token for token (its lexer, its
two parser contexts in which ``in``/``notin`` are keywords or plain values, its sorted and
de-duplicated value sets) because clients show the server's error text verbatim: a malformed
``kubectl get -l`` prints our message. Field selectors follow ``fields.ParseSelector``: terms
split on unescaped commas, values unescaped with ``\\\\``, ``\\,`` and ``\\=``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from fakeapi.validation.names import is_qualified_name, is_valid_label_value

__all__ = [
    "FieldSelector",
    "LabelSelector",
    "Requirement",
    "SelectorError",
    "escape_field_value",
    "label_key_errors",
    "label_selector_from_api",
    "label_value_errors",
    "parse_field_selector",
    "parse_label_selector",
]


class SelectorError(ValueError):
    """A selector that does not parse or validate; ``message`` is upstream's error text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------------------------
# Label key and value rules: the same checks (and messages) as object metadata, from
# fakeapi.validation.names, under the names this module has always exported.


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


def _go_quote(text: str) -> str:
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


def _invalid(path: str, value: object, detail: str) -> str:
    """One rendered ``field.Invalid`` error: ``path: Invalid value: <value>: detail``."""
    if isinstance(value, str):
        shown = _go_quote(value)
    else:
        shown = orjson.dumps(value).decode()
    return f"{path}: Invalid value: {shown}: {detail}"


def _aggregate(errors: Sequence[str]) -> str:
    """Upstream's aggregate error text: one message as is, several de-duplicated in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --------------------------------------------------------------------------------------------
# Requirements and label selectors.

IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
GREATER_THAN, LESS_THAN, EXISTS, DOES_NOT_EXIST = "gt", "lt", "exists", "!"
_BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_INT64 = re.compile(r"[+-]?[0-9]+")


def _go_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None where Go would fail."""
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if -(1 << 63) <= number < (1 << 63) else None


# Each requirement compiles to (key, opcode, argument). One loop branching on small integers
# runs about a third faster than calling a closure per requirement, and matching is hot.
_IS, _IS_ONE_OF, _IS_NOT, _IS_NONE_OF, _HAS, _LACKS, _ABOVE, _BELOW, _NEVER = range(9)
LabelOp = tuple[str, int, Any]


def _compile(key: str, op: str, values: tuple[str, ...]) -> LabelOp:
    """The opcode form of one requirement; absent keys read as None, never equal to a value."""
    if op in (EQUALS, DOUBLE_EQUALS, IN):
        return (key, _IS, values[0]) if len(values) == 1 else (key, _IS_ONE_OF, frozenset(values))
    if op in (NOT_EQUALS, NOT_IN):
        if len(values) == 1:
            return key, _IS_NOT, values[0]
        return key, _IS_NONE_OF, frozenset(values)
    if op == EXISTS:
        return key, _HAS, None
    if op == DOES_NOT_EXIST:
        return key, _LACKS, None
    bound = _go_int64(values[0]) if len(values) == 1 else None
    if bound is None:
        return key, _NEVER, None
    return key, _ABOVE if op == GREATER_THAN else _BELOW, bound


def _matches_all(ops: tuple[LabelOp, ...], labels: Mapping[str, str]) -> bool:
    # literal opcodes: a global name lookup per comparison would cost more than the comparison
    for key, code, arg in ops:
        if code == 0:  # _IS
            if labels.get(key) != arg:
                return False
        elif code == 1:  # _IS_ONE_OF
            if labels.get(key) not in arg:
                return False
        elif code == 2:  # _IS_NOT
            if labels.get(key) == arg:
                return False
        elif code == 3:  # _IS_NONE_OF
            if labels.get(key) in arg:
                return False
        elif code == 4:  # _HAS
            if key not in labels:
                return False
        elif code == 5:  # _LACKS
            if key in labels:
                return False
        elif code == 8:  # _NEVER
            return False
        else:  # _ABOVE, _BELOW
            raw = labels.get(key)
            number = None if raw is None else _go_int64(raw)
            if number is None or (number <= arg if code == 6 else number >= arg):
                return False
    return True


class Requirement:
    """One term of a label selector: a key, an operator and its values."""

    __slots__ = ("compiled", "key", "operator", "values")

    def __init__(self, key: str, operator: str, values: Sequence[str]) -> None:
        self.key = key
        self.operator = operator
        self.values: tuple[str, ...] = tuple(values)
        self.compiled: LabelOp = _compile(key, operator, self.values)

    def matches(self, labels: Mapping[str, str]) -> bool:
        return _matches_all((self.compiled,), labels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values))

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {self.values!r})"

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def _new_requirement(
    key: str, op: str, values: Sequence[str], *, api_values: bool = False
) -> Requirement:
    """Validate like upstream ``NewRequirement``; raise with its aggregated message."""
    errors: list[str] = []
    if key_errors := label_key_errors(key):
        errors.append(_invalid("key", key, "; ".join(key_errors)))
    # upstream renders an empty value list from an API object as Go's nil slice
    shown: object = list(values) if values or not api_values else None
    if op in (IN, NOT_IN):
        if not values:
            errors.append(
                _invalid("values", shown, "for 'in', 'notin' operators, values set can't be empty")
            )
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(values) != 1:
            errors.append(
                _invalid("values", shown, "exact-match compatibility requires one single value")
            )
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            errors.append(
                _invalid("values", shown, "values set must be empty for exists and does not exist")
            )
    elif op in (GREATER_THAN, LESS_THAN):
        if len(values) != 1:
            errors.append(
                _invalid("values", shown, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values):
            if _go_int64(value) is None:
                errors.append(
                    _invalid(
                        f"values[{i}]",
                        value,
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    for i, value in enumerate(values):
        if value_errors := label_value_errors(value):
            errors.append(_invalid(f"values[{i}][{key}]", value, "; ".join(value_errors)))
    if errors:
        raise SelectorError(_aggregate(errors))
    return Requirement(key, op, values)


class LabelSelector:
    """A conjunction of requirements, sorted by key as upstream sorts them."""

    __slots__ = ("_ops", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(
            sorted(requirements, key=lambda r: r.key)
        )
        ops = tuple(r.compiled for r in self.requirements)
        self._ops: tuple[LabelOp, ...] = (("", _NEVER, None),) if nothing else ops

    @classmethod
    def everything(cls) -> LabelSelector:
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> LabelSelector:
        """The selector of a null ``metav1.LabelSelector``: matches no object at all."""
        return _NOTHING

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (the empty string)."""
        return not self._ops

    def matches(self, labels: Mapping[str, str]) -> bool:
        return _matches_all(self._ops, labels)

    def requires_exact_match(self, key: str) -> str | None:
        """The single value the first requirement on ``key`` pins it to, if it pins one."""
        for req in self.requirements:
            if req.key == key:
                if req.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(req.values) == 1:
                    return req.values[0]
                return None
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return (self.requirements, self._is_nothing) == (other.requirements, other._is_nothing)

    def __hash__(self) -> int:
        return hash((self.requirements, self._is_nothing))

    @property
    def _is_nothing(self) -> bool:
        return bool(self._ops) and not self.requirements

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "LabelSelector(<nothing>)" if self._is_nothing else f"LabelSelector({str(self)!r})"


_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector(nothing=True)


# --------------------------------------------------------------------------------------------
# The label selector lexer and parser.

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
            raise SelectorError(_invalid("<nil>", key, "; ".join(errors)))
        if self.peek()[0] in (_END, _COMMA) and not operator:
            operator = EXISTS
        if operator:
            return _new_requirement(key, operator, ())
        tok, lit = self.take(values=False)
        if tok not in _OPERATOR_TOKENS:
            raise SelectorError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        operator = _OPERATOR_TOKENS[tok]
        found = self.value_set() if operator in (IN, NOT_IN) else self.exact_value()
        return _new_requirement(key, operator, sorted(found))

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
        return _EVERYTHING
    return LabelSelector(_Parser(text).parse())


def label_selector_from_api(selector: Mapping[str, Any] | None) -> LabelSelector:
    """Convert a ``metav1.LabelSelector`` dict; None selects nothing, ``{}`` everything."""
    if selector is None:
        return _NOTHING
    match_labels: Mapping[str, str] = selector.get("matchLabels") or {}
    expressions: Sequence[Mapping[str, Any]] = selector.get("matchExpressions") or ()
    if not match_labels and not expressions:
        return _EVERYTHING
    requirements = [_new_requirement(k, EQUALS, (v,)) for k, v in match_labels.items()]
    operators = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
    for expr in expressions:
        name = expr.get("operator") or ""
        if name not in operators:
            raise SelectorError(f"{_go_quote(str(name))} is not a valid label selector operator")
        values = tuple(expr.get("values") or ())
        requirements.append(
            _new_requirement(expr.get("key") or "", operators[name], values, api_values=True)
        )
    return LabelSelector(requirements)


# --------------------------------------------------------------------------------------------
# Field selectors.

FieldTerm = tuple[str, str, str]


def escape_field_value(value: str) -> str:
    """Escape ``\\``, ``,`` and ``=`` so a value survives inside a field selector."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _unescape(value: str) -> str:
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    escaped = False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            # upstream prints the rune with %v, i.e. as its code point number
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    terms: list[str] = []
    start, escaped = 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


class FieldSelector:
    """A conjunction of ``field=value`` / ``field!=value`` terms; missing fields read as ""."""

    __slots__ = ("_checks", "fields", "requirements")

    def __init__(self, requirements: Iterable[FieldTerm] = ()) -> None:
        self.requirements: tuple[FieldTerm, ...] = tuple(requirements)
        self.fields: frozenset[str] = frozenset(f for f, _, _ in self.requirements)
        # identical terms (kr8s repeats metadata.name=X) need checking only once
        self._checks: tuple[tuple[str, str, bool], ...] = tuple(
            dict.fromkeys((f, v, op == "=") for f, op, v in self.requirements)
        )

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        # a plain loop with early exit is measurably faster than all(<generator>) here
        for name, value, equal in self._checks:  # noqa: SIM110
            if (fields.get(name, "") == value) is not equal:
                return False
        return True

    def exact_match(self, field: str) -> str | None:
        """The value an equality term pins ``field`` to (the first one, in sorted term order)."""
        for name, op, value in self.requirements:
            if name == field and op == "=":
                return value
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{escape_field_value(v)}" for f, op, v in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"


def parse_field_selector(text: str) -> FieldSelector:
    """Parse a ``fieldSelector`` query string; terms come out sorted, ``==`` reads as ``=``."""
    if not text:
        return _NO_FIELDS
    terms: list[FieldTerm] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        name, op, raw = split
        value = _unescape(raw)
        if not name and not value:
            continue  # upstream turns a bare "=" into the everything selector
        terms.append((name, "!=" if op == "!=" else "=", value))
    return FieldSelector(terms) if terms else _NO_FIELDS


_NO_FIELDS = FieldSelector()
