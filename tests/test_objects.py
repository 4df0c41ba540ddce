"""The shared object helpers: keys, defensive lookups, private copies."""

from __future__ import annotations

from fakeapi.objects import as_dict, as_list, deep_copy, key_for, object_key


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
