"""Extended resources backed by DRA (KEP-5004, feature DRAExtendedResource).

A container may ask for devices the device-plugin way, ``resources.requests: {example.com/gpu:
1}``, and get them through DRA: a DeviceClass maps the name (``spec.extendedResourceName``, or
implicitly ``deviceclass.resource.kubernetes.io/<class name>`` for every class). On a node that
does not advertise the resource in ``status.allocatable`` (no device plugin there), the scheduler
allocates it from the node's ResourceSlices through a claim of its own, as upstream's
DynamicResources plugin does:

* the claim exists in memory during the scheduling cycle (named ``<extended-resources>``, a
  temporary uid for the in-flight allocation); its requests depend on the node, since a node
  with a device plugin for a resource needs no devices for it;
* one request per container and resource, ``container-<i>-request-<j>`` (``i``: the container's
  index in init containers then containers, ``j``: the resource's index among the container's
  sorted request names), ``exactly`` that many devices of the mapped class. An init container
  that runs to completion first borrows what the long-lived containers after it request, and
  only the largest such extra request is made;
* PreBind creates it (``<pod>-extended-resources-`` plus a suffix, owned by the pod as its
  controller, annotated ``resource.kubernetes.io/extended-resource-claim: "true"``), writes
  its allocation and the pod's reservation like any claim's, then records it in the pod's
  ``status.extendedResourceClaimStatus`` (which request serves each container's resource).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fakeapi.client import Informer
from fakeapi.objects import Obj
from fakeapi.quantity import QuantityError, parse_quantity
from fakeapi.rules.claims import EXTENDED_RESOURCE_ANNOTATION

__all__ = [
    "DEVICE_CLASS_PREFIX",
    "IN_MEMORY_NAME",
    "OWNER_INDEX",
    "DeviceClassResolver",
    "ExtendedRequests",
    "is_dra_extended_resource_name",
    "owner_index",
    "pod_extended_resources",
    "requests_and_mappings",
]

#: the implicit extended resource name of every DeviceClass: this prefix and the class name
DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
#: the in-memory claim's name until PreBind creates it (not a valid name, as upstream's)
IN_MEMORY_NAME = "<extended-resources>"


def is_dra_extended_resource_name(name: str) -> bool:
    """An extended resource name (``example.com/gpu``: qualified, outside ``kubernetes.io/``,
    not a quota ``requests.`` name) or a DeviceClass's implicit name."""
    if name.startswith(DEVICE_CLASS_PREFIX):
        return True
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


class DeviceClassResolver:
    """Which DeviceClass serves an extended resource name, kept from the DeviceClass informer.

    A class's implicit name always maps to it; where several classes declare the same
    ``extendedResourceName``, the most recently created one serves it (names break ties).
    """

    def __init__(self, informer: Informer) -> None:
        #: class name → (extendedResourceName or "", creationTimestamp)
        self._classes: dict[str, tuple[str, str]] = {}
        self._explicit: dict[str, str] = {}
        informer.add_handler(
            on_add=self._seen, on_update=lambda _old, new: self._seen(new), on_delete=self._gone
        )

    def class_for(self, resource: str) -> str | None:
        if resource.startswith(DEVICE_CLASS_PREFIX):
            name = resource[len(DEVICE_CLASS_PREFIX) :]
            return name if name in self._classes else None
        return self._explicit.get(resource)

    def _seen(self, device_class: Obj) -> None:
        meta = device_class.get("metadata") or {}
        extended = str((device_class.get("spec") or {}).get("extendedResourceName") or "")
        entry = (extended, str(meta.get("creationTimestamp") or ""))
        name = str(meta.get("name") or "")
        if self._classes.get(name) != entry:
            self._classes[name] = entry
            self._rebuild()

    def _gone(self, device_class: Obj) -> None:
        if self._classes.pop(str((device_class.get("metadata") or {}).get("name") or ""), None):
            self._rebuild()

    def _rebuild(self) -> None:
        newest: dict[str, tuple[str, str]] = {}
        for name, (extended, created) in self._classes.items():
            if extended and (created, name) > newest.get(extended, ("", "")):
                newest[extended] = (created, name)
        self._explicit = {extended: name for extended, (_, name) in newest.items()}


def _count(value: Any) -> int:
    """A request's whole number of devices (0 when not a whole number, as ``AsInt64`` fails)."""
    try:
        quantity = parse_quantity(str(value))
    except QuantityError:
        return 0
    whole = quantity.ceil_int()
    return whole if whole == quantity.value else 0


@dataclass(slots=True)
class ExtendedRequests:
    """What one node needs allocated through DRA for the pod's extended resources."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    #: ``status.extendedResourceClaimStatus.requestMappings``
    mappings: list[dict[str, str]] = field(default_factory=list)


def _container_request(
    index: int,
    container: Obj,
    resource: str,
    class_name: str,
    reusable: Sequence[dict[str, Any] | None],
) -> tuple[dict[str, Any] | None, list[dict[str, str]]]:
    """The request one container makes for ``resource`` (None if it needs no more devices than
    the ``reusable`` requests give it) and the mappings of its use of it."""
    requests: Obj = (container.get("resources") or {}).get("requests") or {}
    if resource not in requests:
        return None, []
    wanted = _count(requests[resource])
    if not wanted:
        return None, []
    name = str(container.get("name") or "")
    mappings: list[dict[str, str]] = []
    borrowed = 0
    for request in reusable:
        if request is None:
            continue
        borrowed += request["exactly"]["count"]
        mappings.append({"containerName": name, "resourceName": resource,
                         "requestName": request["name"]})
        if borrowed >= wanted:
            return None, mappings
    request_name = f"container-{index}-request-{sorted(requests).index(resource)}"
    mappings.append({"containerName": name, "resourceName": resource,
                     "requestName": request_name})
    request = {
        "name": request_name,
        "exactly": {
            "deviceClassName": class_name,
            "allocationMode": "ExactCount",
            "count": wanted - borrowed,
        },
    }
    return request, mappings


def requests_and_mappings(
    pod: Obj, resources: Sequence[str], resolver: DeviceClassResolver
) -> ExtendedRequests:
    """The claim requests and the request mappings for ``resources`` (DRA-backed on the node)."""
    spec: Obj = pod.get("spec") or {}
    init = list(spec.get("initContainers") or ())
    containers = [*init, *(spec.get("containers") or ())]
    # init containers that run to completion come and go before the long-lived ones start:
    # a restartable (sidecar) init container lives as long as the pod
    short_lived = [
        i for i in range(len(init)) if (containers[i].get("restartPolicy") or "") != "Always"
    ]
    long_lived = [i for i in range(len(containers)) if i not in short_lived]
    out = ExtendedRequests()
    for resource in sorted(resources):
        class_name = resolver.class_for(resource)
        if class_name is None:
            continue
        lasting: list[dict[str, Any] | None] = [None] * len(containers)
        lasting_mappings: list[dict[str, str]] = []
        for i in long_lived:
            request, mappings = _container_request(i, containers[i], resource, class_name, ())
            lasting[i] = request
            lasting_mappings.extend(mappings)
        largest: dict[str, Any] | None = None
        passing_names: set[str] = set()
        passing_mappings: list[dict[str, str]] = []
        for i in short_lived:
            # what the long-lived containers after it request is already there when it runs
            request, mappings = _container_request(
                i, containers[i], resource, class_name, lasting[i:]
            )
            if request is not None:
                passing_names.add(request["name"])
                if largest is None or largest["exactly"]["count"] < request["exactly"]["count"]:
                    largest = request
            passing_mappings.extend(mappings)
        if largest is not None:
            # the init containers run one at a time: the largest request serves them all
            for mapping in passing_mappings:
                if mapping["requestName"] in passing_names:
                    mapping["requestName"] = largest["name"]
            out.requests.append(largest)
        out.requests.extend(request for request in lasting if request is not None)
        out.mappings.extend(lasting_mappings)
        out.mappings.extend(passing_mappings)
    out.requests.sort(key=lambda request: str(request["name"]))
    return out


def pod_extended_resources(pod: Obj, resolver: DeviceClassResolver) -> list[str]:
    """The extended resources the pod's containers request (non-zero) that a DeviceClass maps."""
    spec: Obj = pod.get("spec") or {}
    names: set[str] = set()
    for container in (*(spec.get("initContainers") or ()), *(spec.get("containers") or ())):
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            if is_dra_extended_resource_name(name) and _count(value):
                names.add(name)
    return sorted(name for name in names if resolver.class_for(name) is not None)


#: the claims informer's index of the scheduler's extended-resource claims by owning pod uid
OWNER_INDEX = "extended-resource-claim-owner"


def owner_index(claim: Obj) -> list[str]:
    """Index function: the uid of the pod that owns an extended-resource claim (as controller)."""
    meta: Obj = claim.get("metadata") or {}
    if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_ANNOTATION) != "true":
        return []
    return [
        str(ref.get("uid") or "")
        for ref in meta.get("ownerReferences") or ()
        if ref.get("controller") and ref.get("kind") == "Pod" and ref.get("uid")
    ]
