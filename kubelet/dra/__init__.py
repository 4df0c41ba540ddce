"""Simulated DRA drivers: profiles as data, slice publishing, prepare/unprepare, device health."""

from fakeapi.kubelet.dra.driver import (
    DeviceHealthReport,
    DriverBehavior,
    PreparedClaim,
    PrepareError,
    SimulatedDriver,
    UnprepareError,
)
from fakeapi.kubelet.dra.health import DEFAULT_HEALTH_TIMEOUT_SECONDS, HealthCache
from fakeapi.kubelet.dra.profiles import DriverProfile, ProfileError, RenderedPool
from fakeapi.kubelet.dra.slices import pool_slices

__all__ = [
    "DEFAULT_HEALTH_TIMEOUT_SECONDS",
    "DeviceHealthReport",
    "DriverBehavior",
    "DriverProfile",
    "HealthCache",
    "PrepareError",
    "PreparedClaim",
    "ProfileError",
    "RenderedPool",
    "SimulatedDriver",
    "UnprepareError",
    "pool_slices",
]
