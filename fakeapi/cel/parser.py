"""A recursive-descent CEL parser with cel-go's syntax, macros and syntax-error texts.

cel-go parses with an ANTLR grammar, and users read its error messages: an expression cut
short gives ``Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ...}`` with the
position of the end and a caret. This parser follows the same grammar (precedence, left
associativity, optional syntax ``.?f`` / ``[?k]`` / ``[?e]`` / ``{?k: v}``, trailing commas,
reserved words) and reports the first syntax error the way ANTLR's default error strategy
words it (mismatched or extraneous input, no viable alternative), plus every token the lexer
could not recognise. It expands cel-go's macros while parsing, as cel-go does: ``has``,
``all``/``exists``/``exists_one`` (one and two variables), ``map``, ``filter``, the two-variable
``transformList``/``transformMap``/``transformMapEntry``, ``sortBy``, ``optMap``/``optFlatMap``
and ``cel.bind``. ``ns.f(...)`` is a call of the global function ``ns.f`` when the environment
has one (``sets.contains``, ``optional.of``, ``ip.isCanonical``), else a member call on ``ns``.

Every node records where cel-go locates it: the operator token of an operation, the ``.`` of
a selection, the ``[`` of an index, the ``(`` of a call or macro, else its first token.
"""

from __future__ import annotations

import re

from fakeapi.cel import ast
from fakeapi.cel.errors import CELCompileError
from fakeapi.cel.lexer import Token, display, tokenize
from fakeapi.cel.library import GLOBAL_FUNCTIONS
from fakeapi.cel.positions import located

__all__ = ["parse", "parse_for_compile"]

EXPR_START = (
    "[",
    "{",
    "(",
    ".",
    "-",
    "!",
    "true",
    "false",
    "null",
    "NUM_FLOAT",
    "NUM_INT",
    "NUM_UINT",
    "STRING",
    "BYTES",
    "IDENTIFIER",
)
_EXPR_START = frozenset(EXPR_START)
RESERVED = frozenset(
    {
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
MAX_RECURSION = 250
_LITERAL_START = frozenset(
    {"NUM_INT", "NUM_UINT", "NUM_FLOAT", "STRING", "BYTES", "true", "false", "null", "-"}
)
_RELATIONS = frozenset({"<", "<=", ">=", ">", "==", "!=", "in"})

_ONE_VAR: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(("all", "exists", "exists_one", "existsOne", "filter"), (2,)),
    **dict.fromkeys(("sortBy", "optMap", "optFlatMap"), (2,)),
    "map": (2, 3),
}
_TWO_VAR = {"all": 3, "exists": 3, "existsOne": 3, "exists_one": 3}
_TRANSFORMS = frozenset({"transformList", "transformMap", "transformMapEntry"})


class _SyntaxError(Exception):
    def __init__(self, token: Token, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


def parse(expression: str) -> ast.Node:
    """Parse and macro-expand; raises :class:`CELCompileError` with cel-go's text (the part
    after ``compilation failed: ``)."""
    tokens, lexer_errors = tokenize(expression)
    parser = _Parser(expression, tokens)
    errors: list[tuple[int, int, str]] = [
        (ln, col, "Syntax error: " + m) for ln, col, m in lexer_errors
    ]
    node: ast.Node | None = None
    try:
        node = parser.start()
    except _SyntaxError as exc:
        errors.append((exc.token.line, exc.token.column, exc.message))
    except RecursionError:
        errors.append((1, 1, f"expression recursion limit exceeded: {MAX_RECURSION}"))
    if errors:
        errors.sort(key=lambda e: (e[0], e[1]))
        raise CELCompileError("\n".join(located(expression, ln, col, m) for ln, col, m in errors))
    assert node is not None
    return node


def _quote(text: str) -> str:
    return "'" + text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "'"


class _Parser:
    def __init__(self, expression: str, tokens: list[Token]) -> None:
        self.expression = expression
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    # -- token helpers -------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != "EOF":
            self.pos += 1
        return token

    def at(self, *kinds: str) -> bool:
        return self.tok.kind in kinds

    def mismatch(self, expected: tuple[str, ...] | list[str]) -> _SyntaxError:
        """ANTLR's report for an unexpected token: "extraneous" when dropping it would let
        parsing go on, else "mismatched"."""
        ordered = sorted(set(expected), key=lambda k: (k == "EOF", Token(k, "", 0, 0, 0).rank))
        names = [display(k) for k in ordered]
        wanted = names[0] if len(names) == 1 else "{" + ", ".join(names) + "}"
        token = self.tok
        extraneous = token.kind != "EOF" and self.peek().kind in expected
        word = "extraneous" if extraneous else "mismatched"
        return _SyntaxError(
            token, f"Syntax error: {word} input {_quote(token.text)} expecting {wanted}"
        )

    def no_viable(self, start: Token) -> _SyntaxError:
        end = self.tok
        text = self.expression[
            start.offset : end.offset if end.kind == "EOF" else end.offset + len(end.text)
        ]
        return _SyntaxError(
            end, f"Syntax error: no viable alternative at input {_quote(text.strip())}"
        )

    def expect(self, kind: str, *also: str) -> Token:
        if self.tok.kind != kind:
            raise self.mismatch((kind, *also))
        return self.advance()

    def error(self, token: Token, message: str) -> _SyntaxError:
        return _SyntaxError(token, message)

    # -- grammar -------------------------------------------------------------------------
    def start(self) -> ast.Node:
        node = self.expr()
        if not self.at("EOF"):
            raise self.mismatch(("EOF",))
        return node

    def expr(self) -> ast.Node:
        self.depth += 1
        if self.depth > MAX_RECURSION:
            raise self.error(self.tok, f"expression recursion limit exceeded: {MAX_RECURSION}")
        try:
            condition = self.conditional_or()
            if not self.at("?"):
                return condition
            op = self.advance()
            then = self.conditional_or()
            self.expect(":")
            otherwise = self.expr()
            return ast.Cond(_at(op), condition, then, otherwise)
        finally:
            self.depth -= 1

    def conditional_or(self) -> ast.Node:
        node = self.conditional_and()
        while self.at("||"):
            op = self.advance()
            node = ast.Or(_at(op), node, self.conditional_and())
        return node

    def conditional_and(self) -> ast.Node:
        node = self.relation()
        while self.at("&&"):
            op = self.advance()
            node = ast.And(_at(op), node, self.relation())
        return node

    def relation(self) -> ast.Node:
        node = self.addition()
        while self.tok.kind in _RELATIONS:
            op = self.advance()
            node = ast.Binary(_at(op), op.kind, node, self.addition())
        return node

    def addition(self) -> ast.Node:
        node = self.multiplication()
        while self.at("+", "-"):
            op = self.advance()
            node = ast.Binary(_at(op), op.kind, node, self.multiplication())
        return node

    def multiplication(self) -> ast.Node:
        node = self.unary()
        while self.at("*", "/", "%"):
            op = self.advance()
            node = ast.Binary(_at(op), op.kind, node, self.unary())
        return node

    def unary(self) -> ast.Node:
        first = self.tok
        if first.kind == "!":
            count = 0
            while self.at("!"):
                self.advance()
                count += 1
            operand = self.member()
            return ast.Not(_at(first), operand) if count % 2 else operand
        if first.kind == "-":
            if self.peek().kind in ("NUM_INT", "NUM_FLOAT") and self.peek(2).kind not in (".", "["):
                return self.member()  # a negative literal
            count = 0
            while self.at("-"):
                self.advance()
                count += 1
            if self.tok.kind not in _EXPR_START or (count == 1 and self.at("-")):
                raise self.no_viable(first)
            operand = self.member()
            return ast.Neg(_at(first), operand) if count % 2 else operand
        return self.member()

    def member(self) -> ast.Node:
        node = self.primary()
        while True:
            if self.at("."):
                dot = self.advance()
                optional = False
                if self.at("?"):
                    self.advance()
                    optional = True
                if not self.at("IDENTIFIER", "ESC_IDENTIFIER"):
                    if optional:
                        raise self.mismatch(("IDENTIFIER", "ESC_IDENTIFIER"))
                    raise self.no_viable(dot)
                name_token = self.advance()
                name = name_token.text
                if name_token.kind == "ESC_IDENTIFIER":
                    name = name[1:-1]
                elif self.at("(") and not optional:
                    open_paren = self.advance()
                    args = self.call_args()
                    node = self.member_call(open_paren, node, name, args)
                    continue
                node = (ast.OptSelect if optional else ast.Select)(_at(dot), node, name)
            elif self.at("["):
                bracket = self.advance()
                optional = False
                if self.at("?"):
                    self.advance()
                    optional = True
                index = self.expr()
                self.expect("]")
                node = (ast.OptIndex if optional else ast.Index)(_at(bracket), node, index)
            else:
                return node

    def call_args(self) -> tuple[ast.Node, ...]:
        if self.at(")"):
            self.advance()
            return ()
        if self.tok.kind not in _EXPR_START:
            raise self.mismatch((*EXPR_START, ")"))
        args = [self.expr()]
        while self.at(","):
            self.advance()
            args.append(self.expr())
        self.expect(")")
        return tuple(args)

    def primary(self) -> ast.Node:
        token = self.tok
        kind = token.kind
        if kind == "." or kind == "IDENTIFIER":
            if kind == ".":
                self.advance()
                if not self.at("IDENTIFIER"):
                    raise self.mismatch(("IDENTIFIER",))
            ident = self.advance()
            if ident.text in RESERVED:
                raise self.error(ident, f"reserved identifier: {ident.text}")
            name = ("." if kind == "." else "") + ident.text
            if self.at("("):
                open_paren = self.advance()
                args = self.call_args()
                return self.global_call(open_paren, name, args)
            if self.at("{"):
                raise self.error(self.tok, "message construction is not supported")
            return ast.Ident(_at(ident), name)
        if kind == "(":
            self.advance()
            if self.tok.kind not in _EXPR_START:
                raise self.mismatch(EXPR_START)
            inner = self.expr()
            self.expect(")")
            return inner
        if kind == "[":
            return self.list_literal()
        if kind == "{":
            return self.map_literal()
        if kind in (
            "NUM_INT",
            "NUM_UINT",
            "NUM_FLOAT",
            "STRING",
            "BYTES",
            "true",
            "false",
            "null",
            "-",
        ):
            return self.literal()
        raise self.mismatch(EXPR_START)

    def list_literal(self) -> ast.Node:
        bracket = self.advance()
        items: list[ast.Node] = []
        optional: list[int] = []
        starts = (*EXPR_START, "?")
        if self.at("]"):
            self.advance()
            return ast.ListLit(_at(bracket), ())
        if self.tok.kind not in starts and not self.at(","):
            raise self.mismatch((*starts, "]", ","))
        while self.tok.kind in starts:
            if self.at("?"):
                self.advance()
                optional.append(len(items))
            items.append(self.expr())
            if not self.at(","):
                break
            self.advance()
        else:
            if not items and self.at(","):
                self.advance()
        if not self.at("]"):
            raise self.mismatch(("]", ","))
        self.advance()
        return ast.ListLit(_at(bracket), tuple(items), tuple(optional))

    def map_literal(self) -> ast.Node:
        brace = self.advance()
        entries: list[tuple[ast.Node, ast.Node]] = []
        optional: list[int] = []
        starts = (*EXPR_START, "?")
        if self.at("}"):
            self.advance()
            return ast.MapLit(_at(brace), ())
        if self.tok.kind not in starts and not self.at(","):
            raise self.mismatch((*starts, "}", ","))
        while self.tok.kind in starts:
            if self.at("?"):
                self.advance()
                optional.append(len(entries))
            key = self.expr()
            self.expect(":")
            entries.append((key, self.expr()))
            if not self.at(","):
                break
            self.advance()
        else:
            if not entries and self.at(","):
                self.advance()
        if not self.at("}"):
            raise self.mismatch(("}", ","))
        self.advance()
        return ast.MapLit(_at(brace), tuple(entries), tuple(optional))

    def literal(self) -> ast.Node:
        first = self.advance()
        negative = first.kind == "-"
        token = self.advance() if negative else first
        text = token.text
        kind = token.kind
        pos = _at(first)
        if kind == "true" or kind == "false":
            return ast.Lit(pos, kind == "true")
        if kind == "null":
            return ast.Lit(pos, None)
        if kind == "NUM_INT":
            value = int(text, 16) if text.lower().startswith("0x") else int(text)
            value = -value if negative else value
            if not -(2**63) <= value < 2**63:
                raise self.error(first, "invalid int literal")
            return ast.Lit(pos, value)
        if kind == "NUM_UINT":
            body = text[:-1]
            value = int(body, 16) if body.lower().startswith("0x") else int(body)
            if value >= 2**64:
                raise self.error(first, "invalid uint literal")
            return ast.Lit(pos, ast.UInt(value))
        if kind == "NUM_FLOAT":
            number = float(text)
            return ast.Lit(pos, -number if negative else number)
        if kind == "STRING":
            return ast.Lit(pos, _decode(text, first, self, as_bytes=False))
        if kind == "BYTES":
            return ast.Lit(pos, _decode(text[1:], first, self, as_bytes=True))
        raise self.mismatch(EXPR_START)

    # -- calls and macros ----------------------------------------------------------------
    def global_call(self, open_paren: Token, name: str, args: tuple[ast.Node, ...]) -> ast.Node:
        pos = _at(open_paren)
        if name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, ast.Select):
                raise self.error(_token_at(arg, open_paren), "invalid argument to has() macro")
            return ast.Has(pos, arg.operand, arg.field)
        return ast.Call(pos, name.lstrip("."), args)

    def member_call(
        self, open_paren: Token, target: ast.Node, name: str, args: tuple[ast.Node, ...]
    ) -> ast.Node:
        pos = _at(open_paren)
        if (
            isinstance(target, ast.Ident)
            and target.name == "cel"
            and name == "bind"
            and len(args) == 3
        ):
            if not isinstance(args[0], ast.Ident):
                raise self.error(
                    _token_at(args[0], open_paren),
                    "cel.bind() variable name must be a simple identifier",
                )
            return ast.Bind(pos, args[0].name, args[1], args[2])
        macro = self.comprehension(open_paren, target, name, args)
        if macro is not None:
            return macro
        if isinstance(target, ast.Ident) and f"{target.name}.{name}" in GLOBAL_FUNCTIONS:
            return ast.Call(pos, f"{target.name}.{name}", args)
        return ast.Call(pos, name, args, target)

    def comprehension(
        self, open_paren: Token, target: ast.Node, name: str, args: tuple[ast.Node, ...]
    ) -> ast.Node | None:
        pos = _at(open_paren)
        macro = "exists_one" if name == "existsOne" else name
        if len(args) in _ONE_VAR.get(name, ()):
            self.require_ident(args[0], open_paren)
            first = args[0]
            assert isinstance(first, ast.Ident)
            return ast.Comprehension(pos, macro, target, first.name, None, args[1:])
        if (_TWO_VAR.get(name) == len(args)) or (name in _TRANSFORMS and len(args) in (3, 4)):
            self.require_ident(args[0], open_paren)
            self.require_ident(args[1], open_paren)
            first, second = args[0], args[1]
            assert isinstance(first, ast.Ident) and isinstance(second, ast.Ident)
            if first.name == second.name:
                raise self.error(
                    _token_at(second, open_paren),
                    f"duplicate variable name: {first.name}",
                )
            return ast.Comprehension(pos, macro, target, first.name, second.name, args[2:])
        return None

    def require_ident(self, node: ast.Node, near: Token) -> None:
        if not isinstance(node, ast.Ident) or node.name.startswith("."):
            raise self.error(_token_at(node, near), "argument is not an identifier")
        if node.name == "@result" or node.name == "__result__":
            raise self.error(
                _token_at(node, near), "iteration variable overwrites accumulator variable"
            )


def _at(token: Token) -> tuple[int, int]:
    return (token.line, token.column)


def _token_at(node: ast.Node, fallback: Token) -> Token:
    line, column = node.pos
    return Token(fallback.kind, fallback.text, fallback.offset, line, column)


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
    r"\\(x[0-9a-fA-F]{2}|X[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2}|[\s\S])"
)


def _decode(text: str, token: Token, parser: _Parser, *, as_bytes: bool) -> str | bytes:
    raw = text[:1] in ("r", "R")
    if raw:
        text = text[1:]
    quote = text[:3] if text[:3] in ('"""', "'''") and len(text) >= 6 else text[:1]
    body = text[len(quote) : len(text) - len(quote)]
    if raw:
        return body.encode() if as_bytes else body
    out = bytearray()
    pieces: list[str] = []
    pos = 0
    for match in _ESCAPE_RE.finditer(body):
        literal = body[pos : match.start()]
        if as_bytes:
            out.extend(literal.encode())
        else:
            pieces.append(literal)
        pos = match.end()
        esc = match.group(1)
        if esc[0] in "xX" and len(esc) == 3:
            code = int(esc[1:], 16)
            if as_bytes:
                out.append(code)
            else:
                pieces.append(chr(code))
        elif esc[0] in "uU" and len(esc) > 1:
            code = int(esc[1:], 16)
            if as_bytes or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise parser.error(token, "Syntax error: invalid escape sequence")  # cel-go rejects
            pieces.append(chr(code))
        elif esc[0] in "0123" and len(esc) == 3:
            code = int(esc, 8)
            if as_bytes:
                out.append(code)
            else:
                pieces.append(chr(code))
        elif esc in _ESCAPES:
            if as_bytes:
                out.extend(_ESCAPES[esc].encode())
            else:
                pieces.append(_ESCAPES[esc])
        else:
            raise parser.error(token, f"Syntax error: token recognition error at: {_quote(text)}")
    tail = body[pos:]
    if as_bytes:
        out.extend(tail.encode())
        return bytes(out)
    pieces.append(tail)
    return "".join(pieces)


def parse_for_compile(expression: str) -> ast.Node:
    """:func:`parse` as a compile step reports it: the message starts ``compilation failed: ``,
    and an expression nested past Python's recursion limit is refused in the same words."""
    try:
        return parse(expression)
    except CELCompileError as exc:
        raise CELCompileError("compilation failed: " + exc.message) from None
    except RecursionError:
        raise CELCompileError("compilation failed: expression nesting too deep") from None
