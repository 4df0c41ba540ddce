"""The table of served kinds: one row per kind drives routes, discovery, OpenAPI and printing.

Adding a kind takes a model (``fakeapi.models``), a strategy (``fakeapi.registry.kinds``) and a
row in :data:`KINDS` — nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from fakeapi.registry.strategy import Strategy
from fakeapi.schema import SchemaNode, schema_for
from fakeapi.storage.memory import Storage, Table
from fakeapi.storage.view import ConvertedTable, Converter

__all__ = ["ApiVersionConversion", "ResourceType", "ResourceTable"]


@dataclass(frozen=True, eq=False)
class ResourceType:
    """One served resource: its names, scope, subresources, model and strategy."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    model: type[BaseModel]
    strategy: Strategy
    #: ``status`` and/or ``binding`` (pods)
    subresources: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    #: DELETE answers with the object (else with a ``Status`` Success), as upstream's OpenAPI says
    delete_returns_object: bool = False
    #: the upstream OpenAPI schema name prefix, e.g. ``io.k8s.api.core.v1``
    openapi_prefix: str = ""
    singular: str = field(default="")
    #: served from another resource's storage (``stored_in`` is its key) through ``converter``
    stored_in: str = ""
    converter: Converter | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified_plural(self) -> str:
        """``pods`` or ``resourceclaims.resource.k8s.io``: the prefix of 404/409 messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def schema(self) -> SchemaNode:
        return schema_for(self.model)

    @property
    def key(self) -> str:
        """Storage key of the resource: ``resourceclaims.resource.k8s.io`` (group-qualified)."""
        return self.qualified_plural

    def table(self, storage: Storage) -> Table | ConvertedTable:
        """Where this resource's objects live in ``storage`` (converted if stored elsewhere)."""
        if self.converter is None:
            return storage.table(self.key)
        return storage.view(self.key, stored_in=self.stored_in, converter=self.converter)


class ApiVersionConversion:
    """Another version of a kind whose fields are the same: only ``apiVersion`` changes.

    Upstream serves a kind at several versions from one stored copy; where the versions share
    every field (DeviceTaintRule at ``resource.k8s.io/v1`` and ``v1beta2``), converting an object
    is rewriting its ``apiVersion``.
    """

    def __init__(self, *, stored: str, served: str) -> None:
        self.stored = stored
        self.served = served

    def to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.stored}

    def from_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.served}


class ResourceTable:
    """The served kinds, indexed the ways requests look them up."""

    def __init__(self, types: Iterable[ResourceType]) -> None:
        self._types = list(types)
        self._by_path: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rt in self._types:
            self._by_path[(rt.group, rt.version, rt.plural)] = rt
            self._by_kind[(rt.api_version, rt.kind)] = rt

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(self._types)

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        return self._by_kind.get((api_version, kind))

    def group_versions(self) -> list[tuple[str, str]]:
        """(group, version) pairs in first-served order, core first."""
        seen: dict[tuple[str, str], None] = {}
        for rt in self._types:
            seen.setdefault((rt.group, rt.version), None)
        return list(seen)


def default_resources() -> ResourceTable:
    """Every kind fakeapi serves, core first (the order of discovery and OpenAPI)."""
    from fakeapi.models import coordination, core, events, pod, priority, scheduling
    from fakeapi.models.device_class import DeviceClass
    from fakeapi.models.device_taint_rule import DeviceTaintRule
    from fakeapi.models.resource_claim import ResourceClaim, ResourceClaimTemplate
    from fakeapi.models.resource_pool import ResourcePool
    from fakeapi.models.resource_slice import ResourceSlice
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
    from fakeapi.registry.kinds.podgroup import PodGroupStrategy
    from fakeapi.registry.kinds.priorityclass import PriorityClassStrategy
    from fakeapi.registry.kinds.resourceclaim import ResourceClaimStrategy
    from fakeapi.registry.kinds.resourceclaimtemplate import ResourceClaimTemplateStrategy
    from fakeapi.registry.kinds.resourcepool import ResourcePoolStrategy
    from fakeapi.registry.kinds.resourceslice import ResourceSliceStrategy
    from fakeapi.registry.kinds.workload import WorkloadStrategy

    core_v1, resource, scheduling_k8s = "io.k8s.api.core.v1", "resource.k8s.io", "scheduling.k8s.io"
    # DELETE answers with the object for the kinds whose upstream OpenAPI says so
    # (delete_returns_object), with a Status otherwise.
    # fmt: off
    return ResourceTable([
        ResourceType("", "v1", "Namespace", "namespaces", False, core.Namespace,
                     NamespaceStrategy(), subresources=("status", "finalize"),
                     short_names=("ns",), openapi_prefix=core_v1),
        ResourceType("", "v1", "Node", "nodes", False, core.Node, NodeStrategy(),
                     subresources=("status",), short_names=("no",), openapi_prefix=core_v1),
        ResourceType("", "v1", "Pod", "pods", True, pod.Pod, PodStrategy(),
                     subresources=("status", "binding"), short_names=("po",),
                     categories=("all",), delete_returns_object=True, openapi_prefix=core_v1),
        ResourceType("", "v1", "Event", "events", True, core.Event, CoreEventStrategy(),
                     short_names=("ev",), openapi_prefix=core_v1),
        ResourceType("", "v1", "ConfigMap", "configmaps", True, core.ConfigMap,
                     ConfigMapStrategy(), short_names=("cm",), openapi_prefix=core_v1),
        ResourceType("events.k8s.io", "v1", "Event", "events", True, events.Event,
                     EventsEventStrategy(), short_names=("ev",),
                     openapi_prefix="io.k8s.api.events.v1",
                     stored_in="events", converter=EventsV1Conversion()),
        ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True, coordination.Lease,
                     LeaseStrategy(), openapi_prefix="io.k8s.api.coordination.v1"),
        ResourceType(resource, "v1", "DeviceClass", "deviceclasses", False, DeviceClass,
                     DeviceClassStrategy(), delete_returns_object=True,
                     openapi_prefix="io.k8s.api.resource.v1"),
        ResourceType(resource, "v1", "ResourceClaim", "resourceclaims", True, ResourceClaim,
                     ResourceClaimStrategy(), subresources=("status",),
                     delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1"),
        ResourceType(resource, "v1", "ResourceClaimTemplate", "resourceclaimtemplates", True,
                     ResourceClaimTemplate, ResourceClaimTemplateStrategy(),
                     delete_returns_object=True, openapi_prefix="io.k8s.api.resource.v1"),
        ResourceType(resource, "v1", "ResourceSlice", "resourceslices", False, ResourceSlice,
                     ResourceSliceStrategy(), delete_returns_object=True,
                     openapi_prefix="io.k8s.api.resource.v1"),
        ResourceType(resource, "v1", "DeviceTaintRule", "devicetaintrules", False,
                     DeviceTaintRule, DeviceTaintRuleStrategy(), subresources=("status",),
                     openapi_prefix="io.k8s.api.resource.v1"),
        # 1.36 served DeviceTaintRule at v1beta2 only; its clients keep working on the same objects
        ResourceType(resource, "v1beta2", "DeviceTaintRule", "devicetaintrules", False,
                     DeviceTaintRule, DeviceTaintRuleStrategy(), subresources=("status",),
                     openapi_prefix="io.k8s.api.resource.v1beta2",
                     stored_in=f"devicetaintrules.{resource}",
                     converter=ApiVersionConversion(stored=f"{resource}/v1",
                                                    served=f"{resource}/v1beta2")),
        ResourceType(resource, "v1beta2", "ResourcePool", "resourcepools", False, ResourcePool,
                     ResourcePoolStrategy(), subresources=("status",),
                     openapi_prefix="io.k8s.api.resource.v1beta2"),
        ResourceType(scheduling_k8s, "v1", "PriorityClass", "priorityclasses", False,
                     priority.PriorityClass, PriorityClassStrategy(), short_names=("pc",),
                     openapi_prefix="io.k8s.api.scheduling.v1"),
        ResourceType(scheduling_k8s, "v1alpha1", "Workload", "workloads", True,
                     scheduling.Workload, WorkloadStrategy(),
                     openapi_prefix="io.k8s.api.scheduling.v1alpha1"),
        ResourceType(scheduling_k8s, "v1alpha1", "PodGroup", "podgroups", True,
                     scheduling.PodGroup, PodGroupStrategy(), subresources=("status",),
                     openapi_prefix="io.k8s.api.scheduling.v1alpha1"),
    ])
    # fmt: on
