"""ResourceSlices and devices parsed once into the shapes the allocator reads in its hot loop.

A slice is parsed when it is upserted into the inventory, never per allocation: quantities become
:class:`~fakeapi.quantity.Quantity` objects, counters become exact fractions, and each device gets
its :class:`~fakeapi.cel.DeviceView` (which carries the memo of selector results for this slice
version). Upserting an unchanged slice keeps the old entries, so nothing is re-evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fakeapi.cel import DeviceView
from fakeapi.objects import Obj
from fakeapi.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["CapacitySpec", "DeviceEntry", "SliceEntry", "device_id", "parse_slice"]



def device_id(driver: str, pool: str, device: str) -> str:
    """Upstream ``DeviceID`` string form: ``driver/pool/device``."""
    return f"{driver}/{pool}/{device}"


def _quantity(value: object) -> Quantity:
    try:
        return parse_quantity(str(value))
    except QuantityError:
        return Quantity(0)


@dataclass(frozen=True, slots=True)
class CapacitySpec:
    """One ``capacity`` entry of a device with its optional request policy."""

    value: Quantity
    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] | None = None
    range_min: Quantity | None = None
    range_max: Quantity | None = None
    range_step: Quantity | None = None
    has_policy: bool = False
    has_range: bool = False


def _capacity(raw: object) -> CapacitySpec:
    if not isinstance(raw, Mapping):
        return CapacitySpec(_quantity(raw))
    value = _quantity(raw.get("value", "0"))
    policy = raw.get("requestPolicy")
    if not isinstance(policy, Mapping):
        return CapacitySpec(value)
    default = _quantity(policy["default"]) if policy.get("default") is not None else None
    valid_values = None
    if policy.get("validValues") is not None:
        valid_values = tuple(_quantity(v) for v in policy["validValues"])
    valid_range = policy.get("validRange")
    if isinstance(valid_range, Mapping):

        def opt(key: str) -> Quantity | None:
            return _quantity(valid_range[key]) if valid_range.get(key) is not None else None

        return CapacitySpec(
            value, default, valid_values, opt("min"), opt("max"), opt("step"), True, True
        )
    return CapacitySpec(value, default, valid_values, has_policy=True)


def _counters(raw: object) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    if isinstance(raw, Mapping):
        for name, counter in raw.items():
            value = counter.get("value", "0") if isinstance(counter, Mapping) else counter
            out[str(name)] = _quantity(value).value
    return out


class DeviceEntry:
    """One device of one slice version."""

    __slots__ = (
        "all_nodes",
        "allow_multiple",
        "attributes",
        "binding_conditions",
        "binding_failure_conditions",
        "binds_to_node",
        "capacity",
        "capacity_trivial",
        "consumes",
        "driver",
        "has_binding_conditions",
        "id",
        "name",
        "node_name",
        "node_selector",
        "pool",
        "raw",
        "rule_taints",
        "rule_version",
        "slice",
        "taints",
        "view",
    )

    def __init__(self, raw: Obj, slice_entry: SliceEntry) -> None:
        self.raw = raw
        self.slice = slice_entry
        self.name = str(raw.get("name", ""))
        self.driver = slice_entry.driver
        self.pool = slice_entry.pool
        self.id = device_id(self.driver, self.pool, self.name)
        self.view = DeviceView(driver=self.driver, device=raw)
        self.attributes: Mapping[str, Mapping[str, Any]] = raw.get("attributes") or {}
        self.capacity: dict[str, CapacitySpec] = {
            str(name): _capacity(cap) for name, cap in (raw.get("capacity") or {}).items()
        }
        # No request policy and defaults within the value: a request without capacity
        # requirements always fits unless something else already consumes capacity.
        self.capacity_trivial = all(
            not c.has_policy or (c.default is not None and c.default.value <= c.value.value)
            for c in self.capacity.values()
        )
        self.consumes: tuple[tuple[str, dict[str, Fraction]], ...] = tuple(
            (str(c.get("counterSet", "")), _counters(c.get("counters")))
            for c in (raw.get("consumesCounters") or [])
        )
        self.taints: tuple[Mapping[str, Any], ...] = tuple(raw.get("taints") or ())
        # Taints including DeviceTaintRules, valid while rule_version matches the inventory's.
        self.rule_taints: tuple[Mapping[str, Any], ...] = self.taints
        self.rule_version = 0
        self.has_binding_conditions = raw.get("bindingConditions") is not None
        self.binding_conditions: list[str] | None = (
            list(raw["bindingConditions"]) if raw.get("bindingConditions") else None
        )
        self.binding_failure_conditions: list[str] | None = (
            list(raw["bindingFailureConditions"]) if raw.get("bindingFailureConditions") else None
        )
        self.binds_to_node = bool(raw.get("bindsToNode"))
        self.allow_multiple = bool(raw.get("allowMultipleAllocations"))
        self.node_name: str | None = raw.get("nodeName") or None
        self.node_selector: Obj | None = raw.get("nodeSelector")
        self.all_nodes = bool(raw.get("allNodes"))

    def __repr__(self) -> str:
        return f"DeviceEntry({self.id})"


class SliceEntry:
    """One ResourceSlice version."""

    __slots__ = (
        "all_nodes",
        "counter_sets",
        "devices",
        "driver",
        "generation",
        "name",
        "node_name",
        "node_selector",
        "per_device",
        "per_device_set",
        "pool",
        "raw",
        "slice_count",
        "version",
    )

    def __init__(self, raw: Obj) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        pool = spec.get("pool") or {}
        self.name = str(meta.get("name", ""))
        self.version = (meta.get("uid"), meta.get("resourceVersion"))
        self.driver = str(spec.get("driver", ""))
        self.pool = str(pool.get("name", ""))
        self.generation = int(pool.get("generation") or 0)
        self.slice_count = int(pool.get("resourceSliceCount") or 0)
        self.node_name: str | None = spec.get("nodeName") or None
        self.node_selector: Obj | None = spec.get("nodeSelector")
        self.all_nodes = bool(spec.get("allNodes"))
        self.per_device_set = spec.get("perDeviceNodeSelection") is not None
        self.per_device = bool(spec.get("perDeviceNodeSelection"))
        self.counter_sets: tuple[tuple[str, dict[str, Fraction]], ...] = tuple(
            (str(cs.get("name", "")), _counters(cs.get("counters")))
            for cs in (spec.get("sharedCounters") or [])
        )
        self.devices: tuple[DeviceEntry, ...] = tuple(
            DeviceEntry(d, self) for d in (spec.get("devices") or [])
        )

    @property
    def pool_key(self) -> tuple[str, str]:
        return (self.driver, self.pool)

    def same_content(self, other: SliceEntry) -> bool:
        """True when ``other`` is the same slice version (keeps memoised CEL results)."""
        if self.version != (None, None) and self.version == other.version:
            return True
        return self.raw == other.raw

    def __repr__(self) -> str:
        return f"SliceEntry({self.name}, {self.driver}/{self.pool}@{self.generation})"


def parse_slice(raw: Obj) -> SliceEntry:
    return SliceEntry(raw)


def all_device_ids(slices: Sequence[SliceEntry]) -> list[str]:
    return [d.id for s in slices for d in s.devices]
