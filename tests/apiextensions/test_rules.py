"""x-kubernetes-validations: CEL rules compiled against the schema and run on every write.

Cases follow upstream's rule tests (``pkg/apiserver/schema/cel/validation_test.go`` and the CRD
validation tests of rules): messages, ``messageExpression``, ``reason``, ``fieldPath``,
transition rules with ``oldSelf`` and ``optionalOldSelf``, ratcheting, the escaping of property
names, the typing of formats and list types, and the estimated-cost limits.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.apiextensions.celtypes import declare, escape
from fakeapi.apiextensions.rules import RuleValidator
from fakeapi.apiextensions.structural import new_structural
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions

from .crds import crd, crds_of, establish, new_crd_registry, row

ROOT = "spec.validation.openAPIV3Schema"


def _validator(schema: dict[str, Any]) -> RuleValidator:
    structural = new_structural(schema)
    return RuleValidator(structural, declare(structural, root=True), resource_root=True)


def _errors(schema: dict[str, Any], obj: Any, old: Any = None) -> list[str]:
    validator = _validator(schema)
    found, _ = validator.validate(obj) if old is None else validator.validate(obj, old)
    return [str(e) for e in found]


def _spec(rule: dict[str, Any], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [rule], "properties": properties}}}


INT = {"type": "integer"}
STRING = {"type": "string"}


def test_a_failing_rule_says_which_rule_failed() -> None:
    schema = _spec({"rule": "self.min <= self.max"}, min=INT, max=INT)
    assert _errors(schema, {"spec": {"min": 3, "max": 1}}) == [
        "spec: Invalid value: failed rule: self.min <= self.max"
    ]
    assert _errors(schema, {"spec": {"min": 1, "max": 3}}) == []


def test_message_message_expression_reason_and_field_path_shape_the_error() -> None:
    rules = [
        {"rule": "self.min <= self.max", "message": "min must not exceed max"},
        {"rule": "self.min <= self.max", "messageExpression":
         "'min ' + string(self.min) + ' exceeds max ' + string(self.max)"},
        {"rule": "self.min <= self.max", "message": "no", "reason": "FieldValueForbidden",
         "fieldPath": ".max"},
    ]
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": rules,
        "properties": {"min": INT, "max": INT}}}}
    assert _errors(schema, {"spec": {"min": 3, "max": 1}}) == [
        "spec: Invalid value: min must not exceed max",
        "spec: Invalid value: min 3 exceeds max 1",
        "spec.max: Forbidden: no",
    ]


def test_a_scalar_rule_reports_the_value() -> None:
    schema = {"type": "object", "properties": {"name": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}]}}}
    assert _errors(schema, {"name": "other"}) == [
        'name: Invalid value: "other": failed rule: self.startsWith(\'kube\')'
    ]


def test_a_transition_rule_runs_on_updates_only() -> None:
    schema = {"type": "object", "properties": {"field": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}
    assert _errors(schema, {"field": "y"}) == []
    assert _errors(schema, {"field": "x"}, {"field": "x"}) == []
    assert _errors(schema, {"field": "y"}, {"field": "x"}) == [
        'field: Invalid value: "y": failed rule: self == oldSelf'
    ]


def test_a_transition_rule_under_a_map_list_sees_the_item_with_the_same_keys() -> None:
    schema = {"type": "object", "properties": {"field": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k1"],
        "items": {"type": "object", "required": ["k1"], "properties": {
            "k1": STRING,
            "v1": {"type": "number", "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]},
        }},
    }}}
    old = {"field": [{"k1": "a", "v1": 1.0}]}
    assert _errors(schema, {"field": [{"k1": "a", "v1": 1.2}]}, old) == []
    assert _errors(schema, {"field": [{"k1": "a", "v1": 0.9}]}, old) == [
        "field[0].v1: Invalid value: 0.9: failed rule: self >= oldSelf"
    ]
    assert _errors(schema, {"field": [{"k1": "b", "v1": 0.9}]}, old) == []


def test_optional_old_self_runs_a_transition_rule_on_creates_too() -> None:
    schema = {"type": "object", "properties": {"field": {
        "type": "string", "x-kubernetes-validations": [{
            "rule": "oldSelf.hasValue() || self == 'initial'", "optionalOldSelf": True}]}}}
    assert _errors(schema, {"field": "other"}) == [
        'field: Invalid value: "other": failed rule: oldSelf.hasValue() || self == \'initial\''
    ]
    assert _errors(schema, {"field": "initial"}) == []
    assert _errors(schema, {"field": "other"}, {"field": "initial"}) == []


def test_a_rule_failing_on_an_unchanged_value_only_warns() -> None:
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3"}]},
            "b": INT}}}}
    validator = _validator(schema)
    old = {"spec": {"a": "long", "b": 1}}
    errors, warnings = validator.validate({"spec": {"a": "long", "b": 2}}, old)
    assert errors == []
    assert warnings == ['spec.a: Invalid value: "long": failed rule: self.size() < 3']


def test_property_names_are_escaped_as_upstream_escapes_them() -> None:
    assert [escape(n) for n in ("namespace", "x-prop", "a.b", "redact__d", "9lives", "a b")] == [
        "__namespace__", "x__dash__prop", "a__dot__b", "redact__underscores__d", None, None,
    ]
    schema = _spec({"rule": "self.x__dash__prop == self.__namespace__"},
                   **{"x-prop": STRING, "namespace": STRING})
    assert _errors(schema, {"spec": {"x-prop": "a", "namespace": "a"}}) == []
    assert _errors(schema, {"spec": {"x-prop": "a", "namespace": "b"}}) != []


def test_formats_and_list_types_give_values_their_cel_types() -> None:
    schema = _spec(
        {"rule": "self.start < self.end && self.timeout > duration('1s') "
                 "&& self.tags == ['b', 'a'] && self.tags + ['a'] == self.tags "
                 "&& self.ports + [self.ports[0]] == self.ports"},
        start={"type": "string", "format": "date-time"},
        end={"type": "string", "format": "date-time"},
        timeout={"type": "string", "format": "duration"},
        tags={"type": "array", "items": STRING, "x-kubernetes-list-type": "set"},
        ports={"type": "array", "x-kubernetes-list-type": "map",
               "x-kubernetes-list-map-keys": ["name"],
               "items": {"type": "object", "required": ["name"],
                         "properties": {"name": STRING, "port": INT}}},
    )
    good = {"spec": {"start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z",
                     "timeout": "5s", "tags": ["a", "b"], "ports": [{"name": "a", "port": 1}]}}
    assert _errors(schema, good) == []


def test_a_runtime_error_is_reported_with_the_rule() -> None:
    schema = _spec({"rule": "self.a > 0"}, a=INT)
    assert _errors(schema, {"spec": {}}) == [
        'spec: Invalid value: "object": no such key: a evaluating rule: self.a > 0'
    ]


def test_the_resource_root_shows_its_name_but_not_other_metadata() -> None:
    schema = {"type": "object", "x-kubernetes-validations": [
        {"rule": "self.metadata.name.startsWith('ok-')"}]}
    assert _errors(schema, {"metadata": {"name": "ok-1"}}) == []
    # upstream validates the root at a nil path, which prints as <nil>
    assert _errors(schema, {"metadata": {"name": "no"}}) == [
        "<nil>: Invalid value: failed rule: self.metadata.name.startsWith('ok-')"
    ]


# --- rules checked when the definition is written -------------------------------------------------

def _refused(schema: dict[str, Any]) -> list[tuple[str, str, str]]:
    registry = new_crd_registry()
    with pytest.raises(StatusError) as raised:
        registry.create(crds_of(registry), None, crd(schema=schema), WriteOptions())
    return [(c["reason"], c["field"], c["message"])
            for c in raised.value.status()["details"]["causes"]]


def test_a_rule_that_does_not_compile_is_refused_with_cel_go_text() -> None:
    causes = _refused(_spec({"rule": "self.nope > 0"}, a=INT))
    assert len(causes) == 1
    reason, field, message = causes[0]
    assert (reason, field) == (
        "FieldValueInvalid", f"{ROOT}.properties[spec].x-kubernetes-validations[0].rule")
    assert message.endswith(
        "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 0\n"
        " | ....^"
    )


def test_a_rule_must_be_a_bool_and_a_message_expression_a_string() -> None:
    causes = _refused(_spec({"rule": "self.a", "messageExpression": "1"}, a=INT))
    assert [c[2].rsplit(": ", 1)[-1] for c in causes] == ["cel expression must evaluate to a bool"]
    causes = _refused(_spec({"rule": "self.a > 0", "messageExpression": "self.a"}, a=INT))
    assert [(c[1], c[2].rsplit(": ", 1)[-1]) for c in causes] == [
        (f"{ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression",
         "messageExpression must evaluate to a string")]


def test_old_self_is_refused_where_values_do_not_correlate() -> None:
    schema = {"type": "object", "properties": {"l": {"type": "array", "maxItems": 10, "items": {
        "type": "string", "maxLength": 10,
        "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}
    causes = _refused(schema)
    assert causes == [(
        "FieldValueInvalid", f"{ROOT}.properties[l].items.x-kubernetes-validations[0].rule",
        'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion '
        f"of the schema within {ROOT}.properties[l]",
    )]


def test_optional_old_self_needs_old_self() -> None:
    causes = _refused(_spec({"rule": "self.a > 0", "optionalOldSelf": True}, a=INT))
    assert [(c[1], c[2]) for c in causes] == [(
        f"{ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf",
        "Invalid value: true: may not be set if oldSelf is not used in rule",
    )]


def test_rule_fields_are_checked() -> None:
    causes = _refused(_spec({"rule": " ", "reason": "FieldValueBogus"}, a=INT))
    fields = {(c[0], c[1]) for c in causes}
    at = f"{ROOT}.properties[spec].x-kubernetes-validations[0]"
    assert ("FieldValueRequired", f"{at}.rule") in fields
    assert ("FieldValueNotSupported", f"{at}.reason") in fields
    causes = _refused(_spec({"rule": "self.a > 0", "fieldPath": ".b"}, a=INT))
    assert (f"{at}.fieldPath", 'Invalid value: ".b": must be a valid path') in [
        (c[1], c[2]) for c in causes]


def test_a_rule_too_expensive_for_unbounded_lists_is_refused() -> None:
    schema = {"type": "object", "properties": {"l": {
        "type": "array", "items": STRING,
        "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x == y))"}]}}}
    causes = _refused(schema)
    at = f"{ROOT}.properties[l].x-kubernetes-validations[0].rule"
    assert ("FieldValueForbidden", at,
            "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try "
            "simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
            "arrays, maps, and strings are declared)") in causes
    bounded = copy.deepcopy(schema)
    bounded["properties"]["l"]["maxItems"] = 10
    bounded["properties"]["l"]["items"] = {"type": "string", "maxLength": 10}
    registry = new_crd_registry()
    establish(registry, crd(schema=bounded))


def test_a_served_resource_refuses_a_rule_violation_and_skips_rules_on_invalid_objects() -> None:
    registry = new_crd_registry()
    establish(registry, crd(schema=_spec({"rule": "self.a < 5", "message": "a is too big"},
                                         a=INT)))
    rt = row(registry, "stable.example.com", "v1", "crontabs")
    with pytest.raises(StatusError) as raised:
        registry.create(rt, "ns", {"metadata": {"name": "x"}, "spec": {"a": 9}}, WriteOptions())
    assert raised.value.status()["message"] == (
        'CronTab.stable.example.com "x" is invalid: spec: Invalid value: a is too big'
    )
    with pytest.raises(StatusError) as raised:
        registry.create(rt, "ns", {"metadata": {"name": "x"}, "spec": {"a": "nine"}},
                        WriteOptions())
    assert [c["message"] for c in raised.value.status()["details"]["causes"]] == [
        'Invalid value: "string": spec.a in body must be of type integer: "string"',
        'Invalid value: "null": some validation rules were not checked because the object was '
        "invalid; correct the existing errors to complete validation",
    ]
