"""Feature gates as the allocator sees them.

The scheduler passes upstream gate names (``DRAPrioritizedList`` …); the allocator works with a
frozen set of booleans, like upstream's ``structured.Features``. ``DeviceBindingAndStatus`` needs
both DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, as in kube-scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fakeapi.cel import Features as CELFeatures

__all__ = ["DEFAULT_GATES", "AllocatorFeatures"]

# Defaults of the 1.37 baseline.
DEFAULT_GATES: Mapping[str, bool] = {
    "DRAAdminAccess": True,
    "DRAPrioritizedList": True,
    "DRAPartitionableDevices": True,
    "DRAConsumableCapacity": True,
    "DRADeviceTaints": True,
    "DRADeviceTaintRules": True,
    "DRADeviceBindingConditions": True,
    "DRAResourceClaimDeviceStatus": True,
    "DRAListTypeAttributes": False,
}


@dataclass(frozen=True, slots=True)
class AllocatorFeatures:
    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    consumable_capacity: bool = True
    device_taints: bool = True
    device_binding_and_status: bool = True
    list_type_attributes: bool = False

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool] | None = None) -> AllocatorFeatures:
        """Build from upstream gate names; gates not mentioned take their 1.37 default."""
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
