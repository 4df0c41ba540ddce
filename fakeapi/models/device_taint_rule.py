"""resource.k8s.io/v1 DeviceTaintRule: a taint applied to every device a selector matches.

Served at v1, as Kubernetes 1.37 serves it, and at v1beta2 (the same shape) for 1.36 clients.
The taint is added virtually for the scheduler and the eviction controller; stored slices are not
modified. The selector fields ``deviceClassName`` and ``selectors`` were tombstoned upstream and are
not served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fakeapi.models.base import K8sModel, map_list
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.models.resource_common import DeviceTaint

__all__ = [
    "DeviceTaintRule",
    "DeviceTaintRuleSpec",
    "DeviceTaintRuleStatus",
    "DeviceTaintSelector",
    "rule_selects",
]


def rule_selects(rule: Mapping[str, Any], *, driver: str, pool: str, device: str) -> bool:
    """Whether a DeviceTaintRule (as JSON) selects a device: each field its ``deviceSelector``
    sets must equal the device's driver, pool or name; a rule without a selector selects none."""
    selector = (rule.get("spec") or {}).get("deviceSelector")
    if not isinstance(selector, Mapping):
        return False
    return all(
        not selector.get(field) or selector.get(field) == value
        for field, value in (("driver", driver), ("pool", pool), ("device", device))
    )


class DeviceTaintSelector(K8sModel):
    """Which devices the taint applies to; every set field must match, {} matches all devices."""

    driver: str | None = None
    """Only devices of this driver."""
    pool: str | None = None
    """Only devices of this pool."""
    device: str | None = None
    """Only devices with this name."""


class DeviceTaintRuleSpec(K8sModel):
    """The selector and the taint."""

    device_selector: DeviceTaintSelector | None = None
    """The devices to taint; unset taints no device."""
    taint: DeviceTaint
    """The taint added to the selected devices."""


class DeviceTaintRuleStatus(K8sModel):
    """Progress of applying the rule."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Conditions such as EvictionInProgress (at most 8)."""


class DeviceTaintRule(K8sModel):
    """Adds a taint to all devices matching a selector."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: DeviceTaintRuleSpec
    """The selector and taint."""
    status: DeviceTaintRuleStatus | None = None
    """Progress reported by the eviction controller."""
