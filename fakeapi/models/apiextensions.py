"""apiextensions.k8s.io/v1 CustomResourceDefinition: a kind added to the API at run time.

The schema of a custom resource (``JSONSchemaProps``) is itself data here: it is stored as the
user wrote it and compiled by :mod:`fakeapi.apiextensions` when the definition is established.
Values whose shape is open in upstream's Go types (``default``, ``enum``, ``example``, and
``items``/``additionalProperties``, which may be a schema, a list or a boolean) are free-form.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import (
    Field,
    GoType,
    Int32,
    K8sModel,
    RawJSON,
    Time,
    atomic_list,
    map_list,
)
from fakeapi.models.meta import ObjectMeta

__all__ = [
    "OPENAPI_PREFIX",
    "CustomResourceColumnDefinition",
    "CustomResourceConversion",
    "CustomResourceDefinition",
    "CustomResourceDefinitionCondition",
    "CustomResourceDefinitionNames",
    "CustomResourceDefinitionSpec",
    "CustomResourceDefinitionStatus",
    "CustomResourceDefinitionVersion",
    "CustomResourceObject",
    "CustomResourceSubresourceScale",
    "CustomResourceSubresourceStatus",
    "CustomResourceSubresources",
    "CustomResourceValidation",
    "ExternalDocumentation",
    "JSONSchemaProps",
    "SelectableField",
    "ServiceReference",
    "ValidationRule",
    "WebhookClientConfig",
    "WebhookConversion",
]

OPENAPI_PREFIX = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"

class ExternalDocumentation(K8sModel):
    """A pointer to documentation outside the schema."""

    description: str | None = None
    url: str | None = None


class ValidationRule(K8sModel):
    """A CEL expression that must hold for the value the schema describes."""

    rule: str
    """The CEL expression; ``self`` is the value, ``oldSelf`` the previous one (a transition
    rule, checked only on updates unless optionalOldSelf is set)."""
    message: str | None = None
    """The message shown when the rule fails; a default names the rule."""
    message_expression: str | None = None
    """A CEL expression yielding the message; it wins over message."""
    reason: Annotated[str | None, GoType("v1.FieldValueErrorReason")] = None
    """The reason of the error a failing rule gives: FieldValueInvalid (the default),
    FieldValueForbidden, FieldValueRequired or FieldValueDuplicate."""
    field_path: str | None = None
    """Where the error is reported, relative to the value the rule is attached to
    (``.spec.replicas``, ``.list[0]``)."""
    optional_old_self: bool | None = None
    """Evaluate a transition rule on creates too, with ``oldSelf`` an optional without value."""


class JSONSchemaProps(K8sModel):
    """A JSON schema (OpenAPI v3 subset, with Kubernetes extensions) describing a value."""

    id: str | None = None
    schema_: str | None = Field(default=None, alias="$schema")
    ref: str | None = Field(default=None, alias="$ref")
    description: str | None = None
    type: str | None = None
    format: str | None = None
    """The format a string must have: date-time, date, duration, byte, int-or-string, uuid,
    email, hostname, ipv4, ipv6, cidr, mac, uri... Unknown formats are ignored."""
    title: str | None = None
    default: RawJSON = None
    """The value used when the field is absent; applied on reads and writes."""
    maximum: float | None = None
    exclusive_maximum: bool | None = None
    minimum: float | None = None
    exclusive_minimum: bool | None = None
    max_length: int | None = None
    min_length: int | None = None
    pattern: str | None = None
    max_items: int | None = None
    min_items: int | None = None
    unique_items: bool | None = None
    multiple_of: float | None = None
    enum: Annotated[list[RawJSON] | None, atomic_list()] = None
    max_properties: int | None = None
    min_properties: int | None = None
    required: Annotated[list[str] | None, atomic_list()] = None
    items: RawJSON = None
    """The schema of the items of an array."""
    all_of: Annotated[list[JSONSchemaProps] | None, atomic_list()] = None
    one_of: Annotated[list[JSONSchemaProps] | None, atomic_list()] = None
    any_of: Annotated[list[JSONSchemaProps] | None, atomic_list()] = None
    not_: JSONSchemaProps | None = Field(default=None, alias="not")
    properties: dict[str, JSONSchemaProps] | None = None
    additional_properties: RawJSON = None
    """The schema of the values of a map (or false to allow none)."""
    pattern_properties: dict[str, JSONSchemaProps] | None = None
    dependencies: dict[str, RawJSON] | None = None
    additional_items: RawJSON = None
    definitions: dict[str, JSONSchemaProps] | None = None
    external_docs: ExternalDocumentation | None = None
    example: RawJSON = None
    nullable: bool | None = None
    """Allow null as a value (it is otherwise dropped or refused)."""
    x_kubernetes_preserve_unknown_fields: bool | None = Field(
        default=None, alias="x-kubernetes-preserve-unknown-fields"
    )
    """Keep fields the schema does not declare instead of pruning them."""
    x_kubernetes_embedded_resource: bool | None = Field(
        default=None, alias="x-kubernetes-embedded-resource"
    )
    """The value is a Kubernetes object with apiVersion, kind and metadata."""
    x_kubernetes_int_or_string: bool | None = Field(
        default=None, alias="x-kubernetes-int-or-string"
    )
    """The value is an integer or a string."""
    x_kubernetes_list_map_keys: Annotated[list[str] | None, atomic_list()] = Field(
        default=None, alias="x-kubernetes-list-map-keys"
    )
    """The keys that identify the items of a list of type map."""
    x_kubernetes_list_type: str | None = Field(default=None, alias="x-kubernetes-list-type")
    """atomic (the default), set or map: how server-side apply merges the list."""
    x_kubernetes_map_type: str | None = Field(default=None, alias="x-kubernetes-map-type")
    """granular (the default) or atomic: how server-side apply merges the object."""
    x_kubernetes_validations: Annotated[
        list[ValidationRule] | None, map_list("rule")
    ] = Field(default=None, alias="x-kubernetes-validations")
    """CEL rules the value must satisfy."""


class SelectableField(K8sModel):
    """A field of the custom resources that field selectors may use."""

    json_path: str
    """A simple JSON path (``.spec.color``) to a string, integer or boolean field."""


class CustomResourceColumnDefinition(K8sModel):
    """A column ``kubectl get`` shows for the custom resources (server-side printing)."""

    name: str
    """The column header."""
    type: str
    """integer, number, string, boolean or date."""
    format: str | None = None
    description: str | None = None
    priority: Int32 | None = None
    """0 shows the column by default; higher priorities appear with ``-o wide``."""
    json_path: str
    """A simple JSON path to the value, evaluated against each object."""


class CustomResourceSubresourceStatus(K8sModel):
    """Enables the ``/status`` subresource: the main resource keeps status, /status the rest."""


class CustomResourceSubresourceScale(K8sModel):
    """Enables the ``/scale`` subresource (autoscaling/v1 Scale)."""

    spec_replicas_path: str
    """The path of the desired replicas, under ``.spec``."""
    status_replicas_path: str
    """The path of the observed replicas, under ``.status``."""
    label_selector_path: str | None = None
    """The path of the label selector in string form, under ``.spec`` or ``.status``."""


class CustomResourceSubresources(K8sModel):
    """The subresources the custom resources of a version serve."""

    status: CustomResourceSubresourceStatus | None = None
    scale: CustomResourceSubresourceScale | None = None


class CustomResourceValidation(K8sModel):
    """The schema of a version."""

    open_apiv3_schema: JSONSchemaProps | None = Field(default=None, alias="openAPIV3Schema")


class CustomResourceDefinitionVersion(K8sModel):
    """One version of the custom resources."""

    name: str
    """The version name, used in the URL and in apiVersion (``v1``, ``v1beta1``)."""
    served: bool
    """Whether the version is served."""
    storage: bool
    """Whether objects are stored in this version; exactly one version sets it."""
    deprecated: bool | None = None
    """Answer requests to this version with a deprecation warning."""
    deprecation_warning: str | None = None
    """The warning sent instead of the default one."""
    schema_: CustomResourceValidation | None = Field(default=None, alias="schema")
    """The schema the objects of this version must satisfy."""
    subresources: CustomResourceSubresources | None = None
    additional_printer_columns: Annotated[
        list[CustomResourceColumnDefinition] | None, atomic_list()
    ] = None
    selectable_fields: Annotated[list[SelectableField] | None, atomic_list()] = None


class CustomResourceDefinitionNames(K8sModel):
    """The names of the custom resources."""

    plural: str
    """The resource name in URLs (``crontabs``); the definition is named plural.group."""
    singular: str | None = None
    """Defaults to the lowercased kind."""
    short_names: Annotated[list[str] | None, atomic_list()] = None
    """Short names kubectl accepts (``ct``)."""
    kind: str
    """The kind of the objects (``CronTab``)."""
    list_kind: str | None = None
    """Defaults to kind + List."""
    categories: Annotated[list[str] | None, atomic_list()] = None
    """Groups of resources this one belongs to (``all`` for ``kubectl get all``)."""


class ServiceReference(K8sModel):
    """A Service that answers conversion webhooks."""

    namespace: str
    name: str
    path: str | None = None
    port: Int32 | None = None


class WebhookClientConfig(K8sModel):
    """How to reach a conversion webhook."""

    url: str | None = None
    service: ServiceReference | None = None
    ca_bundle: str | None = None


class WebhookConversion(K8sModel):
    """A conversion webhook's address and ConversionReview versions."""

    client_config: WebhookClientConfig | None = None
    conversion_review_versions: Annotated[list[str], atomic_list()]


class CustomResourceConversion(K8sModel):
    """How objects are converted between versions."""

    strategy: Annotated[str, GoType("v1.ConversionStrategyType")]
    """None (only apiVersion changes) or Webhook (a webhook converts)."""
    webhook: WebhookConversion | None = None


class CustomResourceDefinitionSpec(K8sModel):
    """What the definition declares: group, names, scope, versions and conversion."""

    group: str
    """The API group of the custom resources (``stable.example.com``)."""
    names: CustomResourceDefinitionNames
    scope: Annotated[str, GoType("v1.ResourceScope")]
    """Namespaced or Cluster."""
    versions: Annotated[list[CustomResourceDefinitionVersion], atomic_list()]
    """The versions served; objects are stored in the one marked storage."""
    conversion: CustomResourceConversion | None = None
    preserve_unknown_fields: bool | None = None
    """Deprecated: must be false; use x-kubernetes-preserve-unknown-fields in a schema."""


class CustomResourceDefinitionCondition(K8sModel):
    """One state of the definition."""

    type: Annotated[str, GoType("v1.CustomResourceDefinitionConditionType")]
    """NamesAccepted, Established, Terminating, KubernetesAPIApprovalPolicyConformant..."""
    status: Annotated[str, GoType("v1.ConditionStatus")]
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None
    observed_generation: int | None = None


class CustomResourceDefinitionStatus(K8sModel):
    """What the API server made of the definition."""

    conditions: Annotated[
        list[CustomResourceDefinitionCondition] | None, map_list("type", patch=False)
    ] = None
    accepted_names: CustomResourceDefinitionNames | None = None
    """The names actually served (they lag the spec's while a conflict lasts)."""
    stored_versions: Annotated[list[str] | None, atomic_list()] = None
    """Every version objects were ever stored in."""
    observed_generation: int | None = None


class CustomResourceDefinition(K8sModel):
    """Adds a kind (its custom resources) to the API."""

    api_version: str | None = None
    """The versioned schema of this representation of an object."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata; the name is plural.group."""
    spec: CustomResourceDefinitionSpec
    status: CustomResourceDefinitionStatus | None = None


class CustomResourceObject(K8sModel):
    """What every custom resource has; the rest of it is described by its definition's schema
    (the registry reads that schema, not this model, for custom resources)."""

    api_version: str | None = None
    kind: str | None = None
    metadata: ObjectMeta | None = None
