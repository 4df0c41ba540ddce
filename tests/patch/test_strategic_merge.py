"""Strategic merge patch: lists merged by the schema's merge keys, directives, upstream errors."""

from __future__ import annotations

import copy
from typing import Annotated, Any

import pytest

from fakeapi.models.base import K8sModel, RawJSON, atomic_list, map_list, merge_list
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.patch import PatchError, strategic_merge_patch
from fakeapi.schema import schema_for


class Container(K8sModel):
    """A container."""

    name: str
    """Name."""
    image: str | None = None
    """Image."""
    args: Annotated[list[str] | None, atomic_list()] = None
    """Arguments, replaced as a whole."""
    env: Annotated[list[dict[str, str]] | None, map_list("name")] = None
    """Environment, merged by name."""


class Toleration(K8sModel):
    """A toleration."""

    key: str | None = None
    """Key."""


class Volume(K8sModel):
    """A volume."""

    name: str
    """Name."""
    host_path: dict[str, str] | None = None
    """Host path source."""
    empty_dir: dict[str, str] | None = None
    """Empty dir source."""


class Spec(K8sModel):
    """A pod-like spec."""

    containers: Annotated[list[Container], map_list("name")]
    """Containers, merged by name."""
    init_containers: Annotated[list[Container] | None, merge_list("name")] = None
    """Merged by name for patches, atomic for apply."""
    tolerations: Annotated[list[Toleration] | None, atomic_list()] = None
    """Replaced as a whole."""
    volumes: Annotated[list[Volume] | None, map_list("name")] = None
    """Volumes, merged by name."""
    node_selector: dict[str, str] | None = None
    """A plain map."""
    parameters: RawJSON = None
    """Free-form JSON."""
    grid: Annotated[list[list[int]] | None, merge_list("x")] = None
    """A list of lists (not allowed to merge)."""


class Status(K8sModel):
    """A status."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Conditions by type."""


class Pod(K8sModel):
    """A pod-like object."""

    metadata: ObjectMeta | None = None
    """Metadata."""
    spec: Spec | None = None
    """Spec."""
    status: Status | None = None
    """Status."""


SCHEMA = schema_for(Pod)

BASE: dict[str, Any] = {
    "metadata": {
        "name": "p",
        "labels": {"app": "web", "tier": "front"},
        "finalizers": ["a", "b"],
        "ownerReferences": [
            {"apiVersion": "v1", "kind": "X", "name": "x", "uid": "u1"},
            {"apiVersion": "v1", "kind": "Y", "name": "y", "uid": "u2"},
        ],
    },
    "spec": {
        "containers": [
            {"name": "c1", "image": "i1", "args": ["x", "y"]},
            {"name": "c2", "image": "i2"},
        ],
        "initContainers": [{"name": "init", "image": "busybox"}],
        "tolerations": [{"key": "k1"}],
        "volumes": [{"name": "v", "hostPath": {"path": "/tmp"}}],
        "parameters": {"a": {"b": 1, "c": [1, 2]}},
    },
    "status": {
        "conditions": [
            {"type": "Ready", "status": "False"},
            {"type": "Scheduled", "status": "True"},
        ]
    },
}


def patched(patch: Any) -> dict[str, Any]:
    return strategic_merge_patch(BASE, patch, SCHEMA)


def names(items: list[dict[str, Any]]) -> list[str]:
    return [str(i.get("name") or i.get("type") or i.get("uid")) for i in items]


# (name, patch, path into the result, expected value)
CASES: list[tuple[str, Any, tuple[str | int, ...], Any]] = [
    ("scalar_replaced", {"metadata": {"name": "q"}}, ("metadata", "name"), "q"),
    (
        "map_merged_key_by_key",
        {"metadata": {"labels": {"tier": "back", "new": "1"}}},
        ("metadata", "labels"),
        {"app": "web", "tier": "back", "new": "1"},
    ),
    ("null_deletes_key", {"metadata": {"labels": {"app": None}}}, ("metadata", "labels"),
     {"tier": "front"}),
    ("null_for_absent_key_ignored", {"spec": {"nodeSelector": None}}, ("spec",),
     BASE["spec"]),
    (
        "containers_merged_by_name_in_place",
        {"spec": {"containers": [{"name": "c2", "image": "new"}]}},
        ("spec", "containers"),
        [{"name": "c1", "image": "i1", "args": ["x", "y"]}, {"name": "c2", "image": "new"}],
    ),
    (
        "new_container_goes_first_like_upstream",
        {"spec": {"containers": [{"name": "c3", "image": "i3"}]}},
        ("spec", "containers"),
        [{"name": "c3", "image": "i3"}, *BASE["spec"]["containers"]],
    ),
    (
        "conditions_merged_by_type",
        {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        ("status", "conditions"),
        [{"type": "Ready", "status": "True"}, {"type": "Scheduled", "status": "True"}],
    ),
    (
        "owner_references_merged_by_uid",
        {"metadata": {"ownerReferences": [{"uid": "u2", "controller": True}]}},
        ("metadata", "ownerReferences", 1, "controller"),
        True,
    ),
    ("finalizers_merged_as_set_new_first", {"metadata": {"finalizers": ["c", "a", "c"]}},
     ("metadata", "finalizers"), ["c", "a", "b"]),
    ("atomic_list_replaced", {"spec": {"tolerations": [{"key": "k2"}]}}, ("spec", "tolerations"),
     [{"key": "k2"}]),
    ("atomic_list_inside_merged_item_replaced",
     {"spec": {"containers": [{"name": "c1", "args": ["z"]}]}},
     ("spec", "containers", 0, "args"), ["z"]),
    (
        "merge_list_tag_merges_for_patches",
        {"spec": {"initContainers": [{"name": "init", "image": "alpine"}]}},
        ("spec", "initContainers"),
        [{"name": "init", "image": "alpine"}],
    ),
    (
        "raw_json_merges_like_rfc7386",
        {"spec": {"parameters": {"a": {"b": None, "c": [3], "d": {"e": None, "f": 1}}}}},
        ("spec", "parameters"),
        {"a": {"c": [3], "d": {"f": 1}}},
    ),
    (
        "map_directive_replace",
        {"metadata": {"labels": {"$patch": "replace", "only": "this", "gone": None}}},
        ("metadata", "labels"),
        {"only": "this"},
    ),
    ("map_directive_delete", {"metadata": {"labels": {"$patch": "delete"}}},
     ("metadata", "labels"), {}),
    (
        "list_item_directive_delete",
        {"spec": {"containers": [{"name": "c1", "$patch": "delete"}]}},
        ("spec", "containers"),
        [{"name": "c2", "image": "i2"}],
    ),
    (
        "list_directive_replace",
        {"spec": {"containers": [{"name": "only"}, {"$patch": "replace"}]}},
        ("spec", "containers"),
        [{"name": "only"}],
    ),
    (
        "set_element_order_reorders_object_list",
        {"spec": {"$setElementOrder/containers": [{"name": "c2"}, {"name": "c1"}]}},
        ("spec", "containers"),
        [{"name": "c2", "image": "i2"}, {"name": "c1", "image": "i1", "args": ["x", "y"]}],
    ),
    (
        "set_element_order_places_new_item",
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "c1"}, {"name": "c3"}, {"name": "c2"}],
                "containers": [{"name": "c3", "image": "i3"}],
            }
        },
        ("spec", "containers"),
        [BASE["spec"]["containers"][0], {"name": "c3", "image": "i3"},
         BASE["spec"]["containers"][1]],
    ),
    (
        "set_element_order_reorders_primitive_list",
        {"metadata": {"$setElementOrder/finalizers": ["b", "a"]}},
        ("metadata", "finalizers"),
        ["b", "a"],
    ),
    (
        "retain_keys_clears_unlisted_fields",
        {"spec": {"volumes": [{"name": "v", "emptyDir": {}, "$retainKeys": ["emptyDir", "name"]}]}},
        ("spec", "volumes"),
        [{"name": "v", "emptyDir": {}}],
    ),
    (
        "delete_from_primitive_list",
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}},
        ("metadata", "finalizers"),
        ["b"],
    ),
    (
        "delete_from_absent_primitive_list_is_a_no_op",
        {"spec": {"$deleteFromPrimitiveList/nodeSelector": ["a"]}},
        ("spec",),
        BASE["spec"],
    ),
    (
        "new_value_is_cleaned_of_nulls_and_directives",
        {"spec": {"nodeSelector": {"a": "1", "b": None, "$retainKeys": ["a"]}}},
        ("spec", "nodeSelector"),
        {"a": "1"},
    ),
    (
        "new_map_with_patch_directive_is_dropped_like_upstream",
        {"spec": {"nodeSelector": {"$patch": "replace", "a": "1"}}},
        ("spec",),
        BASE["spec"],
    ),
    (
        "new_list_item_cleaned",
        {"spec": {"containers": [{"name": "c9", "image": None}]}},
        ("spec", "containers", 0),
        {"name": "c9"},
    ),
    ("type_change_replaces", {"spec": {"tolerations": "none"}}, ("spec", "tolerations"), "none"),
]


def _dig(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@pytest.mark.parametrize(("patch", "path", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_strategic_merge(patch: Any, path: tuple[str | int, ...], expected: Any) -> None:
    assert _dig(patched(patch), path) == expected


ERRORS: list[tuple[str, Any, int, str]] = [
    ("item_missing_merge_key", {"spec": {"containers": [{"image": "x"}]}}, 400,
     "map: map[image:x] does not contain declared merge key: name"),
    ("unknown_map_directive", {"metadata": {"labels": {"$patch": "explode"}}}, 400,
     "unknown patch type: explode in map: map[$patch:explode]"),
    ("non_string_directive", {"metadata": {"labels": {"$patch": 1}}}, 400,
     "unknown patch type: %!s(float64=1) in map: map[$patch:1]"),
    ("merge_directive_in_list", {"spec": {"containers": [{"name": "a", "$patch": "merge"}]}}, 400,
     "merging lists cannot yet be specified in the patch"),
    ("retain_keys_not_a_list", {"spec": {"$retainKeys": "x"}}, 400,
     "invalid patch format of retainKeys"),
    ("patch_key_missing_from_retain_keys", {"spec": {"$retainKeys": ["x"], "nodeName": "n"}}, 400,
     "invalid patch format of retainKeys"),
    ("set_element_order_bad_prefix", {"spec": {"$setElementOrderX/containers": []}}, 400,
     "invalid patch format of setElementOrder list"),
    ("delete_list_bad_prefix", {"spec": {"$deleteFromPrimitiveListX/a": []}}, 400,
     "invalid patch format of primitive list"),
    ("set_element_order_not_a_list", {"spec": {"$setElementOrder/containers": "x"}}, 400,
     "expected a []interface {}, but received a string"),
    (
        "set_element_order_disagrees_with_patch",
        {"spec": {"$setElementOrder/containers": [{"name": "c1"}],
                  "containers": [{"name": "c2", "image": "z"}]}},
        400,
        "the order in patch list:\n[map[image:z name:c2]]\n doesn't match $setElementOrder "
        "list:\n[map[name:c1]]",
    ),
    ("mixed_element_types", {"metadata": {"finalizers": [1]}}, 400,
     "list element types are not identical: [[a b] [1]]"),
    ("list_of_lists", {"spec": {"grid": [[1]]}}, 422,
     "the server rejected our request due to an error in our request"),
    ("body_not_an_object", [1], 400,
     "json: cannot unmarshal array into Go value of type map[string]interface {}"),
]


@pytest.mark.parametrize(("patch", "code", "message"), [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_strategic_merge_errors(patch: Any, code: int, message: str) -> None:
    original = copy.deepcopy(BASE)
    original["spec"]["grid"] = [[0]]
    with pytest.raises(PatchError) as caught:
        strategic_merge_patch(original, patch, SCHEMA)
    assert (caught.value.code, caught.value.message) == (code, message)


def test_list_of_lists_keeps_reason_in_detail() -> None:
    original = {"spec": {"containers": [], "grid": [[0]]}}
    with pytest.raises(PatchError) as caught:
        strategic_merge_patch(original, {"spec": {"grid": [[1]]}}, SCHEMA)
    assert caught.value.detail == "lists of lists are not supported"
    assert caught.value.reason == "Invalid"


def test_inputs_are_never_modified() -> None:
    original = copy.deepcopy(BASE)
    patch = {
        "metadata": {"labels": {"app": None}, "$deleteFromPrimitiveList/finalizers": ["a"]},
        "spec": {
            "$setElementOrder/containers": [{"name": "c2"}, {"name": "c1"}],
            "containers": [{"name": "c1", "image": "z", "$patch": "replace"}],
        },
    }
    patch_copy = copy.deepcopy(patch)
    strategic_merge_patch(original, patch, SCHEMA)
    assert original == BASE
    assert patch == patch_copy


def test_untouched_subtrees_are_shared() -> None:
    result = patched({"metadata": {"labels": {"app": "x"}}})
    assert result["spec"] is BASE["spec"]
    assert result["status"] is BASE["status"]
    assert result["metadata"]["ownerReferences"] is BASE["metadata"]["ownerReferences"]


def test_null_patch_is_a_no_op() -> None:
    assert strategic_merge_patch(BASE, None, SCHEMA) is BASE


def test_retain_keys_with_list_order_and_deletions_together() -> None:
    result = patched(
        {
            "metadata": {
                "$setElementOrder/finalizers": ["b", "z"],
                "finalizers": ["z"],
                "$deleteFromPrimitiveList/finalizers": ["a"],
            }
        }
    )
    assert result["metadata"]["finalizers"] == ["b", "z"]


def test_nested_merge_inside_list_item() -> None:
    original = {"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}]}]}}
    patch = {"spec": {"containers": [{"name": "c", "env": [{"name": "B", "value": "2"}]}]}}
    result = strategic_merge_patch(original, patch, SCHEMA)
    assert names(result["spec"]["containers"][0]["env"]) == ["B", "A"]
