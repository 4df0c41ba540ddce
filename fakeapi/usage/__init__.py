"""Client-side views over DRA objects: KEP-5677's pool usage (library and ``kubectl dra``).

Core-side on purpose: it reads the cluster only through :mod:`fakeapi.client` (or from objects
the caller passes in), so it works against fakeapi and any real cluster alike. The counting is
the shared rule of :mod:`fakeapi.rules.pools`, which the ResourcePool controller applies too;
it is re-exported here as the library's surface.
"""

from fakeapi.rules.pools import (
    ALLOCATED,
    AVAILABLE,
    PARTIALLY_ALLOCATED,
    UNAVAILABLE,
    UNKNOWN,
    DeviceUsage,
    PoolUsage,
    pool_usage,
    resource_pool_name,
)

__all__ = [
    "ALLOCATED",
    "AVAILABLE",
    "PARTIALLY_ALLOCATED",
    "UNAVAILABLE",
    "UNKNOWN",
    "DeviceUsage",
    "PoolUsage",
    "pool_usage",
    "resource_pool_name",
]
