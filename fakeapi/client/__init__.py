"""The async client every in-process component and test uses, with informers and work queues.

One :class:`Client` API over two transports: :class:`HttpTransport` (REST to a fakeapi server or
a real cluster) and ``fakeapi.server.inprocess.InProcessTransport`` (straight into the registry,
same semantics). The in-process transport lives on the server side, with the registry and request
parsing it calls: this package imports no server, registry or storage module (import-linter checks
it), so the controllers, scheduler and kubelets built on it never depend on them either. Whoever
assembles the cluster builds the transport and hands the components a :class:`Client`.

::

    client = Client(InProcessTransport(registry), field_manager="my-controller")
    pod = await client.get(PODS, namespace="default", name="web-0")

Components build on the toolkit here: an :class:`InformerFactory` (shared informers with
read-your-writes), :class:`WorkQueue`, the error predicates and :func:`retry_on_conflict`, and
an :class:`EventRecorder` (events.k8s.io, as the scheduler records) and a
:class:`LegacyEventRecorder` (core/v1 with counts, as the kubelet and the controllers record).

:class:`HttpTransport` is imported when first asked for: httpx, and the command-line extras it
loads whenever they are installed, cost about a tenth of a second that an in-process cluster
never needs.
"""

from typing import TYPE_CHECKING, Any

from fakeapi.client.client import DEFAULT_FIELD_MANAGER, Client, WriteObserver
from fakeapi.client.errors import (
    is_already_exists,
    is_bad_request,
    is_conflict,
    is_forbidden,
    is_gone,
    is_invalid,
    is_not_found,
    is_server_timeout,
    is_timeout,
    is_too_many_requests,
    reason_of,
    retry_on_conflict,
)
from fakeapi.client.events import EventRecorder, object_reference
from fakeapi.client.factory import InformerFactory, wait_for_sync
from fakeapi.client.informer import (
    NAMESPACE_INDEX,
    NODE_NAME_INDEX,
    Informer,
    Transform,
    namespace_index,
    node_name_index,
    object_key,
    strip_managed_fields,
)
from fakeapi.client.legacy_events import LegacyEventRecorder
from fakeapi.client.lifecycle import end_tasks
from fakeapi.client.resource import (
    ALL_RESOURCES,
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    COMPOSITE_POD_GROUPS,
    CONFIGMAPS,
    CONTROLLER_REVISIONS,
    CRON_JOBS,
    CUSTOM_RESOURCE_DEFINITIONS,
    DAEMON_SETS,
    DEPLOYMENTS,
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    DEVICE_TAINT_RULES_V1BETA2,
    EVENTS,
    EVENTS_K8S_IO,
    JOBS,
    LEASES,
    LOCAL_SUBJECT_ACCESS_REVIEWS,
    NAMESPACES,
    NODES,
    POD_DISRUPTION_BUDGETS,
    POD_GROUPS,
    PODS,
    PRIORITY_CLASSES,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    RESOURCE_POOL_STATUS_REQUESTS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
    ROLE_BINDINGS,
    ROLES,
    SECRETS,
    SELF_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_REVIEWS,
    SELF_SUBJECT_RULES_REVIEWS,
    SERVICE_ACCOUNTS,
    SERVICES,
    STATEFUL_SETS,
    SUBJECT_ACCESS_REVIEWS,
    WORKLOADS,
    Resource,
)
from fakeapi.client.transport import (
    ObjectList,
    PatchType,
    Preconditions,
    PropagationPolicy,
    Transport,
    WatchEvent,
    WatchStream,
)
from fakeapi.client.workqueue import ItemExponentialBackoff, RateLimiter, WorkQueue
from fakeapi.errors import StatusError

if TYPE_CHECKING:
    from fakeapi.client.http import HttpTransport

__all__ = [
    "ALL_RESOURCES",
    "CLUSTER_ROLES",
    "CLUSTER_ROLE_BINDINGS",
    "CONTROLLER_REVISIONS",
    "CRON_JOBS",
    "DAEMON_SETS",
    "DEPLOYMENTS",
    "JOBS",
    "POD_DISRUPTION_BUDGETS",
    "REPLICATION_CONTROLLERS",
    "REPLICA_SETS",
    "ROLES",
    "ROLE_BINDINGS",
    "SECRETS",
    "SERVICE_ACCOUNTS",
    "STATEFUL_SETS",
    "COMPOSITE_POD_GROUPS",
    "CONFIGMAPS",
    "CUSTOM_RESOURCE_DEFINITIONS",
    "DEFAULT_FIELD_MANAGER",
    "DEVICE_CLASSES",
    "DEVICE_TAINT_RULES",
    "DEVICE_TAINT_RULES_V1BETA2",
    "EVENTS",
    "EVENTS_K8S_IO",
    "LEASES",
    "LOCAL_SUBJECT_ACCESS_REVIEWS",
    "NAMESPACES",
    "NAMESPACE_INDEX",
    "NODE_NAME_INDEX",
    "NODES",
    "PODS",
    "PRIORITY_CLASSES",
    "POD_GROUPS",
    "RESOURCE_CLAIMS",
    "RESOURCE_CLAIM_TEMPLATES",
    "RESOURCE_POOLS",
    "RESOURCE_POOL_STATUS_REQUESTS",
    "RESOURCE_SLICES",
    "SELF_SUBJECT_ACCESS_REVIEWS",
    "SELF_SUBJECT_REVIEWS",
    "SELF_SUBJECT_RULES_REVIEWS",
    "SERVICES",
    "SUBJECT_ACCESS_REVIEWS",
    "WORKLOADS",
    "Client",
    "EventRecorder",
    "LegacyEventRecorder",
    "HttpTransport",
    "Informer",
    "InformerFactory",
    "Transform",
    "ItemExponentialBackoff",
    "ObjectList",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "RateLimiter",
    "Resource",
    "StatusError",
    "Transport",
    "WatchEvent",
    "WatchStream",
    "WorkQueue",
    "WriteObserver",
    "is_already_exists",
    "is_bad_request",
    "is_conflict",
    "is_forbidden",
    "is_gone",
    "is_invalid",
    "is_not_found",
    "is_server_timeout",
    "is_timeout",
    "is_too_many_requests",
    "object_reference",
    "reason_of",
    "retry_on_conflict",
    "wait_for_sync",
    "end_tasks",
    "namespace_index",
    "node_name_index",
    "object_key",
    "strip_managed_fields",
]


def __getattr__(name: str) -> Any:
    if name == "HttpTransport":
        # loaded on first use, for start-up time (httpx costs ~0.1 s an in-process cluster skips)
        from fakeapi.client.http import HttpTransport

        return HttpTransport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
