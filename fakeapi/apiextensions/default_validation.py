"""Defaults in a definition's schema must be valid values of the schema they sit in.

Upstream's ``ValidateDefaults``: each ``default`` must survive pruning unchanged (no unknown
fields), hold valid embedded resources, pass the value validation and the CEL rules of its own
node. Defaults inside the metadata of an embedded resource are only value-checked here. Errors
are reported below ``<node>.default``.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.apiextensions.celtypes import declare
from fakeapi.apiextensions.objectmeta import coerce_embedded, validate_embedded_resources
from fakeapi.apiextensions.openapi_validation import SchemaValidator
from fakeapi.apiextensions.pruning import prune
from fakeapi.apiextensions.rules import RUNTIME_COST_BUDGET, RuleValidator
from fakeapi.apiextensions.structural import NO_DEFAULT, Structural
from fakeapi.validation import field as fe

__all__ = ["validate_defaults"]

_META_FIELDS = frozenset({"metadata", "kind", "apiVersion"})


def validate_defaults(
    root: Structural, path: fe.Path, require_pruned: bool
) -> list[fe.FieldError]:
    """Upstream's ``ValidateDefaults``: every default is valid for its own schema (and pruned,
    and valid object metadata inside an embedded resource)."""
    return _defaults(root, root, path, require_pruned, inside_meta=False, budget=[
        RUNTIME_COST_BUDGET
    ])


def _defaults(
    s: Structural, root: Structural, path: fe.Path, require_pruned: bool, *, inside_meta: bool,
    budget: list[int],
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    if s.embedded_resource:
        inside_meta = False
        root = s
    if s.default is not NO_DEFAULT:
        value = s.default
        at = path.child("default")
        validator = SchemaValidator(s.raw)
        if inside_meta:
            errs += validator.validate(value, path=at)
        else:
            if require_pruned:
                pruned = orjson.loads(orjson.dumps(value))
                prune(pruned, s, resource_root=s.embedded_resource)
                if orjson.dumps(pruned) != orjson.dumps(value):
                    errs.append(fe.invalid(at, value, "must not have unknown fields"))
            coerced = coerce_embedded(s, value)
            if coerced is not None:
                errs.append(fe.FieldError(
                    coerced.reason, _under(at, coerced.field), coerced.detail, coerced.value
                ))
            else:
                embedded = validate_embedded_resources(s, value)
                if embedded:
                    errs += [fe.FieldError(e.reason, _under(at, e.field), e.detail, e.value)
                             for e in embedded]
                else:
                    found = validator.validate(value, path=at)
                    if found:
                        errs += found
                    else:
                        errs += _default_rules(s, root, at, value, budget)
    if s.items is not None:
        errs += _defaults(s.items, root, path.child("items"), require_pruned,
                          inside_meta=inside_meta, budget=budget)
    for name, sub in (s.properties or {}).items():
        sub_meta = inside_meta or (s.embedded_resource and name in _META_FIELDS)
        errs += _defaults(sub, root, path.child("properties").key(name), require_pruned,
                          inside_meta=sub_meta, budget=budget)
    return errs


def _default_rules(
    s: Structural, root: Structural, at: fe.Path, value: Any, budget: list[int]
) -> list[fe.FieldError]:
    validator = RuleValidator(s, declare(s, root=s is root), resource_root=s is root)
    found, _ = validator.validate(value, value, budget=budget[0])
    if not found:
        found, _ = validator.validate(value, budget=budget[0])
    return [fe.FieldError(e.reason, _under(at, e.field), e.detail, e.value) for e in found]


def _under(at: fe.Path, where: str) -> str:
    if not where:
        return at.text
    return f"{at.text}.{where}" if not where.startswith("[") else at.text + where
