"""A pod's resource requests and a node's allocatable, as numbers (component-helpers' ``resource``).

Mirrors ``k8s.io/component-helpers/resource`` ``PodRequests`` (and the scheduler's
``schedutil.GetNonzeroRequests`` defaults for scoring).

The scheduler (NodeResourcesFit, its cache of what each node holds) and the kubelet (its
admission of a pod onto its node) reckon requests the same way, as upstream's both use
``k8s.io/component-helpers/resource``: containers summed; sidecars (init containers with
``restartPolicy: Always``) added to them, since they run beside the containers; each other init
container needs its own requests plus the sidecars started before it, and the pod needs the most
of these or of the sum; pod-level ``spec.resources.requests`` (PodLevelResources, on since 1.34)
replace the containers' cpu, memory and hugepages; pod overhead is added last. cpu is in
millicores, the rest in units. Scalar resources are every other name (extended resources such as
``example.com/gpu``, hugepages).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.quantity import QuantityError, parse_quantity

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "Resource",
    "pod_requests",
]

#: what a container without requests counts as for scoring (upstream schedutil defaults)
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def _milli(text: Any) -> int:
    return _milli_of(str(text))


def _value(text: Any) -> int:
    return _value_of(str(text))


# Pods and nodes repeat a handful of quantities ("100m", "64Mi", "110"), and every pod is parsed
# several times on its way (queue, scheduling cycle, cache): each text is parsed once.
@functools.lru_cache(maxsize=4096)
def _milli_of(text: str) -> int:
    try:
        return math.ceil(parse_quantity(text).value * 1000)
    except QuantityError:
        return 0


@functools.lru_cache(maxsize=4096)
def _value_of(text: str) -> int:
    try:
        return parse_quantity(text).ceil_int()
    except QuantityError:
        return 0


#: resources :class:`Resource` keeps in fields of their own; any other name is a scalar resource
_NAMED = frozenset(("cpu", "memory", "pods", "ephemeral-storage", "storage"))


@dataclass(slots=True)
class Resource:
    milli_cpu: int = 0
    memory: int = 0
    pods: int = 0
    ephemeral_storage: int = 0
    #: extended resources (``example.com/gpu``), hugepages...: upstream's ``ScalarResources``
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: Mapping[str, Any] | None) -> Resource:
        resources = resources or {}
        out = cls(
            milli_cpu=_milli(resources["cpu"]) if "cpu" in resources else 0,
            memory=_value(resources["memory"]) if "memory" in resources else 0,
            pods=_value(resources["pods"]) if "pods" in resources else 0,
        )
        if len(resources) > ("cpu" in resources) + ("memory" in resources) + (
            "pods" in resources
        ):
            if "ephemeral-storage" in resources:
                out.ephemeral_storage = _value(resources["ephemeral-storage"])
            out.scalar = {
                name: _value(value) for name, value in resources.items() if name not in _NAMED
            }
        return out

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.pods += other.pods
        self.ephemeral_storage += other.ephemeral_storage
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + value

    def sub(self, other: Resource) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.pods -= other.pods
        self.ephemeral_storage -= other.ephemeral_storage
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) - value

    def set_max(self, other: Resource) -> None:
        """Each resource to the larger of the two (pods left alone)."""
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        for name, value in other.scalar.items():
            self.scalar[name] = max(self.scalar.get(name, 0), value)


def _is_pod_level(name: str) -> bool:
    """Resources pod-level requests may set (upstream's IsSupportedPodLevelResource)."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def pod_requests(spec: Mapping[str, Any]) -> tuple[Resource, Resource]:
    """(requests, non-zero requests), as upstream's ``PodRequests``; the non-zero requests (for
    scoring) count 100m cpu and 200Mi memory for a container that requests neither, unless the
    pod-level requests set them. Scalar resources (extended resources) are in the requests only,
    as upstream's."""
    total = Resource(pods=1)
    non_zero = Resource(pods=1)
    #: whether any container requests cpu / memory (pod-level requests: defaults only for
    #: what nothing requests, as upstream's getNonMissingContainerRequests)
    any_cpu = any_memory = False
    for container in spec.get("containers") or ():
        requests = (container.get("resources") or {}).get("requests") or {}
        r = Resource.from_list(requests)
        total.add(r)
        has_cpu, has_memory = "cpu" in requests, "memory" in requests
        any_cpu, any_memory = any_cpu or has_cpu, any_memory or has_memory
        non_zero.milli_cpu += r.milli_cpu if has_cpu else DEFAULT_MILLI_CPU_REQUEST
        non_zero.memory += r.memory if has_memory else DEFAULT_MEMORY_REQUEST
    init_containers = spec.get("initContainers")
    if init_containers:
        init_need, init_non_zero = Resource(), Resource()
        sidecars, sidecars_non_zero = Resource(), Resource()
        for container in init_containers:
            requests = (container.get("resources") or {}).get("requests") or {}
            r = Resource.from_list(requests)
            has_cpu, has_memory = "cpu" in requests, "memory" in requests
            any_cpu, any_memory = any_cpu or has_cpu, any_memory or has_memory
            nz = Resource(
                milli_cpu=r.milli_cpu if has_cpu else DEFAULT_MILLI_CPU_REQUEST,
                memory=r.memory if has_memory else DEFAULT_MEMORY_REQUEST,
            )
            if container.get("restartPolicy") == "Always":  # a sidecar: runs to the end
                total.add(r)
                non_zero.add(nz)
                sidecars.add(r)
                sidecars_non_zero.add(nz)
                init_need.set_max(sidecars)
                init_non_zero.set_max(sidecars_non_zero)
            else:  # runs alone, beside the sidecars started before it
                r.add(sidecars)
                nz.add(sidecars_non_zero)
                init_need.set_max(r)
                init_non_zero.set_max(nz)
        total.set_max(init_need)
        non_zero.set_max(init_non_zero)
    pod_level = ((spec.get("resources") or {}).get("requests")) or {}
    if pod_level and any(_is_pod_level(name) for name in pod_level):
        level = Resource.from_list(pod_level)
        if "cpu" in pod_level:
            total.milli_cpu = non_zero.milli_cpu = level.milli_cpu
        elif any_cpu:
            non_zero.milli_cpu = total.milli_cpu
        if "memory" in pod_level:
            total.memory = non_zero.memory = level.memory
        elif any_memory:
            non_zero.memory = total.memory
        for name, value in level.scalar.items():
            if name.startswith("hugepages-"):
                total.scalar[name] = value
    overhead = spec.get("overhead")
    if overhead:
        o = Resource.from_list(overhead)
        o.pods = 0
        total.add(o)
        non_zero.milli_cpu += o.milli_cpu
        non_zero.memory += o.memory
    return total, non_zero
