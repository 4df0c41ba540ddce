"""Validation of a definition's ``openAPIV3Schema``: structure, defaults, extensions and rules.

Upstream's ``validateCustomResourceDefinitionValidation`` and
``ValidateCustomResourceDefinitionOpenAPISchema`` with their messages: what is allowed at the
root when the status subresource is on, the structural invariants
(:func:`~fakeapi.apiextensions.structural.validate_structural`), each default checked against
its own schema (:func:`validate_defaults`), the unsupported keywords, the list and map types and
their keys, and every ``x-kubernetes-validations`` rule compiled with its estimated cost (one
rule may cost 10,000,000, the schema 100,000,000). :class:`SchemaOptions` carries what an update
relaxes for a schema that already broke a rule before the rule existed (upstream ratchets each
of these checks on the stored definition).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fakeapi.apiextensions.celtypes import Decl, declare, escape
from fakeapi.apiextensions.default_validation import validate_defaults
from fakeapi.apiextensions.fieldpaths import valid_field_path
from fakeapi.apiextensions.rules import (
    STATIC_ESTIMATED_COST_LIMIT,
    STATIC_ESTIMATED_CRD_COST_LIMIT,
    compile_rules,
    has_newlines,
)
from fakeapi.apiextensions.structural import (
    Structural,
    StructuralError,
    new_structural,
    validate_structural,
)
from fakeapi.validation import field as fe

__all__ = [
    "SchemaOptions", "cost_error_message", "is_zero", "map_list_keys_problems", "validate_schema",
]

_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS = frozenset({"metadata", "kind", "apiVersion"})
_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid",
            "FieldValueRequired")
#: the JSONSchemaProps fields allowed at the root with the status subresource on (Go names)
_ROOT_FIELDS = (
    "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems",
    "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
    "XPreserveUnknownFields", "XValidations",
)
_ROOT_KEYS = frozenset({
    "description", "type", "format", "title", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "multipleOf", "required", "items", "properties", "externalDocs", "example",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations",
})
_UNBOUNDED: int | None = None
_MAX_UINT = 2**64 - 1


@dataclass(frozen=True)
class SchemaOptions:
    """What the checks require (an update relaxes those the stored definition already broke)."""

    allow_defaults: bool = True
    require_structural: bool = True
    require_valid_property_type: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    #: skip the per-rule cost limit (a version whose schema did not change in an update)
    suppress_per_expression_cost: bool = False


@dataclass
class _Validator:
    """upstream's ``specStandardValidatorV3`` state as it descends."""

    allow_defaults: bool
    disallow_defaults_reason: str = ""
    inside_resource_meta: bool = False
    require_valid_property_type: bool = True
    uncorrelatable: fe.Path | None = None

    def forbidding_defaults(self, reason: str) -> _Validator:
        return replace(self, allow_defaults=False, disallow_defaults_reason=reason)

    def forbidding_old_self(self, path: fe.Path) -> _Validator:
        return self if self.uncorrelatable is not None else replace(self, uncorrelatable=path)


@dataclass
class _Cost:
    total: int = 0
    most_expensive: list[tuple[int, str]] = field(default_factory=list)

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, _MAX_UINT)
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
            return
        self.most_expensive.append((cost, path))
        self.most_expensive.sort(key=lambda entry: -entry[0])
        del self.most_expensive[4:]


@dataclass
class _CelContext:
    """Where a node sits for its rules: its structural schema and CEL type, and how often it
    can occur (the product of the item counts above it; None: unbounded)."""

    schema: Structural | None
    decl: Decl | None
    cardinality: int | None
    cost: _Cost
    raw: Mapping[str, Any]

    def child(self, raw: Mapping[str, Any], schema: Structural | None,
              decl: Decl | None) -> _CelContext:
        cardinality: int | None = None
        if self.cardinality is not None:
            elements = _max_elements(self.raw)
            if elements is not None:
                cardinality = min(self.cardinality * elements, _MAX_UINT)
        return _CelContext(schema, decl, cardinality, self.cost, raw)


def _max_elements(raw: Mapping[str, Any]) -> int | None:
    kind = raw.get("type")
    if kind == "object":
        if raw.get("additionalProperties") is not None:
            maximum = raw.get("maxProperties")
            return max(maximum, 0) if isinstance(maximum, int) else _UNBOUNDED
        return 1
    if kind == "array":
        maximum = raw.get("maxItems")
        return max(maximum, 0) if isinstance(maximum, int) else _UNBOUNDED
    return 1


def cost_error_message(name: str, cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding "
        "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


def validate_schema(
    schema: Mapping[str, Any] | None, *, status_enabled: bool, options: SchemaOptions,
    path: fe.Path,
) -> list[fe.FieldError]:
    """Errors of one version's ``schema`` (``path`` is where ``openAPIV3Schema`` sits)."""
    if not isinstance(schema, dict):
        return []
    errs: list[fe.FieldError] = []
    root_path = path.child("openAPIV3Schema")
    if status_enabled:
        errs += _status_root(schema, path)
    if schema.get("nullable") is True:
        errs.append(fe.forbidden(
            path.child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"
        ))
    context: _CelContext | None = None
    init_errs: list[fe.FieldError] = []
    structural: Structural | None = None
    if options.require_structural:
        try:
            structural = new_structural(schema)
        except StructuralError as exc:
            init_errs.append(fe.invalid(root_path, "", str(exc)))
        else:
            structure = validate_structural(schema, root_path)
            if structure:
                errs += structure
            else:
                defaults = validate_defaults(structural, root_path, options.require_pruned_defaults)
                if defaults:
                    errs += defaults
                else:
                    context = _CelContext(
                        structural, declare(structural, root=True), 1, _Cost(), schema
                    )
    validator = _Validator(
        allow_defaults=options.allow_defaults,
        require_valid_property_type=options.require_valid_property_type,
    )
    schema_errs, cel_errs = _openapi_schema(schema, root_path, validator, True, options, context)
    errs += schema_errs + cel_errs
    if not errs and init_errs:
        errs += init_errs
    if context is not None and context.cost.total > STATIC_ESTIMATED_CRD_COST_LIMIT:
        for _, where in context.cost.most_expensive:
            errs.append(fe.forbidden(
                where,
                "contributed to estimated rule cost total exceeding cost limit for entire "
                "OpenAPIv3 schema",
            ))
        errs.append(fe.forbidden(root_path, cost_error_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            context.cost.total, STATIC_ESTIMATED_CRD_COST_LIMIT,
        )))
    return errs


#: JSONSchemaProps' fields in Go's declaration order (the root check reports the first one)
_GO_ORDER = (
    "id", "$schema", "$ref", "description", "type", "format", "title", "default", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
    "maxItems", "minItems", "uniqueItems", "multipleOf", "enum", "maxProperties",
    "minProperties", "required", "items", "allOf", "oneOf", "anyOf", "not", "properties",
    "additionalProperties", "patternProperties", "dependencies", "additionalItems",
    "definitions", "externalDocs", "example", "nullable", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
    "x-kubernetes-validations",
)


def is_zero(value: Any) -> bool:
    """Whether a JSON value reads as Go's zero value of a plain (non-pointer) field."""
    if value is None or value is False:
        return True
    if isinstance(value, str | list | dict):
        return not value
    return False


def _status_root(schema: Mapping[str, Any], path: fe.Path) -> list[fe.FieldError]:
    for key in _GO_ORDER:
        value = schema.get(key)
        if is_zero(value):
            continue
        if key == "type":
            if value != "object":
                return [fe.invalid(
                    path.child("openAPIV3Schema.type"), value,
                    'only "object" is allowed as the type at the root of the schema if the '
                    "status subresource is enabled",
                )]
            continue
        if key not in _ROOT_KEYS:
            listed = " ".join(_ROOT_FIELDS)
            return [fe.invalid(
                path.child("openAPIV3Schema"), dict(schema),
                f"only [{listed}] fields are allowed at the root of the schema if the status "
                "subresource is enabled",
            )]
    return []


def _sub_context(
    context: _CelContext | None, raw: Mapping[str, Any], step: str, name: str = ""
) -> _CelContext | None:
    if context is None:
        return None
    schema = context.schema
    decl = context.decl
    sub_schema: Structural | None = None
    sub_decl: Decl | None = None
    if schema is not None and decl is not None:
        if step == "property":
            sub_schema = (schema.properties or {}).get(name)
            escaped = escape(name)
            if escaped is not None and decl.fields is not None and escaped in decl.fields:
                sub_decl = decl.fields[escaped]
            elif sub_schema is not None and escaped is None:
                sub_decl = None
        elif step == "items":
            sub_schema = schema.items
            sub_decl = decl.elem
        elif step == "additional":
            sub_schema = schema.additional_schema
            sub_decl = decl.elem
    if sub_schema is not None and sub_decl is None:
        sub_decl = declare(sub_schema, root=sub_schema.embedded_resource)
    return context.child(raw, sub_schema, sub_decl)


def _openapi_schema(
    raw: Mapping[str, Any],
    path: fe.Path,
    v: _Validator,
    root: bool,
    options: SchemaOptions,
    context: _CelContext | None,
) -> tuple[list[fe.FieldError], list[fe.FieldError]]:
    """(schema errors, rule errors) of one node and everything below it."""
    errs = _standard(raw, path, v)
    cel: list[fe.FieldError] = []
    if raw.get("uniqueItems") is True:
        errs.append(fe.forbidden(
            path.child("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ))
    extra = raw.get("additionalProperties")
    properties = raw.get("properties") if isinstance(raw.get("properties"), dict) else {}
    assert isinstance(properties, dict)
    if extra is not None:
        if properties and (extra is not True):
            errs.append(fe.forbidden(
                path.child("additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ))
        if isinstance(extra, dict):
            sub_v = v.forbidding_defaults(
                "inside additionalProperties applying to object metadata"
            ) if v.inside_resource_meta else v
            s, c = _openapi_schema(
                extra, path.child("additionalProperties"), sub_v, False, options,
                _sub_context(context, extra, "additional"),
            )
            errs += s
            cel += c
    embedded = raw.get("x-kubernetes-embedded-resource") is True
    for name, sub in properties.items():
        if not isinstance(sub, dict):
            continue
        sub_v = v
        map_type = raw.get("x-kubernetes-map-type")
        if map_type is not None and map_type not in ("granular", "atomic"):
            sub_v = sub_v.forbidding_old_self(path)
        if (root or embedded) and name in _META_FIELDS:
            sub_v = replace(sub_v, inside_resource_meta=True)
            if root:
                sub_v = sub_v.forbidding_defaults(f"in top-level {name}")
        s, c = _openapi_schema(
            sub, path.child("properties").key(name), sub_v, False, options,
            _sub_context(context, sub, "property", name),
        )
        errs += s
        cel += c
    for key in ("not",):
        if isinstance(raw.get(key), dict):
            s, c = _openapi_schema(raw[key], path.child(key), v, False, options, None)
            errs += s
            cel += c
    for junctor in ("allOf", "oneOf", "anyOf"):
        for i, clause in enumerate(raw.get(junctor) or ()):
            if isinstance(clause, dict):
                s, c = _openapi_schema(
                    clause, path.child(junctor).index(i), v, False, options, None
                )
                errs += s
                cel += c
    items = raw.get("items")
    if items is not None:
        sub_v = v
        if raw.get("x-kubernetes-list-type") != "map":
            sub_v = sub_v.forbidding_old_self(path)
        if isinstance(items, dict):
            s, c = _openapi_schema(
                items, path.child("items"), sub_v, False, options,
                _sub_context(context, items, "items"),
            )
            errs += s
            cel += c
        elif isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    s, c = _openapi_schema(
                        item, path.child("items").index(i), sub_v, False, options, None
                    )
                    errs += s
                    cel += c
    errs += _extensions(raw, path, options)
    if raw.get("x-kubernetes-validations"):
        rule_errs = _rule_fields(raw, path)
        errs += rule_errs
        if not errs and context is not None:
            cel += _compile(raw, path, v, options, context)
    return errs, cel


def _standard(raw: Mapping[str, Any], path: fe.Path, v: _Validator) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    kind = raw.get("type")
    if v.require_valid_property_type and isinstance(kind, str) and kind and kind not in _TYPES:
        errs.append(fe.not_supported(path.child("type"), kind, _TYPES))
    if raw.get("default") is not None and not v.allow_defaults:
        detail = "must not be set"
        if v.disallow_defaults_reason:
            detail += " " + v.disallow_defaults_reason
        errs.append(fe.forbidden(path.child("default"), detail))
    if raw.get("id"):
        errs.append(fe.forbidden(path.child("id"), "id is not supported"))
    if raw.get("additionalItems") is not None:
        errs.append(fe.forbidden(path.child("additionalItems"), "additionalItems is not supported"))
    if raw.get("patternProperties"):
        errs.append(fe.forbidden(
            path.child("patternProperties"), "patternProperties is not supported"
        ))
    if raw.get("definitions"):
        errs.append(fe.forbidden(path.child("definitions"), "definitions is not supported"))
    if raw.get("dependencies") is not None:
        errs.append(fe.forbidden(path.child("dependencies"), "dependencies is not supported"))
    if raw.get("$ref") is not None:
        errs.append(fe.forbidden(path.child("$ref"), "$ref is not supported"))
    if kind == "null":
        errs.append(fe.forbidden(
            path.child("type"), "type cannot be set to null, use nullable as an alternative"
        ))
    if isinstance(raw.get("items"), list) and raw["items"]:
        errs.append(fe.forbidden(
            path.child("items"), "items must be a schema object and not an array"
        ))
    if v.inside_resource_meta and raw.get("x-kubernetes-embedded-resource") is True:
        errs.append(fe.forbidden(
            path.child("x-kubernetes-embedded-resource"),
            "must not be used inside of resource meta",
        ))
    return errs


def _extensions(
    raw: Mapping[str, Any], path: fe.Path, options: SchemaOptions
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    kind = raw.get("type") or ""
    if raw.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(fe.invalid(
            path.child("x-kubernetes-preserve-unknown-fields"), False, "must be true or undefined"
        ))
    map_type = raw.get("x-kubernetes-map-type")
    if map_type is not None and kind != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        errs.append(fe.required(path.child("type"), detail) if not kind
                    else fe.invalid(path.child("type"), kind, detail))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(fe.not_supported(path.child("x-kubernetes-map-type"), map_type,
                                     ("atomic", "granular")))
    list_type = raw.get("x-kubernetes-list-type")
    items = raw.get("items")
    if list_type is not None and kind != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        errs.append(fe.required(path.child("type"), detail) if not kind
                    else fe.invalid(path.child("type"), kind, detail))
    elif options.require_atomic_set_type and list_type == "set" and isinstance(items, dict):
        item_type = items.get("type")
        if item_type == "array":
            sub = items.get("x-kubernetes-list-type")
            if sub is not None and sub != "atomic":
                errs.append(fe.invalid(
                    path.child("items").child("x-kubernetes-list-type"), sub,
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                ))
        elif item_type == "object":
            sub = items.get("x-kubernetes-map-type")
            if sub != "atomic":
                errs.append(fe.invalid(
                    path.child("items").child("x-kubernetes-map-type"),
                    items.get("x-kubernetes-list-type"),
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                ))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(fe.not_supported(path.child("x-kubernetes-list-type"), list_type,
                                     ("atomic", "set", "map")))
    keys = raw.get("x-kubernetes-list-map-keys") or []
    if keys:
        if list_type is None:
            errs.append(fe.required(
                path.child("x-kubernetes-list-type"),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ))
        elif list_type != "map":
            errs.append(fe.invalid(
                path.child("x-kubernetes-list-type"), list_type,
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ))
    if list_type == "map":
        errs += _map_list(raw, path, keys)
    if options.require_map_list_keys_map_set_validation:
        errs += map_list_keys_problems(raw, path)
    return errs


def _map_list(raw: Mapping[str, Any], path: fe.Path, keys: list[Any]) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    items = raw.get("items")
    if not keys:
        errs.append(fe.required(
            path.child("x-kubernetes-list-map-keys"),
            "must not be empty if x-kubernetes-list-type is map",
        ))
    if items is None:
        errs.append(fe.required(
            path.child("items"), "must have a schema if x-kubernetes-list-type is map"
        ))
    elif not isinstance(items, dict):
        errs.append(fe.invalid(
            path.child("items"), items,
            "must only have a single schema if x-kubernetes-list-type is map",
        ))
    elif items.get("type") != "object":
        errs.append(fe.invalid(
            path.child("items").child("type"), items.get("type") or "",
            "must be object if parent array's x-kubernetes-list-type is map",
        ))
    else:
        seen: set[str] = set()
        properties = items.get("properties") or {}
        for key in keys:
            sub = properties.get(key)
            if isinstance(sub, dict):
                if sub.get("type") in ("array", "object"):
                    errs.append(fe.invalid(
                        path.child("items").child("properties").key(key).child("type"),
                        items.get("type"),
                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                    ))
            else:
                errs.append(fe.invalid(
                    path.child("x-kubernetes-list-map-keys"), keys,
                    "entries must all be names of item properties",
                ))
            if key in seen:
                errs.append(fe.invalid(
                    path.child("x-kubernetes-list-map-keys"), keys,
                    "must not contain duplicate entries",
                ))
            seen.add(key)
    return errs


def map_list_keys_problems(raw: Mapping[str, Any], path: fe.Path) -> list[fe.FieldError]:
    """Items of set and map lists may not be nullable; map keys need a default or to be
    required (upstream ``validateMapListKeysMapSet``)."""
    items = raw.get("items")
    list_type = raw.get("x-kubernetes-list-type")
    if not isinstance(items, dict) or list_type not in ("set", "map"):
        return []
    errs: list[fe.FieldError] = []
    if items.get("nullable") is True:
        errs.append(fe.forbidden(
            path.child("items").child("nullable"),
            f"cannot be nullable when x-kubernetes-list-type is {list_type}",
        ))
    if list_type == "map":
        required = set(items.get("required") or ())
        properties = items.get("properties") or {}
        for key in raw.get("x-kubernetes-list-map-keys") or ():
            sub = properties.get(key)
            if not isinstance(sub, dict):
                continue
            if key not in required and sub.get("default") is None:
                errs.append(fe.required(
                    path.child("items").child("properties").key(key).child("default"),
                    "this property is in x-kubernetes-list-map-keys, so it must have a default "
                    "or be a required property",
                ))
            if sub.get("nullable") is True:
                errs.append(fe.forbidden(
                    path.child("items").child("properties").key(key).child("nullable"),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                ))
    return errs


def _rule_fields(raw: Mapping[str, Any], path: fe.Path) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    schema: Structural | None
    try:
        schema = new_structural(raw)
    except StructuralError:
        schema = None
    for i, rule in enumerate(raw.get("x-kubernetes-validations") or ()):
        if not isinstance(rule, dict):
            continue
        at = path.child("x-kubernetes-validations").index(i)
        text = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
        message = rule.get("message") if isinstance(rule.get("message"), str) else ""
        assert isinstance(text, str) and isinstance(message, str)
        trimmed_rule, trimmed_message = text.strip(), message.strip()
        if not trimmed_rule:
            errs.append(fe.required(at.child("rule"), "rule is not specified"))
        elif message and not trimmed_message:
            errs.append(fe.invalid(at.child("message"), message, "must be non-empty if specified"))
        elif has_newlines(trimmed_message):
            errs.append(fe.invalid(at.child("message"), message, "must not contain line breaks"))
        elif has_newlines(trimmed_rule) and not trimmed_message:
            errs.append(fe.required(
                at.child("message"), "message must be specified if rule contains line breaks"
            ))
        expression = rule.get("messageExpression")
        if isinstance(expression, str) and expression and not expression.strip():
            errs.append(fe.required(
                at.child("messageExpression"), "messageExpression must be non-empty if specified"
            ))
        reason = rule.get("reason")
        if reason is not None and reason not in _REASONS:
            errs.append(fe.not_supported(at.child("reason"), reason, _REASONS))
        field_path = rule.get("fieldPath")
        if isinstance(field_path, str) and field_path:
            if not field_path.strip():
                errs.append(fe.invalid(
                    at.child("fieldPath"), field_path, "must be non-empty if specified"
                ))
            if has_newlines(field_path):
                errs.append(fe.invalid(
                    at.child("fieldPath"), field_path, "must not contain line breaks"
                ))
            if schema is not None:
                try:
                    valid_field_path(field_path, schema)
                except ValueError:
                    errs.append(
                        fe.invalid(at.child("fieldPath"), field_path, "must be a valid path")
                    )
    return errs


def _compile(
    raw: Mapping[str, Any], path: fe.Path, v: _Validator, options: SchemaOptions,
    context: _CelContext,
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    rules_path = path.child("x-kubernetes-validations")
    if context.schema is None:
        return [fe.internal(
            rules_path,
            "internal error: failed to retrieve type information for x-kubernetes-validations",
        )]
    if context.decl is None:
        return [fe.internal(
            rules_path,
            "internal error: failed to construct type information for x-kubernetes-validations "
            "rules: unable to convert structural schema to CEL declarations",
        )]
    results = compile_rules(context.schema, context.decl)
    for i, result in enumerate(results):
        at = rules_path.index(i)
        cardinality = context.cardinality if context.cardinality is not None else (
            result.max_cardinality
        )
        cost = min(result.max_cost * cardinality, _MAX_UINT) if result.max_cost else 0
        if not options.suppress_per_expression_cost and cost > STATIC_ESTIMATED_COST_LIMIT:
            errs.append(fe.forbidden(at.child("rule"), cost_error_message(
                "estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT
            )))
        context.cost.observe(at.child("rule").text, cost)
        if result.error is not None:
            required, detail = result.error
            errs.append(fe.required(at.child("rule"), detail) if required
                        else fe.invalid(at.child("rule"), result.rule, detail))
        if result.message_error is not None:
            errs.append(fe.invalid(at.child("messageExpression"), result.rule,
                                   result.message_error))
        elif result.message_program is not None:
            if (not options.suppress_per_expression_cost
                    and result.message_max_cost > STATIC_ESTIMATED_COST_LIMIT):
                errs.append(fe.forbidden(at.child("messageExpression"), cost_error_message(
                    "estimated messageExpression cost", result.message_max_cost,
                    STATIC_ESTIMATED_COST_LIMIT,
                )))
            context.cost.observe(at.child("messageExpression").text, result.message_max_cost)
        if result.uses_old_self:
            if v.uncorrelatable is not None:
                errs.append(fe.invalid(
                    at.child("rule"), result.rule.get("rule"),
                    f"oldSelf cannot be used on the uncorrelatable portion of the schema within "
                    f"{v.uncorrelatable}",
                ))
        elif result.rule.get("optionalOldSelf") is not None and result.error is None:
            errs.append(fe.invalid(
                at.child("optionalOldSelf"), result.rule.get("optionalOldSelf"),
                "may not be set if oldSelf is not used in rule",
            ))
    return errs
