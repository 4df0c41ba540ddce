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

It also estimates the worst-case cost as upstream does (:mod:`.cost`), so API validation can
reject expressions that could exceed the cost limit.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from fakeapi.cel import ast
from fakeapi.cel.cost import (
    DEVICE_SIZES,
    LIST_CREATE,
    MAP_CREATE,
    UNBOUNDED,
    SizeDecl,
    call_cost,
    capped,
    comprehension_cost,
    size_at,
    traversal,
)
from fakeapi.cel.errors import CELCompileError, EvalError
from fakeapi.cel.format_library import check_format
from fakeapi.cel.library import (
    GLOBAL_FUNCTIONS,
    LIST_ATTRIBUTE_FUNCTIONS,
    MEMBER_FUNCTIONS,
    RESULT_TYPES,
)
from fakeapi.cel.positions import located
from fakeapi.cel.program import TYPE_IDENTIFIERS, qualified_name
from fakeapi.cel.time_library import parse_duration, parse_timestamp
from fakeapi.cel.type_lattice import (
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
#: types ``<`` and its kin compare (each with itself; the numeric ones across each other)
ORDERED = SCALARS | {"google.protobuf.Timestamp", "google.protobuf.Duration"}
TEXT = frozenset({"string", "bytes"})
#: types whose values cel-go's estimator counts as size 1
SIZE_ONE = frozenset(
    {
        "bool",
        "int",
        "uint",
        "double",
        "null_type",
        "google.protobuf.Duration",
        "google.protobuf.Timestamp",
    }
)


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
    objects: Mapping[str, Mapping[str, Type]] | None = None,
    sizes: Mapping[str, SizeDecl] | None = None,
) -> CheckResult:
    """Raise :class:`CELCompileError` for a rejected expression, else return type and cost.

    ``variables`` replaces the selector environment's single ``device`` variable (general
    expressions, such as the conformance tables); ``require_bool`` is the selector rule.
    ``objects`` declares object types by name (the type a variable or field may have) with their
    fields, as a CRD schema's object types are declared; selecting an undeclared field is an
    ``undefined field`` error. ``sizes`` gives the cost estimate the largest sizes of values
    below a variable (a CRD schema's maxLength, maxItems, maxProperties)."""
    checker = _Checker(
        expression, features, declared_device=variables is None, objects=objects, sizes=sizes
    )
    scope: dict[str, Type] = dict(variables) if variables is not None else {"device": DEVICE}
    result_type, cost, _ = checker.visit(node, scope)
    cost = capped(cost)
    if checker.literal_errors:
        located = sorted(checker.literal_errors, key=lambda error: error[0])
        raise CELCompileError("compilation failed: " + "\n".join(text for _, text in located))
    if require_bool and is_known(result_type) and result_type != "bool":
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {type_str(result_type)}"
        )
    return CheckResult(type_str(result_type), cost)


@dataclass(frozen=True, slots=True)
class _Local:
    """A macro variable: the path of the value it stands for and that value's size."""

    path: tuple[str, ...] | None
    size: int | None = None


def _could_be_text(t: Type) -> bool:
    return t in TEXT or not is_known(t)


class _Checker:
    def __init__(
        self,
        expression: str,
        features: Features,
        *,
        declared_device: bool,
        objects: Mapping[str, Mapping[str, Type]] | None = None,
        sizes: Mapping[str, SizeDecl] | None = None,
    ) -> None:
        self.expression = expression
        self.features = features
        self.objects: Mapping[str, Mapping[str, Type]] = objects or {}
        self.sizes: Mapping[str, SizeDecl] = sizes or {}
        # Sizes for the cost estimate: the device variable's declared sizes (selectors only),
        # the path of each visited value below a variable (cel-go's field paths: names, and
        # ``@keys``, ``@values``, ``@items`` for a map's keys and values and a list's items),
        # the largest key and item of each list or map literal, and what each macro variable
        # stands for (a path, a size).
        self.declared_device = declared_device
        self.paths: dict[int, tuple[str, ...]] = {}
        self.entries: dict[int, tuple[int, int]] = {}
        self.locals: dict[str, _Local] = {}
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
            local = self.locals.get(node.name) or _Local((node.name,))
            if local.path is not None:
                self.paths[id(node)] = local.path
            return scope[node.name], 1, self.size(scope[node.name], local.path, local.size)
        if isinstance(node, (ast.OptSelect, ast.OptIndex)):
            _, cost, _ = self.visit(node.operand, scope)
            if isinstance(node, ast.OptIndex):
                cost += self.visit(node.index, scope)[1]
            return UNKNOWN, cost + 1, UNBOUNDED
        if isinstance(node, ast.Select):
            qualified = qualified_name(node)
            if qualified is not None and qualified.partition(".")[0] not in scope:
                if qualified in scope:
                    return scope[qualified], 1, self.size(scope[qualified], (qualified,))
                if qualified in TYPE_IDENTIFIERS:
                    return "type", 1, 1
            operand_type, cost, _ = self.visit(node.operand, scope)
            (field_type,) = self.select_type(node, operand_type, node.field)
            path = self.extend_path(node, node.operand, node.field)
            # selecting from a map, an object or a type parameter costs 1 (cel-go)
            if (
                operand_type == DEVICE
                or operand_type in (PARAM, UNKNOWN)
                or (isinstance(operand_type, str) and operand_type in self.objects)
                or (isinstance(operand_type, tuple) and operand_type[0] == "map")
            ):
                cost += 1
            return field_type, cost, self.size(field_type, path)
        if isinstance(node, ast.Has):
            operand_type, cost, _ = self.visit(node.operand, scope)
            self.select_type(node, operand_type, node.field)
            return "bool", cost + 1, 1
        if isinstance(node, ast.Index):
            operand_type, cost, _ = self.visit(node.operand, scope)
            index_type, index_cost, _ = self.visit(node.index, scope)
            result = self.index_type(node, operand_type, index_type)
            path = None
            if isinstance(operand_type, tuple):
                step = "@values" if operand_type[0] == "map" else "@items"
                path = self.extend_path(node, node.operand, step)
            return result, cost + index_cost + 1, self.size(result, path)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.ListLit):
            items = [self.visit(item, scope) for item in node.items]
            elem_types = [t for t, _, _ in items]
            self.require_homogeneous(list(node.items), elem_types)
            self.entries[id(node)] = (1, max((size for _, _, size in items), default=0))
            return (
                ("list", join(elem_types)),
                LIST_CREATE + sum(c for _, c, _ in items),
                len(items),
            )
        if isinstance(node, ast.MapLit):
            cost = MAP_CREATE
            keys: list[Type] = []
            values: list[Type] = []
            key_size = value_size = 0
            for key, value in node.entries:
                kt, kc, ks = self.visit(key, scope)
                vt, vc, vs = self.visit(value, scope)
                keys.append(kt)
                values.append(vt)
                cost += kc + vc
                key_size, value_size = max(key_size, ks), max(value_size, vs)
            self.require_homogeneous_entries(node, keys, values)
            self.entries[id(node)] = (key_size, value_size)
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
            # cel-go: a comprehension over ``[]`` with the bound value as its accumulator, so
            # the list literal is paid for; the variable stands for the bound value's path and
            # size, and the result has the body's size
            it, ic, init_size = self.visit(node.init, scope)
            with self.bound({node.var: _Local(self.paths.get(id(node.init)), init_size)}):
                bt, bc, body_size = self.visit(node.body, {**scope, node.var: it})
            return bt, LIST_CREATE + ic + bc, body_size
        raise self.error(node, f"unsupported expression {type(node).__name__}")

    def iteration_variables(self, node: ast.Comprehension, range_type: Type) -> dict[str, _Local]:
        """What a macro's variables stand for, as cel-go tracks them: the range's keys (a map)
        or items (a list), or with two variables a map's keys and values or a list's indexes and
        items; sized by the range's literal entries where it is a literal."""
        path = self.paths.get(id(node.range))
        key_size, item_size = self.entries.get(id(node.range), (None, None))
        is_map = isinstance(range_type, tuple) and range_type[0] == "map"

        def part(step: str, size: int | None) -> _Local:
            return _Local(None if path is None else (*path, step), size)

        if node.var2 is None:
            return {node.var: part("@keys", key_size) if is_map else part("@items", item_size)}
        if is_map:
            return {node.var: part("@keys", key_size), node.var2: part("@values", item_size)}
        return {node.var: _Local(None, 1), node.var2: part("@items", item_size)}

    def select_type(self, node: ast.Node, operand: Type, field: str) -> tuple[Type]:
        if operand == DEVICE:
            if field not in self.device_fields:
                raise self.error(node, f"undefined field '{field}'")
            return (self.device_fields[field],)
        if isinstance(operand, str) and operand in self.objects:
            fields = self.objects[operand]
            if field not in fields:
                raise self.error(node, f"undefined field '{field}'")
            return (fields[field],)
        if isinstance(operand, tuple) and operand[0] == "map":
            return (operand[2],)
        if operand == UNKNOWN:
            return (UNKNOWN,)
        if not is_known(operand):
            return (DYN,)  # cel-go: selecting on dyn, any or a type parameter gives dyn
        raise self.error(node, f"type '{type_str(operand)}' does not support field selection")

    def extend_path(self, node: ast.Node, operand: ast.Node, step: str) -> tuple[str, ...] | None:
        """The path of ``node``, a part (``step``) of ``operand``; None when it has none."""
        base = self.paths.get(id(operand))
        if base is None:
            return None
        path = self.paths[id(node)] = (*base, step)
        return path

    def size(self, t: Type, path: tuple[str, ...] | None, known: int | None = None) -> int:
        """The largest size of a value of type ``t`` found at ``path``: declared for the device,
        1 for a scalar, else ``known`` (a macro variable's), else unbounded."""
        if path is not None and path[0] == "device" and self.declared_device:
            declared = size_at(DEVICE_SIZES, path[1:])
            if declared is not None:
                return declared
        if path is not None and path[0] in self.sizes:
            declared = size_at(self.sizes[path[0]], path[1:])
            if declared is not None:
                return declared
        if t in SIZE_ONE:
            return 1
        return UNBOUNDED if known is None else known

    @contextlib.contextmanager
    def bound(self, variables: dict[str, _Local]) -> Iterator[None]:
        """Macro variables in force while a macro's body is checked."""
        saved = self.locals
        self.locals = {**saved, **variables}
        try:
            yield
        finally:
            self.locals = saved

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
        cost = sum(c for _, c, _ in arg_results)
        target_type: Type = UNKNOWN
        target_size = 0
        element_size: int | None = None
        if node.target is None:
            if node.function not in GLOBAL_FUNCTIONS:
                raise self.error(
                    node, f"undeclared reference to '{node.function}' (in container '')"
                )
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
            if isinstance(target_type, tuple) and target_type[0] == "list":
                path = self.paths.get(id(target))
                element_path = None if path is None else (*path, "@items")
                element_size = self.size(target_type[1], element_path)
        called, size = call_cost(
            node.function,
            member=node.target is not None,
            target_size=target_size,
            arg_sizes=[size for _, _, size in arg_results],
            arg_literals=[arg.value if isinstance(arg, ast.Lit) else None for arg in node.args],
            element_size=element_size,
            text_elements=isinstance(target_type, tuple) and target_type[1] in TEXT,
            target_is_string=target_type == "string" or not is_known(target_type),
        )
        cost += called
        if node.function == "dyn" and node.target is None and arg_results:
            size = arg_results[0][2]  # cel-go: dyn() is its argument, for sizes too
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
        return result, cost, self.size(result, None) if size is None else size

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
        target_type, cost, target_size = self.visit(node.target, scope)
        cost += traversal(target_size)
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
                return "string", cost + arg_cost, UNBOUNDED
            items = [self.visit(item, scope) for item in arg.items]
        finally:
            self.exempt -= 1
        cost += LIST_CREATE + sum(c for _, c, _ in items)
        if isinstance(node.target, ast.Lit) and isinstance(node.target.value, str):
            kinds = [_format_kind(t) for t, _, _ in items]
            problem = check_format(node.target.value, kinds)
            if problem is not None:
                where: ast.Node = arg.items[problem.arg] if problem.arg is not None else node
                self.literal_errors.append((where.pos, self.located(where, problem.message)))
        return "string", cost, UNBOUNDED

    def binary(self, node: ast.Binary, scope: dict[str, Type]) -> tuple[Type, int, int]:
        lt, lc, ls = self.visit(node.left, scope)
        rt, rc, rs = self.visit(node.right, scope)
        cost = lc + rc
        op = node.op
        both_known = is_known(lt) and is_known(rt)
        # cel-go prices an operator by the dearest overload that may apply: comparing or joining
        # strings and bytes walks them, anything else costs 1
        text = _could_be_text(lt) and _could_be_text(rt)
        other = lt not in TEXT and rt not in TEXT
        if op in ("==", "!="):
            if both_known and lt in SCALARS and rt in SCALARS and lt != rt:
                raise self.no_overload(node, f"_{op}_", lt, rt)
            return "bool", cost + traversal(min(ls, rs)), 1
        if op in ("<", "<=", ">", ">="):
            if (
                both_known
                and not (lt in NUMERIC and rt in NUMERIC)
                and (lt != rt or lt not in ORDERED)
            ):
                raise self.no_overload(node, f"_{op}_", lt, rt)
            walked = traversal(min(ls, rs)) if text else 0
            return "bool", cost + max(walked, 1 if other else 0), 1
        if op == "in":
            if is_known(rt) and not (isinstance(rt, tuple)):
                raise self.no_overload(node, "@in", lt, rt)
            # in a list: a walk of the list; in a map: one lookup
            if isinstance(rt, tuple):
                return "bool", cost + (rs if rt[0] == "list" else 1), 1
            return "bool", cost + max(rs, 1), 1
        if op == "+":
            joined = ls + rs
            cost += max(traversal(joined) if text else 0, 1 if other else 0)
            if not both_known:
                numeric = lt in NUMERIC or rt in NUMERIC
                return UNKNOWN, cost, 1 if numeric and not text else joined
            if lt == rt and lt in NUMERIC:
                return lt, cost, 1
            if lt == rt and lt in TEXT:
                return lt, cost, joined
            if isinstance(lt, tuple) and isinstance(rt, tuple) and lt[0] == rt[0] == "list":
                return (lt if lt == rt else ("list", UNKNOWN)), cost, joined
            raise self.no_overload(node, "_+_", lt, rt)
        cost += 1
        if not both_known:
            return UNKNOWN, cost, UNBOUNDED
        if lt == rt and lt in NUMERIC and not (op == "%" and lt == "double"):
            return lt, cost, 1
        raise self.no_overload(node, f"_{op}_", lt, rt)

    def comprehension(
        self, node: ast.Comprehension, scope: dict[str, Type]
    ) -> tuple[Type, int, int]:
        range_type, range_cost, range_size = self.visit(node.range, scope)
        if node.macro in ("optMap", "optFlatMap"):
            with self.bound({node.var: _Local((node.var,))}):
                _, body_cost, _ = self.visit(node.args[0], {**scope, node.var: UNKNOWN})
            cost = comprehension_cost(node.macro, range_cost, range_size, [body_cost])
            return UNKNOWN, cost, UNBOUNDED
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
        with self.bound(self.iteration_variables(node, range_type)):
            body = [self.visit(arg, inner) for arg in node.args]
        cost = comprehension_cost(node.macro, range_cost, range_size, [c for _, c, _ in body])
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
