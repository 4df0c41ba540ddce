"""The name of the ResourcePool object that reports on one pool (KEP-5677), for every reader.

The ResourcePool controller creates the object and ``kubectl dra`` looks it up, so both must name
a pool alike: ``<driver>.<pool>``, with ``/`` replaced by ``-`` in both parts (a pool name may
hold slashes too), lowercased (a driver name may be written in capitals, which an object name
may not) and cut to the 253 characters of a DNS subdomain.
"""

from __future__ import annotations

__all__ = ["resource_pool_name"]

_MAX_NAME = 253


def resource_pool_name(*, driver: str, pool: str) -> str:
    """``example.com/gpu`` and ``node-1`` → ``example.com-gpu.node-1``."""
    name = f"{driver.replace('/', '-')}.{pool.replace('/', '-')}".lower()
    return name[:_MAX_NAME].rstrip(".-")
