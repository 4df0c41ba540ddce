"""The Status errors every layer raises, worded as upstream's apimachinery words them."""

from __future__ import annotations

from fakeapi.errors import invalid


def test_an_invalid_message_names_each_distinct_error_once_while_causes_keep_all() -> None:
    twice = {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.a"}
    other = {"reason": "FieldValueInvalid", "message": "Invalid value: 0", "field": "spec.b"}
    err = invalid(kind="Widget", group="example.com", name="w", causes=[twice, other, twice])
    assert err.message == (
        'Widget.example.com "w" is invalid: '
        "[spec.a: Required value, spec.b: Invalid value: 0]"
    )
    assert err.details is not None and len(err.details["causes"]) == 3


def test_an_error_repeated_alone_reads_as_one_error_without_brackets() -> None:
    cause = {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.a"}
    err = invalid(kind="Widget", group="example.com", name="w", causes=[cause, cause])
    assert err.message == 'Widget.example.com "w" is invalid: spec.a: Required value'
