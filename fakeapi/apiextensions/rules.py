"""``x-kubernetes-validations``: CEL rules of a CRD schema, compiled once, run on every write.

Each rule sees ``self``, the value at the schema node the rule is attached to, typed by the
schema (:mod:`fakeapi.apiextensions.celtypes`). A rule that names ``oldSelf`` is a transition
rule: it runs on updates only (``oldSelf`` is the correlated old value: same field name, map key
or list-map keys), or on creates too with ``optionalOldSelf`` (``oldSelf`` is then an optional).

Costs are upstream's (``k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel``): a rule's
estimated cost uses the largest sizes its schema allows, multiplied by how often the rule can
run; a definition is refused above 10,000,000 per rule or 100,000,000 for the schema. At run
time each call may cost 1,000,000 and a whole object 10,000,000.

:class:`RuleValidator` mirrors the schema where rules are, built once per definition version;
:meth:`RuleValidator.validate` returns upstream's field errors (messages, ``messageExpression``,
``reason``, ``fieldPath``) and, as ratcheting asks, turns the failures of rules on unchanged
values into warnings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import orjson

from fakeapi.apiextensions.celtypes import Decl, declare, escape, to_cel, with_type_and_object_meta
from fakeapi.apiextensions.fieldpaths import valid_field_path
from fakeapi.apiextensions.structural import Structural
from fakeapi.cel import ast
from fakeapi.cel.checker import Features, check
from fakeapi.cel.errors import CELCompileError, EvalError
from fakeapi.cel.parser import parse_for_compile
from fakeapi.cel.program import Activation, CostLimitExceededError, Evaluator, compile_program
from fakeapi.cel.type_lattice import UNKNOWN, Type
from fakeapi.cel.values import NONE, OptionalValue
from fakeapi.validation import field as fe

__all__ = [
    "PER_CALL_LIMIT",
    "RUNTIME_COST_BUDGET",
    "STATIC_ESTIMATED_COST_LIMIT",
    "STATIC_ESTIMATED_CRD_COST_LIMIT",
    "CompiledRule",
    "RuleValidator",
    "compile_rules",
    "has_newlines",
]

PER_CALL_LIMIT = 1_000_000
RUNTIME_COST_BUDGET = 10_000_000
STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MAX_MESSAGE_EXPRESSION_SIZE = 5 * 1024
_FEATURES = Features(list_type_attributes=True)
_NEWLINES = re.compile(r"[\n\r]+")
_MISSING: Any = object()


# --- compilation ------------------------------------------------------------------------------

@dataclass
class CompiledRule:
    """One rule compiled (upstream ``CompilationResult``)."""

    rule: Mapping[str, Any]
    program: Evaluator | None = None
    #: the rule's compile error: (required?, detail)
    error: tuple[bool, str] | None = None
    uses_old_self: bool = False
    max_cost: int = 0
    max_cardinality: int = 1
    message_program: Evaluator | None = None
    message_error: str | None = None
    message_max_cost: int = 0
    #: ``fieldPath`` as a field path (``spec.replicas``), "" when unset or invalid
    field_path: str = ""


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    if is_dataclass(node):
        for f in fields(node):
            value = getattr(node, f.name)
            if isinstance(value, ast.Node):
                yield from _nodes(value)
            elif isinstance(value, list | tuple):
                for item in value:
                    if isinstance(item, ast.Node):
                        yield from _nodes(item)
                    elif isinstance(item, tuple):
                        for sub in item:
                            if isinstance(sub, ast.Node):
                                yield from _nodes(sub)


def _uses(node: ast.Node, name: str) -> bool:
    return any(isinstance(n, ast.Ident) and n.name == name for n in _nodes(node))


@dataclass(frozen=True)
class _Compiled:
    program: Evaluator
    result_type: str
    cost: int
    uses_old_self: bool


def _compile(expression: str, variables: dict[str, Type], decl: Decl) -> _Compiled:
    """One expression against the node's declarations; raises :class:`CELCompileError`."""
    node = parse_for_compile(expression)
    sizes = decl.sizes()
    result = check(
        node, expression=expression, features=_FEATURES, variables=variables,
        require_bool=False, objects=decl.objects(), sizes={"self": sizes, "oldSelf": sizes},
    )
    program = compile_program(node, list_type_attributes=True, variables=frozenset(variables))
    return _Compiled(program, result.result_type, result.cost, _uses(node, "oldSelf"))


def _max_cardinality(min_size: int) -> int:
    return MAX_REQUEST_SIZE_BYTES // (min_size + 1)


def compile_rules(s: Structural, decl: Decl) -> list[CompiledRule]:
    """The rules of node ``s`` (whose CEL type is ``decl``), compiled as upstream's
    ``Compile`` does: errors, costs and whether each rule is a transition rule."""
    out: list[CompiledRule] = []
    cardinality = _max_cardinality(decl.min_size)
    for rule in s.validations:
        text = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
        compiled = CompiledRule(rule=rule, max_cardinality=cardinality)
        out.append(compiled)
        if not str(text).strip():
            continue
        optional_old = rule.get("optionalOldSelf") is True
        variables: dict[str, Type] = {"self": decl.type, "oldSelf": UNKNOWN if optional_old
                                      else decl.type}
        try:
            expr = _compile(str(text), variables, decl)
        except CELCompileError as exc:
            compiled.error = (False, exc.message)
            continue
        if expr.result_type not in ("bool", "dyn"):
            compiled.error = (False, "cel expression must evaluate to a bool")
            continue
        compiled.program = expr.program
        compiled.uses_old_self = expr.uses_old_self
        compiled.max_cost = expr.cost
        message = rule.get("messageExpression")
        if isinstance(message, str) and message:
            try:
                msg = _compile(message, variables, decl)
            except CELCompileError as exc:
                compiled.message_error = "messageExpression " + exc.message
            else:
                if msg.result_type not in ("string", "dyn"):
                    compiled.message_error = "messageExpression must evaluate to a string"
                else:
                    compiled.message_program = msg.program
                    compiled.message_max_cost = msg.cost
        path = rule.get("fieldPath")
        if isinstance(path, str) and path:
            try:
                compiled.field_path = valid_field_path(path, s)[0]
            except ValueError:
                compiled.field_path = ""
    return out


# --- validation -------------------------------------------------------------------------------

def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, str | bool | int | float) or a is None:
        return type(a) is type(b) and a == b
    return orjson.dumps(a) == orjson.dumps(b)


@dataclass
class _Outcome:
    errors: list[fe.FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    budget: int = RUNTIME_COST_BUDGET


class RuleValidator:
    """The rules of one schema node and the validators of the nodes below that have rules
    (upstream ``cel.Validator``)."""

    def __init__(self, s: Structural, decl: Decl | None, *, resource_root: bool) -> None:
        self.schema = s
        self.resource_root = resource_root
        self.rules: list[CompiledRule] = []
        self.compile_error = ""
        if s.validations:
            if decl is None:
                self.compile_error = "failed to convert to declType for CEL validation rules"
            else:
                self.rules = compile_rules(s, decl)
        self.properties: dict[str, RuleValidator] = {}
        for name, sub in (s.properties or {}).items():
            if not _has_rules(sub):
                continue
            escaped = escape(name)
            field_decl: Decl | None
            if escaped is not None:
                if decl is None or decl.fields is None or escaped not in decl.fields:
                    continue
                field_decl = decl.fields[escaped]
            else:
                field_decl = declare(sub, root=sub.embedded_resource)
                if field_decl is None:
                    continue
            self.properties[name] = RuleValidator(
                sub, field_decl, resource_root=sub.embedded_resource
            )
        element = decl.elem if decl is not None else None
        self.items = (
            RuleValidator(s.items, element, resource_root=s.items.embedded_resource)
            if s.items is not None and _has_rules(s.items) else None
        )
        extra = s.additional_schema
        self.additional = (
            RuleValidator(extra, element, resource_root=extra.embedded_resource)
            if extra is not None and _has_rules(extra) else None
        )
        self.all_of = [
            RuleValidator(_merged(s, clause), decl, resource_root=resource_root)
            for clause in s.all_of if _has_rules(clause)
        ]
        self.uses_old_self = any(r.uses_old_self for r in self.rules)

    def validate(
        self, obj: Any, old: Any = _MISSING, *, budget: int = RUNTIME_COST_BUDGET
    ) -> tuple[list[fe.FieldError], list[str]]:
        """The errors of ``obj`` (with ``old`` the previous version on updates) and the
        warnings of ratcheted failures."""
        outcome = _Outcome(budget=budget)
        self._validate(fe.Path(), obj, old, outcome)
        return outcome.errors, outcome.warnings

    def _validate(self, path: fe.Path, obj: Any, old: Any, out: _Outcome) -> None:
        if obj is None:
            return
        self._expressions(path, obj, old, out)
        if out.budget < 0:
            return
        for clause in self.all_of:
            clause._validate(path, obj, old, out)
            if out.budget < 0:
                return
        if isinstance(obj, list) and self.items is not None:
            olds = _correlated(self.schema, old)
            for i, item in enumerate(obj):
                old_item = _MISSING
                if olds is not None and isinstance(item, dict):
                    old_item = olds.get(_item_key(self.schema.list_map_keys, item), _MISSING)
                self.items._validate(path.index(i), item, old_item, out)
                if out.budget < 0:
                    return
        elif isinstance(obj, dict):
            old_map = old if isinstance(old, dict) else None
            if self.additional is not None:
                for key, value in obj.items():
                    old_value = old_map.get(key, _MISSING) if old_map is not None else _MISSING
                    self.additional._validate(path.key(key), value, old_value, out)
                    if out.budget < 0:
                        return
            for key, value in obj.items():
                sub = self.properties.get(key)
                if sub is None:
                    continue
                old_value = old_map.get(key, _MISSING) if old_map is not None else _MISSING
                sub._validate(path.child(key), value, old_value, out)
                if out.budget < 0:
                    return

    def _expressions(self, at: fe.Path, obj: Any, old: Any, out: _Outcome) -> None:
        kind = self.schema.type
        # upstream validates the resource root at a nil path, which prints as <nil>
        path = at if at.text else fe.Path("<nil>")
        if self.compile_error:
            out.errors.append(fe.invalid(
                path, kind, f"rule compiler initialization error: {self.compile_error}"
            ))
            return
        if not self.rules:
            return
        if out.budget <= 0:
            out.errors.append(fe.invalid(
                path, kind, "validation failed due to running out of cost budget, no further "
                "validation rules will be run",
            ))
            out.budget = -1
            return
        schema = with_type_and_object_meta(self.schema) if self.resource_root else self.schema
        has_old = old is not _MISSING and old is not None
        unchanged = has_old and _same(obj, old)
        self_value = to_cel(obj, schema)
        old_value = to_cel(old, schema) if has_old and self.uses_old_self else None
        for compiled in self.rules:
            rule = compiled.rule
            if compiled.error is not None:
                out.errors.append(fe.invalid(
                    path, kind, f"rule compile error: {compiled.error[1]}"
                ))
                continue
            if compiled.program is None:
                continue
            optional_old = rule.get("optionalOldSelf") is True
            if compiled.uses_old_self and not has_old and not optional_old:
                continue
            variables: dict[str, object] = {"self": self_value}
            if compiled.uses_old_self and optional_old:
                variables["oldSelf"] = OptionalValue(old_value) if has_old else NONE
            elif compiled.uses_old_self and has_old:
                variables["oldSelf"] = old_value
            activation = Activation(variables, PER_CALL_LIMIT)
            label = _label(rule)
            try:
                result = compiled.program(activation)
            except CostLimitExceededError as exc:
                out.errors.append(fe.invalid(
                    path, kind, f"'{exc}': no further validation rules will be run due to call "
                    f"cost exceeds limit for rule: {label}",
                ))
                out.budget = -1
                return
            except EvalError as exc:
                if exc.message.startswith("no such overload"):
                    problem = (
                        f"'{exc.message}': call arguments did not match a supported operator, "
                        f"function or macro signature for rule: {label}"
                    )
                else:
                    problem = f"{exc.message} evaluating rule: {label}"
                out.errors.append(fe.invalid(path, kind, problem))
                continue
            except RecursionError:
                out.errors.append(fe.invalid(
                    path, kind, f"expression nesting too deep evaluating rule: {label}"
                ))
                continue
            if activation.cost > out.budget:
                out.errors.append(fe.invalid(
                    path, kind, "validation failed due to running out of cost budget, no "
                    "further validation rules will be run",
                ))
                out.budget = -1
                return
            out.budget -= activation.cost
            if result is True:
                continue
            where = path
            if compiled.field_path:
                where = fe.Path(f"{at.text}.{compiled.field_path}" if at.text
                                else compiled.field_path)
            detail = None
            if compiled.message_program is not None:
                detail = self._message(compiled, where, variables, out)
                if out.budget < 0:
                    return
            if detail is None:
                detail = _default_message(rule)
            error = _error_for_reason(where, obj, kind, detail, rule.get("reason"))
            if not compiled.uses_old_self and unchanged:
                out.warnings.append(str(error))
            else:
                out.errors.append(error)

    def _message(
        self, compiled: CompiledRule, where: fe.Path, variables: dict[str, object], out: _Outcome
    ) -> str | None:
        assert compiled.message_program is not None
        source = str(compiled.rule.get("messageExpression"))
        activation = Activation(dict(variables), PER_CALL_LIMIT)
        try:
            value = compiled.message_program(activation)
        except CostLimitExceededError:
            out.errors.append(fe.invalid(
                where, self.schema.type,
                "no further validation rules will be run due to call cost exceeds limit for "
                f"messageExpression: {_go_quote(source)}",
            ))
            out.budget = -1
            return None
        except (EvalError, RecursionError):
            out.budget -= activation.cost
            return None
        if activation.cost > out.budget:
            out.errors.append(fe.invalid(
                where, self.schema.type,
                "messageExpression evaluation failed due to running out of cost budget, no "
                "further validation rules will be run",
            ))
            out.budget = -1
            return None
        out.budget -= activation.cost
        if not isinstance(value, str):
            return None
        trimmed = value.strip()
        if not trimmed or len(trimmed) > MAX_MESSAGE_EXPRESSION_SIZE or "\n" in trimmed:
            return None
        return trimmed


def _go_quote(text: str) -> str:
    return orjson.dumps(text).decode()


def _label(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return str(rule.get("rule") or "").strip()


def _default_message(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return f"failed rule: {_label(rule)}"


def _error_for_reason(
    path: fe.Path, value: Any, kind: str, detail: str, reason: Any
) -> fe.FieldError:
    omit = kind in ("object", "array")
    if reason == "FieldValueForbidden":
        return fe.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return fe.required(path, detail)
    if reason == "FieldValueDuplicate":
        return fe.FieldError("FieldValueDuplicate", path.text) if omit else fe.duplicate(
            path, value
        )
    if omit:
        return fe.FieldError("FieldValueInvalid", path.text, detail)
    return fe.invalid(path, value, detail)


def _has_rules(s: Structural | None) -> bool:
    if s is None:
        return False
    if s.validations:
        return True
    if _has_rules(s.items) or _has_rules(s.additional_schema):
        return True
    if any(_has_rules(sub) for sub in (s.properties or {}).values()):
        return True
    return any(_has_rules(c) for c in s.all_of)


def _merged(node: Structural, clause: Structural) -> Structural:
    """An ``allOf`` clause's rules on the node's own structure (upstream validates the clause's
    rules against the node's schema)."""
    return Structural(
        raw=node.raw, type=node.type, format=node.format, nullable=node.nullable,
        properties={
            name: _merged(sub, (clause.properties or {}).get(name) or Structural(raw={}))
            for name, sub in (node.properties or {}).items()
            if name in (clause.properties or {})
        } or None,
        items=_merged(node.items, clause.items) if node.items and clause.items else None,
        additional_properties=node.additional_properties,
        preserve_unknown_fields=node.preserve_unknown_fields,
        embedded_resource=node.embedded_resource, int_or_string=node.int_or_string,
        list_type=node.list_type, list_map_keys=node.list_map_keys, map_type=node.map_type,
        validations=clause.validations, required=node.required,
    )


def _item_key(keys: tuple[str, ...], item: dict[str, Any]) -> tuple[str, ...]:
    return tuple(orjson.dumps(item.get(k)).decode() for k in keys)


def _correlated(s: Structural, old: Any) -> dict[tuple[str, ...], Any] | None:
    if s.list_type != "map" or not s.list_map_keys or not isinstance(old, list):
        return None
    return {_item_key(s.list_map_keys, item): item for item in old if isinstance(item, dict)}


def has_newlines(text: str) -> bool:
    return _NEWLINES.search(text) is not None

