"""Cut a rendered pool into ResourceSlices, and tell whether published slices are still current.

The API caps a slice at 128 devices (64 when any device uses taints, ``consumesCounters`` or list
attributes), at 8 shared counter sets, and forbids devices and ``sharedCounters`` in the same
slice. A pool is therefore published as several slices that all carry the same
``pool.generation`` and ``pool.resourceSliceCount`` (the number of slices in that generation), as
upstream's resourceslice controller does: consumers that see fewer slices of the newest generation
than the count know the pool is still being updated.

Slice names are deterministic (``<node>-<driver>[-<pool>]-<n>``, sanitised; the pool is left
out when it is named after the node), so republishing the same pool updates the same objects
instead of churning names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fakeapi.kubelet.dra.profiles import RenderedPool
from fakeapi.objects import Obj

__all__ = [
    "MAX_COUNTER_SETS_PER_SLICE",
    "MAX_DEVICES_PER_SLICE",
    "MAX_DEVICES_PER_SLICE_WITH_TAINTS_OR_COUNTERS",
    "pool_slices",
    "slices_current",
    "slice_base_name",
]


MAX_DEVICES_PER_SLICE = 128
MAX_DEVICES_PER_SLICE_WITH_TAINTS_OR_COUNTERS = 64
MAX_COUNTER_SETS_PER_SLICE = 8
_LIST_ATTRIBUTE_KEYS = ("ints", "bools", "strings", "versions")
_INVALID = re.compile(r"[^a-z0-9.-]+")


def slice_base_name(*, node: str, driver: str, pool: str) -> str:
    """A DNS-subdomain prefix naming the slices of one pool of one driver (and node)."""
    parts = (node, driver) if pool == node else (node, driver, pool)
    raw = "-".join(part for part in parts if part).lower()
    name = _INVALID.sub("-", raw).strip("-.")
    return name[:240].rstrip("-.") or "pool"


def _needs_small_slices(devices: Iterable[Obj]) -> bool:
    for device in devices:
        if device.get("taints") or device.get("consumesCounters"):
            return True
        for value in (device.get("attributes") or {}).values():
            if isinstance(value, dict) and any(k in value for k in _LIST_ATTRIBUTE_KEYS):
                return True
    return False


def _chunks(items: list[Obj], size: int) -> list[list[Obj]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def pool_slices(
    *, pool: RenderedPool, driver: str, generation: int, owner: Obj | None = None
) -> list[Obj]:
    """The ResourceSlice bodies of ``pool`` at ``generation`` (at least one, maybe empty);
    ``owner``: the owner reference they carry (a node's slices are owned by its Node, as the
    kubelet plugin helper publishes them, so they go when the Node goes)."""
    limit = (
        MAX_DEVICES_PER_SLICE_WITH_TAINTS_OR_COUNTERS
        if _needs_small_slices(pool.devices)
        else MAX_DEVICES_PER_SLICE
    )
    contents: list[Obj] = [
        {"sharedCounters": chunk}
        for chunk in _chunks(pool.shared_counters, MAX_COUNTER_SETS_PER_SLICE)
    ]
    contents += [{"devices": chunk} for chunk in _chunks(pool.devices, limit)]
    if not contents:
        contents = [{"devices": []}]
    base = slice_base_name(node=pool.node_name, driver=driver, pool=pool.name)
    placement: Obj
    if pool.node_name:
        placement = {"nodeName": pool.node_name}
    elif pool.node_selector is not None:
        placement = {"nodeSelector": pool.node_selector}
    else:
        placement = {"allNodes": True}
    owners = {"ownerReferences": [owner]} if owner is not None else {}
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{base}-{i}", **owners},
            "spec": {
                "driver": driver,
                "pool": {
                    "name": pool.name,
                    "generation": generation,
                    "resourceSliceCount": len(contents),
                },
                **placement,
                **content,
            },
        }
        for i, content in enumerate(contents)
    ]


def _comparable(spec: Obj) -> Obj:
    pool = dict(spec.get("pool") or {})
    pool.pop("generation", None)
    devices = []
    for device in spec.get("devices") or []:
        copied = {k: v for k, v in device.items() if k != "taints"}
        taints = [
            {k: v for k, v in taint.items() if k != "timeAdded"}
            for taint in device.get("taints") or []
        ]
        if taints:  # the server stamps timeAdded; compare the rest
            copied["taints"] = taints
        devices.append(copied)
    return {**spec, "pool": pool, "devices": devices}


def slices_current(*, published: list[Obj], desired: list[Obj]) -> bool:
    """True when ``published`` (from the API) already is ``desired`` up to the generation.

    Published slices must all share one generation, match the desired slices by name, content
    and owner, and be exactly as many; otherwise the pool is republished at a new generation.
    """
    if len(published) != len(desired):
        return False
    generations = {(s.get("spec") or {}).get("pool", {}).get("generation") for s in published}
    if len(generations) != 1:
        return False
    by_name = {(s.get("metadata") or {}).get("name"): s for s in published}
    for want in desired:
        have = by_name.get(want["metadata"]["name"])
        if have is None:
            return False
        if _comparable(have.get("spec") or {}) != _comparable(want["spec"]):
            return False
        if (have.get("metadata") or {}).get("ownerReferences") != want["metadata"].get(
            "ownerReferences"
        ):
            return False
    return True
