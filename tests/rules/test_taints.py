"""Guard for fakeapi.rules.taints: upstream's toleration tables, run over the one shared rule.

Cases come from k8s.io/api core/v1 ``toleration_test.go`` (TestTolerationToleratesTaint,
TestCompareNumericValues), k8s.io/dynamic-resource-allocation ``devicetoleration_test.go``,
component-helpers ``scheduling/corev1/helpers_test.go`` (TestFindMatchingUntoleratedTaint) and
the taint-eviction controller's TestGetMinTolerationTime.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.taints import (
    device_toleration_tolerates_taint,
    find_untolerated_taint,
    minimum_toleration_seconds,
    toleration_tolerates_taint,
    tolerations_tolerate_taint,
)

NS, NE = "NoSchedule", "NoExecute"
SLA = "node.kubernetes.io/sla"


def _tol(key: str = "", operator: str = "", value: str = "", effect: str = "") -> dict[str, Any]:
    return {k: v for k, v in
            (("key", key), ("operator", operator), ("value", value), ("effect", effect)) if v}


def _taint(key: str, value: str = "", effect: str = NS) -> dict[str, Any]:
    return {k: v for k, v in (("key", key), ("value", value), ("effect", effect)) if v}


# (description, toleration, taint, tolerated) — both upstream tables share these six
SHARED_CASES = [
    ("same key and effect, Exists, taint without value",
     _tol("foo", "Exists", effect=NS), _taint("foo"), True),
    ("same key and effect, Exists, taint with a value",
     _tol("foo", "Exists", effect=NS), _taint("foo", "bar"), True),
    ("same effect, empty key with Exists matches every taint",
     _tol("", "Exists", effect=NS), _taint("foo", "bar"), True),
    ("same key, effect and value, Equal",
     _tol("foo", "Equal", "bar", NS), _taint("foo", "bar"), True),
    ("same key and effect, different values, Equal",
     _tol("foo", "Equal", "value1", NS), _taint("foo", "value2"), False),
    ("same key and value, different effects, Equal",
     _tol("foo", "Equal", "bar", NS), _taint("foo", "bar", NE), False),
]

# toleration_test.go's comparison-operator rows (TaintTolerationComparisonOperators on)
COMPARISON_CASES = [
    ("Gt, taint value below the toleration's", _tol(SLA, "Gt", "950", NS), _taint(SLA, "800"),
     False),
    ("Gt, taint value above the toleration's", _tol(SLA, "Gt", "750", NS), _taint(SLA, "950"),
     True),
    ("Lt, taint value above the toleration's", _tol(SLA, "Lt", "800", NS), _taint(SLA, "950"),
     False),
    ("Lt, taint value below the toleration's", _tol(SLA, "Lt", "950", NS), _taint(SLA, "800"),
     True),
    ("Gt, equal values", _tol(SLA, "Gt", "950", NS), _taint(SLA, "950"), False),
    ("Gt, non-numeric taint value", _tol(SLA, "Gt", "950", NS), _taint(SLA, "high"), False),
    ("Gt, negative values, taint below", _tol("test-key", "Gt", "-100", NS),
     _taint("test-key", "-200"), False),
    ("Gt, large int64 values, taint below", _tol("test-key", "Gt", "9223372036854775806", NS),
     _taint("test-key", "100"), False),
]

# TestCompareNumericValues: (toleration value, taint value, operator, tolerated)
NUMERIC_CASES = [
    ("100", "200", "Gt", True),
    ("200", "100", "Gt", False),
    ("100", "100", "Gt", False),
    ("-100", "-50", "Gt", True),
    ("-50", "-100", "Gt", False),
    ("0", "1", "Gt", True),
    ("9223372036854775806", "9223372036854775807", "Gt", True),
    ("200", "100", "Lt", True),
    ("100", "200", "Lt", False),
    ("100", "100", "Lt", False),
    ("-50", "-100", "Lt", True),
    ("-100", "-50", "Lt", False),
    ("0", "-1", "Lt", True),
    ("abc", "100", "Gt", False),
    ("", "100", "Gt", False),
    ("0100", "200", "Gt", False),
    ("+100", "200", "Gt", False),
    ("100.5", "200", "Gt", False),
    ("-", "100", "Gt", False),
    ("100", "xyz", "Gt", False),
    ("100", "", "Gt", False),
    ("100", "0200", "Gt", False),
]


@pytest.mark.parametrize(("description", "toleration", "taint", "tolerated"), SHARED_CASES)
def test_core_tolerations_follow_upstreams_table(
    description: str, toleration: dict[str, Any], taint: dict[str, Any], tolerated: bool
) -> None:
    assert toleration_tolerates_taint(toleration, taint) is tolerated, description


@pytest.mark.parametrize(("description", "toleration", "taint", "tolerated"), SHARED_CASES)
def test_device_tolerations_follow_upstreams_table(
    description: str, toleration: dict[str, Any], taint: dict[str, Any], tolerated: bool
) -> None:
    assert device_toleration_tolerates_taint(toleration, taint) is tolerated, description


@pytest.mark.parametrize(("description", "toleration", "taint", "tolerated"), COMPARISON_CASES)
def test_comparison_operators_compare_decimal_integers_when_enabled(
    description: str, toleration: dict[str, Any], taint: dict[str, Any], tolerated: bool
) -> None:
    assert toleration_tolerates_taint(
        toleration, taint, comparison_operators=True
    ) is tolerated, description
    # without the gate (fakeapi's feature table does not know it) they match nothing
    assert not toleration_tolerates_taint(toleration, taint)


@pytest.mark.parametrize(("toleration_value", "taint_value", "operator", "tolerated"),
                         NUMERIC_CASES)
def test_numeric_values_are_go_decimal_integers(
    toleration_value: str, taint_value: str, operator: str, tolerated: bool
) -> None:
    toleration = _tol("k", operator, toleration_value, NS)
    taint = {"key": "k", "value": taint_value, "effect": NS}
    assert toleration_tolerates_taint(toleration, taint, comparison_operators=True) is tolerated


def test_a_keyless_equal_toleration_tolerates_every_taint_with_its_value() -> None:
    """Validation accepts ``{operator: Equal, effect: NoExecute}`` without a key: it tolerates
    every NoExecute taint whose value is empty, for pods and devices alike."""
    keyless = {"operator": "Equal", "effect": NE}
    assert toleration_tolerates_taint(keyless, {"key": "example.com/fault", "effect": NE})
    assert device_toleration_tolerates_taint(keyless, {"key": "example.com/fault", "effect": NE})
    assert not toleration_tolerates_taint(keyless, _taint("example.com/fault", "ecc", NE))
    assert not toleration_tolerates_taint(keyless, _taint("example.com/fault", effect=NS))


def test_an_unknown_operator_tolerates_nothing() -> None:
    assert not toleration_tolerates_taint(_tol("foo", "Matches", "bar"), _taint("foo", "bar"))
    assert not device_toleration_tolerates_taint(_tol("foo", "Gt", "1"), _taint("foo", "2"))


# TestFindMatchingUntoleratedTaint: (description, tolerations, taints, effects, tolerated);
# effects None is "no filter", frozenset() a filter that takes no taint
UNTOLERATED_CASES = [
    ("empty tolerations tolerate empty taints", [], [], None, True),
    ("non-empty tolerations tolerate empty taints",
     [_tol("foo", "Exists", effect=NS)], [], None, True),
    ("tolerations match all taints",
     [_tol("foo", "Exists", effect=NS)], [_taint("foo")], None, True),
    ("tolerations don't match, but no taint passes the filter",
     [_tol("foo", "Exists", effect=NS)], [_taint("bar")], frozenset(), True),
    ("no filter: every taint applies, tolerations don't match",
     [_tol("foo", "Exists", effect=NS)], [_taint("bar")], None, False),
    ("tolerations match the taints of the filtered effect",
     [_tol("foo", "Exists", effect=NE)], [_taint("foo", effect=NE), _taint("bar")],
     frozenset({NE}), True),
]


@pytest.mark.parametrize(
    ("description", "tolerations", "taints", "effects", "tolerated"), UNTOLERATED_CASES
)
def test_find_untolerated_taint_follows_upstreams_table(
    description: str,
    tolerations: list[dict[str, Any]],
    taints: list[dict[str, Any]],
    effects: frozenset[str] | None,
    tolerated: bool,
) -> None:
    untolerated = find_untolerated_taint(taints, tolerations, effects=effects)
    assert (untolerated is None) is tolerated, description
    if not tolerated:
        assert untolerated is taints[0]


def test_tolerations_tolerate_a_taint_when_any_one_does() -> None:
    taint = _taint("foo", "bar")
    assert tolerations_tolerate_taint([_tol("baz", "Exists"), _tol("foo", "Exists")], taint)
    assert not tolerations_tolerate_taint([_tol("baz", "Exists"), _tol("foo", "Equal")], taint)
    assert not tolerations_tolerate_taint([], taint)


# TestGetMinTolerationTime: tolerationSeconds of each toleration → seconds (None: for ever)
MINIMUM_CASES = [
    ([], 0),
    ([None], None),
    ([1, 2], 1),
    ([1, None], 1),
    ([None, 1], 1),
    ([0, 30], 0),
    ([-5, 30], 0),
]


@pytest.mark.parametrize(("seconds", "expected"), MINIMUM_CASES)
def test_minimum_toleration_time_follows_upstreams_table(
    seconds: list[int | None], expected: int | None
) -> None:
    tolerations = [
        {"operator": "Exists"} | ({} if s is None else {"tolerationSeconds": s}) for s in seconds
    ]
    assert minimum_toleration_seconds(tolerations) == expected
