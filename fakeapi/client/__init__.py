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
"""

from fakeapi.client.client import DEFAULT_FIELD_MANAGER, Client
from fakeapi.client.http import HttpTransport
from fakeapi.client.informer import NAMESPACE_INDEX, Informer, namespace_index, object_key
from fakeapi.client.resource import (
    CONFIGMAPS,
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    EVENTS,
    LEASES,
    NAMESPACES,
    NODES,
    POD_GROUPS,
    PODS,
    PRIORITY_CLASSES,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
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

__all__ = [
    "CONFIGMAPS",
    "DEFAULT_FIELD_MANAGER",
    "DEVICE_CLASSES",
    "DEVICE_TAINT_RULES",
    "EVENTS",
    "LEASES",
    "NAMESPACES",
    "NAMESPACE_INDEX",
    "NODES",
    "PODS",
    "PRIORITY_CLASSES",
    "POD_GROUPS",
    "RESOURCE_CLAIMS",
    "RESOURCE_CLAIM_TEMPLATES",
    "RESOURCE_POOLS",
    "RESOURCE_SLICES",
    "WORKLOADS",
    "Client",
    "HttpTransport",
    "Informer",
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
    "namespace_index",
    "object_key",
]
