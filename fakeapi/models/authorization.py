"""authorization.k8s.io/v1 access reviews and authentication.k8s.io/v1 SelfSubjectReview.

Reviews are questions, not objects: a client creates one and reads the answer in its status;
nothing is stored. ``kubectl auth can-i`` asks with a SelfSubjectAccessReview (``--list`` with a
SelfSubjectRulesReview), ``kubectl auth whoami`` with a SelfSubjectReview, and controllers and
webhooks check other users with SubjectAccessReviews.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import K8sModel, atomic_list
from fakeapi.models.meta import LabelSelectorRequirement, ObjectMeta

__all__ = [
    "FieldSelectorAttributes",
    "FieldSelectorRequirement",
    "LabelSelectorAttributes",
    "LocalSubjectAccessReview",
    "NonResourceAttributes",
    "NonResourceRule",
    "ResourceAttributes",
    "ResourceRule",
    "SelfSubjectAccessReview",
    "SelfSubjectAccessReviewSpec",
    "SelfSubjectReview",
    "SelfSubjectReviewStatus",
    "SelfSubjectRulesReview",
    "SelfSubjectRulesReviewSpec",
    "SubjectAccessReview",
    "SubjectAccessReviewSpec",
    "SubjectAccessReviewStatus",
    "SubjectRulesReviewStatus",
    "UserInfo",
]


class FieldSelectorRequirement(K8sModel):
    """A field selector requirement: a key, an operator and values."""

    key: str
    """The field selector key that the requirement applies to."""
    operator: str
    """One of In, NotIn, Exists, DoesNotExist."""
    values: Annotated[list[str] | None, atomic_list()] = None
    """Values for In and NotIn; empty for Exists and DoesNotExist."""


class FieldSelectorAttributes(K8sModel):
    """The field selector of a list or watch being authorized."""

    raw_selector: str | None = None
    """The serialization of a field selector, as in a query parameter."""
    requirements: Annotated[list[FieldSelectorRequirement] | None, atomic_list()] = None
    """The parsed requirements of the selector."""


class LabelSelectorAttributes(K8sModel):
    """The label selector of a list or watch being authorized."""

    raw_selector: str | None = None
    """The serialization of a label selector, as in a query parameter."""
    requirements: Annotated[list[LabelSelectorRequirement] | None, atomic_list()] = None
    """The parsed requirements of the selector."""


class ResourceAttributes(K8sModel):
    """A request to the API's resources, as an authorizer sees it."""

    namespace: str | None = None
    """The namespace of the action; empty for cluster-scoped resources or all namespaces."""
    verb: str | None = None
    """A Kubernetes resource API verb (get, list, watch, create, update, delete...), or *."""
    group: str | None = None
    """The API group of the resource; * means all."""
    version: str | None = None
    """The API version of the resource; * means all."""
    resource: str | None = None
    """One of the existing resource types; * means all."""
    subresource: str | None = None
    """One of the existing subresources; empty means none."""
    name: str | None = None
    """The name of the resource; empty means all."""
    field_selector: FieldSelectorAttributes | None = None
    """The field selector of a list or watch request."""
    label_selector: LabelSelectorAttributes | None = None
    """The label selector of a list or watch request."""


class NonResourceAttributes(K8sModel):
    """A request to a path outside the API's resources (``/healthz``)."""

    path: str | None = None
    """The URL path of the request."""
    verb: str | None = None
    """The standard HTTP verb."""


class SubjectAccessReviewSpec(K8sModel):
    """The action to authorize and the user to authorize it for."""

    resource_attributes: ResourceAttributes | None = None
    """A resource request; exactly one of this and nonResourceAttributes."""
    non_resource_attributes: NonResourceAttributes | None = None
    """A non-resource request; exactly one of this and resourceAttributes."""
    user: str | None = None
    """The user being tested; user or groups is required."""
    groups: Annotated[list[str] | None, atomic_list()] = None
    """The groups being tested."""
    extra: dict[str, Annotated[list[str], atomic_list()]] | None = None
    """The user's extra attributes, as the authenticator gave them."""
    uid: str | None = None
    """The UID of the user being tested."""


class SelfSubjectAccessReviewSpec(K8sModel):
    """The action to authorize for the requesting user."""

    resource_attributes: ResourceAttributes | None = None
    """A resource request; exactly one of this and nonResourceAttributes."""
    non_resource_attributes: NonResourceAttributes | None = None
    """A non-resource request; exactly one of this and resourceAttributes."""


class SubjectAccessReviewStatus(K8sModel):
    """The authorizer's answer."""

    allowed: bool
    """Whether the action is allowed."""
    denied: bool | None = None
    """Whether the action is denied (it may be neither allowed nor denied)."""
    reason: str | None = None
    """Why the action was allowed or denied."""
    evaluation_error: str | None = None
    """An error the authorizer met, if any."""


class SubjectAccessReview(K8sModel):
    """Checks whether a user or group can perform an action."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. authorization.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SubjectAccessReviewSpec
    """The action and the user to check."""
    status: SubjectAccessReviewStatus | None = None
    """The answer."""


class LocalSubjectAccessReview(K8sModel):
    """Checks whether a user or group can perform an action in a namespace."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. authorization.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SubjectAccessReviewSpec
    """The action and the user to check; the namespace must be the review's."""
    status: SubjectAccessReviewStatus | None = None
    """The answer."""


class SelfSubjectAccessReview(K8sModel):
    """Checks whether the requesting user can perform an action (``kubectl auth can-i``)."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. authorization.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SelfSubjectAccessReviewSpec
    """The action to check."""
    status: SubjectAccessReviewStatus | None = None
    """The answer."""


class ResourceRule(K8sModel):
    """Actions allowed on resources."""

    verbs: Annotated[list[str], atomic_list()]
    """Verbs allowed; * means all."""
    api_groups: Annotated[list[str] | None, atomic_list()] = None
    """API groups of the resources; * means all."""
    resources: Annotated[list[str] | None, atomic_list()] = None
    """Resources; * means all, */foo a subresource of all."""
    resource_names: Annotated[list[str] | None, atomic_list()] = None
    """Names the rule is limited to; * or empty means all."""


class NonResourceRule(K8sModel):
    """Actions allowed on paths outside the API's resources."""

    verbs: Annotated[list[str], atomic_list()]
    """Verbs allowed; * means all."""
    non_resource_urls: Annotated[list[str] | None, atomic_list()] = Field(
        default=None, alias="nonResourceURLs"
    )
    """URL paths; a trailing * matches a prefix, * alone all."""


class SelfSubjectRulesReviewSpec(K8sModel):
    """Where to list the requesting user's rules."""

    namespace: str | None = None
    """The namespace to evaluate rules in."""


class SubjectRulesReviewStatus(K8sModel):
    """The actions allowed; may be incomplete."""

    resource_rules: Annotated[list[ResourceRule], atomic_list()]
    """Actions allowed on resources."""
    non_resource_rules: Annotated[list[NonResourceRule], atomic_list()]
    """Actions allowed on other paths."""
    incomplete: bool
    """True when the authorizer cannot list every rule."""
    evaluation_error: str | None = None
    """An error the authorizer met, if any."""


class SelfSubjectRulesReview(K8sModel):
    """Lists the actions the requesting user can perform (``kubectl auth can-i --list``)."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. authorization.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SelfSubjectRulesReviewSpec
    """Where to evaluate the rules."""
    status: SubjectRulesReviewStatus | None = None
    """The rules."""


class UserInfo(K8sModel):
    """Who a request comes from, as the authenticator saw it."""

    username: str | None = None
    """The name that uniquely identifies this user."""
    uid: str | None = None
    """A unique value that identifies this user across time."""
    groups: Annotated[list[str] | None, atomic_list()] = None
    """The groups this user is a part of."""
    extra: dict[str, Annotated[list[str], atomic_list()]] | None = None
    """Any additional information provided by the authenticator."""


class SelfSubjectReviewStatus(K8sModel):
    """The requesting user."""

    user_info: UserInfo | None = None
    """The user attributes of the user making the request."""


class SelfSubjectReview(K8sModel):
    """Tells the requesting user who the server takes them for (``kubectl auth whoami``)."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. authentication.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    status: SelfSubjectReviewStatus | None = None
    """The user."""
