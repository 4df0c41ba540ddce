"""Device binding conditions (KEP-5007): when an allocated device may be bound to the node.

Some devices (network-attached, fabric) must be attached before the pod can start. Such a device
lists ``bindingConditions`` (and ``bindingFailureConditions``); the allocation copies them into
its results, and the scheduler holds the binding cycle in PreBind until the driver reports every
binding condition ``True`` in the claim's ``status.devices`` — or a failure condition ``True``, or
the binding timeout passes — as upstream's DynamicResources plugin does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["BindError", "binding_verdict", "has_binding_conditions"]

Obj = Mapping[str, Any]


def _klog(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class BindError(Exception):
    """Writing a claim's allocation or reservation failed for a reason a retry cannot fix."""


def has_binding_conditions(allocation: Obj) -> bool:
    return any(
        r.get("bindingConditions") for r in (allocation.get("devices") or {}).get("results") or ()
    )


def binding_verdict(claim: Obj) -> bool | str:
    """True when every binding condition holds, a message when a failure condition holds,
    False while still waiting."""
    status = claim.get("status") or {}
    devices = {
        (d.get("driver"), d.get("pool"), d.get("device"), d.get("shareID") or ""): d
        for d in status.get("devices") or ()
    }
    ready = True
    for result in ((status.get("allocation") or {}).get("devices") or {}).get("results") or ():
        wanted = result.get("bindingConditions") or ()
        failures = result.get("bindingFailureConditions") or ()
        if not wanted and not failures:
            continue
        entry = (
            devices.get(
                (
                    result.get("driver"),
                    result.get("pool"),
                    result.get("device"),
                    result.get("shareID") or "",
                )
            )
            or {}
        )
        conditions = {c.get("type"): c.get("status") for c in entry.get("conditions") or ()}
        for failure in failures:
            if conditions.get(failure) == "True":
                return (
                    f"claim {_klog(claim)}: binding failed for device "
                    f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}: "
                    f"{failure}"
                )
        if not all(conditions.get(c) == "True" for c in wanted):
            ready = False
    return ready
