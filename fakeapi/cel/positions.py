"""Where in the source an expression is, as cel-go reports it in compile errors.

cel-go's messages end with the source line and a caret, and they locate each expression at a
particular token: the operator of a binary, logical or conditional expression, the ``.`` of a
field selection, the ``[`` of an index, the ``(`` of a call or macro, and the first character
of anything else. cel-python's lark tree only records where each rule starts and ends, so the
operator tokens are found by scanning the text after the left-hand side.

One repair is needed first: cel-python's lexer callback re-creates ``true`` and ``false``
tokens without any position, which would leave those literals (and every rule around them)
unlocated.
"""

from __future__ import annotations

import re
from typing import Any

import lark

__all__ = ["first_position", "line_column", "located", "place_bool_literals", "token_after"]

_BOOL_WORD = re.compile(r"\b(?:true|false)\b")


def located(expression: str, line: int, column: int, message: str) -> str:
    """Format like cel-go issues: ``ERROR: <input>:L:C: msg`` plus the source line and a caret."""
    lines = expression.splitlines() or [""]
    source = lines[min(line, len(lines)) - 1]
    caret = "." * max(column - 1, 0) + "^"
    return f"ERROR: <input>:{line}:{column}: {message}\n | {source}\n | {caret}"


def line_column(expression: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = expression.count("\n", 0, offset) + 1
    return line, offset - (expression.rfind("\n", 0, offset) + 1) + 1


def first_position(tree: lark.Tree[Any] | lark.Token) -> tuple[int, int]:
    """Where a rule or token starts; (1, 1) when nothing in it is located."""
    if isinstance(tree, lark.Token):
        return (tree.line or 1, tree.column or 1)
    meta = tree.meta
    if not getattr(meta, "empty", True) and meta.line is not None:
        return (meta.line, meta.column)
    placed = [t for t in _tokens(tree) if t.line is not None]
    return (placed[0].line or 1, placed[0].column or 1) if placed else (1, 1)


def token_after(
    expression: str, item: lark.Tree[Any] | lark.Token, token: str
) -> tuple[int, int] | None:
    """Where ``token`` is right after ``item``, past blanks and comments (None if it is not)."""
    if isinstance(item, lark.Token):
        end = item.end_pos
    else:
        end = getattr(item.meta, "end_pos", None)
        if end is None:
            ends = [t.end_pos for t in _tokens(item) if t.end_pos is not None]
            end = ends[-1] if ends else None
    if end is None:
        return None
    index = _skip_blanks(expression, end)
    return line_column(expression, index) if expression.startswith(token, index) else None


def place_bool_literals(tree: lark.Tree[Any], expression: str) -> None:
    """Give position-less ``true``/``false`` tokens their place back, in the tree itself.

    Walking in source order, each one is the next ``true``/``false`` word after the previous
    token's end: only punctuation, blanks and comments can lie in between."""
    last_end = 0

    def walk(node: lark.Tree[Any]) -> None:
        nonlocal last_end
        for index, child in enumerate(node.children):
            if isinstance(child, lark.Tree):
                walk(child)
                continue
            if not isinstance(child, lark.Token):
                continue
            if child.start_pos is None and child.type == "BOOL_LIT":
                found = _next_bool_word(expression, last_end)
                if found is None:
                    continue
                line, column = line_column(expression, found.start())
                child = lark.Token(
                    "BOOL_LIT",
                    child.value,
                    start_pos=found.start(),
                    line=line,
                    column=column,
                    end_line=line,
                    end_column=column + len(found.group()),
                    end_pos=found.end(),
                )
                node.children[index] = child
            if child.end_pos is not None:
                last_end = child.end_pos

    walk(tree)


def _skip_blanks(expression: str, index: int) -> int:
    while index < len(expression):
        if expression[index].isspace():
            index += 1
        elif expression.startswith("//", index):
            newline = expression.find("\n", index)
            index = len(expression) if newline < 0 else newline
        else:
            break
    return index


def _next_bool_word(expression: str, index: int) -> re.Match[str] | None:
    while index < len(expression):
        if expression.startswith("//", index):
            newline = expression.find("\n", index)
            index = len(expression) if newline < 0 else newline
            continue
        found = _BOOL_WORD.match(expression, index)
        if found is not None:
            return found
        index += 1
    return None


def _tokens(tree: lark.Tree[Any]) -> list[lark.Token]:
    """The tree's tokens in source order."""
    out: list[lark.Token] = []
    for child in tree.children:
        if isinstance(child, lark.Tree):
            out.extend(_tokens(child))
        elif isinstance(child, lark.Token):
            out.append(child)
    return out
