"""Guards for the small workload rules: int-or-percent counts, template hashes, controller refs.

``scaled_value`` follows apimachinery's ``GetScaledValueFromIntOrPercent`` table; the template hash
is stable, changes with the collision count and ignores nothing but what ``EqualIgnoreHash``
ignores; ``claim_action`` follows the ControllerRefManager's adopt/release rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.controllerref import claim_action, new_controller_ref
from fakeapi.rules.intstr import scaled_value
from fakeapi.rules.templatehash import (
    POD_TEMPLATE_HASH_LABEL,
    equal_ignore_hash,
    safe_encode,
    template_hash,
)

# (value, total, round up, expected)
SCALED = [
    (5, 10, True, 5),
    ("25%", 10, True, 3),
    ("25%", 10, False, 2),
    ("100%", 7, False, 7),
    ("0%", 7, True, 0),
    ("33%", 3, True, 1),
    ("33%", 3, False, 0),
]


@pytest.mark.parametrize(("value", "total", "round_up", "expected"), SCALED)
def test_counts_scale_from_integers_or_percentages(
    value: int | str, total: int, round_up: bool, expected: int
) -> None:
    assert scaled_value(value, total, round_up=round_up) == expected


def test_a_string_that_is_no_percentage_is_refused() -> None:
    with pytest.raises(ValueError):
        scaled_value("five", 10, round_up=True)


TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def test_template_hashes_are_stable_safe_and_depend_on_the_collision_count() -> None:
    first = template_hash(TEMPLATE)
    assert first == template_hash({"spec": TEMPLATE["spec"], "metadata": TEMPLATE["metadata"]})
    assert set(first) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert template_hash(TEMPLATE, 1) != first
    assert safe_encode("0123") == "4567"  # each byte into the alphabet, as SafeEncodeString


def test_templates_equal_but_for_the_hash_label_are_one_revision() -> None:
    hashed = {**TEMPLATE, "metadata": {"labels": {"app": "web", POD_TEMPLATE_HASH_LABEL: "x"}}}
    assert equal_ignore_hash(TEMPLATE, hashed)
    other = {**TEMPLATE, "spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}
    assert not equal_ignore_hash(TEMPLATE, other)


OWNER = {"metadata": {"name": "web", "uid": "owner-uid"}}


def _obj(*, controller: str | None = None, labels: dict[str, str] | None = None,
         deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "p", "labels": labels or {"app": "web"}}
    if controller:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                    "name": "x", "uid": controller, "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta}


# (description, object, owner being deleted, action)
CLAIMS = [
    ("ours and selected", _obj(controller="owner-uid"), False, "keep"),
    ("ours, no longer selected", _obj(controller="owner-uid", labels={"app": "db"}), False,
     "release"),
    ("ours, not selected, owner going", _obj(controller="owner-uid", labels={"app": "db"}), True,
     "ignore"),
    ("another controller's", _obj(controller="other"), False, "ignore"),
    ("an orphan the selector matches", _obj(), False, "adopt"),
    ("an orphan being deleted", _obj(deleting=True), False, "ignore"),
    ("an orphan, owner going", _obj(), True, "ignore"),
    ("an orphan the selector does not match", _obj(labels={"app": "db"}), False, "ignore"),
]


@pytest.mark.parametrize(("description", "obj", "owner_going", "action"), CLAIMS)
def test_what_an_owner_does_with_what_its_selector_finds(
    description: str, obj: dict[str, Any], owner_going: bool, action: str
) -> None:
    owner = {"metadata": {**OWNER["metadata"]}}
    if owner_going:
        owner["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    got = claim_action(owner, obj, matches=lambda labels: labels.get("app") == "web")
    assert got == action, description


def test_a_controller_reference_blocks_owner_deletion() -> None:
    assert new_controller_ref(OWNER, api_version="apps/v1", kind="ReplicaSet") == {
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "owner-uid",
        "controller": True, "blockOwnerDeletion": True,
    }
