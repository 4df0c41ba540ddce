"""The shared object helpers: keys, defensive lookups, private copies."""

from __future__ import annotations

from fakeapi.objects import (
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    dig,
    is_controlled_by,
    is_deleting,
    key_for,
    meta,
    object_key,
    owner_uids,
    text,
)


def test_namespaced_objects_are_keyed_namespace_slash_name() -> None:
    assert object_key({"metadata": {"namespace": "ns", "name": "a"}}) == "ns/a"
    assert key_for("ns", "a") == "ns/a"


def test_cluster_scoped_objects_are_keyed_by_name() -> None:
    assert object_key({"metadata": {"name": "node-1"}}) == "node-1"
    assert key_for(None, "node-1") == key_for("", "node-1") == "node-1"


def test_as_dict_returns_the_value_itself_or_a_fresh_empty_dict() -> None:
    inner = {"a": 1}
    assert as_dict(inner) is inner
    first, second = as_dict(None), as_dict(["not", "a", "dict"])
    assert first == second == {} and first is not second


def test_as_list_returns_the_value_itself_or_a_fresh_empty_list() -> None:
    inner = [1]
    assert as_list(inner) is inner
    assert as_list({"a": 1}) == [] and as_list(None) is not as_list(None)


def test_deep_copy_shares_nothing_with_the_original() -> None:
    original = {"metadata": {"labels": {"a": "1"}}, "spec": {"items": [{"x": 1}]}}
    copied = deep_copy(original)
    assert copied == original
    copied["metadata"]["labels"]["a"] = "2"
    copied["spec"]["items"][0]["x"] = 2
    assert original == {"metadata": {"labels": {"a": "1"}}, "spec": {"items": [{"x": 1}]}}


def test_dig_walks_mappings_and_stops_at_the_first_missing_level() -> None:
    obj = {"spec": {"template": {"metadata": {"labels": {"app": "a"}}}, "replicas": None}}
    assert dig(obj, "spec", "template", "metadata", "labels") == {"app": "a"}
    assert dig(obj, "spec", "replicas", "anything") is None
    assert dig(obj, "status", "phase") is None
    assert dig(["not", "a", "mapping"], "spec") is None
    assert dig(obj) is obj


def test_text_is_a_string_fields_value_or_empty() -> None:
    assert text("Running") == "Running"
    assert text(None) == text(3) == text({"a": 1}) == ""


def test_meta_reads_metadata_defensively() -> None:
    assert meta({"metadata": {"name": "a"}}) == {"name": "a"}
    assert meta({}) == meta({"metadata": None}) == {}
    assert is_deleting({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}})
    assert not is_deleting({"metadata": {"name": "a"}})


def test_owner_references_are_read_as_apimachinery_reads_them() -> None:
    owned = {
        "metadata": {
            "ownerReferences": [
                {"kind": "ReplicaSet", "name": "rs", "uid": "u-rs"},
                {"kind": "Pod", "name": "p", "uid": "u-pod", "controller": True},
            ]
        }
    }
    assert controller_ref(owned) == {"kind": "Pod", "name": "p", "uid": "u-pod", "controller": True}
    assert is_controlled_by(owned, owner_uid="u-pod")
    assert not is_controlled_by(owned, owner_uid="u-rs")  # an owner, but not the controller
    assert not is_controlled_by({"metadata": {}}, owner_uid="")
    assert owner_uids(owned) == ["u-rs", "u-pod"]
    assert controller_ref({"metadata": {"ownerReferences": None}}) is None
