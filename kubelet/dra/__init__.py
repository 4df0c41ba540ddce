"""Simulated DRA drivers: profiles as data, slice publishing, prepare/unprepare, device health."""

from fakeapi.kubelet.dra.driver import (
    DeviceHealthReport,
    PreparedClaim,
    PrepareError,
    SimulatedDriver,
)
from fakeapi.kubelet.dra.health import DEFAULT_HEALTH_TIMEOUT_SECONDS, HealthCache
from fakeapi.kubelet.dra.profiles import DriverProfile, ProfileError, RenderedPool
from fakeapi.kubelet.dra.slices import pool_slices

__all__ = [
    "DEFAULT_HEALTH_TIMEOUT_SECONDS",
    "DeviceHealthReport",
    "DriverProfile",
    "HealthCache",
    "PrepareError",
    "PreparedClaim",
    "ProfileError",
    "RenderedPool",
    "SimulatedDriver",
    "pool_slices",
]
