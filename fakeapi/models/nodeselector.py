"""core/v1 NodeSelector, as DRA uses it: in ResourceSlices, devices and allocation results.

It is defined here rather than with the Pod types so the resource.k8s.io models do not depend on
the core models being written at the same time; the Pod model may import these classes. The shape
and list semantics follow core/v1 (a selector's terms are ORed, a term's requirements ANDed, and a
term is replaced as a whole by patches).
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, atomic_list, atomic_map

__all__ = ["NodeSelector", "NodeSelectorTerm", "NodeSelectorRequirement"]


class NodeSelectorRequirement(K8sModel):
    """A key, an operator and values that a node's label or field must satisfy."""

    key: str
    """The label key (or, in matchFields, the field name) the requirement applies to."""
    operator: str
    """How the key relates to the values: In, NotIn, Exists, DoesNotExist, Gt or Lt."""
    values: Annotated[list[str] | None, atomic_list()] = None
    """Values to compare with; one integer for Gt/Lt, empty for Exists/DoesNotExist."""


class NodeSelectorTerm(K8sModel):
    """Requirements that must all hold for a node to match; an empty term matches nothing."""

    match_expressions: Annotated[list[NodeSelectorRequirement] | None, atomic_list()] = None
    """Requirements on node labels."""
    match_fields: Annotated[list[NodeSelectorRequirement] | None, atomic_list()] = None
    """Requirements on node fields (only metadata.name is supported)."""


class NodeSelector(K8sModel):
    """Selects nodes: a node matches when it matches any of the terms."""

    node_selector_terms: Annotated[list[Annotated[NodeSelectorTerm, atomic_map()]], atomic_list()]
    """The terms, ORed together."""
