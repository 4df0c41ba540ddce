"""resource.k8s.io types shared by several kinds: selectors, opaque config, taints, tolerations.

Enumerations (taint effects, toleration operators) are plain strings on purpose: an unknown value
must reach validation and be rejected with upstream's ``Unsupported value`` message, not fail
schema decoding.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import GoType, K8sModel, RawJSON, Time

__all__ = [
    "CELDeviceSelector",
    "DeviceSelector",
    "OpaqueDeviceConfiguration",
    "DeviceTaint",
    "DeviceToleration",
]


class CELDeviceSelector(K8sModel):
    """A CEL expression evaluated against one device; the device is selected when it is true."""

    expression: str
    """The expression; it sees the variable ``device`` (driver, attributes, capacity)."""


class DeviceSelector(K8sModel):
    """One criterion a device must meet."""

    cel: CELDeviceSelector | None = None
    """Selects devices with a CEL expression."""


class OpaqueDeviceConfiguration(K8sModel):
    """Driver-specific configuration passed through to the driver unchanged."""

    driver: str
    """The driver the configuration is for; other drivers ignore it."""
    parameters: RawJSON
    """Free-form JSON object with the configuration, in a format the driver defines."""


class DeviceTaint(K8sModel):
    """A taint on a device: allocations and running pods must tolerate it."""

    key: str
    """The taint key (a label name)."""
    value: str | None = None
    """The taint value (a label value)."""
    effect: Annotated[str, GoType("DeviceTaintEffect")]
    """What the taint does to pods that do not tolerate it: None, NoSchedule or NoExecute."""
    time_added: Time | None = None
    """When the taint was added; set by the server when omitted."""


class DeviceToleration(K8sModel):
    """Tolerates taints whose key, value and effect match."""

    key: str | None = None
    """The taint key to match; empty matches every key (then the operator must be Exists)."""
    operator: Annotated[str | None, GoType("DeviceTolerationOperator")] = None
    """Equal (the default) compares values; Exists matches any value."""
    value: str | None = None
    """The taint value to match with operator Equal."""
    effect: Annotated[str | None, GoType("DeviceTaintEffect")] = None
    """The taint effect to match; empty matches every effect."""
    toleration_seconds: int | None = None
    """For NoExecute: how long the pod keeps running after the taint appears; unset = forever."""
