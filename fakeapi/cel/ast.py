"""A small CEL syntax tree, built from cel-python's lark parse tree.

cel-python's grammar and parser are reused (they follow the CEL spec), but its tree is shaped by
grammar rules (``conditionalor`` → ``conditionaland`` → ``relation`` …) and its interpreter walks
that tree with an activation clone per macro. Converting once into these few node classes lets the
checker and the closure compiler work on meaning (a call, a select, a comprehension) and expands
macros (``has``, ``all``, ``exists``, ``exists_one``, ``map``, ``filter``, ``cel.bind``) up front,
as cel-go's parser does.

Each node's ``pos`` is where cel-go locates that expression (its operator token, for most
kinds), because compile errors point there; :mod:`.positions` finds those tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import lark
from celpy.celparser import CELParseError, CELParser

from .errors import CELCompileError
from .positions import first_position, located, place_bool_literals, token_after

__all__ = [
    "And",
    "Binary",
    "Bind",
    "Call",
    "Comprehension",
    "Cond",
    "Has",
    "Ident",
    "Index",
    "ListLit",
    "Lit",
    "MapLit",
    "Neg",
    "Node",
    "Not",
    "Or",
    "Select",
    "UInt",
    "parse",
]

NAMESPACES = frozenset({"sets", "strings", "lists", "math"})
COMPREHENSION_MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter"})


class UInt(int):
    """A CEL ``uint`` value (a distinct type from ``int``)."""


@dataclass(frozen=True, slots=True)
class Node:
    """Base class; ``pos`` is (line, column), 1-based."""

    pos: tuple[int, int] = field(compare=False)


@dataclass(frozen=True, slots=True)
class Lit(Node):
    value: object


@dataclass(frozen=True, slots=True)
class Ident(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Select(Node):
    operand: Node
    field: str


@dataclass(frozen=True, slots=True)
class Has(Node):
    operand: Node
    field: str


@dataclass(frozen=True, slots=True)
class Index(Node):
    operand: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    function: str
    args: tuple[Node, ...]
    target: Node | None = None


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Neg(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class And(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Or(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Cond(Node):
    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True)
class Comprehension(Node):
    """``range.macro(var[, var2], args...)``; ``args`` are the macro's expressions."""

    macro: str
    range: Node
    var: str
    var2: str | None
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Bind(Node):
    var: str
    init: Node
    body: Node


_OPS = {
    "relation_lt": "<",
    "relation_le": "<=",
    "relation_gt": ">",
    "relation_ge": ">=",
    "relation_eq": "==",
    "relation_ne": "!=",
    "relation_in": "in",
    "addition_add": "+",
    "addition_sub": "-",
    "multiplication_mul": "*",
    "multiplication_div": "/",
    "multiplication_mod": "%",
}

_PARSER: CELParser | None = None


def parse(expression: str) -> Node:
    """Parse and macro-expand; raises :class:`CELCompileError` with cel-go-like text."""
    global _PARSER
    if _PARSER is None:
        _PARSER = CELParser()
    try:
        tree = _PARSER.parse(expression)
    except CELParseError as exc:
        line, column = exc.line or 1, exc.column or 1
        raise CELCompileError(
            located(expression, line, column, "Syntax error: " + _syntax_detail(exc))
        ) from None
    except lark.exceptions.LarkError as exc:  # defensive: any other lark failure
        raise CELCompileError(located(expression, 1, 1, f"Syntax error: {exc}")) from None
    place_bool_literals(tree, expression)
    return _Converter(expression).convert(tree)


def _syntax_detail(exc: CELParseError) -> str:
    text = str(exc.args[0]) if exc.args else "syntax error"
    first = text.splitlines()[0] if text else "syntax error"
    return first


class _Converter:
    def __init__(self, expression: str) -> None:
        self.expression = expression

    def error(self, pos: tuple[int, int], message: str) -> CELCompileError:
        return CELCompileError(located(self.expression, pos[0], pos[1], message))

    @staticmethod
    def pos(tree: lark.Tree[Any] | lark.Token) -> tuple[int, int]:
        return first_position(tree)

    def after(
        self, item: lark.Tree[Any] | lark.Token, token: str, default: tuple[int, int]
    ) -> tuple[int, int]:
        """cel-go locates operators, selections, indexes and calls at their own token."""
        return token_after(self.expression, item, token) or default

    def convert(self, tree: lark.Tree[Any]) -> Node:
        kind = tree.data
        kids = tree.children
        pos = self.pos(tree)
        if kind == "expr":
            if len(kids) == 1:
                return self.convert(kids[0])
            pos = self.after(kids[0], "?", pos)
            return Cond(pos, self.convert(kids[0]), self.convert(kids[1]), self.convert(kids[2]))
        if kind == "conditionalor":
            if len(kids) == 1:
                return self.convert(kids[0])
            pos = self.after(kids[0], "||", pos)
            return Or(pos, self.convert(kids[0]), self.convert(kids[1]))
        if kind == "conditionaland":
            if len(kids) == 1:
                return self.convert(kids[0])
            pos = self.after(kids[0], "&&", pos)
            return And(pos, self.convert(kids[0]), self.convert(kids[1]))
        if kind in ("relation", "addition", "multiplication"):
            if len(kids) == 1:
                return self.convert(kids[0])
            op_tree = kids[0]
            assert isinstance(op_tree, lark.Tree)
            left = op_tree.children[0]
            assert isinstance(left, lark.Tree)
            op = _OPS[str(op_tree.data)]
            pos = self.after(left, op, pos)
            return Binary(pos, op, self.convert(left), self.convert(kids[1]))
        if kind == "unary":
            if len(kids) == 1:
                return self.convert(kids[0])
            op_tree, operand = kids
            assert isinstance(op_tree, lark.Tree) and isinstance(operand, lark.Tree)
            inner = self.convert(operand)
            return Not(pos, inner) if op_tree.data == "unary_not" else Neg(pos, inner)
        if kind in ("member", "primary"):
            child = kids[0]
            assert isinstance(child, lark.Tree)
            return self.convert(child)
        if kind == "paren_expr":
            return self.convert(_tree(kids[0]))
        if kind == "literal":
            token = kids[0]
            assert isinstance(token, lark.Token)
            return Lit(pos, self.literal(token))
        if kind == "ident":
            return Ident(pos, str(kids[0]))
        if kind == "dot_ident":
            return Ident(pos, str(kids[0]))
        if kind in ("ident_arg", "dot_ident_arg"):
            name = str(kids[0])
            pos = self.after(kids[0], "(", pos)
            args = self.exprlist(kids[1:])
            if name == "has":
                if len(args) != 1 or not isinstance(args[0], Select):
                    raise self.error(pos, "invalid argument to has() macro")
                return Has(pos, args[0].operand, args[0].field)
            return Call(pos, name, args)
        if kind == "member_dot":
            pos = self.after(kids[0], ".", pos)
            return Select(pos, self.convert(_tree(kids[0])), str(kids[1]))
        if kind == "member_dot_arg":
            pos = self.after(kids[1], "(", pos)
            return self.member_call(pos, _tree(kids[0]), str(kids[1]), self.exprlist(kids[2:]))
        if kind == "member_index":
            pos = self.after(kids[0], "[", pos)
            return Index(pos, self.convert(_tree(kids[0])), self.convert(_tree(kids[1])))
        if kind == "member_object":
            raise self.error(pos, "message construction is not supported")
        if kind == "list_lit":
            return ListLit(pos, self.exprlist(kids))
        if kind == "map_lit":
            entries: list[tuple[Node, Node]] = []
            if kids:
                values = [self.convert(_tree(k)) for k in _tree(kids[0]).children]
                entries = [(values[i], values[i + 1]) for i in range(0, len(values), 2)]
            return MapLit(pos, tuple(entries))
        raise self.error(pos, f"unsupported syntax {kind}")

    def exprlist(self, kids: list[lark.Tree[Any] | lark.Token] | list[object]) -> tuple[Node, ...]:
        if not kids:
            return ()
        exprlist = kids[0]
        assert isinstance(exprlist, lark.Tree)
        return tuple(self.convert(_tree(k)) for k in exprlist.children)

    def member_call(
        self, pos: tuple[int, int], target_tree: lark.Tree[Any], name: str, args: tuple[Node, ...]
    ) -> Node:
        target = self.convert(target_tree)
        if isinstance(target, Ident) and target.name == "cel" and name == "bind":
            if len(args) != 3 or not isinstance(args[0], Ident):
                raise self.error(pos, "cel.bind() variable name must be a simple identifier")
            return Bind(pos, args[0].name, args[1], args[2])
        if name in COMPREHENSION_MACROS and args and isinstance(args[0], Ident):
            return self.comprehension(pos, target, name, args)
        if isinstance(target, Ident) and target.name in NAMESPACES:
            return Call(pos, f"{target.name}.{name}", args)
        return Call(pos, name, args, target)

    def comprehension(
        self, pos: tuple[int, int], target: Node, name: str, args: tuple[Node, ...]
    ) -> Node:
        first = args[0]
        assert isinstance(first, Ident)
        macro = "exists_one" if name == "existsOne" else name
        two_var_arity = {"all": 3, "exists": 3, "exists_one": 3}
        one_var_arity = {
            "all": (2,),
            "exists": (2,),
            "exists_one": (2,),
            "map": (2, 3),
            "filter": (2,),
        }
        if len(args) == two_var_arity.get(macro, 0) and isinstance(args[1], Ident):
            return Comprehension(pos, macro, target, first.name, args[1].name, args[2:])
        if len(args) not in one_var_arity[macro]:
            raise self.error(pos, f"invalid number of arguments to {name}() macro")
        return Comprehension(pos, macro, target, first.name, None, args[1:])

    def literal(self, token: lark.Token) -> object:
        text = str(token)
        kind = token.type
        pos = self.pos(token)
        if kind == "BOOL_LIT":
            return text == "true"
        if kind == "NULL_LIT":
            return None
        if kind == "INT_LIT":
            value = _parse_int(text)
            if not -(2**63) <= value < 2**63:
                raise self.error(pos, "invalid int literal")
            return value
        if kind == "UINT_LIT":
            value = _parse_int(text[:-1])
            if not 0 <= value < 2**64:
                raise self.error(pos, "invalid uint literal")
            return UInt(value)
        if kind == "FLOAT_LIT":
            return float(text)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return _decode_string(text, self, pos)
        if kind == "BYTES_LIT":
            decoded = _decode_string(text[1:], self, pos, as_bytes=True)
            assert isinstance(decoded, bytes)
            return decoded
        raise self.error(pos, f"unsupported literal {text}")


def _tree(item: object) -> lark.Tree[Any]:
    assert isinstance(item, lark.Tree)
    return item


def _parse_int(text: str) -> int:
    negative = text.startswith("-")
    body = text[1:] if negative else text
    value = int(body, 16) if body.lower().startswith("0x") else int(body)
    return -value if negative else value


_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}
_ESCAPE_RE = re.compile(
    r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2}|.)", re.S
)


def _decode_string(
    text: str, conv: _Converter, pos: tuple[int, int], *, as_bytes: bool = False
) -> str | bytes:
    raw = text[:1] in ("r", "R")
    if raw:
        text = text[1:]
    quote = text[:3] if text[:3] in ('"""', "'''") else text[:1]
    body = text[len(quote) : len(text) - len(quote)]
    if raw:
        return body.encode() if as_bytes else body
    out_bytes = bytearray()

    def piece(match: re.Match[str]) -> str:
        esc = match.group(1)
        if esc[0] in "xuU" and len(esc) > 1:
            code = int(esc[1:], 16)
            if as_bytes and esc[0] == "x":
                return f"\x00BYTE{code}\x00"
            return chr(code)
        if esc[0] in "0123" and len(esc) == 3:
            code = int(esc, 8)
            if as_bytes:
                return f"\x00BYTE{code}\x00"
            return chr(code)
        if esc in _ESCAPES:
            return _ESCAPES[esc]
        raise conv.error(pos, f"Syntax error: invalid escape sequence \\{esc}")

    decoded = _ESCAPE_RE.sub(piece, body)
    if not as_bytes:
        return decoded
    for part in re.split(r"(\x00BYTE\d+\x00)", decoded):
        if part.startswith("\x00BYTE"):
            out_bytes.append(int(part[5:-1]))
        else:
            out_bytes.extend(part.encode())
    return bytes(out_bytes)
