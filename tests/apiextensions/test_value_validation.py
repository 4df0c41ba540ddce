"""Custom resources are validated against their schema with kube-openapi's texts and field paths.

The first cases are upstream's ``TestValidateCustomResource``
(apiextensions-apiserver ``pkg/apiserver/validation/validation_test.go``); the others cover the
remaining keywords with the messages kube-openapi's validators produce.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.apiextensions.openapi_validation import SchemaValidator


def _schema(**fields: Any) -> dict[str, Any]:
    return {"type": "object", "properties": fields}


def _errors(schema: dict[str, Any], obj: Any, old: Any = None) -> list[str]:
    validator = SchemaValidator(schema)
    found = validator.validate(obj) if old is None else validator.validate_update(obj, old)
    return sorted(str(e) for e in found)


FAILING = [
    ("not nullable: string", _schema(field={"type": "object"}), {"field": "foo"},
     ['field: Invalid value: "string": field in body must be of type object: "string"']),
    ("not nullable: integer", _schema(field={"type": "object"}), {"field": 42},
     ['field: Invalid value: "integer": field in body must be of type object: "integer"']),
    ("not nullable: boolean", _schema(field={"type": "object"}), {"field": True},
     ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']),
    ("not nullable: number", _schema(field={"type": "object"}), {"field": 1.2},
     ['field: Invalid value: "number": field in body must be of type object: "number"']),
    ("not nullable: array", _schema(field={"type": "object"}), {"field": []},
     ['field: Invalid value: "array": field in body must be of type object: "array"']),
    ("not nullable: null", _schema(field={"type": "object"}), {"field": None},
     ['field: Invalid value: "null": field in body must be of type object: "null"']),
    ("nullable still typed", _schema(field={"type": "object", "nullable": True}),
     {"field": "foo"},
     ['field: Invalid value: "string": field in body must be of type object: "string"']),
    ("int-or-string refuses null", _schema(field={"x-kubernetes-int-or-string": True}),
     {"field": None},
     ['field: Invalid value: "null": field in body must be of type integer,string: "null"']),
    ("int-or-string refuses a number", _schema(field={"x-kubernetes-int-or-string": True}),
     {"field": 1.2},
     ['field: Invalid value: "number": field in body must be of type integer,string: "number"']),
    ("int-or-string with its allOf", _schema(field={
        "nullable": True, "x-kubernetes-int-or-string": True,
        "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}],
    }), {"field": True}, sorted([
        '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
        '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
        'field: Invalid value: "boolean": field in body must be of type integer,string: '
        '"boolean"',
        'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ])),
    ("invalid regex", _schema(field={"type": "string", "pattern": "+"}), {"field": "foo"},
     ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: "
      "error parsing regexp: missing argument to repetition operator: `+`'"]),
    ("required field", {"type": "object", "required": ["field"], "properties": {
        "field": {"type": "object", "required": ["nested"], "properties": {"nested": {}}},
    }}, {"test": "a"}, ["field: Required value"]),
    ("required nested field", {"type": "object", "required": ["field"], "properties": {
        "field": {"type": "object", "required": ["nested"], "properties": {"nested": {}}},
    }}, {"field": {}}, ["field.nested: Required value"]),
    ("enum", _schema(field={"type": "object", "required": ["nestedint", "nestedstring"],
                            "properties": {
                                "nestedint": {"type": "integer", "enum": [1, 2]},
                                "nestedstring": {"type": "string", "enum": ["a", "b"]}}}),
     {"field": {"nestedint": "x", "nestedstring": True}}, sorted([
         'field.nestedint: Invalid value: "string": field.nestedint in body must be of type '
         'integer: "string"',
         'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
         'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of '
         'type string: "boolean"',
         'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
     ])),
    ("maxProperties", _schema(fieldX={"type": "object", "maxProperties": 2}),
     {"fieldX": {"a": True, "b": True, "c": True}},
     ["fieldX: Too many: 3: must have at most 2 items"]),
    ("maxItems", _schema(fieldX={"type": "array", "maxItems": 2}), {"fieldX": ["a", "b", "c"]},
     ["fieldX: Too many: 3: must have at most 2 items"]),
    ("maxLength", _schema(fieldX={"type": "string", "maxLength": 2}), {"fieldX": "abc"},
     ["fieldX: Too long: may not be more than 2 bytes"]),
    ("k8s-long-name", _schema(fieldX={"type": "string", "format": "k8s-long-name"}),
     {"fieldX": "a.-"},
     ['fieldX: Invalid value: "a.-": fieldX in body must be of type k8s-long-name: "a.-"']),
    ("k8s-short-name", _schema(fieldX={"type": "string", "format": "k8s-short-name"}),
     {"fieldX": "a-"},
     ['fieldX: Invalid value: "a-": fieldX in body must be of type k8s-short-name: "a-"']),
    # the other keywords
    ("minimum", _schema(n={"type": "integer", "minimum": 1}), {"n": 0},
     ["n: Invalid value: 0: n in body should be greater than or equal to 1"]),
    ("exclusive minimum", _schema(n={"type": "number", "minimum": 1.5,
                                     "exclusiveMinimum": True}), {"n": 1.5},
     ["n: Invalid value: 1.5: n in body should be greater than 1.5"]),
    ("maximum", _schema(n={"type": "integer", "maximum": 10}), {"n": 11},
     ["n: Invalid value: 11: n in body should be less than or equal to 10"]),
    ("exclusive maximum", _schema(n={"type": "integer", "maximum": 10,
                                     "exclusiveMaximum": True}), {"n": 10},
     ["n: Invalid value: 10: n in body should be less than 10"]),
    ("multipleOf", _schema(n={"type": "integer", "multipleOf": 3}), {"n": 7},
     ["n: Invalid value: 7: n in body should be a multiple of 3"]),
    ("minLength", _schema(s={"type": "string", "minLength": 3}), {"s": "ab"},
     ['s: Invalid value: "ab": s in body should be at least 3 chars long']),
    ("pattern", _schema(s={"type": "string", "pattern": "^[a-z]+$"}), {"s": "A1"},
     ["s: Invalid value: \"A1\": s in body should match '^[a-z]+$'"]),
    ("date-time format", _schema(t={"type": "string", "format": "date-time"}), {"t": "today"},
     ['t: Invalid value: "today": t in body must be of type date-time: "today"']),
    ("minItems", _schema(l={"type": "array", "items": {"type": "string"}, "minItems": 2}),
     {"l": ["a"]}, ["l: Invalid value: 1: l in body should have at least 2 items"]),
    ("item types", _schema(l={"type": "array", "items": {"type": "string"}}), {"l": ["a", 1]},
     ['l[1]: Invalid value: "integer": l[1] in body must be of type string: "integer"']),
    ("uniqueItems", _schema(l={"type": "array", "items": {"type": "string"},
                               "uniqueItems": True}), {"l": ["a", "a"]},
     ['l: Invalid value: "": l in body shouldn\'t contain duplicates']),
    ("minProperties", _schema(m={"type": "object", "minProperties": 1}), {"m": {}},
     ["m: Invalid value: 0: m in body should have at least 1 properties"]),
    ("map values", _schema(m={"type": "object", "additionalProperties": {"type": "integer"}}),
     {"m": {"a": "x"}},
     ['m.a: Invalid value: "string": m.a in body must be of type integer: "string"']),
    ("not", _schema(s={"type": "string", "not": {"enum": ["forbidden"]}}), {"s": "forbidden"},
     ['<nil>: Invalid value: "": "s" must not validate the schema (not)']),
    ("oneOf with none", _schema(s={"type": "string", "oneOf": [{"maxLength": 1},
                                                                {"pattern": "^b"}]}),
     {"s": "abc"}, sorted([
         '<nil>: Invalid value: "": "s" must validate one and only one schema (oneOf). Found '
         'none valid',
         "s: Too long: may not be more than 1 bytes",
     ])),
]


@pytest.mark.parametrize(("case", "schema", "obj", "expected"), FAILING,
                         ids=[c[0] for c in FAILING])
def test_an_invalid_value_is_reported_as_kube_openapi_words_it(
    case: str, schema: dict[str, Any], obj: Any, expected: list[str]
) -> None:
    assert _errors(schema, obj) == expected


PASSING = [
    ("nullable object takes null", _schema(field={"type": "object", "nullable": True}),
     {"field": None}),
    ("nullable and no type takes anything", _schema(field={"nullable": True}),
     {"field": [1, "a"]}),
    ("int-or-string takes an integer", _schema(field={"x-kubernetes-int-or-string": True}),
     {"field": 42}),
    ("int-or-string takes a string", _schema(field={"x-kubernetes-int-or-string": True}),
     {"field": "50%"}),
    ("a whole float is an integer", _schema(n={"type": "integer"}), {"n": 3.0}),
    ("an integer is a number", _schema(n={"type": "number", "minimum": 0.5}), {"n": 1}),
    ("unknown formats are not checked", _schema(s={"type": "string", "format": "bogus"}),
     {"s": "anything"}),
    ("numeric formats at their limits", _schema(
        i={"type": "integer", "format": "int32"}, f={"type": "number", "format": "double"}),
     {"i": 2**31 - 1, "f": -1.7e308}),
    ("date-time", _schema(t={"type": "string", "format": "date-time"}),
     {"t": "2026-01-02T03:04:05Z"}),
    ("absent fields are fine", _schema(n={"type": "integer", "minimum": 5}), {}),
]


@pytest.mark.parametrize(("case", "schema", "obj"), PASSING, ids=[c[0] for c in PASSING])
def test_a_valid_value_has_no_errors(case: str, schema: dict[str, Any], obj: Any) -> None:
    assert _errors(schema, obj) == []


def test_an_update_is_not_refused_for_values_it_did_not_change() -> None:
    # ratcheting: the old object broke a rule the schema gained later; an update that leaves
    # that value alone passes, one that changes it is checked
    schema = _schema(a={"type": "string", "maxLength": 2}, b={"type": "integer"})
    old = {"a": "too long", "b": 1}
    assert _errors(schema, {"a": "too long", "b": 2}, old) == []
    assert _errors(schema, {"a": "longer still", "b": 2}, old) == [
        "a: Too long: may not be more than 2 bytes"
    ]


def test_map_list_items_are_correlated_by_their_keys_when_ratcheting() -> None:
    schema = _schema(items={
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
        "items": {"type": "object", "properties": {
            "k": {"type": "string"}, "v": {"type": "string", "maxLength": 1}}},
    })
    old = {"items": [{"k": "a", "v": "long"}, {"k": "b", "v": "x"}]}
    reordered = {"items": [{"k": "b", "v": "y"}, {"k": "a", "v": "long"}]}
    assert _errors(schema, reordered, old) == []
    renamed = {"items": [{"k": "c", "v": "long"}]}
    assert _errors(schema, renamed, old) == ["items[0].v: Too long: may not be more than 1 bytes"]


def test_status_errors_are_rooted_at_status() -> None:
    validator = SchemaValidator({"type": "object", "properties": {"replicas": {"type": "integer"}}})
    from fakeapi.validation.field import Path

    found = validator.validate({"replicas": "x"}, path=Path("status"))
    assert [str(e) for e in found] == [
        'status.replicas: Invalid value: "string": replicas in body must be of type integer: '
        '"string"'
    ]
