"""Static checks on a selector expression before it may run.

cel-go type-checks at compile time, and upstream relies on that to reject selectors early:
undeclared identifiers and functions, undefined ``device`` fields (``allowMultipleAllocations``
only exists with DRAConsumableCapacity), obviously ill-typed operators, and a result type that
is not bool. This checker does the same with a deliberately small type lattice: anything that
comes out of an attribute map is ``dyn`` and accepted, as in cel-go.

It also estimates the worst-case cost, with the size assumptions upstream declares for the
environment (≤32 entries per map, 64-character strings, ≤48 list values), so API validation can
reject expressions that could exceed the cost limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from . import ast
from .errors import CELCompileError
from .library import GLOBAL_FUNCTIONS, LIST_ATTRIBUTE_FUNCTIONS, MEMBER_FUNCTIONS, RESULT_TYPES

__all__ = ["CheckResult", "Features", "check"]

Type: TypeAlias = "str | tuple[Type, ...]"
DYN = "dyn"
DEVICE = "kubernetes.DRADevice"
QUANTITY = "kubernetes.Quantity"
SEMVER = "kubernetes.Semver"
NUMERIC = frozenset({"int", "uint", "double"})
SCALARS = frozenset({"bool", "int", "uint", "double", "string", "bytes"})
MAP_ENTRIES = 32
STRING_SIZE = 64
LIST_VALUES = 48
UNKNOWN_SIZE = 64

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


def type_str(t: Type) -> str:
    if isinstance(t, str):
        return t
    if t[0] == "list":
        return f"list({type_str(t[1])})"
    return f"map({type_str(t[1])}, {type_str(t[2])})"


def _known(t: Type) -> bool:
    return t != DYN


def check(node: ast.Node, *, expression: str, features: Features) -> CheckResult:
    """Raise :class:`CELCompileError` for a rejected expression, else return type and cost."""
    checker = _Checker(expression, features)
    result_type, cost, _ = checker.visit(node, {"device": DEVICE})
    if result_type not in ("bool", DYN):
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {type_str(result_type)}"
        )
    return CheckResult(type_str(result_type), cost)


class _Checker:
    def __init__(self, expression: str, features: Features) -> None:
        self.expression = expression
        self.features = features
        fields: dict[str, Type] = {
            "driver": "string",
            "attributes": ("map", "string", ("map", "string", DYN)),
            "capacity": ("map", "string", ("map", "string", QUANTITY)),
        }
        if features.consumable_capacity:
            fields["allowMultipleAllocations"] = "bool"
        self.device_fields = fields
        self.members = dict(MEMBER_FUNCTIONS)
        if features.list_type_attributes:
            self.members.update(LIST_ATTRIBUTE_FUNCTIONS)

    def error(self, node: ast.Node, message: str) -> CELCompileError:
        from .ast import _located

        return CELCompileError(
            "compilation failed: " + _located(self.expression, node.pos[0], node.pos[1], message)
        )

    def no_overload(self, node: ast.Node, op: str, *types: Type) -> CELCompileError:
        args = ", ".join(type_str(t) for t in types)
        return self.error(node, f"found no matching overload for '{op}' applied to '({args})'")

    def visit(self, node: ast.Node, scope: dict[str, Type]) -> tuple[Type, int, int]:
        """Returns (type, estimated cost, estimated size)."""
        if isinstance(node, ast.Lit):
            return (
                _literal_type(node.value),
                0,
                len(node.value) if isinstance(node.value, (str, bytes)) else 1,
            )
        if isinstance(node, ast.Ident):
            if node.name not in scope:
                raise self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            return scope[node.name], 1, UNKNOWN_SIZE
        if isinstance(node, ast.Select):
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
            elem = _common([t for t, _, _ in items])
            return ("list", elem), 10 + sum(c for _, c, _ in items), len(items)
        if isinstance(node, ast.MapLit):
            cost = 30
            keys, values = [], []
            for key, value in node.entries:
                kt, kc, _ = self.visit(key, scope)
                vt, vc, _ = self.visit(value, scope)
                keys.append(kt)
                values.append(vt)
                cost += kc + vc
            return ("map", _common(keys), _common(values)), cost, len(node.entries)
        if isinstance(node, ast.Not):
            t, cost, _ = self.visit(node.operand, scope)
            if _known(t) and t != "bool":
                raise self.no_overload(node, "!_", t)
            return "bool", cost + 1, 1
        if isinstance(node, ast.Neg):
            t, cost, _ = self.visit(node.operand, scope)
            if _known(t) and t not in ("int", "double"):
                raise self.no_overload(node, "-_", t)
            return t, cost + 1, 1
        if isinstance(node, (ast.And, ast.Or)):
            op = "_&&_" if isinstance(node, ast.And) else "_||_"
            lt, lc, _ = self.visit(node.left, scope)
            rt, rc, _ = self.visit(node.right, scope)
            if (_known(lt) and lt != "bool") or (_known(rt) and rt != "bool"):
                raise self.no_overload(node, op, lt, rt)
            return "bool", lc + rc, 1
        if isinstance(node, ast.Binary):
            return self.binary(node, scope)
        if isinstance(node, ast.Cond):
            ct, cc, _ = self.visit(node.condition, scope)
            if _known(ct) and ct != "bool":
                raise self.no_overload(node, "_?_:_", ct)
            tt, tc, ts = self.visit(node.then, scope)
            ot, oc, os_ = self.visit(node.otherwise, scope)
            return (tt if tt == ot else DYN), cc + max(tc, oc), max(ts, os_)
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
        if operand == DYN:
            return (DYN,)
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
            if _known(index) and index not in ("int", "uint"):
                raise self.no_overload(node, "_[_]", operand, index)
            return operand[1]
        if operand == DYN:
            return DYN
        raise self.no_overload(node, "_[_]", operand, index)

    def call(self, node: ast.Call, scope: dict[str, Type]) -> tuple[Type, int, int]:
        arg_results = [self.visit(arg, scope) for arg in node.args]
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
            target_type, target_cost, target_size = self.visit(node.target, scope)
            cost += target_cost
            if node.function not in self.members:
                raise self.error(
                    node, f"undeclared reference to '{node.function}' (in container '')"
                )
            receivers = _RECEIVERS.get(node.function)
            if receivers is not None and _known(target_type) and target_type not in receivers:
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
        result: Type = RESULT_TYPES.get(node.function, DYN)
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
            result = ("list", "string") if node.function in ("split", "findAll") else ("list", DYN)
        return result, cost, size

    def binary(self, node: ast.Binary, scope: dict[str, Type]) -> tuple[Type, int, int]:
        lt, lc, ls = self.visit(node.left, scope)
        rt, rc, rs = self.visit(node.right, scope)
        cost = lc + rc + 1
        op = node.op
        both_known = _known(lt) and _known(rt)
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
            if _known(rt) and not (isinstance(rt, tuple)):
                raise self.no_overload(node, "@in", lt, rt)
            return "bool", cost + rs, 1
        if not both_known:
            return DYN, cost, max(ls, rs)
        if op == "+":
            if lt == rt and (lt in ("int", "uint", "double", "string", "bytes")):
                return lt, cost, ls + rs
            if isinstance(lt, tuple) and isinstance(rt, tuple) and lt[0] == rt[0] == "list":
                return (lt if lt == rt else ("list", DYN)), cost, ls + rs
            raise self.no_overload(node, "_+_", lt, rt)
        if lt == rt and lt in NUMERIC and not (op == "%" and lt == "double"):
            return lt, cost, 1
        raise self.no_overload(node, f"_{op}_", lt, rt)

    def comprehension(
        self, node: ast.Comprehension, scope: dict[str, Type]
    ) -> tuple[Type, int, int]:
        range_type, range_cost, range_size = self.visit(node.range, scope)
        if isinstance(range_type, tuple):
            if range_type[0] == "list":
                first, second = ("int", range_type[1]) if node.var2 else (range_type[1], DYN)
            else:
                first, second = range_type[1], range_type[2]
        elif range_type == DYN:
            first, second = DYN, DYN
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
        return ("list", body[-1][0]), cost, range_size


def _literal_type(value: object) -> Type:
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, ast.UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    return "bytes"


def _common(types: list[Type]) -> Type:
    if not types:
        return DYN
    first = types[0]
    return first if all(t == first for t in types) else DYN
