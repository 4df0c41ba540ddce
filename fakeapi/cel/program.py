"""Turn a checked syntax tree into nested Python closures.

Interpreting a parse tree walks rule nodes and dispatches by name for every evaluation; closures
do that work once, at compile time, so evaluating a selector is a handful of direct calls. The
allocator memoises results per device anyway, but the first check of each device in a large
inventory (and every check after a slice update) pays this cost.

Errors follow CEL: :class:`EvalError` is a value-like error that ``&&``, ``||`` and the
``all``/``exists`` macros may absorb; :class:`CostLimitExceededError` aborts evaluation outright.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.cel import ast
from fakeapi.cel.errors import EvalError
from fakeapi.cel.library import GLOBAL_FUNCTIONS, LIST_ATTRIBUTE_FUNCTIONS, MEMBER_FUNCTIONS
from fakeapi.cel.values import (
    EMPTY_MAP,
    MISSING,
    NONE,
    CelType,
    DomainMap,
    OptionalValue,
    add,
    compare,
    div,
    equals,
    map_find,
    mod,
    mul,
    negate,
    no_overload,
    sub,
    type_name,
)

__all__ = [
    "TYPE_IDENTIFIERS",
    "Activation",
    "CostLimitExceededError",
    "Evaluator",
    "compile_program",
    "qualified_name",
]


class CostLimitExceededError(Exception):
    """Runtime cost went over the limit (``operation cancelled: actual cost limit exceeded``)."""


class Activation:
    """Variables of one evaluation plus its running cost."""

    __slots__ = ("cost", "limit", "vars")

    def __init__(self, variables: dict[str, object], limit: int) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit


Evaluator = Callable[[Activation], object]

_UNSET = object()

Items = list[tuple[object, object]]
Macro = Callable[[Activation, Items, bool, str, "str | None", list[Evaluator]], object]


class _Lazy:
    """A ``cel.bind`` variable, evaluated on first use."""

    __slots__ = ("init", "value")

    def __init__(self, init: Evaluator) -> None:
        self.init = init
        self.value: object = _UNSET


TYPE_IDENTIFIERS = frozenset(
    {
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "bytes",
        "list",
        "map",
        "null_type",
        "type",
        "optional_type",
        "google.protobuf.Timestamp",
        "google.protobuf.Duration",
    }
)


def qualified_name(node: ast.Node) -> str | None:
    """``a.b.c`` for a chain of field selections on an identifier, else None."""
    if isinstance(node, ast.Ident):
        return node.name
    if isinstance(node, ast.Select):
        inner = qualified_name(node.operand)
        return None if inner is None else f"{inner}.{node.field}"
    return None


def compile_program(
    node: ast.Node, *, list_type_attributes: bool, variables: frozenset[str] = frozenset({"device"})
) -> Evaluator:
    """Closures for a checked tree; identifiers outside ``variables`` that name a type
    evaluate to that type."""
    members = dict(MEMBER_FUNCTIONS)
    if list_type_attributes:
        members.update(LIST_ATTRIBUTE_FUNCTIONS)
    return _Compiler(members, variables).build(node, frozenset())


def _select(value: object, field: str) -> object:
    if isinstance(value, OptionalValue):  # selecting into an optional keeps it optional
        return _opt_select(value, field)
    if isinstance(value, dict):
        try:
            return value[field]
        except KeyError:
            if type(value) is DomainMap:
                return EMPTY_MAP
            raise EvalError(f"no such key: {field}") from None
    raise EvalError(f"type '{type_name(value)}' does not support field selection")


def _opt_select(value: object, field: str) -> object:
    if isinstance(value, OptionalValue):
        if not value.has_value:
            return NONE
        value = value.value
    if isinstance(value, dict):
        found = value.get(field, MISSING)
        if found is MISSING:
            return OptionalValue(EMPTY_MAP) if type(value) is DomainMap else NONE
        return OptionalValue(found)
    raise EvalError(f"type '{type_name(value)}' does not support field selection")


def _opt_index(value: object, key: object) -> object:
    if isinstance(value, OptionalValue):
        if not value.has_value:
            return NONE
        value = value.value
    if isinstance(value, dict):
        found = map_find(value, key)
        if found is MISSING:
            return OptionalValue(EMPTY_MAP) if type(value) is DomainMap else NONE
        return OptionalValue(found)
    if isinstance(value, (list, tuple)):
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if isinstance(key, bool) or not isinstance(key, int):
            raise no_overload("_[?_]", value, key)
        return OptionalValue(value[key]) if 0 <= key < len(value) else NONE
    raise no_overload("_[?_]", value, key)


def _index(value: object, key: object) -> object:
    if isinstance(value, OptionalValue):
        return _opt_index(value, key)
    if isinstance(value, dict):
        found = map_find(value, key)
        if found is MISSING:
            if type(value) is DomainMap:
                return EMPTY_MAP
            raise EvalError(f"no such key: {key}")
        return found
    if isinstance(value, (list, tuple)):
        if isinstance(key, bool) or not isinstance(key, int):
            if isinstance(key, float) and key.is_integer():
                key = int(key)
            else:
                raise no_overload("_[_]", value, key)
        if not 0 <= key < len(value):
            raise EvalError(f"index out of range: {key}")
        return value[key]
    raise no_overload("_[_]", value, key)


def _contains(item: object, container: object) -> object:
    if isinstance(container, (list, tuple)):
        return any(equals(item, value) for value in container)
    if isinstance(container, dict):
        return map_find(container, item) is not MISSING
    raise no_overload("@in", item, container)


def _range(value: object) -> tuple[list[tuple[object, object]], bool]:
    if isinstance(value, (list, tuple)):
        return list(enumerate(value)), True
    if isinstance(value, dict):
        return list(value.items()), False
    raise EvalError(f"expression of type '{type_name(value)}' cannot be range of a comprehension")


_BINARY: dict[str, Callable[[object, object], object]] = {
    "==": equals,
    "!=": lambda a, b: not equals(a, b),
    "<": lambda a, b: compare("_<_", a, b) < 0,
    "<=": lambda a, b: compare("_<=_", a, b) <= 0,
    ">": lambda a, b: compare("_>_", a, b) > 0,
    ">=": lambda a, b: compare("_>=_", a, b) >= 0,
    "in": _contains,
    "+": add,
    "-": sub,
    "*": mul,
    "/": div,
    "%": mod,
}


class _Compiler:
    def __init__(
        self, members: dict[str, Callable[..., object]], variables: frozenset[str]
    ) -> None:
        self.members = members
        self.variables = variables
        self.locals: set[str] = set()  # comprehension variables in scope while building

    def build(self, node: ast.Node, lazy: frozenset[str]) -> Evaluator:
        if isinstance(node, ast.Lit):
            value = node.value
            return lambda a: value
        if isinstance(node, ast.Ident):
            name = node.name
            if name not in self.variables and name not in lazy and name in TYPE_IDENTIFIERS:
                type_value = CelType(name)
                return lambda a: type_value
            return self.ident(node.name, lazy)
        if isinstance(node, ast.Select):
            qualified = qualified_name(node)
            root = (qualified or "").partition(".")[0]
            if qualified is not None and root not in lazy and root not in self.locals:
                if qualified in self.variables:
                    return self.ident(qualified, lazy)
                if qualified in TYPE_IDENTIFIERS and root not in self.variables:
                    type_value = CelType(qualified)
                    return lambda a: type_value
            operand = self.build(node.operand, lazy)
            field = node.field
            return lambda a: _select(operand(a), field)
        if isinstance(node, ast.OptSelect):
            operand = self.build(node.operand, lazy)
            field = node.field
            return lambda a: _opt_select(operand(a), field)
        if isinstance(node, ast.OptIndex):
            operand = self.build(node.operand, lazy)
            index = self.build(node.index, lazy)
            return lambda a: _opt_index(operand(a), index(a))
        if isinstance(node, ast.Has):
            return self.has(node, lazy)
        if isinstance(node, ast.Index):
            operand = self.build(node.operand, lazy)
            index = self.build(node.index, lazy)
            return lambda a: _index(operand(a), index(a))
        if isinstance(node, ast.Call):
            return self.call(node, lazy)
        if isinstance(node, ast.ListLit):
            items = [self.build(item, lazy) for item in node.items]
            if node.optional:
                return _optional_list(items, frozenset(node.optional))
            return lambda a: [item(a) for item in items]
        if isinstance(node, ast.MapLit):
            return self.map_literal(node, lazy)
        if isinstance(node, ast.Not):
            operand = self.build(node.operand, lazy)
            return lambda a: _not(operand(a))
        if isinstance(node, ast.Neg):
            operand = self.build(node.operand, lazy)
            return lambda a: negate(operand(a))
        if isinstance(node, ast.And):
            return _logical(
                self.build(node.left, lazy), self.build(node.right, lazy), short=False, op="_&&_"
            )
        if isinstance(node, ast.Or):
            return _logical(
                self.build(node.left, lazy), self.build(node.right, lazy), short=True, op="_||_"
            )
        if isinstance(node, ast.Binary):
            left = self.build(node.left, lazy)
            right = self.build(node.right, lazy)
            fn = _BINARY[node.op]
            return lambda a: fn(left(a), right(a))
        if isinstance(node, ast.Cond):
            return self.conditional(node, lazy)
        if isinstance(node, ast.Comprehension):
            return self.comprehension(node, lazy)
        if isinstance(node, ast.Bind):
            return self.bind(node, lazy)
        raise AssertionError(f"unchecked node {node!r}")

    @staticmethod
    def ident(name: str, lazy: frozenset[str]) -> Evaluator:
        if name not in lazy:

            def lookup(a: Activation) -> object:
                try:
                    return a.vars[name]
                except KeyError:
                    raise EvalError(f"no such attribute(s): {name}") from None

            return lookup

        def lazy_ident(a: Activation) -> object:
            holder = a.vars[name]
            if not isinstance(holder, _Lazy):
                return holder
            if holder.value is _UNSET:
                holder.value = holder.init(a)
            return holder.value

        return lazy_ident

    def has(self, node: ast.Has, lazy: frozenset[str]) -> Evaluator:
        operand = self.build(node.operand, lazy)
        field = node.field

        def has(a: Activation) -> object:
            value = operand(a)
            if isinstance(value, OptionalValue):
                if not value.has_value:
                    return False
                value = value.value
            if isinstance(value, dict):
                return field in value
            raise EvalError(f"invalid type for field selection: {type_name(value)}")

        return has

    def call(self, node: ast.Call, lazy: frozenset[str]) -> Evaluator:
        args = [self.build(arg, lazy) for arg in node.args]
        if node.target is None:
            fn = GLOBAL_FUNCTIONS.get(node.function) or _unknown_function(node.function)
            if len(args) == 1:
                (only,) = args
                return lambda a: fn(only(a))
            return lambda a: fn(*[arg(a) for arg in args])
        method = self.members.get(node.function) or _unknown_function(node.function)
        target = self.build(node.target, lazy)
        if not args:
            return lambda a: method(target(a))
        if len(args) == 1:
            (first,) = args
            return lambda a: method(target(a), first(a))
        return lambda a: method(target(a), *[arg(a) for arg in args])

    def map_literal(self, node: ast.MapLit, lazy: frozenset[str]) -> Evaluator:
        entries = [(self.build(k, lazy), self.build(v, lazy)) for k, v in node.entries]
        optional = frozenset(node.optional)

        # As in cel-go (not the spec): a repeated key overwrites, and any scalar may be a key.
        def make_map(a: Activation) -> object:
            out: dict[object, object] = {}
            for position, (key_fn, value_fn) in enumerate(entries):
                key = key_fn(a)
                value = value_fn(a)
                if position in optional:
                    if not isinstance(value, OptionalValue):
                        raise no_overload("optional entry", value)
                    if not value.has_value:
                        continue
                    value = value.value
                try:
                    out[key] = value
                except TypeError:  # unhashable: a list or a map
                    raise EvalError(f"unsupported key type: {type_name(key)}") from None
            return out

        return make_map

    def conditional(self, node: ast.Cond, lazy: frozenset[str]) -> Evaluator:
        condition = self.build(node.condition, lazy)
        then = self.build(node.then, lazy)
        otherwise = self.build(node.otherwise, lazy)

        def cond(a: Activation) -> object:
            value = condition(a)
            if value is True:
                return then(a)
            if value is False:
                return otherwise(a)
            raise no_overload("_?_:_", value)

        return cond

    def bind(self, node: ast.Bind, lazy: frozenset[str]) -> Evaluator:
        init = self.build(node.init, lazy)
        body = self.build(node.body, lazy | {node.var})
        name = node.var

        def bind(a: Activation) -> object:
            saved = a.vars.get(name, _UNSET)
            a.vars[name] = _Lazy(init)
            try:
                return body(a)
            finally:
                _restore(a, name, saved)

        return bind

    def comprehension(self, node: ast.Comprehension, lazy: frozenset[str]) -> Evaluator:
        inner_lazy = lazy - {node.var, node.var2 or ""}
        source = self.build(node.range, lazy)
        added = {node.var, node.var2 or node.var} - self.locals
        self.locals |= added
        try:
            bodies = [self.build(arg, inner_lazy) for arg in node.args]
        finally:
            self.locals -= added
        var, var2, macro = node.var, node.var2, node.macro

        if macro in ("optMap", "optFlatMap"):
            return _optional_map(source, var, bodies[0], flat=macro == "optFlatMap")

        def run(a: Activation) -> object:
            items, is_list = _range(source(a))
            saved = a.vars.get(var, _UNSET)
            saved2 = a.vars.get(var2, _UNSET) if var2 else _UNSET
            try:
                return _MACROS[macro](a, items, is_list, var, var2, bodies)
            finally:
                _restore(a, var, saved)
                if var2:
                    _restore(a, var2, saved2)

        return run


def _unknown_function(name: str) -> Callable[..., object]:
    """What an unchecked expression gets for a function the environment lacks."""

    def call(*args: object) -> object:
        raise no_overload(name, *args)

    return call


def _restore(a: Activation, name: str, saved: object) -> None:
    if saved is _UNSET:
        a.vars.pop(name, None)
    else:
        a.vars[name] = saved


def _step(
    a: Activation, var: str, var2: str | None, item: tuple[object, object], is_list: bool
) -> None:
    a.cost += 1
    if a.cost > a.limit:
        raise CostLimitExceededError("operation cancelled: actual cost limit exceeded")
    if var2 is None:
        a.vars[var] = item[1] if is_list else item[0]
    else:
        a.vars[var], a.vars[var2] = item


def _quantifier(want: bool) -> Macro:
    def run(
        a: Activation,
        items: Items,
        is_list: bool,
        var: str,
        var2: str | None,
        bodies: list[Evaluator],
    ) -> object:
        error: EvalError | None = None
        for item in items:
            _step(a, var, var2, item, is_list)
            try:
                value = bodies[0](a)
            except EvalError as exc:
                error = error or exc
                continue
            if value is want:
                return want
            if not isinstance(value, bool):
                error = error or no_overload("_&&_" if not want else "_||_", value)
        if error is not None:
            raise error
        return not want

    return run


def _exists_one(
    a: Activation, items: Items, is_list: bool, var: str, var2: str | None, bodies: list[Evaluator]
) -> object:
    count = 0
    for item in items:
        _step(a, var, var2, item, is_list)
        value = bodies[0](a)
        if value is True:
            count += 1
        elif value is not False:
            raise no_overload("exists_one", value)
    return count == 1


def _map(
    a: Activation, items: Items, is_list: bool, var: str, var2: str | None, bodies: list[Evaluator]
) -> object:
    out: list[object] = []
    for item in items:
        _step(a, var, var2, item, is_list)
        if len(bodies) == 2:
            keep = bodies[0](a)
            if keep is not True:
                if keep is False:
                    continue
                raise no_overload("map", keep)
        out.append(bodies[-1](a))
    return out


def _filter(
    a: Activation, items: Items, is_list: bool, var: str, var2: str | None, bodies: list[Evaluator]
) -> object:
    out: list[object] = []
    for item in items:
        _step(a, var, var2, item, is_list)
        keep = bodies[0](a)
        if keep is True:
            out.append(a.vars[var])
        elif keep is not False:
            raise no_overload("filter", keep)
    return out


def _transform_list(
    a: Activation, items: Items, is_list: bool, var: str, var2: str | None, bodies: list[Evaluator]
) -> object:
    return _map(a, items, is_list, var, var2, bodies)


def _transform_map(entry: bool) -> Macro:
    name = "transformMapEntry" if entry else "transformMap"

    def run(
        a: Activation,
        items: Items,
        is_list: bool,
        var: str,
        var2: str | None,
        bodies: list[Evaluator],
    ) -> object:
        out: dict[object, object] = {}
        for item in items:
            _step(a, var, var2, item, is_list)
            if len(bodies) == 2:
                keep = bodies[0](a)
                if keep is False:
                    continue
                if keep is not True:
                    raise no_overload(name, keep)
            value = bodies[-1](a)
            if not entry:
                out[item[0]] = value
                continue
            if not isinstance(value, dict):
                raise no_overload(name, value)
            for key, inner in value.items():
                if map_find(out, key) is not MISSING:
                    raise EvalError(f"insert failed: key {_show(key)} already exists")
                out[key] = inner
        return out

    return run


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _sort_by(
    a: Activation, items: Items, is_list: bool, var: str, var2: str | None, bodies: list[Evaluator]
) -> object:
    if not is_list:
        raise no_overload("sortBy", dict(items))
    keyed: list[tuple[object, object]] = []
    for item in items:
        _step(a, var, var2, item, is_list)
        keyed.append((bodies[0](a), item[1]))
    return [value for _, value in sort_by_keys(keyed)]


def sort_by_keys(keyed: list[tuple[object, object]]) -> list[tuple[object, object]]:
    """Stable sort by key, with ext.Lists' errors for keys that cannot be ordered."""
    if not keyed:
        return keyed
    first = type_name(keyed[0][0])
    if first not in ("int", "uint", "double", "bool", "string", "bytes"):
        raise EvalError("list elements must be comparable")
    for key, _ in keyed:
        if type_name(key) != first:
            raise EvalError("list elements must have the same type")
    return sorted(keyed, key=lambda pair: pair[0])  # type: ignore[arg-type, return-value]


_MACROS = {
    "all": _quantifier(False),
    "exists": _quantifier(True),
    "exists_one": _exists_one,
    "map": _map,
    "filter": _filter,
    "transformList": _transform_list,
    "transformMap": _transform_map(False),
    "transformMapEntry": _transform_map(True),
    "sortBy": _sort_by,
}


def _optional_list(items: list[Evaluator], optional: frozenset[int]) -> Evaluator:
    def make_list(a: Activation) -> object:
        out: list[object] = []
        for position, item in enumerate(items):
            value = item(a)
            if position in optional:
                if not isinstance(value, OptionalValue):
                    raise no_overload("optional element", value)
                if not value.has_value:
                    continue
                value = value.value
            out.append(value)
        return out

    return make_list


def _optional_map(source: Evaluator, var: str, body: Evaluator, *, flat: bool) -> Evaluator:
    name = "optFlatMap" if flat else "optMap"

    def run(a: Activation) -> object:
        target = source(a)
        if not isinstance(target, OptionalValue):
            raise no_overload(name, target)
        if not target.has_value:
            return NONE
        saved = a.vars.get(var, _UNSET)
        a.vars[var] = target.value
        try:
            result = body(a)
        finally:
            _restore(a, var, saved)
        if not flat:
            return OptionalValue(result)
        if not isinstance(result, OptionalValue):
            raise no_overload(name, result)
        return result

    return run


def _not(value: object) -> object:
    if isinstance(value, bool):
        return not value
    raise no_overload("!_", value)


def _logical(left: Evaluator, right: Evaluator, *, short: bool, op: str) -> Evaluator:
    """``&&`` (short=False: false wins), ``||`` (short=True: true wins); errors commute."""

    def run(a: Activation) -> object:
        error: EvalError | None = None
        try:
            lv = left(a)
            if lv is short:
                return short
            if not isinstance(lv, bool):
                error = no_overload(op, lv)
        except EvalError as exc:
            error = exc
        try:
            rv = right(a)
        except EvalError as exc:
            raise (error or exc) from None
        if rv is short:
            return short
        if not isinstance(rv, bool):
            raise error or no_overload(op, rv)
        if error is not None:
            raise error
        return not short

    return run
