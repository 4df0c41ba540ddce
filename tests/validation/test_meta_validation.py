"""Metadata rules shared by every kind, and the name syntax checks behind them."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from fakeapi.name_syntax import (
    is_config_map_key,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from fakeapi.validation.field import FieldError, Path
from fakeapi.validation.meta import validate_object_meta, validate_object_meta_update

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def rendered(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]


def meta_errors(meta: dict[str, Any], *, namespaced: bool = True, label: bool = False) -> list[str]:
    rule = is_dns1123_label if label else is_dns1123_subdomain
    return rendered(
        validate_object_meta(
            meta, namespaced=namespaced, name_validator=rule, path=Path("metadata")
        )
    )


class TestNameSyntax:
    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("web-1", []),
            ("a" * 63, []),
            ("a" * 64, ["must be no more than 63 characters"]),
            ("Web", [LABEL_MSG]),
            ("a.b", ["must not contain dots"]),
            ("-a", [LABEL_MSG]),
        ],
    )
    def test_dns_label(self, value: str, expected: list[str]) -> None:
        assert is_dns1123_label(value) == expected

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("example.com", []),
            ("Example.com", [SUBDOMAIN_MSG]),
            ("a" * 254, ["must be no more than 253 characters"]),
            ("a..b", [SUBDOMAIN_MSG]),
        ],
    )
    def test_dns_subdomain(self, value: str, expected: list[str]) -> None:
        assert is_dns1123_subdomain(value) == expected

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("app", []),
            ("example.com/App_1", []),
            ("/app", ["prefix part must be non-empty"]),
            ("example.com/", ["name part must be non-empty", NAME_PART_MSG]),
            ("-app", [NAME_PART_MSG]),
            ("a" * 64, ["name part must be no more than 63 bytes"]),
            ("Example.com/app", ["prefix part " + SUBDOMAIN_MSG]),
        ],
    )
    def test_qualified_name(self, value: str, expected: list[str]) -> None:
        assert is_qualified_name(value) == expected

    def test_qualified_name_with_two_slashes_names_the_whole_rule(self) -> None:
        (msg,) = is_qualified_name("a/b/c")
        assert msg.startswith("a valid label key must consist of alphanumeric characters")
        assert msg.endswith(
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        )

    @pytest.mark.parametrize("value", ["", "v1", "my_value", "a.b-c"])
    def test_label_value_accepts(self, value: str) -> None:
        assert is_valid_label_value(value) == []

    def test_label_value_rejects_with_upstream_words(self) -> None:
        assert is_valid_label_value("-x") == [
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
            "or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ]

    @pytest.mark.parametrize(
        ("value", "expected"),
        [("key.name", []), (".", ["must not be '.'"]), ("..x", ["must not start with '..'"])],
    )
    def test_config_map_key(self, value: str, expected: list[str]) -> None:
        assert is_config_map_key(value) == expected


class TestObjectMetaOnCreate:
    def test_a_valid_namespaced_object_has_no_errors(self) -> None:
        meta = {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web", "example.com/tier": ""},
            "annotations": {"Example.com/Note": "x"},
            "finalizers": ["example.com/cleanup", "kubernetes"],
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1"}
            ],
        }
        assert meta_errors(meta) == []

    def test_name_or_generate_name_is_required(self) -> None:
        assert meta_errors({"namespace": "default"}) == [
            "metadata.name: Required value: name or generateName is required"
        ]

    def test_generate_name_alone_is_enough_and_its_trailing_dash_is_allowed(self) -> None:
        assert meta_errors({"generateName": "web-", "namespace": "default"}) == []

    def test_invalid_name_reports_the_subdomain_rule(self) -> None:
        assert meta_errors({"name": "Web", "namespace": "default"}) == [
            f'metadata.name: Invalid value: "Web": {SUBDOMAIN_MSG}'
        ]

    def test_label_rule_is_used_when_the_kind_asks_for_it(self) -> None:
        assert meta_errors({"name": "a.b"}, namespaced=False, label=True) == [
            'metadata.name: Invalid value: "a.b": must not contain dots'
        ]

    def test_namespace_is_required_for_namespaced_kinds(self) -> None:
        assert meta_errors({"name": "a"}) == ["metadata.namespace: Required value"]

    def test_namespace_is_forbidden_for_cluster_scoped_kinds(self) -> None:
        assert meta_errors({"name": "a", "namespace": "x"}, namespaced=False) == [
            "metadata.namespace: Forbidden: not allowed on this type"
        ]

    def test_label_errors_are_reported_at_the_labels_map(self) -> None:
        errors = meta_errors({"name": "a", "namespace": "d", "labels": {"-bad": "ok", "k": "-v"}})
        assert errors[0] == f'metadata.labels: Invalid value: "-bad": {NAME_PART_MSG}'
        assert errors[1].startswith('metadata.labels: Invalid value: "-v": a valid label must')

    def test_annotations_over_256_kib_are_too_long(self) -> None:
        big = {"a": "x" * (256 * 1024)}
        assert meta_errors({"name": "a", "namespace": "d", "annotations": big}) == [
            "metadata.annotations: Too long: may not be more than 262144 bytes"
        ]

    def test_finalizers_must_be_qualified_names(self) -> None:
        assert meta_errors({"name": "a", "namespace": "d", "finalizers": ["a/b/c"]})[0].startswith(
            'metadata.finalizers: Invalid value: "a/b/c": a valid label key'
        )

    def test_orphan_and_foreground_exclude_each_other(self) -> None:
        errors = meta_errors(
            {"name": "a", "namespace": "d", "finalizers": ["orphan", "foregroundDeletion"]}
        )
        assert errors == [
            'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer '
            "orphan and foregroundDeletion cannot be both set"
        ]

    def test_owner_reference_fields_are_required(self) -> None:
        errors = meta_errors({"name": "a", "namespace": "d", "ownerReferences": [{}]})
        assert errors == [
            "metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
            "metadata.ownerReferences[0].kind: Required value: must not be empty",
            "metadata.ownerReferences[0].name: Required value: must not be empty",
            "metadata.ownerReferences[0].uid: Required value: must not be empty",
        ]

    def test_only_one_owner_may_be_the_controller(self) -> None:
        refs = [
            {"apiVersion": "v1", "kind": "A", "name": "a", "uid": "1", "controller": True},
            {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "2", "controller": True},
        ]
        errors = meta_errors({"name": "a", "namespace": "d", "ownerReferences": refs})
        assert len(errors) == 1
        assert errors[0].startswith("metadata.ownerReferences: Invalid value: ")
        assert errors[0].endswith(
            'Only one reference can have Controller set to true. Found "true" in references for '
            "A/a and B/b"
        )

    def test_events_may_not_own_objects(self) -> None:
        refs = [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]
        (error,) = meta_errors({"name": "a", "namespace": "d", "ownerReferences": refs})
        assert error.endswith("/v1, Kind=Event is disallowed from being an owner")

    def test_owner_api_version_must_parse(self) -> None:
        refs = [{"apiVersion": "apps/", "kind": "X", "name": "x", "uid": "1"}]
        assert meta_errors({"name": "a", "namespace": "d", "ownerReferences": refs}) == [
            'metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": must be '
            "<group>/<version> or <version>"
        ]


class TestObjectMetaOnUpdate:
    OLD: typing.ClassVar[dict[str, Any]] = {
        "name": "a",
        "namespace": "d",
        "uid": "u1",
        "creationTimestamp": "2026-01-01T00:00:00Z",
        "generation": 2,
    }

    def update_errors(self, **changes: Any) -> list[str]:
        new = {**self.OLD, **changes}
        return rendered(validate_object_meta_update(new, self.OLD, Path("metadata")))

    def test_unchanged_identity_is_fine(self) -> None:
        assert self.update_errors() == []

    @pytest.mark.parametrize(("field", "value"), [("name", "b"), ("namespace", "e"), ("uid", "u2")])
    def test_identity_fields_are_immutable(self, field: str, value: str) -> None:
        assert self.update_errors(**{field: value}) == [
            f'metadata.{field}: Invalid value: "{value}": field is immutable'
        ]

    def test_server_fields_left_out_by_the_client_count_as_unchanged(self) -> None:
        new = {"name": "a", "namespace": "d"}
        assert rendered(validate_object_meta_update(new, self.OLD, Path("metadata"))) == []

    def test_generation_may_not_go_down(self) -> None:
        assert self.update_errors(generation=1) == [
            "metadata.generation: Invalid value: 1: must not be decremented"
        ]

    def test_no_new_finalizers_while_deleting(self) -> None:
        old = {**self.OLD, "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["a/x"]}
        new = {**old, "finalizers": ["a/x", "a/y"]}
        assert rendered(validate_object_meta_update(new, old, Path("metadata"))) == [
            "metadata.finalizers: Forbidden: no new finalizers can be added if the object is "
            'being deleted, found new finalizers []string{"a/y"}'
        ]
