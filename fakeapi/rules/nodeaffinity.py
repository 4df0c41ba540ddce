"""Node selectors and required node affinity (component-helpers ``scheduling/corev1/nodeaffinity``).

One implementation of core/v1 ``NodeSelector`` matching for every reader: the scheduler's
NodeAffinity and PodTopologySpread plugins, the DRA allocator (slices, devices and allocations
name their nodes this way) and the kubelet's admission of a claim allocated for its node.

As upstream: terms are ORed, a term's requirements ANDed; a term without requirements matches
nothing (and is not even parsed); ``matchExpressions`` are label requirements, ``matchFields``
field requirements of which a node has only ``metadata.name`` (``In`` and ``NotIn`` with exactly
one value; an unknown field reads as the empty string; a node without a name skips them). A
requirement upstream's ``NewRequirement`` would refuse — an unknown operator, ``In``/``NotIn``
without values, ``Exists``/``DoesNotExist`` with values, ``Gt``/``Lt`` without exactly one integer,
an invalid label key or value — is a parse error of its term, with upstream's field path and
message. What a parse error means depends on the reader, as upstream has two constructors:

- ``NewLazyErrorNodeSelector`` (the scheduler, the kubelet): a term with a parse error matches
  no node, the other terms still may — :meth:`NodeSelector.matches`;
- ``NewNodeSelector`` (the DRA allocator): any parse error fails the whole selector —
  :meth:`NodeSelector.check` raises :class:`NodeSelectorError` before matching.

Selectors are parsed once into compiled label selectors (:mod:`fakeapi.selectors`), and parsed
selectors are memoised by their JSON, so matching per pod × node costs a loop over a few tuples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from fakeapi.selectors.errors import (
    aggregate_errors,
    go_quote,
    invalid_value,
    label_key_errors,
    label_value_errors,
)
from fakeapi.selectors.requirements import (
    DOES_NOT_EXIST,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
    LabelSelector,
    Requirement,
)

__all__ = [
    "NodeSelector",
    "NodeSelectorError",
    "NodeSelectorTerm",
    "RequiredNodeAffinity",
    "node_selector",
    "node_selector_term",
    "required_node_affinity",
]

#: core/v1 operator → the label selector's, in upstream's order (it lists them in messages)
_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
    "Gt": GREATER_THAN,
    "Lt": LESS_THAN,
}
_FIELD_OPERATORS = ("In", "NotIn")
_NAME_FIELD = "metadata.name"


class NodeSelectorError(ValueError):
    """A node selector upstream's ``NewNodeSelector`` refuses; ``str()`` is its aggregate."""


def _supported(path: str, value: object, supported: Sequence[str]) -> str:
    shown = go_quote(value) if isinstance(value, str) else orjson.dumps(value).decode()
    listed = ", ".join(go_quote(s) for s in supported)
    return f"{path}: Unsupported value: {shown}: supported values: {listed}"


def _go_int64_ok(text: str) -> bool:
    """strconv.ParseInt(text, 10, 64) succeeds."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return body.isdigit() and body.isascii() and -(1 << 63) <= int(text) < (1 << 63)


def _label_requirement(raw: Any, path: str, errors: list[str]) -> Requirement | None:
    """One ``matchExpressions`` entry as a label requirement (upstream's NewRequirement checks);
    None, with the reasons in ``errors``, when it does not parse."""
    raw = raw if isinstance(raw, Mapping) else {}
    operator = raw.get("operator")
    op = _OPERATORS.get(operator) if isinstance(operator, str) else None
    if op is None:
        errors.append(_supported(f"{path}.operator", operator or "", list(_OPERATORS)))
        return None
    key = str(raw.get("key") or "")
    values = [str(v) for v in raw.get("values") or ()]
    found: list[str] = []
    if key_errors := label_key_errors(key):
        found.append(invalid_value(f"{path}.key", key, "; ".join(key_errors)))
    if op in (IN, NOT_IN):
        if not values:
            found.append(invalid_value(f"{path}.values", None,
                                       "for 'in', 'notin' operators, values set can't be empty"))
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            found.append(invalid_value(f"{path}.values", values,
                                       "values set must be empty for exists and does not exist"))
    else:
        if len(values) != 1:
            found.append(invalid_value(f"{path}.values", values or None,
                                       "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, value in enumerate(values):
            if not _go_int64_ok(value):
                found.append(invalid_value(
                    f"{path}.values[{i}]", value,
                    "for 'Gt', 'Lt' operators, the value must be an integer",
                ))
    for i, value in enumerate(values):
        if value_errors := label_value_errors(value):
            found.append(invalid_value(f"{path}.values[{i}][{key}]", value,
                                       "; ".join(value_errors)))
    if found:
        errors.extend(found)
        return None
    return Requirement(key, op, values)


def _field_requirement(raw: Any, path: str, errors: list[str]) -> tuple[str, bool, str] | None:
    """One ``matchFields`` entry as (field, wants equal, value)."""
    raw = raw if isinstance(raw, Mapping) else {}
    operator = raw.get("operator")
    values = [str(v) for v in raw.get("values") or ()]
    if not isinstance(operator, str) or operator not in _FIELD_OPERATORS:
        errors.append(_supported(f"{path}.operator", operator or "", _FIELD_OPERATORS))
        return None
    if len(values) != 1:
        errors.append(invalid_value(f"{path}.values", values or None, "must have one element"))
        return None
    return str(raw.get("key") or ""), operator == "In", values[0]


class NodeSelectorTerm:
    """One parsed ``NodeSelectorTerm`` (upstream's ``nodeSelectorTerm``)."""

    __slots__ = ("errors", "fields", "labels")

    def __init__(self, term: Mapping[str, Any], path: str = "") -> None:
        errors: list[str] = []
        self.labels: LabelSelector | None = None
        #: (field, wants equal, value) for each ``matchFields`` entry; None without any
        self.fields: tuple[tuple[str, bool, str], ...] | None = None
        expressions = term.get("matchExpressions") or ()
        if expressions:
            requirements = [
                _label_requirement(raw, f"{path}matchExpressions[{i}]", errors)
                for i, raw in enumerate(expressions)
            ]
            self.labels = LabelSelector(r for r in requirements if r is not None)
        fields = term.get("matchFields") or ()
        if fields:
            parsed = [
                _field_requirement(raw, f"{path}matchFields[{i}]", errors)
                for i, raw in enumerate(fields)
            ]
            self.fields = tuple(f for f in parsed if f is not None)
        #: upstream's parse errors of this term (it then matches no node)
        self.errors: tuple[str, ...] = tuple(errors)

    def matches(self, *, name: str, labels: Mapping[str, str]) -> bool:
        """Whether the node matches; a term that did not parse matches none."""
        if self.errors:
            return False
        if self.labels is not None and not self.labels.matches(labels):
            return False
        if self.fields is not None and name:
            for field, equal, value in self.fields:
                if ((name if field == _NAME_FIELD else "") == value) is not equal:
                    return False
        return True


def _is_empty(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


class NodeSelector:
    """A parsed ``NodeSelector``: its non-empty terms, ORed."""

    __slots__ = ("errors", "terms")

    def __init__(self, terms: Sequence[Mapping[str, Any]], *, path: str = "nodeSelectorTerms"):
        self.terms: tuple[NodeSelectorTerm, ...] = tuple(
            NodeSelectorTerm(term, f"{path}[{i}].")
            for i, term in enumerate(terms)
            if isinstance(term, Mapping) and not _is_empty(term)
        )
        #: every term's parse errors, in order
        self.errors: tuple[str, ...] = tuple(e for t in self.terms for e in t.errors)

    def matches(self, *, name: str, labels: Mapping[str, str]) -> bool:
        """``LazyErrorNodeSelector.Match``: any term matches (terms that did not parse never do)."""
        for term in self.terms:  # noqa: SIM110 - a loop: no generator per pod × node
            if term.matches(name=name, labels=labels):
                return True
        return False

    def check(self) -> None:
        """Raise :class:`NodeSelectorError` when a term did not parse (``NewNodeSelector``)."""
        if self.errors:
            raise NodeSelectorError(aggregate_errors(self.errors))


#: parsed selectors by their JSON: pods from one template and slices of one driver repeat them
_PARSED: dict[bytes, NodeSelector] = {}
_PARSED_LIMIT = 4096


def node_selector(selector: Mapping[str, Any]) -> NodeSelector:
    """The parsed form of a ``NodeSelector`` object (``{nodeSelectorTerms: [...]}``)."""
    terms = selector.get("nodeSelectorTerms") or ()
    try:
        key = orjson.dumps(terms)
    except TypeError:
        return NodeSelector(terms)
    parsed = _PARSED.get(key)
    if parsed is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        parsed = _PARSED[key] = NodeSelector(terms)
    return parsed


def node_selector_term(term: Mapping[str, Any]) -> NodeSelectorTerm | None:
    """One parsed term (a preferred scheduling term's ``preference``); None for an empty term,
    which matches nothing."""
    parsed = node_selector({"nodeSelectorTerms": [term]})
    return parsed.terms[0] if parsed.terms else None


class RequiredNodeAffinity:
    """A pod's ``spec.nodeSelector`` and required node affinity (``GetRequiredNodeAffinity``)."""

    __slots__ = ("affinity", "node_selector")

    def __init__(
        self, node_selector_labels: Mapping[str, str], affinity: NodeSelector | None
    ) -> None:
        self.node_selector = node_selector_labels
        self.affinity = affinity

    @property
    def empty(self) -> bool:
        """No constraint at all: every node matches."""
        return not self.node_selector and self.affinity is None

    def matches(self, *, name: str, labels: Mapping[str, str]) -> bool:
        for key, value in self.node_selector.items():
            if labels.get(key) != value:
                return False
        return self.affinity is None or self.affinity.matches(name=name, labels=labels)


def required_node_affinity(pod: Mapping[str, Any]) -> RequiredNodeAffinity:
    """The pod's required node constraints, parsed once for matching against many nodes."""
    spec = pod.get("spec") or {}
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    return RequiredNodeAffinity(
        spec.get("nodeSelector") or {},
        None if required is None else node_selector(required),
    )
