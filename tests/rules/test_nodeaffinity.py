"""Guard for fakeapi.rules.nodeaffinity: upstream's node selector tables over the shared rule.

Cases come from component-helpers ``scheduling/corev1/nodeaffinity/nodeaffinity_test.go``
(TestNodeSelectorMatch, TestPreferredSchedulingTermsScore, TestNodeSelectorRequirementsAsSelector,
TestPodMatchesNodeSelectorAndAffinityTerms) and ``scheduling/corev1/helpers_test.go``
(TestMatchNodeSelectorTerms), plus the kubelet's own admission cases.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.nodeaffinity import (
    NodeSelector,
    NodeSelectorError,
    node_selector,
    node_selector_term,
    required_node_affinity,
)

Obj = dict[str, Any]

KEY_DETAIL = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def _req(key: str, operator: str, *values: str) -> Obj:
    out: Obj = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def _term(*, expressions: list[Obj] | None = None, fields: list[Obj] | None = None) -> Obj:
    term: Obj = {}
    if expressions is not None:
        term["matchExpressions"] = expressions
    if fields is not None:
        term["matchFields"] = fields
    return term


NAME_IN_HOST_1 = _req("metadata.name", "In", "host_1")
LABEL_1 = _req("label_1", "In", "label_1_val")
INVALID_TERMS = [
    _term(fields=[_req("metadata.name", "In", "host_1", "host_2")]),
    _term(expressions=[LABEL_1], fields=[NAME_IN_HOST_1]),
    _term(expressions=[_req("invalid key", "In", "label_value")]),
]


def test_a_selector_with_terms_that_do_not_parse_reports_upstreams_errors() -> None:
    """TestNodeSelectorMatch "invalid field selector and label selector"."""
    parsed = node_selector({"nodeSelectorTerms": INVALID_TERMS})
    with pytest.raises(NodeSelectorError) as raised:
        parsed.check()
    assert str(raised.value) == (
        '[nodeSelectorTerms[0].matchFields[0].values: Invalid value: ["host_1","host_2"]: '
        "must have one element, "
        'nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: "invalid key": '
        f"{KEY_DETAIL}]"
    )
    # read lazily, the term that parses still matches
    assert parsed.matches(name="host_1", labels={"label_1": "label_1_val"})


# TestNodeSelectorMatch: (description, terms, node name, node labels, matches)
MATCH_CASES = [
    ("node matches field selector, but not labels",
     [_term(expressions=[LABEL_1], fields=[NAME_IN_HOST_1])], "host_1", {}, False),
    ("node matches field selector and label selector",
     [_term(expressions=[LABEL_1], fields=[NAME_IN_HOST_1])], "host_1",
     {"label_1": "label_1_val"}, True),
    ("second term matches",
     [_term(expressions=[LABEL_1]), _term(fields=[NAME_IN_HOST_1])], "host_1", {}, True),
]


@pytest.mark.parametrize(("description", "terms", "name", "labels", "matches"), MATCH_CASES)
def test_node_selectors_match_as_upstreams(
    description: str, terms: list[Obj], name: str, labels: dict[str, str], matches: bool
) -> None:
    parsed = node_selector({"nodeSelectorTerms": terms})
    parsed.check()
    assert parsed.matches(name=name, labels=labels) is matches, description


def test_preferred_terms_score_the_sum_of_the_weights_that_match() -> None:
    """TestPreferredSchedulingTermsScore "first and third term match" and the zero weight."""
    preferred = [
        (5, _term(fields=[NAME_IN_HOST_1])),
        (7, _term(expressions=[_req("unknown_label", "In", "unknown_label_val")])),
        (11, _term(expressions=[LABEL_1])),
    ]
    score = 0
    for weight, raw in preferred:
        term = node_selector_term(raw)
        assert term is not None
        if term.matches(name="host_1", labels={"label_1": "label_1_val"}):
            score += weight
    assert score == 16
    assert node_selector_term({}) is None  # an empty preference scores nothing


# TestNodeSelectorRequirementsAsSelector (path "root" there, the term's path here)
@pytest.mark.parametrize(
    ("requirement", "error"),
    [
        (_req("foo", "Exists", "bar", "baz"),
         'nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: ["bar","baz"]: '
         "values set must be empty for exists and does not exist"),
        (_req("baz", "invalid", "5"),
         'nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "invalid": '
         'supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'),
        (_req("foo", "NotIn"),
         "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: null: "
         "for 'in', 'notin' operators, values set can't be empty"),
        (_req("foo", "Gt", "one"),
         'nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "one": '
         "for 'Gt', 'Lt' operators, the value must be an integer"),
    ],
)
def test_requirements_upstream_refuses_are_parse_errors(requirement: Obj, error: str) -> None:
    parsed = node_selector({"nodeSelectorTerms": [_term(expressions=[requirement])]})
    assert parsed.errors == (error,)
    assert not parsed.matches(name="n", labels={"foo": "bar", "baz": "5"})


@pytest.mark.parametrize(
    ("requirement", "labels", "matches"),
    [
        (_req("foo", "In", "bar", "baz"), {"foo": "baz"}, True),
        (_req("foo", "Gt", "1"), {"foo": "2"}, True),
        (_req("bar", "Lt", "7"), {"bar": "7"}, False),
        (_req("bar", "Lt", "7"), {"bar": "seven"}, False),  # a label that is no integer
    ],
)
def test_requirements_that_parse_match_as_label_selectors(
    requirement: Obj, labels: dict[str, str], matches: bool
) -> None:
    parsed = node_selector({"nodeSelectorTerms": [_term(expressions=[requirement])]})
    assert parsed.errors == ()
    assert parsed.matches(name="n", labels=labels) is matches


def _affinity(*terms: Obj, selector: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}}
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"spec": spec}


def _selector_only(selector: dict[str, str]) -> Obj:
    return {"spec": {"nodeSelector": selector}}


# TestPodMatchesNodeSelectorAndAffinityTerms: (description, pod, node labels, node name, matches)
POD_CASES = [
    ("no selector", {}, {}, "", True),
    ("missing labels", _selector_only({"foo": "bar"}), {}, "", False),
    ("same labels", _selector_only({"foo": "bar"}), {"foo": "bar"}, "", True),
    ("node labels are superset", _selector_only({"foo": "bar"}),
     {"foo": "bar", "baz": "blah"}, "", True),
    ("node labels are subset", _selector_only({"foo": "bar", "baz": "blah"}),
     {"foo": "bar"}, "", False),
    ("In matches", _affinity(_term(expressions=[_req("foo", "In", "bar", "value2")])),
     {"foo": "bar"}, "", True),
    ("Gt matches", _affinity(_term(expressions=[_req("kernel-version", "Gt", "0204")])),
     {"kernel-version": "0206"}, "", True),
    ("NotIn matches", _affinity(_term(expressions=[_req("mem-type", "NotIn", "DDR", "DDR2")])),
     {"mem-type": "DDR3"}, "", True),
    ("Exists matches", _affinity(_term(expressions=[_req("GPU", "Exists")])),
     {"GPU": "NVIDIA-GRID-K1"}, "", True),
    ("affinity that doesn't match",
     _affinity(_term(expressions=[_req("foo", "In", "value1", "value2")])),
     {"foo": "bar"}, "", False),
    ("nil terms", {"spec": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": None}}}}},
     {"foo": "bar"}, "", False),
    ("empty terms", _affinity(), {"foo": "bar"}, "", False),
    ("empty matchExpressions", _affinity(_term(expressions=[])), {"foo": "bar"}, "", False),
    ("no affinity", {}, {"foo": "bar"}, "", True),
    ("affinity without a node selector",
     {"spec": {"affinity": {"nodeAffinity": {}}}}, {"foo": "bar"}, "", True),
    ("matchExpressions ANDed, matching",
     _affinity(_term(expressions=[_req("GPU", "Exists"), _req("GPU", "NotIn", "AMD", "INTER")])),
     {"GPU": "NVIDIA-GRID-K1"}, "", True),
    ("matchExpressions ANDed, not matching",
     _affinity(_term(expressions=[_req("GPU", "Exists"), _req("GPU", "In", "AMD", "INTER")])),
     {"GPU": "NVIDIA-GRID-K1"}, "", False),
    ("terms ORed", _affinity(_term(expressions=[_req("foo", "In", "bar", "value2")]),
                             _term(expressions=[_req("diffkey", "In", "wrong", "value2")])),
     {"foo": "bar"}, "", True),
    ("affinity and nodeSelector both satisfied",
     _affinity(_term(expressions=[_req("foo", "Exists")]), selector={"foo": "bar"}),
     {"foo": "bar"}, "", True),
    ("affinity satisfied, nodeSelector not",
     _affinity(_term(expressions=[_req("foo", "Exists")]), selector={"foo": "bar"}),
     {"foo": "barrrrrr"}, "", False),
    ("an invalid value in the term",
     _affinity(_term(expressions=[_req("foo", "NotIn", "invalid value: ___@#$%^")])),
     {"foo": "bar"}, "", False),
    ("matchFields In matches", _affinity(_term(fields=[_req("metadata.name", "In", "node_1")])),
     {}, "node_1", True),
    ("matchFields In does not match",
     _affinity(_term(fields=[_req("metadata.name", "In", "node_1")])), {}, "node_2", False),
    ("two terms: fields do not match, expressions do",
     _affinity(_term(fields=[_req("metadata.name", "In", "node_1")]),
               _term(expressions=[_req("foo", "In", "bar")])),
     {"foo": "bar"}, "node_2", True),
    ("one term: fields do not match, expressions do",
     _affinity(_term(fields=[_req("metadata.name", "In", "node_1")],
                     expressions=[_req("foo", "In", "bar")])),
     {"foo": "bar"}, "node_2", False),
    ("one term: both match",
     _affinity(_term(fields=[_req("metadata.name", "In", "node_1")],
                     expressions=[_req("foo", "In", "bar")])),
     {"foo": "bar"}, "node_1", True),
    ("two terms: neither matches",
     _affinity(_term(fields=[_req("metadata.name", "In", "node_1")]),
               _term(expressions=[_req("foo", "In", "not-match-to-bar")])),
     {"foo": "bar"}, "node_2", False),
]


@pytest.mark.parametrize(("description", "pod", "labels", "name", "matches"), POD_CASES)
def test_required_node_affinity_follows_upstreams_table(
    description: str, pod: Obj, labels: dict[str, str], name: str, matches: bool
) -> None:
    assert required_node_affinity(pod).matches(name=name, labels=labels) is matches, description


# helpers_test.go TestMatchNodeSelectorTerms (the rows not already above) and the kubelet's
# admission cases: (description, terms, node name, node labels, matches)
NODE = ("node-1", {"zone": "a", "gpus": "8"})
TERMS_CASES = [
    ("nil terms", [], *NODE, False),
    ("Gt against a label that is no integer",
     [_term(expressions=[_req("zone", "Gt", "1")])], *NODE, False),
    ("Lt", [_term(expressions=[_req("gpus", "Lt", "4")])], *NODE, False),
    ("DoesNotExist", [_term(expressions=[_req("rack", "DoesNotExist")])], *NODE, True),
    ("matchFields NotIn another node", [_term(fields=[_req("metadata.name", "NotIn", "n-2")])],
     *NODE, True),
    ("matchFields of a field a node does not have reads the empty string",
     [_term(fields=[_req("spec.podCIDR", "NotIn", "10.0.0.0/24")])], *NODE, True),
    ("an unknown operator: its term matches nothing, the next term may",
     [_term(expressions=[_req("zone", "Matches", "a")]),
      _term(expressions=[_req("zone", "In", "a")])], *NODE, True),
    ("field requirements are skipped for a node without a name",
     [_term(fields=[_req("metadata.name", "In", "node-1")])], "", {}, True),
]


@pytest.mark.parametrize(("description", "terms", "name", "labels", "matches"), TERMS_CASES)
def test_lazily_parsed_terms_match_as_upstreams(
    description: str, terms: list[Obj], name: str, labels: dict[str, str], matches: bool
) -> None:
    assert NodeSelector(terms).matches(name=name, labels=labels) is matches, description


def test_parsed_selectors_are_shared_by_their_json() -> None:
    raw = {"nodeSelectorTerms": [_term(expressions=[_req("zone", "In", "a")])]}
    assert node_selector(raw) is node_selector({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]})
