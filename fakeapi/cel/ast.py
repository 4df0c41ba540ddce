"""A small CEL syntax tree: what :mod:`.parser` produces and the checker and compiler consume.

The nodes carry meaning (a call, a select, a comprehension), not grammar rules, and macros are
already expanded, as cel-go's parser does. Each node's ``pos`` is where cel-go locates that
expression (its operator token, for most kinds), because compile errors point there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    "OptIndex",
    "OptSelect",
    "Or",
    "Select",
    "UInt",
]


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
class OptSelect(Node):
    """``operand.?field``: an optional value, empty when the field is absent."""

    operand: Node
    field: str


@dataclass(frozen=True, slots=True)
class OptIndex(Node):
    """``operand[?index]``: an optional value, empty when the key or index is absent."""

    operand: Node
    index: Node


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
    optional: tuple[int, ...] = ()  # indexes of ``?item`` elements


@dataclass(frozen=True, slots=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]
    optional: tuple[int, ...] = ()  # indexes of ``?key: value`` entries


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
    """``range.macro(var[, var2], args...)``; ``args`` are the macro's expressions.

    Besides the comprehension macros this also stands for ``sortBy`` (a list sorted by a key
    expression) and ``optMap``/``optFlatMap`` (``range`` is then an optional value)."""

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

