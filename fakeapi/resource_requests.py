"""A pod's resource requests and a node's allocatable, as numbers (upstream's component-helpers).

The scheduler (NodeResourcesFit, its cache of what each node holds) and the kubelet (its
admission of a pod onto its node) reckon requests the same way, as upstream's both use
``k8s.io/component-helpers/resource``: containers summed, init containers as a maximum, pod
overhead added; cpu in millicores, the rest in units. Scalar resources are every other name
(extended resources such as ``example.com/gpu``, hugepages).
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

Obj = Mapping[str, Any]

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
    #: extended resources (``example.com/gpu``), hugepages...: upstream's ``ScalarResources``
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: Obj | None) -> Resource:
        resources = resources or {}
        out = cls(
            milli_cpu=_milli(resources["cpu"]) if "cpu" in resources else 0,
            memory=_value(resources["memory"]) if "memory" in resources else 0,
            pods=_value(resources["pods"]) if "pods" in resources else 0,
        )
        if len(resources) > ("cpu" in resources) + ("memory" in resources) + (
            "pods" in resources
        ):
            out.scalar = {
                name: _value(value) for name, value in resources.items() if name not in _NAMED
            }
        return out

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.pods += other.pods
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + value

    def sub(self, other: Resource) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.pods -= other.pods
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) - value


def pod_requests(spec: Obj) -> tuple[Resource, Resource]:
    """(requests, non-zero requests): containers summed, init containers as a max, overhead.
    Scalar resources (extended resources) are in the requests only, as upstream's."""
    total = Resource(pods=1)
    non_zero = Resource(pods=1)
    for container in spec.get("containers") or ():
        requests = (container.get("resources") or {}).get("requests") or {}
        r = Resource.from_list(requests)
        total.milli_cpu += r.milli_cpu
        total.memory += r.memory
        non_zero.milli_cpu += r.milli_cpu if "cpu" in requests else DEFAULT_MILLI_CPU_REQUEST
        non_zero.memory += r.memory if "memory" in requests else DEFAULT_MEMORY_REQUEST
        for name, value in r.scalar.items():
            total.scalar[name] = total.scalar.get(name, 0) + value
    for container in spec.get("initContainers") or ():
        r = Resource.from_list((container.get("resources") or {}).get("requests"))
        total.milli_cpu = max(total.milli_cpu, r.milli_cpu)
        total.memory = max(total.memory, r.memory)
        non_zero.milli_cpu = max(non_zero.milli_cpu, r.milli_cpu)
        non_zero.memory = max(non_zero.memory, r.memory)
        for name, value in r.scalar.items():
            total.scalar[name] = max(total.scalar.get(name, 0), value)
    overhead = spec.get("overhead")
    if overhead:
        o = Resource.from_list(overhead)
        total.milli_cpu += o.milli_cpu
        total.memory += o.memory
        non_zero.milli_cpu += o.milli_cpu
        non_zero.memory += o.memory
        for name, value in o.scalar.items():
            total.scalar[name] = total.scalar.get(name, 0) + value
    return total, non_zero
