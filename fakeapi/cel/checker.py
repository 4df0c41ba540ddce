"""Static checks on a selector expression before it may run.

cel-go type-checks at compile time, and upstream relies on that to reject selectors early:
undeclared identifiers and functions, undefined ``device`` fields (``allowMultipleAllocations``
only exists with DRAConsumableCapacity), obviously ill-typed operators, and a result type that
is not bool. This checker does the same with a deliberately small type lattice: anything that
comes out of an attribute map is ``any`` (or ``dyn``) and accepted by every operator, as in cel-go.

Upstream's environment also rejects list and map literals whose elements (or keys, or values)
do not all have the same type, as cel-go's homogeneous-aggregate-literal validator does once the
type check passed: ``[1, 2.0]`` and ``[dyn(1), 2]`` are rejected, ``[dyn(1), dyn("a")]`` is not.
The findings are collected while checking and reported, sorted by position, only if nothing else
failed. :mod:`.type_lattice` explains how the types involved are kept apart.

It also estimates the worst-case cost, with the size assumptions upstream declares for the
environment (≤32 entries per map, 64-character strings, ≤48 list values), so API validation can
reject expressions that could exceed the cost limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from . import ast
from .errors import CELCompileError, EvalError
from .format_library import check_format
from .library import GLOBAL_FUNCTIONS, LIST_ATTRIBUTE_FUNCTIONS, MEMBER_FUNCTIONS, RESULT_TYPES
from .positions import located
from .program import TYPE_IDENTIFIERS, qualified_name
from .time_library import parse_duration, parse_timestamp
from .type_lattice import (
    ANY,
    DYN,
    PARAM,
    UNKNOWN,
    Type,
    is_known,
    join,
    literal_type,
    match,
    type_str,
)

__all__ = ["CheckResult", "Features", "check", "type_str"]

DEVICE = "kubernetes.DRADevice"
QUANTITY = "kubernetes.Quantity"
SEMVER = "kubernetes.Semver"
NUMERIC = frozenset({"int", "uint", "double"})
SCALARS = frozenset({"bool", "int", "uint", "double", "string", "bytes"})
MAP_ENTRIES = 32
STRING_SIZE = 64
LIST_VALUES = 48
UNKNOWN_SIZE = 64


_LITERAL_VALIDATED: dict[str, Callable[[str], object]] = {
    "timestamp": parse_timestamp,
    "duration": parse_duration,
    "matches": re.compile,
}


def _undeclared(name: str) -> str:
    return f"undeclared reference to '{name}' (in container '')"


def _format_kind(t: Type) -> str | None:
    """The type name a format clause sees, or None when the checker does not know it."""
    if not is_known(t):
        return None
    if isinstance(t, tuple):
        return str(t[0])
    return t


_RECEIVERS: dict[str, frozenset[str]] = {
    "contains": frozenset({"string"}),
    "startsWith": frozenset({"string"}),
    "endsWith": frozenset({"string"}),
    "matches": frozenset({"string"}),
    "lowerAscii": frozenset({"string"}),
    "upperAscii": frozenset({"string"}),
    "isInteger": frozenset({QUANTITY}),
    "asInteger": frozenset({QUANTITY}),
    "asApproximateFloat": frozenset({QUANTITY}),
    "sign": frozenset({QUANTITY}),
    "add": frozenset({QUANTITY}),
    "sub": frozenset({QUANTITY}),
    "compareTo": frozenset({QUANTITY, SEMVER}),
    "isGreaterThan": frozenset({QUANTITY, SEMVER}),
    "isLessThan": frozenset({QUANTITY, SEMVER}),
    "major": frozenset({SEMVER}),
    "minor": frozenset({SEMVER}),
    "patch": frozenset({SEMVER}),
}


@dataclass(frozen=True, slots=True)
class Features:
    """Feature gates that change the environment (upstream ``cel.Features``)."""

    consumable_capacity: bool = True
    list_type_attributes: bool = False


@dataclass(frozen=True, slots=True)
class CheckResult:
    result_type: str
    cost: int


def check(
    node: ast.Node,
    *,
    expression: str,
    features: Features,
    variables: Mapping[str, Type] | None = None,
    require_bool: bool = True,
) -> CheckResult:
    """Raise :class:`CELCompileError` for a rejected expression, else return type and cost.

    ``variables`` replaces the selector environment's single ``device`` variable (general
    expressions, such as the conformance tables); ``require_bool`` is the selector rule."""
    checker = _Checker(expression, features)
    scope: dict[str, Type] = dict(variables) if variables is not None else {"device": DEVICE}
    result_type, cost, _ = checker.visit(node, scope)
    if checker.literal_errors:
        located = sorted(checker.literal_errors, key=lambda error: error[0])
        raise CELCompileError("compilation failed: " + "\n".join(text for _, text in located))
    if require_bool and is_known(result_type) and result_type != "bool":
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {type_str(result_type)}"
        )
    return CheckResult(type_str(result_type), cost)


class _Checker:
    def __init__(self, expression: str, features: Features) -> None:
        self.expression = expression
        self.features = features
        # Upstream declares attribute values as ``any``, or as ``dyn`` once list-type attributes
        # are enabled (so that the comprehension macros accept them).
        attribute: Type = DYN if features.list_type_attributes else ANY
        fields: dict[str, Type] = {
            "driver": "string",
            "attributes": ("map", "string", ("map", "string", attribute)),
            "capacity": ("map", "string", ("map", "string", QUANTITY)),
        }
        if features.consumable_capacity:
            fields["allowMultipleAllocations"] = "bool"
        self.device_fields = fields
        self.members = dict(MEMBER_FUNCTIONS)
        if features.list_type_attributes:
            self.members.update(LIST_ATTRIBUTE_FUNCTIONS)
        # Mixed-type literal findings, reported only when the type check passes (as upstream,
        # where the validator runs after the checker): ((line, column), located message).
        self.literal_errors: list[tuple[tuple[int, int], str]] = []
        # Inside the arguments of ``format``, which cel-go exempts from the literal rule.
        self.exempt = 0

    def located(self, node: ast.Node, message: str) -> str:
        return located(self.expression, node.pos[0], node.pos[1], message)

    def error(self, node: ast.Node, message: str) -> CELCompileError:
        return CELCompileError("compilation failed: " + self.located(node, message))

    def require_homogeneous(self, nodes: list[ast.Node], types: list[Type]) -> None:
        """Record cel-go's finding for the first element whose type differs from the first
        element's (list elements; map keys and map values are checked each on their own)."""
        if not types or types[0] == UNKNOWN or self.exempt:
            return
        expected = types[0]
        for node, found in zip(nodes[1:], types[1:], strict=True):
            refined = match(expected, found)
            if refined is None:
                message = f"expected type '{type_str(expected)}' but found '{type_str(found)}'"
                self.literal_errors.append((node.pos, self.located(node, message)))
                return
            expected = refined

    def require_homogeneous_entries(
        self, node: ast.MapLit, keys: list[Type], values: list[Type]
    ) -> None:
        """Map literals: unlike lists, every entry whose key or value differs is reported."""
        if not node.entries or self.exempt:
            return
        expected = [keys[0], values[0]]
        for (key, value), kt, vt in zip(node.entries[1:], keys[1:], values[1:], strict=True):
            for side, part, found in ((0, key, kt), (1, value, vt)):
                refined = match(expected[side], found)
                if refined is not None:
                    expected[side] = refined
                elif expected[side] != UNKNOWN:
                    message = (
                        f"expected type '{type_str(expected[side])}' but found '{type_str(found)}'"
                    )
                    self.literal_errors.append((part.pos, self.located(part, message)))

    def no_overload(self, node: ast.Node, op: str, *types: Type) -> CELCompileError:
        args = ", ".join(type_str(t) for t in types)
        return self.error(node, f"found no matching overload for '{op}' applied to '({args})'")

    def visit(self, node: ast.Node, scope: dict[str, Type]) -> tuple[Type, int, int]:
        """Returns (type, estimated cost, estimated size)."""
        if isinstance(node, ast.Lit):
            return (
                literal_type(node.value),
                0,
                len(node.value) if isinstance(node.value, (str, bytes)) else 1,
            )
        if isinstance(node, ast.Ident):
            if node.name not in scope:
                if node.name in TYPE_IDENTIFIERS:
                    return "type", 1, 1
                raise self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            return scope[node.name], 1, UNKNOWN_SIZE
        if isinstance(node, (ast.OptSelect, ast.OptIndex)):
            _, cost, _ = self.visit(node.operand, scope)
            if isinstance(node, ast.OptIndex):
                cost += self.visit(node.index, scope)[1]
            return UNKNOWN, cost + 1, UNKNOWN_SIZE
        if isinstance(node, ast.Select):
            qualified = qualified_name(node)
            if qualified is not None and qualified.partition(".")[0] not in scope:
                if qualified in scope:
                    return scope[qualified], 1, UNKNOWN_SIZE
                if qualified in TYPE_IDENTIFIERS:
                    return "type", 1, 1
            operand_type, cost, _ = self.visit(node.operand, scope)
            (field_type,) = self.select_type(node, operand_type, node.field)
            return field_type, cost + 1, self.select_size(node)
        if isinstance(node, ast.Has):
            operand_type, cost, _ = self.visit(node.operand, scope)
            self.select_type(node, operand_type, node.field)
            return "bool", cost + 1, 1
        if isinstance(node, ast.Index):
            operand_type, cost, _ = self.visit(node.operand, scope)
            index_type, index_cost, _ = self.visit(node.index, scope)
            return (
                self.index_type(node, operand_type, index_type),
                cost + index_cost + 1,
                self.index_size(node),
            )
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.ListLit):
            items = [self.visit(item, scope) for item in node.items]
            elem_types = [t for t, _, _ in items]
            self.require_homogeneous(list(node.items), elem_types)
            return ("list", join(elem_types)), 10 + sum(c for _, c, _ in items), len(items)
        if isinstance(node, ast.MapLit):
            cost = 30
            keys: list[Type] = []
            values: list[Type] = []
            for key, value in node.entries:
                kt, kc, _ = self.visit(key, scope)
                vt, vc, _ = self.visit(value, scope)
                keys.append(kt)
                values.append(vt)
                cost += kc + vc
            self.require_homogeneous_entries(node, keys, values)
            return ("map", join(keys), join(values)), cost, len(node.entries)
        if isinstance(node, ast.Not):
            t, cost, _ = self.visit(node.operand, scope)
            if is_known(t) and t != "bool":
                raise self.no_overload(node, "!_", t)
            return "bool", cost + 1, 1
        if isinstance(node, ast.Neg):
            t, cost, _ = self.visit(node.operand, scope)
            if is_known(t) and t not in ("int", "double"):
                raise self.no_overload(node, "-_", t)
            return (t if is_known(t) else UNKNOWN), cost + 1, 1
        if isinstance(node, (ast.And, ast.Or)):
            op = "_&&_" if isinstance(node, ast.And) else "_||_"
            lt, lc, _ = self.visit(node.left, scope)
            rt, rc, _ = self.visit(node.right, scope)
            if (is_known(lt) and lt != "bool") or (is_known(rt) and rt != "bool"):
                raise self.no_overload(node, op, lt, rt)
            return "bool", lc + rc, 1
        if isinstance(node, ast.Binary):
            return self.binary(node, scope)
        if isinstance(node, ast.Cond):
            ct, cc, _ = self.visit(node.condition, scope)
            if is_known(ct) and ct != "bool":
                raise self.no_overload(node, "_?_:_", ct)
            tt, tc, ts = self.visit(node.then, scope)
            ot, oc, os_ = self.visit(node.otherwise, scope)
            return (tt if tt == ot else UNKNOWN), cc + max(tc, oc), max(ts, os_)
        if isinstance(node, ast.Comprehension):
            return self.comprehension(node, scope)
        if isinstance(node, ast.Bind):
            it, ic, _ = self.visit(node.init, scope)
            bt, bc, bs = self.visit(node.body, {**scope, node.var: it})
            return bt, ic + bc, bs
        raise self.error(node, f"unsupported expression {type(node).__name__}")

    def select_type(self, node: ast.Node, operand: Type, field: str) -> tuple[Type]:
        if operand == DEVICE:
            if field not in self.device_fields:
                raise self.error(node, f"undefined field '{field}'")
            return (self.device_fields[field],)
        if isinstance(operand, tuple) and operand[0] == "map":
            return (operand[2],)
        if operand == UNKNOWN:
            return (UNKNOWN,)
        if not is_known(operand):
            return (DYN,)  # cel-go: selecting on dyn, any or a type parameter gives dyn
        raise self.error(node, f"type '{type_str(operand)}' does not support field selection")

    def select_size(self, node: ast.Select) -> int:
        if isinstance(node.operand, ast.Ident) and node.operand.name == "device":
            return 63 if node.field == "driver" else MAP_ENTRIES
        return max(STRING_SIZE, LIST_VALUES) if self._is_attribute_value(node) else MAP_ENTRIES

    def index_size(self, node: ast.Index) -> int:
        return max(STRING_SIZE, LIST_VALUES) if self._is_attribute_value(node) else MAP_ENTRIES

    @staticmethod
    def _is_attribute_value(node: ast.Select | ast.Index) -> bool:
        inner = node.operand
        return isinstance(inner, (ast.Select, ast.Index)) and isinstance(
            inner.operand, (ast.Select, ast.Index)
        )

    def index_type(self, node: ast.Node, operand: Type, index: Type) -> Type:
        if isinstance(operand, tuple):
            if operand[0] == "map":
                return operand[2]
            if is_known(index) and index not in ("int", "uint"):
                raise self.no_overload(node, "_[_]", operand, index)
            return operand[1]
        if not is_known(operand):
            return UNKNOWN  # overload resolution on a dyn operand: list or map index
        raise self.no_overload(node, "_[_]", operand, index)

    def call(self, node: ast.Call, scope: dict[str, Type]) -> tuple[Type, int, int]:
        if node.function == "format" and node.target is not None:
            return self.format_call(node, scope)
        arg_results = [self.visit(arg, scope) for arg in node.args]
        self.validate_literal_argument(node)
        cost = 1 + sum(c for _, c, _ in arg_results)
        size = 1
        if node.target is None:
            if node.function not in GLOBAL_FUNCTIONS:
                raise self.error(
                    node, f"undeclared reference to '{node.function}' (in container '')"
                )
            if node.function in ("size",) and arg_results:
                size = 1
        else:
            target = node.target
            if (
                isinstance(target, ast.Ident)
                and target.name not in scope
                and target.name not in TYPE_IDENTIFIERS
            ):
                # cel-go reports both the unknown namespace-like target and the function.
                found = [self.located(target, _undeclared(target.name))]
                if node.function not in self.members:
                    found.append(self.located(node, _undeclared(node.function)))
                raise CELCompileError("compilation failed: " + "\n".join(found))
            target_type, target_cost, target_size = self.visit(target, scope)
            cost += target_cost
            if node.function not in self.members:
                raise self.error(
                    node, f"undeclared reference to '{node.function}' (in container '')"
                )
            receivers = _RECEIVERS.get(node.function)
            if receivers is not None and is_known(target_type) and target_type not in receivers:
                args = ", ".join(type_str(t) for t, _, _ in arg_results)
                raise self.error(
                    node,
                    f"found no matching overload for '{node.function}' applied to "
                    f"'{type_str(target_type)}.({args})'",
                )
            if target_type == "string" or node.function in (
                "matches",
                "contains",
                "startsWith",
                "endsWith",
            ):
                cost += -(-target_size // 10)
            elif node.function in (
                "includes",
                "indexOf",
                "lastIndexOf",
                "sum",
                "min",
                "max",
                "isSorted",
            ):
                cost += target_size
            elif node.function in ("sort", "distinct"):
                cost += target_size * target_size
            size = target_size
        result: Type = RESULT_TYPES.get(node.function, UNKNOWN)
        if node.function == "dyn":
            result = DYN
        if node.function in (
            "split",
            "findAll",
            "flatten",
            "distinct",
            "slice",
            "sort",
            "lists.range",
        ):
            result = (
                ("list", "string") if node.function in ("split", "findAll") else ("list", UNKNOWN)
            )
        return result, cost, size

    def validate_literal_argument(self, node: ast.Call) -> None:
        """cel-go's literal validators, which Kubernetes enables: a literal timestamp, duration
        or regular expression that cannot work is a compile error."""
        if node.function not in _LITERAL_VALIDATED or not node.args:
            return
        literal = node.args[0]
        if not isinstance(literal, ast.Lit) or not isinstance(literal.value, str):
            return
        validate = _LITERAL_VALIDATED[node.function]
        try:
            validate(literal.value)
        except (EvalError, re.error):
            message = f"invalid {node.function} argument"
            self.literal_errors.append((literal.pos, self.located(literal, message)))

    def format_call(self, node: ast.Call, scope: dict[str, Type]) -> tuple[Type, int, int]:
        """``"...".format([...])``: exempt from the homogeneous-literal rule, and a literal
        format string with a literal list is checked clause by clause (cel-go's validator)."""
        assert node.target is not None
        target_type, cost, _ = self.visit(node.target, scope)
        if len(node.args) != 1 or (is_known(target_type) and target_type != "string"):
            types = [self.visit(arg, scope)[0] for arg in node.args]
            args = ", ".join(type_str(t) for t in types)
            raise self.error(
                node,
                f"found no matching overload for 'format' applied to "
                f"'{type_str(target_type)}.({args})'",
            )
        (arg,) = node.args
        self.exempt += 1
        try:
            if not isinstance(arg, ast.ListLit):
                _, arg_cost, _ = self.visit(arg, scope)
                return "string", cost + arg_cost + 1, STRING_SIZE
            items = [self.visit(item, scope) for item in arg.items]
        finally:
            self.exempt -= 1
        cost += 10 + sum(c for _, c, _ in items) + 1
        if isinstance(node.target, ast.Lit) and isinstance(node.target.value, str):
            kinds = [_format_kind(t) for t, _, _ in items]
            problem = check_format(node.target.value, kinds)
            if problem is not None:
                where: ast.Node = arg.items[problem.arg] if problem.arg is not None else node
                self.literal_errors.append((where.pos, self.located(where, problem.message)))
        return "string", cost, STRING_SIZE

    def binary(self, node: ast.Binary, scope: dict[str, Type]) -> tuple[Type, int, int]:
        lt, lc, ls = self.visit(node.left, scope)
        rt, rc, rs = self.visit(node.right, scope)
        cost = lc + rc + 1
        op = node.op
        both_known = is_known(lt) and is_known(rt)
        if op in ("==", "!="):
            if both_known and lt in SCALARS and rt in SCALARS and lt != rt:
                raise self.no_overload(node, f"_{op}_", lt, rt)
            return "bool", cost, 1
        if op in ("<", "<=", ">", ">="):
            if (
                both_known
                and not (lt in NUMERIC and rt in NUMERIC)
                and (lt != rt or lt not in SCALARS)
            ):
                raise self.no_overload(node, f"_{op}_", lt, rt)
            return "bool", cost, 1
        if op == "in":
            if is_known(rt) and not (isinstance(rt, tuple)):
                raise self.no_overload(node, "@in", lt, rt)
            return "bool", cost + rs, 1
        if not both_known:
            return UNKNOWN, cost, max(ls, rs)
        if op == "+":
            if lt == rt and (lt in ("int", "uint", "double", "string", "bytes")):
                return lt, cost, ls + rs
            if isinstance(lt, tuple) and isinstance(rt, tuple) and lt[0] == rt[0] == "list":
                return (lt if lt == rt else ("list", UNKNOWN)), cost, ls + rs
            raise self.no_overload(node, "_+_", lt, rt)
        if lt == rt and lt in NUMERIC and not (op == "%" and lt == "double"):
            return lt, cost, 1
        raise self.no_overload(node, f"_{op}_", lt, rt)

    def comprehension(
        self, node: ast.Comprehension, scope: dict[str, Type]
    ) -> tuple[Type, int, int]:
        range_type, range_cost, range_size = self.visit(node.range, scope)
        if node.macro in ("optMap", "optFlatMap"):
            _, body_cost, _ = self.visit(node.args[0], {**scope, node.var: UNKNOWN})
            return UNKNOWN, range_cost + body_cost + 1, 1
        if isinstance(range_type, tuple):
            if range_type[0] == "list":
                first, second = ("int", range_type[1]) if node.var2 else (range_type[1], DYN)
            else:
                first, second = range_type[1], range_type[2]
        elif range_type in (DYN, PARAM):
            first, second = DYN, DYN
        elif not is_known(range_type):
            # cel-go refuses ``any`` as a range; this checker stays lenient about it.
            first, second = UNKNOWN, UNKNOWN
        else:
            raise self.error(
                node,
                f"expression of type '{type_str(range_type)}' cannot be range of a comprehension",
            )
        inner = {**scope, node.var: first}
        if node.var2:
            inner[node.var2] = second
        body = [self.visit(arg, inner) for arg in node.args]
        per_item = 1 + sum(c for _, c, _ in body)
        cost = range_cost + range_size * per_item
        if node.macro in ("all", "exists", "exists_one"):
            return "bool", cost, 1
        if node.macro == "filter":
            return ("list", first), cost, range_size
        if node.macro == "sortBy":
            return range_type, cost, range_size
        if node.macro == "transformMap":
            return ("map", first, body[-1][0]), cost, range_size
        if node.macro == "transformMapEntry":
            return ("map", UNKNOWN, UNKNOWN), cost, range_size
        return ("list", body[-1][0]), cost, range_size
