"""Feature gates as the allocator sees them.

The scheduler passes upstream gate names (``DRAPrioritizedList`` …); the allocator works with a
frozen set of booleans, like upstream's ``structured.Features``. ``DeviceBindingAndStatus`` needs
both DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, as in kube-scheduler. Defaults
are not kept here: gates not mentioned take their default from :mod:`fakeapi.features`, the one
table every component shares.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fakeapi.cel import Features as CELFeatures
from fakeapi.features import KNOWN_FEATURES

__all__ = ["ALLOCATOR_GATES", "DEFAULT_GATES", "AllocatorFeatures"]

#: The gates the allocator consults.
ALLOCATOR_GATES = (
    "DRAAdminAccess",
    "DRAPrioritizedList",
    "DRAPartitionableDevices",
    "DRAConsumableCapacity",
    "DRADeviceTaints",
    "DRADeviceTaintRules",
    "DRADeviceBindingConditions",
    "DRAResourceClaimDeviceStatus",
    "DRAListTypeAttributes",
)

#: Their defaults, from the shared table.
DEFAULT_GATES: Mapping[str, bool] = {name: KNOWN_FEATURES[name].default for name in ALLOCATOR_GATES}


@dataclass(frozen=True, slots=True)
class AllocatorFeatures:
    """Which optional allocator features are on; built by :meth:`from_gates` or :meth:`none`."""

    admin_access: bool
    prioritized_list: bool
    partitionable_devices: bool
    consumable_capacity: bool
    device_taints: bool
    device_binding_and_status: bool
    list_type_attributes: bool

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool] | None = None) -> AllocatorFeatures:
        """Build from upstream gate names; gates not mentioned take their default."""
        merged = {**DEFAULT_GATES, **(gates or {})}
        return cls(
            admin_access=merged["DRAAdminAccess"],
            prioritized_list=merged["DRAPrioritizedList"],
            partitionable_devices=merged["DRAPartitionableDevices"],
            consumable_capacity=merged["DRAConsumableCapacity"],
            device_taints=merged["DRADeviceTaints"],
            device_binding_and_status=merged["DRADeviceBindingConditions"]
            and merged["DRAResourceClaimDeviceStatus"],
            list_type_attributes=merged["DRAListTypeAttributes"],
        )

    @classmethod
    def none(cls) -> AllocatorFeatures:
        """Every optional feature off (upstream's zero ``Features``)."""
        return cls(False, False, False, False, False, False, False)

    @property
    def cel(self) -> CELFeatures:
        return CELFeatures(
            consumable_capacity=self.consumable_capacity,
            list_type_attributes=self.list_type_attributes,
        )
