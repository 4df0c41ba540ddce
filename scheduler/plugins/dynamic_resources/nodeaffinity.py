"""Node selector matching (core/v1 ``NodeSelector``) for slices, devices and pools.

Same rules as component-helpers' ``nodeaffinity``: terms are ORed, requirements inside a term
ANDed; ``matchFields`` supports only ``metadata.name``. An unknown operator is an error, which the
allocator reports as fatal, like upstream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from fakeapi.scheduler.plugins.dynamic_resources.errors import AllocationError

__all__ = ["Node", "NodeLike", "node_selector_matches", "node_selector_term_matches"]


class NodeLike(Protocol):
    """What selector matching reads of a node (the allocator's :class:`Node`, the scheduler's
    NodeInfo)."""

    @property
    def name(self) -> str: ...

    @property
    def labels(self) -> Mapping[str, str]: ...


@dataclass(frozen=True, slots=True)
class Node:
    """The node an allocation is attempted for."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def _requirement_matches(req: Mapping[str, object], value: str | None) -> bool:
    operator = req.get("operator")
    values = req.get("values") or []
    assert isinstance(values, list)
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt"):
        if value is None or len(values) != 1:
            return False
        try:
            have, want = int(value), int(str(values[0]))
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    raise AllocationError(
        f'failed to parse node selector: "{operator}" is not a valid label selector operator'
    )


def node_selector_term_matches(term: Mapping[str, object], node: NodeLike) -> bool:
    """One ``NodeSelectorTerm``: its requirements ANDed; a term without any matches nothing."""
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    assert isinstance(expressions, list) and isinstance(fields, list)
    if not expressions and not fields:
        return False
    for req in expressions:
        if not _requirement_matches(req, node.labels.get(str(req.get("key")))):
            return False
    for req in fields:
        if req.get("key") != "metadata.name":
            return False
        if not _requirement_matches(req, node.name):
            return False
    return True


def node_selector_matches(selector: Mapping[str, object], node: NodeLike) -> bool:
    """True when any term of ``selector`` (a ``NodeSelector`` dict) matches ``node``."""
    terms = selector.get("nodeSelectorTerms") or []
    assert isinstance(terms, Sequence)
    return any(node_selector_term_matches(term, node) for term in terms)
