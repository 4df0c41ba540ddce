"""rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding and ClusterRoleBinding.

Stored and validated as upstream; nothing enforces them yet (fakeapi authorizes every request).
A ClusterRole with an ``aggregationRule`` has its ``rules`` filled in by the clusterrole
aggregation controller from the ClusterRoles the rule selects.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import Field, K8sModel, atomic_list, atomic_map
from fakeapi.models.meta import LabelSelector, ObjectMeta

__all__ = [
    "AggregationRule",
    "ClusterRole",
    "ClusterRoleBinding",
    "PolicyRule",
    "Role",
    "RoleBinding",
    "RoleRef",
    "Subject",
]


class PolicyRule(K8sModel):
    """Verbs allowed on resources or non-resource URLs."""

    verbs: Annotated[list[str], atomic_list()]
    """Verbs the rule allows; '*' is every verb."""
    api_groups: Annotated[list[str] | None, atomic_list()] = None
    """API groups of the resources; '' is the core group, '*' every group."""
    resources: Annotated[list[str] | None, atomic_list()] = None
    """Resources the rule applies to; '*' is every resource."""
    resource_names: Annotated[list[str] | None, atomic_list()] = None
    """Names of the objects the rule is limited to; empty: every object."""
    non_resource_urls: Annotated[list[str] | None, atomic_list()] = Field(
        default=None, alias="nonResourceURLs"
    )
    """URLs the rule allows (only in ClusterRoles); '*' at the end is a prefix match."""


class Subject(K8sModel):
    """A user, group or service account a binding grants to."""

    kind: str
    """User, Group or ServiceAccount."""
    api_group: str | None = None
    """'' for ServiceAccount, rbac.authorization.k8s.io for User and Group."""
    name: str
    """Name of the subject."""
    namespace: str | None = None
    """Namespace of a ServiceAccount subject."""


class RoleRef(K8sModel):
    """The role a binding grants."""

    api_group: str
    """rbac.authorization.k8s.io."""
    kind: str
    """Role or ClusterRole."""
    name: str
    """Name of the role."""


class AggregationRule(K8sModel):
    """Which ClusterRoles a ClusterRole's rules are gathered from."""

    cluster_role_selectors: Annotated[list[LabelSelector] | None, atomic_list()] = None
    """Selectors of the ClusterRoles whose rules are gathered; any match counts."""


class Role(K8sModel):
    """Namespaced rules a RoleBinding may grant."""

    api_version: str | None = None
    """The versioned schema of this object, rbac.authorization.k8s.io/v1."""
    kind: str | None = None
    """Role."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    rules: Annotated[list[PolicyRule] | None, atomic_list()] = None
    """The rules of the role."""


class ClusterRole(K8sModel):
    """Cluster-wide rules a RoleBinding or ClusterRoleBinding may grant."""

    api_version: str | None = None
    """The versioned schema of this object, rbac.authorization.k8s.io/v1."""
    kind: str | None = None
    """ClusterRole."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    rules: Annotated[list[PolicyRule] | None, atomic_list()] = None
    """The rules of the role; filled in by the controller for an aggregated role."""
    aggregation_rule: AggregationRule | None = None
    """Where the rules of an aggregated role come from."""


class RoleBinding(K8sModel):
    """Grants a Role or ClusterRole to subjects in a namespace."""

    api_version: str | None = None
    """The versioned schema of this object, rbac.authorization.k8s.io/v1."""
    kind: str | None = None
    """RoleBinding."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    subjects: Annotated[list[Annotated[Subject, atomic_map()]] | None, atomic_list()] = None
    """Who the role is granted to."""
    role_ref: Annotated[RoleRef, atomic_map()]
    """The role granted; immutable."""


class ClusterRoleBinding(K8sModel):
    """Grants a ClusterRole to subjects across the cluster."""

    api_version: str | None = None
    """The versioned schema of this object, rbac.authorization.k8s.io/v1."""
    kind: str | None = None
    """ClusterRoleBinding."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    subjects: Annotated[list[Annotated[Subject, atomic_map()]] | None, atomic_list()] = None
    """Who the role is granted to."""
    role_ref: Annotated[RoleRef, atomic_map()]
    """The ClusterRole granted; immutable."""
