"""The ResourcePoolStatusRequest controller (KEP-5677 as upstream shipped it): answer once, then
clean up.

Keys are request names. A request whose status is empty is answered from the informers' view of
ResourceSlices, ResourceClaims and (with ``DRADeviceTaintRules``) DeviceTaintRules: the pools of
``spec.driver`` (only ``spec.poolName`` when set) are gathered and counted by the one shared
pool-usage function, :mod:`fakeapi.rules.pools` — the same arithmetic as the seed's ResourcePool
controller and ``kubectl dra`` — sorted by driver then pool, cut to ``spec.limit`` (``poolCount``
counts them all), and written through ``/status`` with the condition ``Complete``. A pool whose
newest generation is not published in full (fewer slices than ``resourceSliceCount``), or that
lists a device twice, is reported with ``validationError`` and no counts, as upstream does. When
the answer cannot be computed the condition is ``Failed``.

The answer is never recomputed: to ask again, delete and recreate the request. A completed
request is deleted one hour after its condition was set (:data:`RETENTION`, on the injected
clock), so finished questions do not pile up.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi import features
from fakeapi.client import (
    DEVICE_TAINT_RULES,
    RESOURCE_CLAIMS,
    RESOURCE_POOL_STATUS_REQUESTS,
    RESOURCE_SLICES,
    Client,
    InformerFactory,
    is_not_found,
)
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import (
    CLAIM_POOL_INDEX,
    SLICE_POOL_INDEX,
    allocated_pools,
    ensure_index,
    slice_pools,
)
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, text
from fakeapi.rules.conditions import find_status_condition, set_status_condition
from fakeapi.rules.pools import count_pool, gather_pool
from fakeapi.timefmt import parse_time

__all__ = ["FIELD_MANAGER", "RETENTION", "ResourcePoolStatusRequestController", "answer"]

FIELD_MANAGER = "resourcepoolstatusrequest-controller"
#: how long a completed request stays before the controller deletes it (seconds)
RETENTION = 3600.0
#: upstream's ResourcePoolStatusRequestLimitDefault
_LIMIT_DEFAULT = 100
_DONE = ("Complete", "Failed")


def _pool_status(driver: str, pool: str, slices: list[Obj], claims: list[Obj],
                 rules: list[Obj]) -> dict[str, Any]:
    contents = gather_pool(driver=driver, pool=pool, slices=slices)
    out: dict[str, Any] = {"driver": driver, "poolName": pool}
    if contents.node:
        out["nodeName"] = contents.node
    expected = as_dict(as_dict(contents.slices[0].get("spec")).get("pool")).get(
        "resourceSliceCount"
    ) if contents.slices else None
    out["resourceSliceCount"] = len(contents.slices)
    out["generation"] = contents.generation
    if isinstance(expected, int) and len(contents.slices) < expected:
        out["validationError"] = (
            f"pool generation {contents.generation} is incomplete: {len(contents.slices)} of "
            f"{expected} ResourceSlices published"
        )
        return out
    if contents.duplicates:
        out["validationError"] = contents.duplicates[0]
        return out
    usage = count_pool(contents, claims=claims, taint_rules=rules)
    out["totalDevices"] = usage.total
    out["allocatedDevices"] = usage.allocated
    out["availableDevices"] = usage.available
    out["unavailableDevices"] = usage.unavailable
    return out


def answer(
    request: Obj,
    *,
    slices_of: Mapping[str, list[Obj]],
    claims_of: Mapping[str, list[Obj]],
    rules: list[Obj],
    now: datetime,
) -> dict[str, Any]:
    """The status answering ``request``, given the slices and the claims with allocations of
    every pool (by ``driver|pool`` key) and the DeviceTaintRules in force."""
    spec = as_dict(request.get("spec"))
    driver, wanted = text(spec.get("driver")), spec.get("poolName")
    limit = spec.get("limit") if isinstance(spec.get("limit"), int) else _LIMIT_DEFAULT
    keys = sorted(
        key for key in slices_of
        if key.partition("|")[0] == driver and (not wanted or key.partition("|")[2] == wanted)
    )
    pools = [
        _pool_status(driver, key.partition("|")[2], slices_of[key], claims_of.get(key, []), rules)
        for key in keys[:limit]
    ]
    status: dict[str, Any] = {"poolCount": len(keys)}
    if pools:
        status["pools"] = pools
    shown = f"{len(pools)} of {len(keys)}" if len(pools) < len(keys) else f"{len(pools)}"
    status["conditions"] = set_status_condition(
        [], type="Complete", status="True", reason="Calculated",
        message=f"Calculated the status of {shown} pools", now=now,
    )
    return status


def _finished_at(request: Obj) -> datetime | None:
    conditions = as_list(as_dict(request.get("status")).get("conditions"))
    for condition_type in _DONE:
        condition = find_status_condition(conditions, condition_type)
        if condition is not None and condition.get("status") == "True":
            try:
                return parse_time(text(condition.get("lastTransitionTime")))
            except ValueError:
                return None
    return None


class ResourcePoolStatusRequestController(ControllerComponent):
    """Answers each ResourcePoolStatusRequest once and deletes it an hour after."""

    name = "resourcepoolstatusrequest-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        retention: float = RETENTION,
        workers: int = 1,
    ) -> None:
        self.client = client
        self.clock = clock
        self.retention = retention
        self.requests = informers.informer(RESOURCE_POOL_STATUS_REQUESTS)
        self.slices = informers.informer(RESOURCE_SLICES)
        self.claims = informers.informer(RESOURCE_CLAIMS)
        self.rules = (
            informers.informer(DEVICE_TAINT_RULES)
            if features.enabled(dict(feature_gates or {}), "DRADeviceTaintRules")
            else None
        )
        self.informers = [
            i for i in (self.requests, self.slices, self.claims, self.rules) if i is not None
        ]
        ensure_index(self.slices, SLICE_POOL_INDEX, slice_pools)
        ensure_index(self.claims, CLAIM_POOL_INDEX, allocated_pools)
        self.controller = Controller(
            name="resourcepoolstatusrequest",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self.requests.add_handler(on_add=self._request_changed, on_update=self._request_updated)

    def _request_changed(self, request: Obj) -> None:
        self.controller.enqueue(text(meta(request).get("name")))

    def _request_updated(self, _old: Obj, new: Obj) -> None:
        self._request_changed(new)

    async def reconcile(self, key: str) -> Result | None:
        request = self.requests.get(key)
        if request is None:
            return None
        if request.get("status"):
            return await self._clean_up(request)
        try:
            status = self._answer(request)
        except Exception as exc:  # the answer could not be computed: say so, once
            status = {
                "poolCount": 0,
                "conditions": set_status_condition(
                    [], type="Failed", status="True", reason="CalculationFailed",
                    message=str(exc) or type(exc).__name__, now=self.clock.now(),
                ),
            }
        updated = deep_copy(request)
        updated["status"] = status
        try:
            await self.client.update_status(
                RESOURCE_POOL_STATUS_REQUESTS, body=updated, field_manager=FIELD_MANAGER
            )
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return Result(requeue_after=self.retention)

    def _answer(self, request: Obj) -> dict[str, Any]:
        driver = text(as_dict(request.get("spec")).get("driver"))
        slices_of: dict[str, list[Obj]] = {}
        for slice_obj in self.slices.list():
            for key in slice_pools(slice_obj):
                if key.partition("|")[0] == driver:
                    slices_of.setdefault(key, []).append(slice_obj)
        claims_of = {key: self.claims.by_index(CLAIM_POOL_INDEX, key) for key in slices_of}
        return answer(
            request,
            slices_of=slices_of,
            claims_of=claims_of,
            rules=self.rules.list() if self.rules is not None else [],
            now=self.clock.now(),
        )

    async def _clean_up(self, request: Obj) -> Result | None:
        finished = _finished_at(request)
        if finished is None:
            return None
        left = self.retention - (self.clock.now() - finished).total_seconds()
        if left > 0:
            return Result(requeue_after=left)
        try:
            await self.client.delete(
                RESOURCE_POOL_STATUS_REQUESTS, name=text(meta(request).get("name"))
            )
        except Exception as exc:
            if not is_not_found(exc):
                raise
        return None
