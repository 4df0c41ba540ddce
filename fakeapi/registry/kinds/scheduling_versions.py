"""scheduling.k8s.io Workload and PodGroup rows at every served version.

The seed's v1alpha1 (KEP-5729) is the storage version: the components keep reading and writing
it. Upstream's shapes are served beside it and converted
(:mod:`fakeapi.registry.conversion.scheduling`).
"""

from __future__ import annotations

from fakeapi.registry.kinds.podgroup import PodGroupStrategy
from fakeapi.registry.kinds.workload import WorkloadStrategy
from fakeapi.registry.resource_table import ResourceType

__all__ = ["scheduling_rows"]

_GROUP = "scheduling.k8s.io"
_SEED = "fakeapi.models.scheduling:"


def scheduling_rows() -> list[ResourceType]:
    """The storage rows (v1alpha1) and the upstream versions converted from them."""
    workload = ResourceType(
        _GROUP, "v1alpha1", "Workload", "workloads", True, _SEED + "Workload",
        WorkloadStrategy(), openapi_prefix="io.k8s.api.scheduling.v1alpha1",
    )
    pod_group = ResourceType(
        _GROUP, "v1alpha1", "PodGroup", "podgroups", True, _SEED + "PodGroup",
        PodGroupStrategy(), subresources=("status",),
        openapi_prefix="io.k8s.api.scheduling.v1alpha1",
    )
    return [workload, pod_group]
