"""JSON merge patch (RFC 7386) and JSON patch (RFC 6902) with kube-apiserver's failure codes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.patch import (
    MAX_JSON_PATCH_OPERATIONS,
    PatchError,
    apply_json_patch,
    apply_merge_patch,
    merge_patch,
)

# RFC 7386 appendix A, plus the cases that matter for API objects
MERGE_CASES: list[tuple[str, Any, Any, Any]] = [
    ("replaces_scalar", {"a": "b"}, {"a": "c"}, {"a": "c"}),
    ("adds_key", {"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ("null_deletes_key", {"a": "b"}, {"a": None}, {}),
    ("null_keeps_others", {"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ("list_replaced", {"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ("scalar_replaced_by_list", {"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ("nested_merge", {"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ("list_of_objects_replaced", {"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ("non_object_patch_replaces", {"a": "b"}, ["c"], ["c"]),
    ("null_patch_replaces", {"a": "foo"}, None, None),
    ("nulls_pruned_from_new_objects", {"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ("new_nested_object_pruned", {}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ("non_object_target_replaced", ["a"], {"a": "b"}, {"a": "b"}),
]


@pytest.mark.parametrize(("target", "patch", "expected"), [c[1:] for c in MERGE_CASES],
                         ids=[c[0] for c in MERGE_CASES])
def test_merge_patch(target: Any, patch: Any, expected: Any) -> None:
    assert merge_patch(target, patch) == expected


def test_merge_patch_does_not_modify_inputs_and_shares_untouched_subtrees() -> None:
    original = {"metadata": {"labels": {"a": "1"}}, "spec": {"x": [1, 2]}}
    patch = {"metadata": {"labels": {"a": None, "b": "2"}}}
    saved_original, saved_patch = copy.deepcopy(original), copy.deepcopy(patch)
    result = apply_merge_patch(original=original, patch=patch)
    assert result == {"metadata": {"labels": {"b": "2"}}, "spec": {"x": [1, 2]}}
    assert (original, patch) == (saved_original, saved_patch)
    assert result["spec"] is original["spec"]


@pytest.mark.parametrize("body", [[{"a": 1}], "x", 1, None], ids=["array", "string", "number",
                                                                  "null"])
def test_merge_patch_body_must_be_an_object(body: Any) -> None:
    with pytest.raises(PatchError) as caught:
        apply_merge_patch(original={}, patch=body)
    assert (caught.value.code, caught.value.reason, caught.value.message) == (
        400, "BadRequest", "Invalid JSON Patch"
    )


DOC: dict[str, Any] = {"metadata": {"name": "x", "labels": {"a": "1"}}, "spec": {"l": [1, 2]}}

JSON_PATCH_CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
    ("add", [{"op": "add", "path": "/metadata/labels/b", "value": "2"}],
     {"metadata": {"name": "x", "labels": {"a": "1", "b": "2"}}, "spec": {"l": [1, 2]}}),
    ("add_to_list_end", [{"op": "add", "path": "/spec/l/-", "value": 3}],
     {"metadata": DOC["metadata"], "spec": {"l": [1, 2, 3]}}),
    ("remove", [{"op": "remove", "path": "/metadata/labels"}],
     {"metadata": {"name": "x"}, "spec": {"l": [1, 2]}}),
    ("replace", [{"op": "replace", "path": "/spec/l/0", "value": 9}],
     {"metadata": DOC["metadata"], "spec": {"l": [9, 2]}}),
    ("move", [{"op": "move", "from": "/spec/l", "path": "/spec/m"}],
     {"metadata": DOC["metadata"], "spec": {"m": [1, 2]}}),
    ("copy", [{"op": "copy", "from": "/metadata/name", "path": "/spec/n"}],
     {"metadata": DOC["metadata"], "spec": {"l": [1, 2], "n": "x"}}),
    ("test_then_replace", [{"op": "test", "path": "/metadata/name", "value": "x"},
                           {"op": "replace", "path": "/metadata/name", "value": "y"}],
     {"metadata": {"name": "y", "labels": {"a": "1"}}, "spec": {"l": [1, 2]}}),
]


@pytest.mark.parametrize(("patch", "expected"), [c[1:] for c in JSON_PATCH_CASES],
                         ids=[c[0] for c in JSON_PATCH_CASES])
def test_json_patch(patch: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    saved = copy.deepcopy(DOC)
    assert apply_json_patch(original=DOC, patch=patch) == expected
    assert saved == DOC


UNPROCESSABLE: list[tuple[str, list[Any]]] = [
    ("failed_test", [{"op": "test", "path": "/metadata/name", "value": "other"}]),
    ("remove_missing_path", [{"op": "remove", "path": "/metadata/nothing"}]),
    ("replace_missing_path", [{"op": "replace", "path": "/spec/zzz", "value": 1}]),
    ("unknown_op", [{"op": "frobnicate", "path": "/a"}]),
    ("missing_op", [{"path": "/a"}]),
    ("bad_pointer", [{"op": "add", "path": "no-slash", "value": 1}]),
    ("result_not_an_object", [{"op": "replace", "path": "", "value": [1]}]),
]


@pytest.mark.parametrize("patch", [c[1] for c in UNPROCESSABLE], ids=[c[0] for c in UNPROCESSABLE])
def test_json_patch_that_cannot_apply_is_422_with_upstream_message(patch: list[Any]) -> None:
    with pytest.raises(PatchError) as caught:
        apply_json_patch(original=DOC, patch=patch)
    error = caught.value
    assert (error.code, error.reason) == (422, "Invalid")
    assert error.message == "the server rejected our request due to an error in our request"
    assert error.detail  # the library's reason, for logs
    assert error.status()["details"] == {}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ("x", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
        (["x"], "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
    ],
    ids=["object_body", "string_body", "non_object_operation"],
)
def test_malformed_json_patch_is_400(patch: Any, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_json_patch(original=DOC, patch=patch)
    assert (caught.value.code, caught.value.message) == (400, message)


def test_json_patch_operation_limit_is_413() -> None:
    patch = [{"op": "test", "path": "/metadata/name", "value": "x"}] * (
        MAX_JSON_PATCH_OPERATIONS + 1
    )
    with pytest.raises(PatchError) as caught:
        apply_json_patch(original=DOC, patch=patch)
    assert caught.value.code == 413
    assert caught.value.message == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
        "got 10001"
    )


def test_null_json_patch_is_a_no_op() -> None:
    assert apply_json_patch(original=DOC, patch=None) is DOC
