"""A CustomResourceDefinition is validated as upstream validates it, paths and messages included.

Upstream validates the internal form, into which the v1 form converts by moving what every version
has alike (schema, subresources, printer columns) up to the spec: a one-version definition's schema
errors are reported at ``spec.validation.openAPIV3Schema``. Cases follow upstream's
``TestValidateCustomResourceDefinition`` and the structural-schema tests
(``pkg/apis/apiextensions/validation``, ``pkg/apiserver/schema``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions

from .crds import crd, crds_of, establish, new_crd_registry

ROOT = "spec.validation.openAPIV3Schema"


def _refused(definition: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(reason, field, message) of each cause of the 422 the create answers."""
    registry = new_crd_registry()
    with pytest.raises(StatusError) as raised:
        registry.create(crds_of(registry), None, definition, WriteOptions())
    assert raised.value.code == 422, raised.value.status()
    causes = raised.value.status()["details"]["causes"]
    return [(c["reason"], c["field"], c["message"]) for c in causes]


def _fields(definition: dict[str, Any]) -> set[tuple[str, str]]:
    return {(reason, field) for reason, field, _ in _refused(definition)}


def _with_schema(schema: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return crd(schema=schema, **kw)


def test_a_valid_definition_is_stored_with_its_defaults_and_stored_version() -> None:
    registry = new_crd_registry()
    stored = registry.create(crds_of(registry), None, crd(), WriteOptions()).obj
    assert stored["spec"]["names"] == {
        "plural": "crontabs", "kind": "CronTab", "singular": "crontab", "listKind": "CronTabList"
    }
    assert stored["spec"]["conversion"] == {"strategy": "None"}
    assert stored["status"]["storedVersions"] == ["v1"]
    assert stored["metadata"]["generation"] == 1


def test_the_name_must_be_plural_dot_group() -> None:
    definition = crd()
    definition["metadata"]["name"] = "wrong.stable.example.com"
    assert ("FieldValueInvalid", "metadata.name",
            'Invalid value: "wrong.stable.example.com": must be spec.names.plural+"."+spec.group'
            ) in _refused(definition)


def test_group_scope_and_names_are_checked() -> None:
    definition = crd(group="example", plural="CronTabs", kind="Cron_Tab", scope="Everywhere")
    definition["metadata"]["name"] = "CronTabs.example"
    fields = _fields(definition)
    assert ("FieldValueInvalid", "spec.group") in fields
    assert ("FieldValueNotSupported", "spec.scope") in fields
    assert ("FieldValueInvalid", "spec.names.plural") in fields
    assert ("FieldValueInvalid", "spec.names.kind") in fields
    messages = {m for _, f, m in _refused(definition) if f == "spec.group"}
    assert messages == {'Invalid value: "example": should be a domain with at least one dot'}


def test_kind_and_list_kind_may_not_be_the_same() -> None:
    definition = crd(listKind="CronTab")
    assert ("FieldValueInvalid", "spec.names.listKind",
            'Invalid value: "CronTab": kind and listKind may not be the same'
            ) in _refused(definition)


def test_versions_need_exactly_one_storage_version_and_unique_names() -> None:
    version = {"name": "v1", "served": True, "storage": True,
               "schema": {"openAPIV3Schema": {"type": "object"}}}
    definition = crd(versions=[version, dict(version)])
    messages = [m for _, f, m in _refused(definition) if f == "spec.versions"]
    assert any(m.endswith("must contain unique version names") for m in messages)
    assert any(m.endswith("must have exactly one version marked as storage version")
               for m in messages)


def test_every_version_needs_a_schema() -> None:
    definition = crd(versions=[{"name": "v1", "served": True, "storage": True}])
    assert ("FieldValueRequired", "spec.versions[0].schema.openAPIV3Schema") in _fields(definition)


def test_a_schema_error_of_a_one_version_definition_is_reported_at_spec_validation() -> None:
    definition = _with_schema({"type": "object", "properties": {"foo": {"type": "bogus"}}})
    assert ("FieldValueNotSupported", f"{ROOT}.properties[foo].type") in _fields(definition)


def test_schemas_that_differ_are_reported_per_version() -> None:
    versions = [
        {"name": "v1", "served": True, "storage": True,
         "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v2", "served": True, "storage": False,
         "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {}}}}},
    ]
    assert ("FieldValueRequired",
            "spec.versions[1].schema.openAPIV3Schema.properties[a].type",
            "Required value: must not be empty for specified object fields",
            ) in _refused(crd(versions=versions))


STRUCTURAL = [
    ("a field without a type",
     {"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}},
     ("FieldValueRequired", f"{ROOT}.properties[spec].type",
      "Required value: must not be empty for specified object fields")),
    ("an array without items", {"type": "object", "properties": {"l": {"type": "array"}}},
     ("FieldValueRequired", f"{ROOT}.properties[l].items", "Required value: must be specified")),
    ("a type in a junctor", {"type": "object", "properties": {"s": {
        "type": "string", "anyOf": [{"type": "string"}]}}},
     ("FieldValueForbidden", f"{ROOT}.properties[s].anyOf[0].type",
      "Forbidden: must be empty to be structural")),
    ("a field only a junctor at the root names", {"type": "object", "properties": {
        "spec": {"type": "object"}}, "allOf": [{"properties": {"x": {"minimum": 1}}}]},
     ("FieldValueRequired", f"{ROOT}.properties[x]",
      f"Required value: because it is defined in {ROOT}.allOf[0].properties[x]")),
    ("a non-object root", {"type": "array", "items": {"type": "string"}},
     ("FieldValueInvalid", f"{ROOT}.type", 'Invalid value: "array": must be object at the root')),
    ("additionalProperties at the root", {"type": "object", "additionalProperties": {
        "type": "string"}},
     ("FieldValueForbidden", f"{ROOT}.additionalProperties",
      "Forbidden: must not be used at the root")),
    ("metadata beyond name and generateName", {"type": "object", "properties": {"metadata": {
        "type": "object", "properties": {"labels": {"type": "object"}}}}},
     ("FieldValueForbidden", f"{ROOT}.properties[metadata]",
      "Forbidden: must not specify anything other than name and generateName, but metadata is "
      "implicitly specified")),
    ("an embedded resource that is not an object", {"type": "object", "properties": {"r": {
        "type": "string", "x-kubernetes-embedded-resource": True}}},
     ("FieldValueInvalid", f"{ROOT}.properties[r].type",
      'Invalid value: "string": must be object if x-kubernetes-embedded-resource is true')),
    ("int-or-string that preserves unknown fields", {"type": "object", "properties": {"v": {
        "x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}}},
     ("FieldValueInvalid", f"{ROOT}.properties[v].x-kubernetes-preserve-unknown-fields",
      "Invalid value: true: must be false if x-kubernetes-int-or-string is true")),
    ("a bad pattern", {"type": "object", "properties": {"s": {"type": "string",
                                                             "pattern": "(?=x)"}}},
     ("FieldValueInvalid", f"{ROOT}.properties[s].pattern",
      'Invalid value: "(?=x)": must be a valid regular expression, but isn\'t: error parsing '
      "regexp: invalid or unsupported Perl syntax: `(?=`")),
]


@pytest.mark.parametrize(("case", "schema", "expected"), STRUCTURAL,
                         ids=[c[0] for c in STRUCTURAL])
def test_a_schema_must_be_structural(
    case: str, schema: dict[str, Any], expected: tuple[str, str, str]
) -> None:
    assert expected in _refused(_with_schema(schema))


SCHEMA_RULES = [
    ("uniqueItems", {"type": "object", "properties": {"l": {
        "type": "array", "items": {"type": "string"}, "uniqueItems": True}}},
     ("FieldValueForbidden", f"{ROOT}.properties[l].uniqueItems",
      "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes "
      "quadratic")),
    ("a $ref", {"type": "object", "properties": {"r": {"type": "object", "$ref": "#/x"}}},
     ("FieldValueForbidden", f"{ROOT}.properties[r].$ref", "Forbidden: $ref is not supported")),
    ("a default in metadata", {"type": "object", "properties": {"metadata": {
        "type": "object", "properties": {"name": {"type": "string", "default": "x"}}}}},
     ("FieldValueForbidden", f"{ROOT}.properties[metadata].properties[name].default",
      "Forbidden: must not be set in top-level metadata")),
    ("a default of the wrong type", {"type": "object", "properties": {"n": {
        "type": "integer", "default": "one"}}},
     ("FieldValueTypeInvalid", f"{ROOT}.properties[n].default",
      'Invalid value: "string":  in body must be of type integer: "string"')),
    ("a default with unknown fields", {"type": "object", "properties": {"o": {
        "type": "object", "properties": {"a": {"type": "string"}}, "default": {"b": "x"}}}},
     ("FieldValueInvalid", f"{ROOT}.properties[o].default",
      'Invalid value: {"b":"x"}: must not have unknown fields')),
    ("a map list without keys", {"type": "object", "properties": {"l": {
        "type": "array", "x-kubernetes-list-type": "map",
        "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}},
     ("FieldValueRequired", f"{ROOT}.properties[l].x-kubernetes-list-map-keys",
      "Required value: must not be empty if x-kubernetes-list-type is map")),
    ("a map list key that is optional and has no default", {"type": "object", "properties": {
        "l": {"type": "array", "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["k"],
              "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}},
     ("FieldValueRequired", f"{ROOT}.properties[l].items.properties[k].default",
      "Required value: this property is in x-kubernetes-list-map-keys, so it must have a "
      "default or be a required property")),
    ("a set of objects that are not atomic", {"type": "object", "properties": {"l": {
        "type": "array", "x-kubernetes-list-type": "set",
        "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}},
     ("FieldValueInvalid", f"{ROOT}.properties[l].items.x-kubernetes-map-type",
      "Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set")),
    ("an unknown list type", {"type": "object", "properties": {"l": {
        "type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}}},
     ("FieldValueNotSupported", f"{ROOT}.properties[l].x-kubernetes-list-type",
      'Unsupported value: "bag": supported values: "atomic", "set", "map"')),
]


@pytest.mark.parametrize(("case", "schema", "expected"), SCHEMA_RULES,
                         ids=[c[0] for c in SCHEMA_RULES])
def test_schema_keywords_are_checked(
    case: str, schema: dict[str, Any], expected: tuple[str, str, str]
) -> None:
    assert expected in _refused(_with_schema(schema))


def test_the_status_subresource_restricts_the_root_schema() -> None:
    definition = _with_schema({"type": "object", "x-kubernetes-embedded-resource": True,
                               "properties": {"spec": {"type": "object"}}})
    definition["spec"]["versions"][0]["subresources"] = {"status": {}}
    causes = _refused(definition)
    assert any(
        f == ROOT and m.endswith(
            "only [Description Type Format Title Maximum ExclusiveMaximum Minimum "
            "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems "
            "MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields "
            "XValidations] fields are allowed at the root of the schema if the status "
            "subresource is enabled")
        for _, f, m in causes
    )


def test_scale_paths_and_printer_columns_are_checked() -> None:
    definition = crd()
    version = definition["spec"]["versions"][0]
    version["subresources"] = {"scale": {"specReplicasPath": ".status.replicas",
                                         "statusReplicasPath": "status.replicas"}}
    version["additionalPrinterColumns"] = [{"name": "Age", "type": "time", "jsonPath": "age"}]
    causes = _refused(definition)
    assert ("FieldValueInvalid", "spec.subresources.scale.specReplicasPath",
            'Invalid value: ".status.replicas": should be a json path under .spec') in causes
    assert ("FieldValueInvalid", "spec.subresources.scale.statusReplicasPath",
            'Invalid value: "status.replicas": must be a simple json path starting with .'
            ) in causes
    assert ("FieldValueInvalid", "spec.additionalPrinterColumns[0].type",
            'Invalid value: "time": must be one of boolean,date,integer,number,string') in causes
    assert ("FieldValueInvalid", "spec.additionalPrinterColumns[0].JSONPath",
            'Invalid value: "age": must be a simple json path starting with .') in causes


def test_selectable_fields_must_name_scalar_fields_outside_metadata() -> None:
    definition = crd()
    definition["spec"]["versions"][0]["selectableFields"] = [
        {"jsonPath": ".spec.image"}, {"jsonPath": ".spec"}, {"jsonPath": ".spec.nope"},
        {"jsonPath": ".spec.image"},
    ]
    causes = _refused(definition)
    assert ("FieldValueInvalid", "spec.selectableFields[1].jsonPath",
            'Invalid value: ".spec": must point to a field of type string, boolean or integer. '
            "Enum string fields and strings with formats are allowed.") in causes
    assert ("FieldValueInvalid", "spec.selectableFields[2].jsonPath",
            'Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field'
            ) in causes
    assert ("FieldValueDuplicate", "spec.selectableFields[3].jsonPath",
            'Duplicate value: ".spec.image"') in causes


def test_a_webhook_conversion_is_refused_with_a_clear_message() -> None:
    definition = crd()
    definition["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://converter.example.com/convert"}}}
    causes = _refused(definition)
    assert ("FieldValueForbidden", "spec.conversion.strategy",
            "Forbidden: fakeapi does not call conversion webhooks: only the None strategy "
            "(versions differing only in apiVersion) is supported; set "
            "spec.conversion.strategy to None") in causes


def test_preserve_unknown_fields_may_not_be_turned_on() -> None:
    definition = crd()
    definition["spec"]["preserveUnknownFields"] = True
    assert ("FieldValueInvalid", "spec.preserveUnknownFields",
            "Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields "
            "to true in spec.versions[*].schema instead") in _refused(definition)


def test_a_protected_group_needs_the_api_approval_annotation() -> None:
    definition = crd(group="policy.k8s.io", plural="widgets", kind="Widget")
    assert ("FieldValueRequired", "metadata.annotations[api-approved.kubernetes.io]",
            'Required value: protected groups must have approval annotation '
            '"api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/'
            "1111") in _refused(definition)


def test_updates_keep_the_group_plural_and_established_scope_and_kind() -> None:
    registry = new_crd_registry()
    stored = establish(registry, crd())
    changed = copy.deepcopy(stored)
    changed["spec"]["scope"] = "Cluster"
    changed["spec"]["names"]["kind"] = "Cron"
    with pytest.raises(StatusError) as raised:
        registry.update(crds_of(registry), None, stored["metadata"]["name"], changed,
                        WriteOptions())
    fields = {c["field"] for c in raised.value.status()["details"]["causes"]}
    assert fields == {"spec.scope", "spec.names.kind"}


def test_a_storage_version_may_not_leave_the_spec_before_it_leaves_stored_versions() -> None:
    registry = new_crd_registry()
    stored = establish(registry, crd())
    changed = copy.deepcopy(stored)
    changed["spec"]["versions"] = [{"name": "v2", "served": True, "storage": True,
                                    "schema": {"openAPIV3Schema": {"type": "object"}}}]
    with pytest.raises(StatusError) as raised:
        registry.update(crds_of(registry), None, stored["metadata"]["name"], changed,
                        WriteOptions())
    messages = [c["message"] for c in raised.value.status()["details"]["causes"]]
    assert messages == [
        'Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, '
        "and must remain in spec.versions until a storage migration ensures no data remains "
        "persisted in v1 and removes v1 from status.storedVersions"
    ]


def test_unknown_formats_are_warned_about() -> None:
    registry = new_crd_registry()
    result = registry.create(crds_of(registry), None, _with_schema({
        "type": "object", "properties": {"s": {"type": "string", "format": "colour"}}}),
        WriteOptions())
    assert result.warnings == ['unrecognized format "colour"']
