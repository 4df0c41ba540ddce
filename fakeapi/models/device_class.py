"""resource.k8s.io/v1 DeviceClass: a named set of device selectors and configuration.

Claims refer to a class by name; the allocator ANDs the class selectors with the request's own and
copies the class config into the allocation. The spec stays mutable (its generation is bumped).
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, atomic_list
from fakeapi.models.meta import ObjectMeta
from fakeapi.models.resource_common import DeviceSelector, OpaqueDeviceConfiguration

__all__ = ["DeviceClass", "DeviceClassSpec", "DeviceClassConfiguration"]


class DeviceClassConfiguration(K8sModel):
    """Configuration applied to every device allocated through the class."""

    opaque: OpaqueDeviceConfiguration | None = None
    """Driver-specific configuration."""


class DeviceClassSpec(K8sModel):
    """Selectors and configuration of a class."""

    selectors: Annotated[list[DeviceSelector] | None, atomic_list()] = None
    """Criteria every device of the class must meet (at most 32)."""
    config: Annotated[list[DeviceClassConfiguration] | None, atomic_list()] = None
    """Configuration for devices allocated through the class (at most 32)."""
    extended_resource_name: str | None = None
    """An extended resource name pods may request instead of a claim (DRAExtendedResource)."""


class DeviceClass(K8sModel):
    """A vendor- or admin-defined class of devices."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: DeviceClassSpec
    """Selectors and configuration."""
