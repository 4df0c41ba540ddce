"""Query parameters: Go-style scalars, list/watch rules, write options, Table options."""

from __future__ import annotations

from typing import Any

import pytest
from multidict import MultiDict

from fakeapi.errors import StatusError
from fakeapi.registry.kinds.pod_log import read_log
from fakeapi.selectors import parse_field_selector, parse_label_selector
from fakeapi.server.params import (
    ListOptions,
    WriteOptions,
    parse_bool,
    parse_include_object,
    parse_int,
    parse_list_options,
    parse_write_options,
)
from fakeapi.server.query import delete_options, read_options

# ------------------------------------------------------------------------------------------
# Scalars


@pytest.mark.parametrize("text", ["1", "t", "T", "TRUE", "true", "True"])
def test_parse_bool_true(text: str) -> None:
    assert parse_bool(text) is True


@pytest.mark.parametrize("text", ["0", "f", "F", "FALSE", "false", "False"])
def test_parse_bool_false(text: str) -> None:
    assert parse_bool(text) is False


@pytest.mark.parametrize("text", ["", "yes", "tRUE", "on", " true", "2", "tru"])
def test_parse_bool_rejects_like_go(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_bool(text)
    assert str(caught.value) == f'strconv.ParseBool: parsing "{text}": invalid syntax'


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("500", 500),
        ("+7", 7),
        ("-3", -3),
        ("007", 7),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
    ],
)
def test_parse_int(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "invalid syntax"),
        ("abc", "invalid syntax"),
        ("1.5", "invalid syntax"),
        (" 1", "invalid syntax"),
        ("1_000", "invalid syntax"),
        ("0x10", "invalid syntax"),
        ("١", "invalid syntax"),
        ("9223372036854775808", "value out of range"),
    ],
)
def test_parse_int_rejects_like_go(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_int(text)
    assert str(caught.value) == f'strconv.ParseInt: parsing "{text}": {reason}'


def test_parse_int_honours_bit_size() -> None:
    assert parse_int("2147483647", bits=32) == 2**31 - 1
    with pytest.raises(ValueError, match="value out of range"):
        parse_int("2147483648", bits=32)


# ------------------------------------------------------------------------------------------
# List and watch


def status_of(err: StatusError) -> tuple[int, str, str]:
    return err.code, err.reason, err.message


def test_list_defaults() -> None:
    opts = parse_list_options({})
    assert opts == ListOptions(
        label_selector=parse_label_selector(""), field_selector=parse_field_selector("")
    )
    assert opts.limit == 0 and opts.timeout_seconds is None and opts.send_initial_events is None
    assert not opts.watch and not opts.is_watch_list


def test_list_options_decode_everything() -> None:
    opts = parse_list_options(
        MultiDict(
            labelSelector="app in (a,b)",
            fieldSelector="metadata.name=x",
            limit="500",
            resourceVersion="12",
            resourceVersionMatch="NotOlderThan",
            timeout="32s",  # not ours: ignored
            bogus="1",
        )
    )
    assert str(opts.label_selector) == "app in (a,b)"
    assert opts.field_selector.exact_match("metadata.name") == "x"
    assert (opts.limit, opts.resource_version, opts.resource_version_match) == (
        500,
        "12",
        "NotOlderThan",
    )


def test_continue_token_is_passed_through() -> None:
    assert parse_list_options({"continue": "abc=", "limit": "2"}).continue_token == "abc="


def test_watch_list_request_from_kubectl_wait() -> None:
    opts = parse_list_options(
        {
            "allowWatchBookmarks": "true",
            "fieldSelector": "metadata.name=c",
            "resourceVersionMatch": "NotOlderThan",
            "sendInitialEvents": "true",
            "timeoutSeconds": "412",
            "watch": "true",
        }
    )
    assert opts.watch and opts.is_watch_list
    assert opts.timeout_seconds == 412


def test_python_client_capitalised_booleans() -> None:
    opts = parse_list_options({"watch": "True", "allowWatchBookmarks": "True"})
    assert opts.watch and opts.allow_watch_bookmarks and not opts.is_watch_list


def test_force_watch_for_legacy_watch_paths() -> None:
    assert parse_list_options({}, force_watch=True).watch


def test_send_initial_events_false_still_counts_as_given() -> None:
    opts = parse_list_options(
        {"watch": "1", "sendInitialEvents": "false", "resourceVersionMatch": "NotOlderThan"}
    )
    assert opts.send_initial_events is False and not opts.is_watch_list


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"watch": "yes"}, 'strconv.ParseBool: parsing "yes": invalid syntax'),
        ({"allowWatchBookmarks": ""}, 'strconv.ParseBool: parsing "": invalid syntax'),
        ({"sendInitialEvents": "x"}, 'strconv.ParseBool: parsing "x": invalid syntax'),
        ({"limit": "ten"}, 'strconv.ParseInt: parsing "ten": invalid syntax'),
        ({"timeoutSeconds": "1s"}, 'strconv.ParseInt: parsing "1s": invalid syntax'),
        ({"labelSelector": "a in b"}, "unable to parse requirement: found 'b' expected: '('"),
        ({"fieldSelector": "spec"}, "invalid selector: 'spec'; can't understand 'spec'"),
        # scalars decode before selectors, as upstream
        (
            {"labelSelector": "a in b", "limit": "x"},
            'strconv.ParseInt: parsing "x": invalid syntax',
        ),
    ],
)
def test_list_bad_values_are_400(query: dict[str, str], message: str) -> None:
    with pytest.raises(StatusError) as caught:
        parse_list_options(query)
    assert status_of(caught.value) == (400, "BadRequest", message)
    assert caught.value.details is None


PREFIX = 'ListOptions.meta.k8s.io "" is invalid: '


@pytest.mark.parametrize(
    ("query", "causes"),
    [
        (
            {"resourceVersionMatch": "NotOlderThan"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: resourceVersionMatch is forbidden unless "
                    "resourceVersion is provided",
                )
            ],
        ),
        (
            {"resourceVersionMatch": "Exact", "resourceVersion": "5", "continue": "t"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: resourceVersionMatch is forbidden when continue is provided",
                )
            ],
        ),
        (
            {"resourceVersionMatch": "Newest", "resourceVersion": "5"},
            [
                (
                    "FieldValueNotSupported",
                    "resourceVersionMatch",
                    'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
                )
            ],
        ),
        (
            {"resourceVersionMatch": "Exact", "resourceVersion": "0"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                )
            ],
        ),
        (
            {"sendInitialEvents": "true"},
            [
                (
                    "FieldValueForbidden",
                    "sendInitialEvents",
                    "Forbidden: sendInitialEvents is forbidden for list",
                )
            ],
        ),
        (
            {"watch": "true", "sendInitialEvents": "true"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: sendInitialEvents requires setting "
                    "resourceVersionMatch to NotOlderThan",
                )
            ],
        ),
        (
            {"watch": "true", "resourceVersionMatch": "NotOlderThan"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: resourceVersionMatch is forbidden for watch "
                    "unless sendInitialEvents is provided",
                )
            ],
        ),
        (
            {"watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "Exact"},
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: sendInitialEvents requires setting resourceVersionMatch to "
                    "NotOlderThan",
                ),
                (
                    "FieldValueNotSupported",
                    "resourceVersionMatch",
                    'Unsupported value: "Exact": supported values: "NotOlderThan"',
                ),
            ],
        ),
        (
            {
                "watch": "true",
                "sendInitialEvents": "true",
                "resourceVersionMatch": "NotOlderThan",
                "continue": "t",
            },
            [
                (
                    "FieldValueForbidden",
                    "resourceVersionMatch",
                    "Forbidden: resourceVersionMatch is forbidden when continue is provided",
                )
            ],
        ),
    ],
)
def test_list_inconsistent_combinations_are_422(
    query: dict[str, str], causes: list[tuple[str, str, str]]
) -> None:
    with pytest.raises(StatusError) as caught:
        parse_list_options(query)
    err = caught.value
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.details is not None
    assert err.details["kind"] == "ListOptions" and err.details["group"] == "meta.k8s.io"
    assert "name" not in err.details  # an empty name is omitted (omitempty), as upstream
    got = [(c["reason"], c["field"], c["message"]) for c in err.details["causes"]]
    assert got == causes
    rendered = [f"{f}: {m}" for _, f, m in causes]
    summary = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    assert err.message == PREFIX + summary


def test_list_valid_exact_match() -> None:
    opts = parse_list_options({"resourceVersion": "7", "resourceVersionMatch": "Exact"})
    assert opts.resource_version_match == "Exact"


# ------------------------------------------------------------------------------------------
# Writes


@pytest.mark.parametrize(
    ("query", "verb", "apply", "expected"),
    [
        ({}, "create", False, WriteOptions()),
        (
            {"fieldManager": "kubectl-create", "fieldValidation": "Strict"},
            "create",
            False,
            WriteOptions(field_manager="kubectl-create", field_validation="Strict"),
        ),
        (
            {"dryRun": "All", "fieldValidation": "Ignore"},
            "update",
            False,
            WriteOptions(dry_run=True, field_validation="Ignore"),
        ),
        ({"fieldValidation": "Warn"}, "update", False, WriteOptions()),
        (
            {"fieldManager": "kubectl", "force": "false"},
            "patch",
            True,
            WriteOptions(field_manager="kubectl", force=False),
        ),
        (
            {"fieldManager": "kubectl", "force": "true", "dryRun": "All"},
            "patch",
            True,
            WriteOptions(dry_run=True, field_manager="kubectl", force=True),
        ),
        (
            {"dryRun": "All", "fieldManager": "ignored-on-delete"},
            "delete",
            False,
            WriteOptions(dry_run=True),
        ),
        ({"force": "true"}, "create", False, WriteOptions()),  # force means nothing outside patch
        ({"fieldManager": "m" * 128}, "create", False, WriteOptions(field_manager="m" * 128)),
    ],
)
def test_write_options(
    query: dict[str, str], verb: Any, apply: bool, expected: WriteOptions
) -> None:
    assert parse_write_options(query, verb=verb, apply_patch=apply) == expected


def test_repeated_dry_run_values() -> None:
    query = MultiDict([("dryRun", "All"), ("dryRun", "All")])
    assert parse_write_options(query, verb="create").dry_run
    bad = MultiDict([("dryRun", "All"), ("dryRun", "Some")])
    with pytest.raises(StatusError) as caught:
        parse_write_options(bad, verb="create")
    assert caught.value.message == (
        'CreateOptions.meta.k8s.io "" is invalid: '
        'dryRun: Unsupported value: ["All","Some"]: supported values: "All"'
    )


@pytest.mark.parametrize(
    ("query", "verb", "apply", "message"),
    [
        (
            {"dryRun": "true"},
            "create",
            False,
            'CreateOptions.meta.k8s.io "" is invalid: '
            'dryRun: Unsupported value: ["true"]: supported values: "All"',
        ),
        (
            {"dryRun": ""},
            "delete",
            False,
            'DeleteOptions.meta.k8s.io "" is invalid: '
            'dryRun: Unsupported value: [""]: supported values: "All"',
        ),
        (
            {"fieldValidation": "strict"},
            "update",
            False,
            'UpdateOptions.meta.k8s.io "" is invalid: '
            'fieldValidation: Unsupported value: "strict": '
            'supported values: "", "Ignore", "Strict", "Warn"',
        ),
        (
            {"fieldManager": "m" * 129},
            "create",
            False,
            'CreateOptions.meta.k8s.io "" is invalid: '
            "fieldManager: Too long: may not be more than 128 bytes",
        ),
        (
            {"fieldManager": "a\tb"},
            "create",
            False,
            'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\tb": '
            "invalid character U+0009 (at position 1)",
        ),
        (
            {},
            "patch",
            True,
            'PatchOptions.meta.k8s.io "" is invalid: '
            "fieldManager: Required value: is required for apply patch",
        ),
        (
            {"force": "true"},
            "patch",
            False,
            'PatchOptions.meta.k8s.io "" is invalid: '
            "force: Forbidden: may not be specified for non-apply patch",
        ),
        (
            {"force": "false", "fieldValidation": "x"},
            "patch",
            False,
            'PatchOptions.meta.k8s.io "" is invalid: '
            "[force: Forbidden: may not be specified for non-apply patch, fieldValidation: "
            'Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"]',
        ),
    ],
)
def test_write_options_rejected_as_422(
    query: dict[str, str], verb: Any, apply: bool, message: str
) -> None:
    with pytest.raises(StatusError) as caught:
        parse_write_options(query, verb=verb, apply_patch=apply)
    assert (caught.value.code, caught.value.reason, caught.value.message) == (
        422,
        "Invalid",
        message,
    )


def test_bad_force_boolean_is_400() -> None:
    with pytest.raises(StatusError) as caught:
        parse_write_options({"force": "maybe", "fieldManager": "m"}, verb="patch", apply_patch=True)
    assert status_of(caught.value) == (
        400,
        "BadRequest",
        'strconv.ParseBool: parsing "maybe": invalid syntax',
    )


# ------------------------------------------------------------------------------------------
# Tables


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "Metadata"),
        ("", "Metadata"),
        ("Metadata", "Metadata"),
        ("Object", "Object"),
        ("None", "None"),
    ],
)
def test_include_object(value: str | None, expected: str) -> None:
    query = {} if value is None else {"includeObject": value}
    assert parse_include_object(query) == expected


def test_include_object_rejects_unknown_value() -> None:
    with pytest.raises(StatusError) as caught:
        parse_include_object({"includeObject": "object"})
    assert status_of(caught.value) == (
        400,
        "BadRequest",
        'Unable to convert to Table as requested: includeObject: Invalid value: "object": '
        "must be 'Metadata', 'Object', 'None', or empty",
    )


# ------------------------------------------------------------------------------------------
# DeleteOptions


def test_orphan_dependents_in_the_query_orphans_as_in_the_body() -> None:
    assert delete_options({"orphanDependents": "true"}, None).propagation_policy == "Orphan"
    assert delete_options({}, {"orphanDependents": True}).propagation_policy == "Orphan"
    assert delete_options({"orphanDependents": "false"}, None).propagation_policy == "Background"


def test_orphan_dependents_and_a_propagation_policy_together_are_422() -> None:
    with pytest.raises(StatusError) as caught:
        delete_options({"propagationPolicy": "Background"}, {"orphanDependents": True})
    assert caught.value.code == 422
    assert caught.value.message == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: '
        '"Background": orphanDependents and deletionPropagation cannot be both set'
    )


def test_a_negative_grace_period_is_one_second() -> None:
    assert delete_options({"gracePeriodSeconds": "-1"}, None).grace_period_seconds == 1
    assert delete_options({}, {"gracePeriodSeconds": -5}).grace_period_seconds == 1


def test_pod_log_options_are_read_from_the_query() -> None:
    options = read_options({"tailLines": "10", "limitBytes": "100", "sinceSeconds": "5"})
    assert (options.tail_lines, options.limit_bytes, options.since_seconds) == (10, 100, 5)
    both = read_options({"sinceSeconds": "5", "sinceTime": "2020-01-01T00:00:00Z"})
    with pytest.raises(StatusError) as caught:
        read_log({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}, both)
    assert caught.value.code == 422
    assert "at most one of `sinceTime` or `sinceSeconds` may be specified" in caught.value.message
