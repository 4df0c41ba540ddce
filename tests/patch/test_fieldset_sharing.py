"""Field-set algebra shares what did not change, and decoding/encoding is memoised safely.

Every write re-derives managedFields, so the algebra returns an operand itself when the result
equals it and decoded sets are cached by content. These tests pin that the sharing never changes a
result: equal content decodes to equal sets, and a cached set encodes to the same FieldsV1.
"""

from __future__ import annotations

from fakeapi.patch.fieldset import FieldSet

SPEC_IMAGE = ("f:spec", 'k:{"name":"app"}', "f:image")
STATUS_PHASE = ("f:status", "f:phase")


def test_union_with_a_subset_is_the_set_itself_and_with_new_paths_a_new_set() -> None:
    owned = FieldSet.from_paths(SPEC_IMAGE, STATUS_PHASE)
    assert owned.union(FieldSet.from_paths(STATUS_PHASE)) is owned
    grown = owned.union(FieldSet.from_paths(("f:status", "f:podIP")))
    assert grown is not owned
    assert set(grown.paths()) == {SPEC_IMAGE, STATUS_PHASE, ("f:status", "f:podIP")}
    assert set(owned.paths()) == {SPEC_IMAGE, STATUS_PHASE}


def test_difference_without_common_paths_is_the_set_itself() -> None:
    owned = FieldSet.from_paths(SPEC_IMAGE)
    assert owned.difference(FieldSet.from_paths(STATUS_PHASE)) is owned
    assert owned.difference(FieldSet.from_paths(("f:spec", "f:nodeName"))) is owned
    assert owned.difference(FieldSet.from_paths(SPEC_IMAGE)).is_empty()


def test_recursive_difference_touching_nothing_is_the_set_itself() -> None:
    owned = FieldSet.from_paths(SPEC_IMAGE, ("f:metadata", "f:labels"))
    # a status write's reset fields (the spec) hold nothing of a status owner's set
    status_owner = FieldSet.from_paths(STATUS_PHASE)
    assert status_owner.recursive_difference(FieldSet.from_paths(("f:spec",))) is status_owner
    # paths below one of the set's leaves are not the leaf: nothing goes
    labels = FieldSet.from_paths(("f:labels",))
    assert labels.recursive_difference(FieldSet.from_paths(("f:labels", "f:app"))) is labels
    rest = owned.recursive_difference(FieldSet.from_paths(("f:spec",)))
    assert rest is not owned
    assert set(rest.paths()) == {("f:metadata", "f:labels")}
    assert set(owned.paths()) == {SPEC_IMAGE, ("f:metadata", "f:labels")}


def test_equal_fields_v1_decode_to_equal_sets_that_encode_back_identically() -> None:
    encoded = FieldSet.from_paths(SPEC_IMAGE, STATUS_PHASE).to_fields_v1()
    first = FieldSet.from_fields_v1(encoded)
    second = FieldSet.from_fields_v1({**encoded})
    assert first == second == FieldSet.from_paths(SPEC_IMAGE, STATUS_PHASE)
    assert first.to_fields_v1() == second.to_fields_v1() == encoded


def test_a_non_canonical_spelling_still_encodes_canonically() -> None:
    sent = {"f:spec": {'k:{ "name" : "app" }': {"f:image": {}}}}
    decoded = FieldSet.from_fields_v1(sent)
    assert decoded.to_fields_v1() == {"f:spec": {'k:{"name":"app"}': {"f:image": {}}}}
