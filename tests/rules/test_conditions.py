"""Guard for fakeapi.rules.conditions: apimachinery's condition tables over the shared helpers.

Cases come from ``k8s.io/apimachinery/pkg/api/meta/conditions_test.go`` (TestSetStatusCondition,
TestFindStatusCondition, TestIsStatusConditionPresentAndEqual); the transition time a change
writes is the ``now`` the caller passes (upstream's supplied ``LastTransitionTime``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.rules.conditions import (
    find_status_condition,
    is_status_condition_true,
    set_status_condition,
)
from fakeapi.timefmt import format_time

BEFORE = datetime(2026, 1, 1, 11, tzinfo=UTC)
NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)

Obj = dict[str, Any]


def _c(type_: str, status: str = "", at: datetime | None = None, **rest: Any) -> Obj:
    out: Obj = {"type": type_}
    if status:
        out["status"] = status
    if at is not None:
        out["lastTransitionTime"] = format_time(at)
    return out | rest


# (description, conditions, condition to set (type, status, reason, message, generation), result)
SET_CASES = [
    ("should-add", [_c("first"), _c("third")], ("second", "True", "reason", "message", None),
     [_c("first"), _c("third"),
      _c("second", "True", NOW, reason="reason", message="message")]),
    ("use-supplied-time", [_c("first"), _c("second", "False"), _c("third")],
     ("second", "True", "reason", "message", None),
     [_c("first"), _c("second", "True", NOW, reason="reason", message="message"), _c("third")]),
    ("update-fields", [_c("first"), _c("second", "True", BEFORE), _c("third")],
     ("second", "True", "reason", "message", 3),
     [_c("first"),
      _c("second", "True", BEFORE, reason="reason", message="message", observedGeneration=3),
      _c("third")]),
    ("nothing changes", [_c("type", "True", BEFORE, reason="", message="")],
     ("type", "True", "", "", None), [_c("type", "True", BEFORE, reason="", message="")]),
]


@pytest.mark.parametrize(("description", "conditions", "wanted", "expected"), SET_CASES)
def test_set_status_condition_follows_upstreams_table(
    description: str,
    conditions: list[Obj],
    wanted: tuple[str, str, str, str, int | None],
    expected: list[Obj],
) -> None:
    type_, status, reason, message, generation = wanted
    before = [dict(c) for c in conditions]
    result = set_status_condition(conditions, type=type_, status=status, reason=reason,
                                  message=message, now=NOW, observed_generation=generation)
    assert result == expected, description
    assert conditions == before  # the input list and its conditions are left as they were


def test_find_and_test_status_conditions() -> None:
    """TestFindStatusCondition and TestIsStatusConditionPresentAndEqual."""
    assert find_status_condition([_c("first")], "second") is None
    assert find_status_condition([_c("first"), _c("second")], "second") == _c("second")
    assert not is_status_condition_true([_c("first", "Unknown")], "first")
    assert is_status_condition_true([_c("first", "True")], "first")
    assert not is_status_condition_true([_c("first", "False")], "first")
    assert not is_status_condition_true([], "first")
