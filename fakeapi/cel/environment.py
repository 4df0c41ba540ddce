"""General CEL expressions in the selector environment's language, outside of device selection.

Device selectors have one variable and must yield a bool; everything else about the language
(parser, macros, libraries, checker, evaluator) is shared. :func:`compile_expression` exposes
that language with any declared variables, for tools and for the conformance tables that check
this implementation against the CEL specification's test suite.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fakeapi.cel.checker import Features, check
from fakeapi.cel.errors import CELRuntimeError, EvalError
from fakeapi.cel.parser import parse_for_compile
from fakeapi.cel.program import Activation, CostLimitExceededError, Evaluator, compile_program
from fakeapi.cel.type_lattice import DYN, Type

__all__ = ["Program", "compile_expression", "parse_type"]


class Program:
    """A compiled expression; :meth:`evaluate` binds the declared variables."""

    __slots__ = ("cost_limit", "evaluator", "expression", "result_type")

    def __init__(
        self, *, expression: str, evaluator: Evaluator, result_type: str, cost_limit: int
    ) -> None:
        self.expression = expression
        self.evaluator = evaluator
        self.result_type = result_type
        self.cost_limit = cost_limit

    def evaluate(self, bindings: Mapping[str, object] | None = None) -> object:
        """The value, or :class:`CELRuntimeError` with the CEL error text."""
        try:
            return self.evaluator(Activation(dict(bindings or {}), self.cost_limit))
        except EvalError as exc:
            raise CELRuntimeError(exc.message) from None
        except CostLimitExceededError as exc:
            raise CELRuntimeError(str(exc)) from None
        except RecursionError:
            raise CELRuntimeError("expression nesting too deep") from None


def compile_expression(
    expression: str,
    *,
    variables: Mapping[str, str] | None = None,
    type_check: bool = True,
    features: Features | None = None,
    cost_limit: int = 10**9,
) -> Program:
    """Parse, check (unless ``type_check`` is False) and compile ``expression``.

    ``variables`` declares names with cel-go's type spelling (``int``, ``list(string)``,
    ``map(string, dyn)``). Raises :class:`CELCompileError` with cel-go's messages."""
    features = features or Features(list_type_attributes=True)
    declared = {name: parse_type(spelling) for name, spelling in (variables or {}).items()}
    node = parse_for_compile(expression)
    result_type = "dyn"
    if type_check:
        result_type = check(
            node, expression=expression, features=features, variables=declared, require_bool=False
        ).result_type
    evaluator = compile_program(
        node,
        list_type_attributes=features.list_type_attributes,
        variables=frozenset(declared),
    )
    return Program(
        expression=expression, evaluator=evaluator, result_type=result_type, cost_limit=cost_limit
    )


_SIMPLE_TYPES = frozenset({"bool", "int", "uint", "double", "string", "bytes", "null_type"})
_TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*|[(),])")


def parse_type(spelling: str) -> Type:
    """cel-go's type spelling as a checker type; types the checker does not model (messages,
    timestamps, type parameters) become ``dyn``."""
    tokens = _TOKEN.findall(spelling)
    position = 0

    def one() -> Type:
        nonlocal position
        name = tokens[position]
        position += 1
        params: list[Type] = []
        if position < len(tokens) and tokens[position] == "(":
            position += 1
            while tokens[position] != ")":
                params.append(one())
                if tokens[position] == ",":
                    position += 1
            position += 1
        if name == "list" and len(params) == 1:
            return ("list", params[0])
        if name == "map" and len(params) == 2:
            return ("map", params[0], params[1])
        if name == "null":
            return "null_type"
        return name if name in _SIMPLE_TYPES else DYN

    return one() if tokens else DYN
