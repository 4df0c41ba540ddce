"""The table of served kinds: one row per kind drives routes, discovery, OpenAPI and printing.

Adding a kind takes a model (``fakeapi.models``), a strategy (``fakeapi.registry.kinds``) and a
row in :func:`default_resources` — nothing else. Rows name their model (``"module:Class"``)
rather than import it, so that a model module is loaded when its kind is first written or
described, not when the registry is built. The row types live with the registry that uses
them (:mod:`fakeapi.registry.resource_table`); this module only assembles the table, so the
registry never imports it.
"""

from __future__ import annotations

from collections.abc import Mapping

from fakeapi.features import EMULATED_VERSION, KubernetesVersion
from fakeapi.registry.conversion import ApiVersionConversion, served_version
from fakeapi.registry.kinds.scheduling_versions import scheduling_rows
from fakeapi.registry.resource_table import ResourceTable, ResourceType

__all__ = [
    "ApiVersionConversion",
    "ResourceTable",
    "ResourceType",
    "RuntimeConfigError",
    "default_resources",
    "parse_runtime_config",
]

_CORE = "fakeapi.models.core:"
_CLAIM = "fakeapi.models.resource_claim:"
_TAINT_RULE = "fakeapi.models.device_taint_rule:DeviceTaintRule"
_CLASS = "fakeapi.models.device_class:DeviceClass"
_V1BETA1 = "fakeapi.models.resource_v1beta1:"
_AUTHZ = "fakeapi.models.authorization:"
_APIEXTENSIONS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
_APPS = "fakeapi.models.apps:"
_BATCH = "fakeapi.models.batch:"
_RBAC = "fakeapi.models.rbac:"


def default_resources(
    *,
    emulated_version: KubernetesVersion = EMULATED_VERSION,
    runtime_config: Mapping[str, bool] | None = None,
) -> ResourceTable:
    """Every kind fakeapi serves at ``emulated_version``, core first (the order of discovery
    and OpenAPI), less the group-versions ``runtime_config`` switches off."""
    rows = [
        row for row in _all_rows()
        if row.served_at(emulated_version.minor) and _enabled(row, runtime_config or {})
    ]
    return ResourceTable(rows, emulated_version=emulated_version)


class RuntimeConfigError(ValueError):
    """A ``--runtime-config`` value kube-apiserver would reject; str() is the message."""


def parse_runtime_config(text: str) -> dict[str, bool]:
    """kube-apiserver's ``--runtime-config``: ``group/version=bool`` pairs (``v1`` or ``api/v1``
    for the core group, ``api/all``, ``api/ga``, ``api/beta``, ``api/alpha`` for every version of
    that stability); a key without a value means ``true``."""
    config: dict[str, bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        value = raw.strip().lower() if sep else "true"
        if value not in ("true", "false"):
            raise RuntimeConfigError(f"invalid value {raw.strip()} for key {key}")
        if "/" not in key and key != "v1":
            raise RuntimeConfigError(
                f"runtime-config invalid key {key}; expected <group>/<version>"
            )
        config["api/v1" if key == "v1" else key] = value == "true"
    return config


def _stability(version: str) -> str:
    return "alpha" if "alpha" in version else "beta" if "beta" in version else "ga"


def _enabled(row: ResourceType, runtime_config: Mapping[str, bool]) -> bool:
    """Whether ``runtime_config`` leaves ``row``'s group-version on (the most specific key
    wins, as kube-apiserver resolves them)."""
    if not runtime_config:
        return True
    own = row.api_version if row.group else f"api/{row.version}"
    for key in (own, f"api/{_stability(row.version)}", "api/all"):
        if key in runtime_config:
            return runtime_config[key]
    return True


def _all_rows() -> list[ResourceType]:
    """Every row of every release, storage rows before the versions converted from them."""
    from fakeapi.apiextensions.definition_strategy import CustomResourceDefinitionStrategy
    from fakeapi.registry.conversion import resource_v1beta1
    from fakeapi.registry.kinds.access_review import (
        LocalSubjectAccessReviewStrategy,
        SelfSubjectAccessReviewStrategy,
        SelfSubjectReviewStrategy,
        SelfSubjectRulesReviewStrategy,
        SubjectAccessReviewStrategy,
    )
    from fakeapi.registry.kinds.accounts import SecretStrategy, ServiceAccountStrategy
    from fakeapi.registry.kinds.apps import (
        ControllerRevisionStrategy,
        DaemonSetStrategy,
        DeploymentStrategy,
        ReplicaSetStrategy,
        StatefulSetStrategy,
    )
    from fakeapi.registry.kinds.batch import CronJobStrategy, JobStrategy
    from fakeapi.registry.kinds.configmap import ConfigMapStrategy
    from fakeapi.registry.kinds.deviceclass import DeviceClassStrategy
    from fakeapi.registry.kinds.devicetaintrule import DeviceTaintRuleStrategy
    from fakeapi.registry.kinds.event import (
        CoreEventStrategy,
        EventsEventStrategy,
        EventsV1Conversion,
    )
    from fakeapi.registry.kinds.lease import LeaseStrategy
    from fakeapi.registry.kinds.namespace import NamespaceStrategy
    from fakeapi.registry.kinds.node import NodeStrategy
    from fakeapi.registry.kinds.pod import PodStrategy
    from fakeapi.registry.kinds.poddisruptionbudget import PodDisruptionBudgetStrategy
    from fakeapi.registry.kinds.priorityclass import PriorityClassStrategy
    from fakeapi.registry.kinds.rbac import BindingStrategy, RoleStrategy
    from fakeapi.registry.kinds.replicationcontroller import ReplicationControllerStrategy
    from fakeapi.registry.kinds.resourceclaim import ResourceClaimStrategy
    from fakeapi.registry.kinds.resourceclaimtemplate import ResourceClaimTemplateStrategy
    from fakeapi.registry.kinds.resourcepool import ResourcePoolStrategy
    from fakeapi.registry.kinds.resourcepoolstatusrequest import (
        ResourcePoolStatusRequestStrategy,
    )
    from fakeapi.registry.kinds.resourceslice import ResourceSliceStrategy
    from fakeapi.registry.kinds.service import ServiceStrategy

    core_v1, resource, scheduling_k8s = "io.k8s.api.core.v1", "resource.k8s.io", "scheduling.k8s.io"
    apps_v1, batch_v1 = "io.k8s.api.apps.v1", "io.k8s.api.batch.v1"
    rbac = "rbac.authorization.k8s.io"
    # models are named, not imported: a kind's model module loads when its schema is first needed
    # DELETE answers with the object for the kinds whose upstream OpenAPI says so
    # (delete_returns_object), with a Status otherwise.
    # fmt: off
    device_class = ResourceType(
        resource, "v1", "DeviceClass", "deviceclasses", False, _CLASS, DeviceClassStrategy(),
        delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1")
    claim = ResourceType(
        resource, "v1", "ResourceClaim", "resourceclaims", True, _CLAIM + "ResourceClaim",
        ResourceClaimStrategy(), subresources=("status",), delete_returns_object=True,
        openapi_prefix="io.k8s.api.resource.v1")
    claim_template = ResourceType(
        resource, "v1", "ResourceClaimTemplate", "resourceclaimtemplates", True,
        _CLAIM + "ResourceClaimTemplate", ResourceClaimTemplateStrategy(),
        delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1")
    resource_slice = ResourceType(
        resource, "v1", "ResourceSlice", "resourceslices", False,
        "fakeapi.models.resource_slice:ResourceSlice", ResourceSliceStrategy(),
        delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1")
    taint_rule = ResourceType(
        resource, "v1", "DeviceTaintRule", "devicetaintrules", False, _TAINT_RULE,
        DeviceTaintRuleStrategy(), subresources=("status",),
        openapi_prefix="io.k8s.api.resource.v1")
    return [
        ResourceType("", "v1", "Namespace", "namespaces", False, _CORE + "Namespace",
                     NamespaceStrategy(), subresources=("status", "finalize"),
                     short_names=("ns",), openapi_prefix=core_v1),
        ResourceType("", "v1", "Node", "nodes", False, _CORE + "Node", NodeStrategy(),
                     subresources=("status",), short_names=("no",), openapi_prefix=core_v1),
        ResourceType("", "v1", "Pod", "pods", True, "fakeapi.models.pod:Pod", PodStrategy(),
                     subresources=("status", "binding", "eviction", "log"),
                     short_names=("po",),
                     categories=("all",), delete_returns_object=True, openapi_prefix=core_v1),
        ResourceType("", "v1", "Event", "events", True, _CORE + "Event", CoreEventStrategy(),
                     short_names=("ev",), openapi_prefix=core_v1),
        ResourceType("", "v1", "ConfigMap", "configmaps", True, _CORE + "ConfigMap",
                     ConfigMapStrategy(), short_names=("cm",), openapi_prefix=core_v1),
        ResourceType("", "v1", "Service", "services", True, "fakeapi.models.service:Service",
                     ServiceStrategy(), subresources=("status",), short_names=("svc",),
                     categories=("all",), openapi_prefix=core_v1),
        ResourceType("", "v1", "ServiceAccount", "serviceaccounts", True,
                     "fakeapi.models.accounts:ServiceAccount", ServiceAccountStrategy(),
                     short_names=("sa",), delete_returns_object=True, openapi_prefix=core_v1),
        ResourceType("", "v1", "Secret", "secrets", True, "fakeapi.models.accounts:Secret",
                     SecretStrategy(), openapi_prefix=core_v1),
        ResourceType("", "v1", "ReplicationController", "replicationcontrollers", True,
                     "fakeapi.models.replication:ReplicationController",
                     ReplicationControllerStrategy(), subresources=("status", "scale"),
                     short_names=("rc",), categories=("all",), openapi_prefix=core_v1),
        ResourceType("apps", "v1", "Deployment", "deployments", True, _APPS + "Deployment",
                     DeploymentStrategy(), subresources=("status", "scale"),
                     short_names=("deploy",), categories=("all",), openapi_prefix=apps_v1),
        ResourceType("apps", "v1", "ReplicaSet", "replicasets", True, _APPS + "ReplicaSet",
                     ReplicaSetStrategy(), subresources=("status", "scale"),
                     short_names=("rs",), categories=("all",), openapi_prefix=apps_v1),
        ResourceType("apps", "v1", "StatefulSet", "statefulsets", True, _APPS + "StatefulSet",
                     StatefulSetStrategy(), subresources=("status", "scale"),
                     short_names=("sts",), categories=("all",), openapi_prefix=apps_v1),
        ResourceType("apps", "v1", "DaemonSet", "daemonsets", True, _APPS + "DaemonSet",
                     DaemonSetStrategy(), subresources=("status",), short_names=("ds",),
                     categories=("all",), openapi_prefix=apps_v1),
        ResourceType("apps", "v1", "ControllerRevision", "controllerrevisions", True,
                     _APPS + "ControllerRevision", ControllerRevisionStrategy(),
                     openapi_prefix=apps_v1),
        ResourceType("events.k8s.io", "v1", "Event", "events", True,
                     "fakeapi.models.events:Event", EventsEventStrategy(), short_names=("ev",),
                     openapi_prefix="io.k8s.api.events.v1",
                     stored_in="events", converter=EventsV1Conversion()),
        # questions, not objects: a create is answered, nothing is stored (Strategy.create_only)
        ResourceType("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews",
                     False, _AUTHZ + "SelfSubjectReview", SelfSubjectReviewStrategy(),
                     openapi_prefix="io.k8s.api.authentication.v1"),
        ResourceType("authorization.k8s.io", "v1", "LocalSubjectAccessReview",
                     "localsubjectaccessreviews", True, _AUTHZ + "LocalSubjectAccessReview",
                     LocalSubjectAccessReviewStrategy(),
                     openapi_prefix="io.k8s.api.authorization.v1"),
        ResourceType("authorization.k8s.io", "v1", "SelfSubjectAccessReview",
                     "selfsubjectaccessreviews", False, _AUTHZ + "SelfSubjectAccessReview",
                     SelfSubjectAccessReviewStrategy(),
                     openapi_prefix="io.k8s.api.authorization.v1"),
        ResourceType("authorization.k8s.io", "v1", "SelfSubjectRulesReview",
                     "selfsubjectrulesreviews", False, _AUTHZ + "SelfSubjectRulesReview",
                     SelfSubjectRulesReviewStrategy(),
                     openapi_prefix="io.k8s.api.authorization.v1"),
        ResourceType("authorization.k8s.io", "v1", "SubjectAccessReview",
                     "subjectaccessreviews", False, _AUTHZ + "SubjectAccessReview",
                     SubjectAccessReviewStrategy(),
                     openapi_prefix="io.k8s.api.authorization.v1"),
        # the kinds added at run time (apiextensions) are rows too: fakeapi.apiextensions.serving
        ResourceType("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                     "customresourcedefinitions", False,
                     "fakeapi.models.apiextensions:CustomResourceDefinition",
                     CustomResourceDefinitionStrategy(), subresources=("status",),
                     short_names=("crd", "crds"), categories=("api-extensions",),
                     openapi_prefix=_APIEXTENSIONS),
        ResourceType("batch", "v1", "Job", "jobs", True, _BATCH + "Job", JobStrategy(),
                     subresources=("status",), categories=("all",), openapi_prefix=batch_v1),
        ResourceType("batch", "v1", "CronJob", "cronjobs", True, _BATCH + "CronJob",
                     CronJobStrategy(), subresources=("status",), short_names=("cj",),
                     categories=("all",), openapi_prefix=batch_v1),
        ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True,
                     "fakeapi.models.coordination:Lease", LeaseStrategy(),
                     openapi_prefix="io.k8s.api.coordination.v1"),
        ResourceType("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True,
                     "fakeapi.models.policy:PodDisruptionBudget", PodDisruptionBudgetStrategy(),
                     subresources=("status",), short_names=("pdb",),
                     openapi_prefix="io.k8s.api.policy.v1"),
        ResourceType(rbac, "v1", "ClusterRole", "clusterroles", False, _RBAC + "ClusterRole",
                     RoleStrategy(namespaced=False), openapi_prefix="io.k8s.api.rbac.v1"),
        ResourceType(rbac, "v1", "ClusterRoleBinding", "clusterrolebindings", False,
                     _RBAC + "ClusterRoleBinding", BindingStrategy(namespaced=False),
                     openapi_prefix="io.k8s.api.rbac.v1"),
        ResourceType(rbac, "v1", "Role", "roles", True, _RBAC + "Role",
                     RoleStrategy(namespaced=True), openapi_prefix="io.k8s.api.rbac.v1"),
        ResourceType(rbac, "v1", "RoleBinding", "rolebindings", True, _RBAC + "RoleBinding",
                     BindingStrategy(namespaced=True), openapi_prefix="io.k8s.api.rbac.v1"),
        device_class, claim, claim_template, resource_slice, taint_rule,
        ResourceType(resource, "v1beta2", "ResourcePool", "resourcepools", False,
                     "fakeapi.models.resource_pool:ResourcePool", ResourcePoolStrategy(),
                     subresources=("status",), openapi_prefix="io.k8s.api.resource.v1beta2"),
        ResourceType(resource, "v1alpha3", "ResourcePoolStatusRequest",
                     "resourcepoolstatusrequests", False,
                     "fakeapi.models.resource_pool_status_request:ResourcePoolStatusRequest",
                     ResourcePoolStatusRequestStrategy(), subresources=("status",),
                     delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1alpha3"),
        # every kind of the group at v1beta2 (1.36's shapes are v1's) and at v1beta1
        *(served_version(row, version="v1beta2")
          for row in (device_class, claim, claim_template, resource_slice, taint_rule)),
        served_version(device_class, version="v1beta1", model=_CLASS,
                       converter=resource_v1beta1.DEVICE_CLASS),
        served_version(claim, version="v1beta1", model=_V1BETA1 + "ResourceClaim",
                       converter=resource_v1beta1.RESOURCE_CLAIM),
        served_version(claim_template, version="v1beta1",
                       model=_V1BETA1 + "ResourceClaimTemplate",
                       converter=resource_v1beta1.RESOURCE_CLAIM_TEMPLATE),
        served_version(resource_slice, version="v1beta1", model=_V1BETA1 + "ResourceSlice",
                       converter=resource_v1beta1.RESOURCE_SLICE),
        ResourceType(scheduling_k8s, "v1", "PriorityClass", "priorityclasses", False,
                     "fakeapi.models.priority:PriorityClass", PriorityClassStrategy(),
                     short_names=("pc",), openapi_prefix="io.k8s.api.scheduling.v1"),
        *scheduling_rows(),
    ]
    # fmt: on
