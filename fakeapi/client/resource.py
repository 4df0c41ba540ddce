"""What a client call is about: a resource's group, version, plural, kind and scope.

A :class:`Resource` is the client's own, dependency-free description of a served kind. It does
not point into the server's resource table on purpose: controllers, the scheduler and kubelets
import this module and must not import the registry (import-linter enforces it), and the HTTP
transport talks to real clusters that have no table of ours at all. The in-process transport
resolves a descriptor to the served kind by (group, version, plural) when it is used. A kind served
at several versions has one constant, at the version its objects are stored at (the others are
the same objects, converted). Being kept by hand, the constants are checked against the served
kinds both ways by a test
(``tests/client/test_resource_constants.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ALL_RESOURCES",
    "CLUSTER_ROLES",
    "CLUSTER_ROLE_BINDINGS",
    "COMPOSITE_POD_GROUPS",
    "CONFIGMAPS",
    "CONTROLLER_REVISIONS",
    "CRON_JOBS",
    "CUSTOM_RESOURCE_DEFINITIONS",
    "DAEMON_SETS",
    "DEPLOYMENTS",
    "DEVICE_CLASSES",
    "DEVICE_TAINT_RULES",
    "DEVICE_TAINT_RULES_V1BETA2",
    "EVENTS",
    "EVENTS_K8S_IO",
    "JOBS",
    "LEASES",
    "LOCAL_SUBJECT_ACCESS_REVIEWS",
    "NAMESPACES",
    "NODES",
    "PODS",
    "POD_DISRUPTION_BUDGETS",
    "POD_GROUPS",
    "PRIORITY_CLASSES",
    "REPLICATION_CONTROLLERS",
    "REPLICA_SETS",
    "RESOURCE_CLAIMS",
    "RESOURCE_CLAIM_TEMPLATES",
    "RESOURCE_POOLS",
    "RESOURCE_POOL_STATUS_REQUESTS",
    "RESOURCE_SLICES",
    "ROLES",
    "ROLE_BINDINGS",
    "SECRETS",
    "SELF_SUBJECT_ACCESS_REVIEWS",
    "SELF_SUBJECT_REVIEWS",
    "SELF_SUBJECT_RULES_REVIEWS",
    "SERVICES",
    "SERVICE_ACCOUNTS",
    "STATEFUL_SETS",
    "SUBJECT_ACCESS_REVIEWS",
    "WORKLOADS",
    "Resource",
]


@dataclass(frozen=True, slots=True)
class Resource:
    """A REST resource: ``group``/``version``/``plural`` address it, ``kind`` names its objects."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        """``v1`` for the core group, ``<group>/<version>`` otherwise (the objects' apiVersion)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified_plural(self) -> str:
        """``pods`` or ``resourceclaims.resource.k8s.io``, as error messages spell it."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(
        self, *, namespace: str | None = None, name: str | None = None, subresource: str = ""
    ) -> str:
        """The URL path of the collection, an object or one of its subresources.

        ``namespace`` is ignored for cluster-scoped resources; for namespaced ones, None means
        "all namespaces" (only meaningful for collections).
        """
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name is not None:
            base += f"/{name}"
            if subresource:
                base += f"/{subresource}"
        return base

    def __str__(self) -> str:
        return self.qualified_plural


_CORE = ""
_COORDINATION = "coordination.k8s.io"
_RESOURCE = "resource.k8s.io"
_SCHEDULING = "scheduling.k8s.io"
_AUTHORIZATION = "authorization.k8s.io"
_RBAC = "rbac.authorization.k8s.io"

NAMESPACES = Resource(_CORE, "v1", "namespaces", "Namespace", namespaced=False)
NODES = Resource(_CORE, "v1", "nodes", "Node", namespaced=False)
PODS = Resource(_CORE, "v1", "pods", "Pod", namespaced=True)
#: core/v1 events: the ones ``kubectl describe`` and ``kubectl events`` read
EVENTS = Resource(_CORE, "v1", "events", "Event", namespaced=True)
CONFIGMAPS = Resource(_CORE, "v1", "configmaps", "ConfigMap", namespaced=True)
SERVICES = Resource(_CORE, "v1", "services", "Service", namespaced=True)
SERVICE_ACCOUNTS = Resource(_CORE, "v1", "serviceaccounts", "ServiceAccount", namespaced=True)
SECRETS = Resource(_CORE, "v1", "secrets", "Secret", namespaced=True)
REPLICATION_CONTROLLERS = Resource(
    _CORE, "v1", "replicationcontrollers", "ReplicationController", namespaced=True
)
DEPLOYMENTS = Resource("apps", "v1", "deployments", "Deployment", namespaced=True)
REPLICA_SETS = Resource("apps", "v1", "replicasets", "ReplicaSet", namespaced=True)
STATEFUL_SETS = Resource("apps", "v1", "statefulsets", "StatefulSet", namespaced=True)
DAEMON_SETS = Resource("apps", "v1", "daemonsets", "DaemonSet", namespaced=True)
CONTROLLER_REVISIONS = Resource(
    "apps", "v1", "controllerrevisions", "ControllerRevision", namespaced=True
)
JOBS = Resource("batch", "v1", "jobs", "Job", namespaced=True)
CRON_JOBS = Resource("batch", "v1", "cronjobs", "CronJob", namespaced=True)
POD_DISRUPTION_BUDGETS = Resource(
    "policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", namespaced=True
)
CLUSTER_ROLES = Resource(_RBAC, "v1", "clusterroles", "ClusterRole", namespaced=False)
CLUSTER_ROLE_BINDINGS = Resource(
    _RBAC, "v1", "clusterrolebindings", "ClusterRoleBinding", namespaced=False
)
ROLES = Resource(_RBAC, "v1", "roles", "Role", namespaced=True)
ROLE_BINDINGS = Resource(_RBAC, "v1", "rolebindings", "RoleBinding", namespaced=True)
#: events.k8s.io/v1 events: the same objects as :data:`EVENTS`, in the shape event recorders write
EVENTS_K8S_IO = Resource("events.k8s.io", "v1", "events", "Event", namespaced=True)
LEASES = Resource(_COORDINATION, "v1", "leases", "Lease", namespaced=True)
#: kinds added at run time; their custom resources are addressed with ``Resource`` values of
#: their own (``Resource("stable.example.com", "v1", "crontabs", "CronTab", namespaced=True)``)
CUSTOM_RESOURCE_DEFINITIONS = Resource(
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
    namespaced=False,
)
DEVICE_CLASSES = Resource(_RESOURCE, "v1", "deviceclasses", "DeviceClass", namespaced=False)
RESOURCE_CLAIMS = Resource(_RESOURCE, "v1", "resourceclaims", "ResourceClaim", namespaced=True)
RESOURCE_CLAIM_TEMPLATES = Resource(
    _RESOURCE, "v1", "resourceclaimtemplates", "ResourceClaimTemplate", namespaced=True
)
RESOURCE_SLICES = Resource(_RESOURCE, "v1", "resourceslices", "ResourceSlice", namespaced=False)
DEVICE_TAINT_RULES = Resource(
    _RESOURCE, "v1", "devicetaintrules", "DeviceTaintRule", namespaced=False
)
#: the same objects at the version Kubernetes 1.36 served, for clients built against it
DEVICE_TAINT_RULES_V1BETA2 = Resource(
    _RESOURCE, "v1beta2", "devicetaintrules", "DeviceTaintRule", namespaced=False
)
RESOURCE_POOLS = Resource(_RESOURCE, "v1beta2", "resourcepools", "ResourcePool", namespaced=False)
RESOURCE_POOL_STATUS_REQUESTS = Resource(
    _RESOURCE, "v1alpha3", "resourcepoolstatusrequests", "ResourcePoolStatusRequest",
    namespaced=False,
)
PRIORITY_CLASSES = Resource(_SCHEDULING, "v1", "priorityclasses", "PriorityClass", namespaced=False)
WORKLOADS = Resource(_SCHEDULING, "v1alpha1", "workloads", "Workload", namespaced=True)
POD_GROUPS = Resource(_SCHEDULING, "v1alpha1", "podgroups", "PodGroup", namespaced=True)
#: served by 1.37 only (``--emulated-version 1.36`` has none), so not in :data:`ALL_RESOURCES`
COMPOSITE_POD_GROUPS = Resource(
    _SCHEDULING, "v1alpha3", "compositepodgroups", "CompositePodGroup", namespaced=True
)
#: access reviews: questions a create answers (``client.create(...)`` returns the answer);
#: nothing is stored, so they cannot be read, listed or watched
SELF_SUBJECT_ACCESS_REVIEWS = Resource(
    _AUTHORIZATION, "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", namespaced=False
)
SELF_SUBJECT_RULES_REVIEWS = Resource(
    _AUTHORIZATION, "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", namespaced=False
)
SUBJECT_ACCESS_REVIEWS = Resource(
    _AUTHORIZATION, "v1", "subjectaccessreviews", "SubjectAccessReview", namespaced=False
)
LOCAL_SUBJECT_ACCESS_REVIEWS = Resource(
    _AUTHORIZATION, "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview",
    namespaced=True,
)
SELF_SUBJECT_REVIEWS = Resource(
    "authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", namespaced=False
)

#: every kind of stored objects above once, at the address this client prefers —
#: :data:`EVENTS_K8S_IO` and :data:`DEVICE_TAINT_RULES_V1BETA2` name objects listed here again
#: and are left out, and so are the reviews, which store nothing — for components that look at
#: every kind (garbage collection, namespace deletion)
ALL_RESOURCES: tuple[Resource, ...] = (
    NAMESPACES,
    NODES,
    PODS,
    EVENTS,
    CONFIGMAPS,
    SERVICES,
    SERVICE_ACCOUNTS,
    SECRETS,
    REPLICATION_CONTROLLERS,
    DEPLOYMENTS,
    REPLICA_SETS,
    STATEFUL_SETS,
    DAEMON_SETS,
    CONTROLLER_REVISIONS,
    JOBS,
    CRON_JOBS,
    LEASES,
    POD_DISRUPTION_BUDGETS,
    CLUSTER_ROLES,
    CLUSTER_ROLE_BINDINGS,
    ROLES,
    ROLE_BINDINGS,
    CUSTOM_RESOURCE_DEFINITIONS,
    DEVICE_CLASSES,
    RESOURCE_CLAIMS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_SLICES,
    DEVICE_TAINT_RULES,
    RESOURCE_POOLS,
    RESOURCE_POOL_STATUS_REQUESTS,
    PRIORITY_CLASSES,
    WORKLOADS,
    POD_GROUPS,
)
