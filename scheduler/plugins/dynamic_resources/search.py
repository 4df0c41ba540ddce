"""The depth-first search for one node (upstream ``allocateOne`` / ``allocateDevice``).

The search order is upstream's and is observable (which devices a claim gets), so it is kept
exactly: claims as given → requests in spec order → subrequests in list order, each tried only
after the previous one failed with full backtracking → devices in pool/slice/device order, each
request continuing after the device it picked last (combinations, not permutations).

Everything tentative lives in this object and is undone in LIFO order on backtracking; the
inventory is only read. Cheap checks come first: "in use" is a set lookup, selector results are
memoised on the device view, capacity and counters are only computed when their feature is on.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fakeapi.cel import CELCompileError, CELRuntimeError
from fakeapi.quantity import Quantity
from fakeapi.rules.taints import device_toleration_tolerates_taint
from fakeapi.scheduler.plugins.dynamic_resources.capacity import consumed_capacity, fits_capacity
from fakeapi.scheduler.plugins.dynamic_resources.constraints import Constraint
from fakeapi.scheduler.plugins.dynamic_resources.entries import DeviceEntry
from fakeapi.scheduler.plugins.dynamic_resources.errors import (
    AllocationError,
    AllocationTimeoutError,
)
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory, NodeView
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node
from fakeapi.scheduler.plugins.dynamic_resources.pools import Pool, device_matches_node
from fakeapi.scheduler.plugins.dynamic_resources.requests import PreparedClaim, RequestSpec

__all__ = ["MAX_RESULTS", "DeviceResult", "RequestData", "Search"]

MAX_RESULTS = 32
_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


#: the deadline is checked every 256 steps (when the step count has these bits clear)
_DEADLINE_MASK = 255


class _MaxSizeExceededError(Exception):
    """A claim would get more than 32 results on this branch (upstream's special error)."""


class RequestData:
    """A request or subrequest as resolved for this node."""

    __slots__ = ("all_devices", "num_devices", "spec")

    def __init__(
        self, spec: RequestSpec, num_devices: int, all_devices: list[DeviceEntry] | None
    ) -> None:
        self.spec = spec
        self.num_devices = num_devices
        self.all_devices = all_devices


class DeviceResult:
    __slots__ = ("consumed", "device", "share_id", "spec")

    def __init__(
        self,
        spec: RequestSpec,
        device: DeviceEntry,
        share_id: str | None,
        consumed: dict[str, Quantity] | None,
    ) -> None:
        self.spec = spec
        self.device = device
        self.share_id = share_id
        self.consumed = consumed


def taint_prevents_allocation(taints: tuple[Mapping[str, Any], ...], spec: RequestSpec) -> bool:
    tolerations = spec.tolerations
    for taint in taints:
        if taint.get("effect") in _BLOCKING_EFFECTS and not (
            tolerations and any(device_toleration_tolerates_taint(t, taint) for t in tolerations)
        ):
            return True
    return False


class Search:
    """One allocation attempt for a set of claims on one node."""

    def __init__(
        self,
        *,
        inventory: DeviceInventory,
        node: Node,
        view: NodeView,
        claims: Sequence[PreparedClaim],
        features: AllocatorFeatures,
        deadline: float | None = None,
        now: Callable[[], float] | None = None,
    ) -> None:
        self.inventory = inventory
        #: when ``now()`` passes it, the search gives up (checked every few hundred steps)
        self.deadline = deadline
        self.now = now
        self.node = node
        self.view = view
        self.claims = claims
        self.features = features
        self.candidates = view.candidates
        self.data: list[list[list[RequestData]]] = []
        self.selected: list[list[int]] = []
        self.constraints: list[list[Constraint]] = []
        self.results: list[list[DeviceResult]] = [[] for _ in claims]
        self.allocating: dict[str, set[int]] = {}
        self.allocating_capacity: dict[str, dict[str, Quantity]] = {}
        self.allocating_shares: dict[str, int] = {}
        self.consumed_counters: dict[tuple[str, str], dict[str, dict[str, Fraction]]] = {}
        self.available_counters: dict[tuple[str, str], dict[str, dict[str, Fraction]]] = {}
        self.calls = 0

    # -- per-node validation (upstream's loop before the search) -----------------------------
    @staticmethod
    def static_data(claims: Sequence[PreparedClaim]) -> list[list[list[RequestData]]] | None:
        """Request data that cannot differ between nodes, or None when the per-node pass is
        needed (``All`` requests look at pools; deferred errors must be raised in order)."""
        data: list[list[list[RequestData]]] = []
        for claim in claims:
            if claim.constraint_error is not None:
                return None
            per_claim: list[list[RequestData]] = []
            for request in claim.requests:
                if request.error is not None:
                    return None
                datas: list[RequestData] = []
                for spec in request.specs:
                    if spec.error is not None or spec.mode != "ExactCount":
                        return None
                    datas.append(RequestData(spec, spec.count, None))
                per_claim.append(datas)
            if sum(min(d.num_devices for d in datas) for datas in per_claim) > MAX_RESULTS:
                return None
            data.append(per_claim)
        return data

    def prepare(self, static: list[list[list[RequestData]]] | None = None) -> None:
        if static is not None:
            self.data = static
            list_semantics = self.features.list_type_attributes
            for claim in self.claims:
                self.selected.append([0] * len(claim.requests))
                self.constraints.append(
                    claim.new_constraints(list_semantics) if claim.constraint_specs else []
                )
            return
        for ci, claim in enumerate(self.claims):
            per_claim: list[list[RequestData]] = []
            min_devices = 0
            for request in claim.requests:
                if request.error is not None:
                    raise request.error
                datas: list[RequestData] = []
                for spec in request.specs:
                    if spec.error is not None:
                        raise spec.error
                    datas.append(self._request_data(ci, spec))
                per_claim.append(datas)
                min_devices += min(d.num_devices for d in datas)
            if min_devices > MAX_RESULTS:
                raise AllocationError(
                    f"claim {claim.ref}: number of requested devices {min_devices} "
                    f"exceeds the claim limit of {MAX_RESULTS}"
                )
            if claim.constraint_error is not None:
                raise claim.constraint_error
            self.data.append(per_claim)
            self.selected.append([0] * len(claim.requests))
            self.constraints.append(claim.new_constraints(self.features.list_type_attributes))

    def _request_data(self, ci: int, spec: RequestSpec) -> RequestData:
        if spec.mode != "All":
            return RequestData(spec, spec.count, None)
        devices: list[DeviceEntry] = []
        for pool in self.view.pools:
            if pool.incomplete:
                raise AllocationError(
                    f"claim {self.claims[ci].ref}, request {spec.name}: asks for all devices, "
                    f"but resource pool {pool.id} is currently being updated"
                )
            if pool.invalid:
                raise AllocationError(
                    f"claim {self.claims[ci].ref}, request {spec.name}: asks for all devices, "
                    f"but resource pool {pool.id} is currently invalid"
                )
            for device in pool.devices:
                if not self.selectable(ci, spec, device):
                    continue
                if self.features.consumable_capacity and not self._fits(spec, device):
                    continue
                devices.append(device)
        return RequestData(spec, len(devices), devices)

    # -- checks ---------------------------------------------------------------------------------
    def selectable(self, ci: int, spec: RequestSpec, device: DeviceEntry) -> bool:
        if device.binding_conditions and not self.features.device_binding_and_status:
            return False
        device_class = spec.device_class
        assert device_class is not None
        view = device.view
        for i, selector in device_class.selectors:
            if isinstance(selector, CELCompileError):
                raise AllocationError(
                    f"class {device_class.name}: selector #{i}: "
                    f"CEL compile error: {selector.message}"
                )
            try:
                if not selector.matches(view):
                    return False
            except CELRuntimeError as exc:
                raise AllocationError(
                    f"class {device_class.name}: selector #{i}: CEL runtime error: {exc.message}"
                ) from None
        for i, selector in spec.selectors:
            if isinstance(selector, CELCompileError):
                raise AllocationError(
                    f"claim {self.claims[ci].ref}: selector #{i}: "
                    f"CEL compile error: {selector.message}"
                )
            try:
                if not selector.matches(view):
                    return False
            except CELRuntimeError as exc:
                raise AllocationError(
                    f"claim {self.claims[ci].ref}: selector #{i}: CEL runtime error: {exc.message}"
                ) from None
        if device.slice.per_device:
            return device_matches_node(device, self.node)
        return True

    def _fits(self, spec: RequestSpec, device: DeviceEntry) -> bool:
        if not spec.capacity:
            if not device.capacity:
                return True
            did = device.id
            if (
                device.capacity_trivial
                and did not in self.allocating_capacity
                and did not in self.inventory.aggregated_capacity
            ):
                return True
        return fits_capacity(
            spec.capacity,
            device,
            self.inventory.aggregated_capacity.get(device.id),
            self.allocating_capacity.get(device.id),
        )

    def in_use(self, did: str) -> bool:
        return did in self.inventory.allocated_devices or bool(self.allocating.get(did))

    # -- search -----------------------------------------------------------------------------------
    def run(self) -> bool:
        # One stack frame per tentatively allocated device and per request/claim step; make
        # room for pods with many large claims (32 results each) without changing the search.
        depth = sum(len(claim.requests) + MAX_RESULTS for claim in self.claims) * 2 + 200
        limit = sys.getrecursionlimit()
        if depth > limit - 100:
            sys.setrecursionlimit(depth + limit)
        try:
            return self.allocate_one(0, 0, 0, 0, False, 0)
        except _MaxSizeExceededError:
            return False
        finally:
            if depth > limit - 100:
                sys.setrecursionlimit(limit)

    def allocate_one(
        self, ci: int, ri: int, si: int, di: int, in_subrequest: bool, start: int
    ) -> bool:
        self.calls += 1
        if (
            not self.calls & _DEADLINE_MASK
            and self.deadline is not None
            and self.now is not None
            and self.now() > self.deadline
        ):
            raise AllocationTimeoutError
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.requests):
            try:
                return self.allocate_one(ci + 1, 0, 0, 0, False, 0)
            except _MaxSizeExceededError:
                return False

        datas = self.data[ci][ri]
        if not in_subrequest and claim.requests[ri].has_subrequests:
            all_exceeded = True
            for sub in range(len(datas)):
                try:
                    done = self.allocate_one(ci, ri, sub, 0, True, 0)
                except _MaxSizeExceededError:
                    continue
                all_exceeded = False
                if done:
                    self.selected[ci][ri] = sub
                    return True
            if all_exceeded:
                raise _MaxSizeExceededError
            return False

        data = datas[si]
        spec = data.spec
        if data.all_devices is not None and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self.allocate_one(ci, ri + 1, 0, 0, False, 0)
        if len(self.results[ci]) + data.num_devices - di > MAX_RESULTS:
            raise _MaxSizeExceededError

        if data.all_devices is not None:
            undo = self.allocate_device(ci, spec, data.all_devices[di], must=True)
            if undo is None:
                return False
            try:
                done = self.allocate_one(ci, ri, si, di + 1, in_subrequest, 0)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done

        candidates = self.candidates
        admin = spec.admin
        consumable = self.features.consumable_capacity
        allocated = self.inventory.allocated_devices
        allocating = self.allocating
        for index in range(start, len(candidates)):
            device = candidates[index]
            did = device.id
            if admin:
                holders = allocating.get(did)
                if holders and ci in holders:
                    continue
            elif did in allocated or allocating.get(did):
                continue
            if not self.selectable(ci, spec, device):
                continue
            if consumable and not self._fits(spec, device):
                continue
            undo = self.allocate_device(ci, spec, device, must=False)
            if undo is None:
                continue
            try:
                done = self.allocate_one(ci, ri, si, di + 1, in_subrequest, index + 1)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    def allocate_device(
        self, ci: int, spec: RequestSpec, device: DeviceEntry, *, must: bool
    ) -> Callable[[], None] | None:
        """Tentatively allocate; returns the undo function, or None when not possible."""
        did = device.id
        features = self.features
        multi = features.consumable_capacity and device.allow_multiple
        if spec.admin:
            if not multi and ci in self.allocating.get(did, ()):
                return None
        elif self.in_use(did):
            return None
        if device.consumes and not features.partitionable_devices:
            return None
        counters_taken = False
        if device.consumes and not (
            multi and (did in self.inventory.aggregated_capacity or did in self.allocating_shares)
        ):
            if not self._take_counters(device):
                return None
            counters_taken = True
        if features.device_taints and taint_prevents_allocation(
            self.inventory.device_taints(device), spec
        ):
            if counters_taken:
                self._release_counters(device)
            return None

        base, sub = spec.base_name, spec.subrequest
        constraints = self.constraints[ci]
        for i, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device):
                if must:
                    raise AllocationError(
                        f"claim {self.claims[ci].ref}, request {spec.name}: "
                        f"cannot add device {did} "
                        "because a claim constraint would not be satisfied"
                    )
                for previous in reversed(constraints[:i]):
                    previous.remove(base, sub, device)
                if counters_taken:
                    self._release_counters(device)
                return None

        share_id: str | None = None
        consumed: dict[str, Quantity] | None = None
        if features.consumable_capacity:
            if (device.capacity or spec.capacity) and not self._fits(spec, device):
                for constraint in reversed(constraints):
                    constraint.remove(base, sub, device)
                if counters_taken:
                    self._release_counters(device)
                return None
            if multi:
                consumed = consumed_capacity(spec.capacity, device)
                share_id = str(uuid.uuid4())
                totals = self.allocating_capacity.setdefault(did, {})
                for name, qty in consumed.items():
                    totals[name] = totals[name] + qty if name in totals else qty
                self.allocating_shares[did] = self.allocating_shares.get(did, 0) + 1
        if not multi:
            self.allocating.setdefault(did, set()).add(ci)
        results = self.results[ci]
        results.append(DeviceResult(spec, device, share_id, consumed))

        def undo() -> None:
            results.pop()
            for constraint in reversed(constraints):
                constraint.remove(base, sub, device)
            if not multi:
                self.allocating[did].discard(ci)
            elif consumed is not None:
                totals = self.allocating_capacity[did]
                for name, qty in consumed.items():
                    totals[name] = totals[name] - qty
                shares = self.allocating_shares[did] - 1
                if shares:
                    self.allocating_shares[did] = shares
                else:
                    del self.allocating_shares[did]
                    del self.allocating_capacity[did]
            if counters_taken:
                self._release_counters(device)

        return undo

    # -- counters (DRAPartitionableDevices) ---------------------------------------------------
    def _pool(self, device: DeviceEntry) -> Pool:
        return self.view.pools_by_key[(device.driver, device.pool)]

    def _available(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        available = self.available_counters.get(pool.key)
        if available is None:
            available = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            is_allocated = self.inventory.is_device_allocated
            for device in (*pool.devices, *(d for s in pool.not_targeting for d in s.devices)):
                if not device.consumes or not is_allocated(device.id):
                    continue
                for set_name, counters in device.consumes:
                    target = available.get(set_name, {})
                    for name, value in counters.items():
                        if name in target:
                            target[name] -= value
            self.available_counters[pool.key] = available
        return available

    def _take_counters(self, device: DeviceEntry) -> bool:
        pool = self._pool(device)
        available = self._available(pool)
        consumed = self.consumed_counters.setdefault(pool.key, {})
        for set_name, counters in device.consumes:
            target = consumed.setdefault(set_name, {})
            for name, value in counters.items():
                target[name] = target.get(name, 0) + value
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, value in counters.items():
                if value < used.get(name, 0):
                    self._release_counters(device)
                    return False
        return True

    def _release_counters(self, device: DeviceEntry) -> None:
        consumed = self.consumed_counters[(device.driver, device.pool)]
        for set_name, counters in device.consumes:
            target = consumed[set_name]
            for name, value in counters.items():
                target[name] -= value
