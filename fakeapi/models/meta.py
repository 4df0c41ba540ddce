"""meta/v1 types shared by every kind: object metadata, owner references, selectors, conditions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from fakeapi.models.base import GoType, K8sModel, Time, atomic_list, map_list, set_list

__all__ = [
    "ObjectMeta",
    "OwnerReference",
    "ManagedFieldsEntry",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Condition",
    "ObjectReference",
]


class OwnerReference(K8sModel):
    """Identifies an owning object; the garbage collector deletes dependents of a gone owner."""

    api_version: str
    """API version of the referent."""
    kind: str
    """Kind of the referent."""
    name: str
    """Name of the referent."""
    uid: str
    """UID of the referent."""
    controller: bool | None = None
    """If true, this reference points to the managing controller."""
    block_owner_deletion: bool | None = None
    """If true, the owner cannot be deleted from storage until this reference is removed."""


class ManagedFieldsEntry(K8sModel):
    """A workflow (manager) and the set of fields it owns, as recorded by server-side apply."""

    manager: str | None = None
    """Identifier of the workflow managing these fields."""
    operation: str | None = None
    """The operation that led to this entry: Apply or Update."""
    api_version: str | None = None
    """The version of the resource the field set applies to."""
    time: Time | None = None
    """When this entry was last changed."""
    fields_type: str | None = None
    """The format of fieldsV1; only FieldsV1 exists."""
    fields_v1: dict[str, Any] | None = None
    """The field set in FieldsV1 format."""
    subresource: str | None = None
    """The subresource the entry was written through, empty for the main resource."""


class ObjectMeta(K8sModel):
    """Standard object metadata that all persisted resources carry."""

    name: str | None = None
    """Name must be unique within a namespace. Cannot be updated."""
    generate_name: str | None = None
    """Optional prefix the server uses to generate a unique name when name is empty."""
    namespace: str | None = None
    """Namespace defines the space within which each name must be unique."""
    self_link: str | None = None
    """Deprecated and unset by the server."""
    uid: str | None = None
    """UID is the unique in time and space value for this object, set by the server."""
    resource_version: str | None = None
    """An opaque value that represents the internal version of this object."""
    generation: int | None = None
    """A sequence number representing a specific generation of the desired state."""
    creation_timestamp: Time | None = None
    """When the server created this object (RFC 3339, UTC)."""
    deletion_timestamp: Time | None = None
    """When this object will be deleted; set by the server when deletion starts."""
    deletion_grace_period_seconds: int | None = None
    """Seconds allowed for this object to gracefully terminate before it is removed."""
    labels: dict[str, str] | None = None
    """Map of string keys and values used to organize and categorize objects."""
    annotations: dict[str, str] | None = None
    """Unstructured key value map stored with a resource."""
    owner_references: Annotated[list[OwnerReference] | None, map_list("uid")] = None
    """Objects depended on by this object."""
    finalizers: Annotated[list[str] | None, set_list()] = None
    """Entries that must be empty before the object is deleted from the registry."""
    managed_fields: Annotated[list[ManagedFieldsEntry] | None, atomic_list()] = None
    """Maps workflow-id and version to the set of fields that are managed by that workflow."""


class LabelSelectorRequirement(K8sModel):
    """A selector requirement: a key, an operator and values."""

    key: str
    """The label key that the selector applies to."""
    operator: str
    """One of In, NotIn, Exists and DoesNotExist."""
    values: Annotated[list[str] | None, atomic_list()] = None
    """Values for In and NotIn; empty for Exists and DoesNotExist."""


class LabelSelector(K8sModel):
    """A label query over a set of resources; requirements are ANDed."""

    match_labels: dict[str, str] | None = None
    """Map of {key,value} pairs, each equivalent to an In requirement with one value."""
    match_expressions: Annotated[list[LabelSelectorRequirement] | None, atomic_list()] = None
    """A list of label selector requirements."""


class Condition(K8sModel):
    """One aspect of the current state of a resource."""

    #: required in upstream's OpenAPI, but its validation (ValidateCondition) accepts an absent
    #: message, which Go decodes as "" and writes back so: drivers leave it out
    ZERO_WHEN_MISSING: ClassVar[Mapping[str, Any]] = {"message": ""}

    type: str
    """Type of condition in CamelCase."""
    status: Annotated[str, GoType("v1.ConditionStatus")]
    """Status of the condition: True, False or Unknown."""
    observed_generation: int | None = None
    """The metadata.generation the condition was set based upon."""
    last_transition_time: Time
    """Last time the condition transitioned from one status to another."""
    reason: str
    """A programmatic identifier for the reason of the last transition."""
    message: str
    """A human readable message about the transition."""


class ObjectReference(K8sModel):
    """A reference to an object (core/v1 ObjectReference)."""

    kind: str | None = None
    """Kind of the referent."""
    namespace: str | None = None
    """Namespace of the referent."""
    name: str | None = None
    """Name of the referent."""
    uid: str | None = None
    """UID of the referent."""
    api_version: str | None = None
    """API version of the referent."""
    resource_version: str | None = None
    """Specific resourceVersion to which this reference is made."""
    field_path: str | None = None
    """A piece of an object, such as spec.containers{name}."""
