"""The ResourcePool controller (KEP-5677 seed): one availability summary per (driver, pool).

Keys are ``<driver>|<pool>``. Slice changes queue the pools they touch; claim changes queue
every pool the claim's allocation (old and new) names, found through an index; a DeviceTaintRule
change (with the DRADeviceTaintRules gate, as the scheduler honours them) queues every pool its
selector reaches, before and after. A reconcile gathers the pool's slices (none: delete the
ResourcePool), the allocation results pointing into it and the taint rules, computes the status
(:mod:`fakeapi.controllers.resourcepool_status`, counted by :mod:`fakeapi.rules.pools`) and
creates or updates the ResourcePool named ``<driver with / as ->.<pool>``.

**Bounded write rate.** The seed asks for eventual consistency under churn (95% of updates
within 10 s of an allocation change), not a write per allocation. After a status write, a pool is
not written again for ``min_write_interval`` seconds (5, on the injected clock): a reconcile
inside that window computes nothing and only schedules the key for the end of it, and the work
queue folds every change that arrives meanwhile into that one key, so a burst of allocations costs
one status write per pool per interval. Creation and deletion are never delayed.

Every write carries the field manager ``resourcepool-controller``: the apiserver refuses
ResourcePool writes from anyone else.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from fakeapi import features
from fakeapi.client import (
    DEVICE_TAINT_RULES,
    RESOURCE_CLAIMS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
    Client,
    InformerFactory,
    is_already_exists,
    is_not_found,
)
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import (
    CLAIM_POOL_INDEX,
    SLICE_POOL_INDEX,
    allocated_pools,
    allocation_results,
    ensure_index,
    pool_key,
    slice_pools,
)
from fakeapi.controllers.resourcepool_status import PoolView, compute_status
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, deep_copy, meta, text
from fakeapi.rules.pools import resource_pool_name
from fakeapi.timefmt import format_time

__all__ = ["FIELD_MANAGER", "ResourcePoolController"]

FIELD_MANAGER = "resourcepool-controller"
_POOL_SPEC_INDEX = "resourcepool-controller/spec"


def _spec_key(pool_obj: Obj) -> list[str]:
    spec = as_dict(pool_obj.get("spec"))
    return [pool_key(text(spec.get("driver")), text(spec.get("poolName")))]


def _without_time(status: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in status.items() if k != "lastUpdateTime"}


class ResourcePoolController(ControllerComponent):
    """Keeps one ResourcePool per published pool, its status eventually consistent."""

    name = "resourcepool-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        min_write_interval: float = 5.0,
        workers: int = 2,
    ) -> None:
        self.client = client
        self.clock = clock
        self.min_write_interval = min_write_interval
        self.slices = informers.informer(RESOURCE_SLICES)
        self.claims = informers.informer(RESOURCE_CLAIMS)
        self.pools = informers.informer(RESOURCE_POOLS)
        self.rules = (
            informers.informer(DEVICE_TAINT_RULES)
            if features.enabled(dict(feature_gates or {}), "DRADeviceTaintRules")
            else None
        )
        self.informers = [i for i in (self.slices, self.claims, self.pools, self.rules) if i]
        ensure_index(self.slices, SLICE_POOL_INDEX, slice_pools)
        ensure_index(self.claims, CLAIM_POOL_INDEX, allocated_pools)
        ensure_index(self.pools, _POOL_SPEC_INDEX, _spec_key)
        self.controller = Controller(
            name="resourcepool",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self._last_write: dict[str, float] = {}
        self.metrics = metrics
        if metrics is not None:
            self._sync_duration = Histogram(
                "resourcepool_controller_sync_duration_seconds",
                "Time taken to sync one ResourcePool",
                registry=metrics,
            )
            self._sync_errors = Counter(
                "resourcepool_controller_sync_errors",
                "ResourcePool syncs that failed",
                registry=metrics,
            )
            pools_total = Gauge(
                "resourcepool_controller_pools_total", "ResourcePools managed", registry=metrics
            )
            pools_total.set_function(lambda: len(self.pools))
            self.controller.own_metrics(self._sync_duration, self._sync_errors, pools_total)
        self.slices.add_handler(
            on_add=self._slice_changed, on_update=self._slice_updated, on_delete=self._slice_changed
        )
        self.claims.add_handler(
            on_add=self._claim_changed,
            on_update=self._claim_updated,
            on_delete=self._claim_changed,
        )
        self.pools.add_handler(on_delete=self._pool_deleted)
        if self.rules is not None:
            self.rules.add_handler(
                on_add=self._rule_changed,
                on_update=self._rule_updated,
                on_delete=self._rule_changed,
            )

    def _slice_changed(self, slice_obj: Obj) -> None:
        for key in slice_pools(slice_obj):
            self.controller.enqueue(key)

    def _slice_updated(self, old: Obj, new: Obj) -> None:
        self._slice_changed(old)
        self._slice_changed(new)

    def _pool_deleted(self, pool_obj: Obj) -> None:
        for key in _spec_key(pool_obj):
            self.controller.enqueue(key)

    def _rule_changed(self, rule: Obj) -> None:
        selector = as_dict(rule.get("spec")).get("deviceSelector")
        if not isinstance(selector, dict):
            return  # matches no device
        driver, pool = text(selector.get("driver")), text(selector.get("pool"))
        if driver and pool:
            self.controller.enqueue(pool_key(driver, pool))
            return
        for key in {key for s in self.slices.list() for key in slice_pools(s)}:
            key_driver, _, key_pool = key.partition("|")
            if (not driver or driver == key_driver) and (not pool or pool == key_pool):
                self.controller.enqueue(key)

    def _rule_updated(self, old: Obj, new: Obj) -> None:
        if as_dict(old.get("spec")) != as_dict(new.get("spec")):
            self._rule_changed(old)
            self._rule_changed(new)

    def _claim_changed(self, claim: Obj) -> None:
        for key in allocated_pools(claim):
            self.controller.enqueue(key)

    def _claim_updated(self, old: Obj, new: Obj) -> None:
        if allocation_results(old) != allocation_results(new):
            self._claim_changed(old)
            self._claim_changed(new)

    async def reconcile(self, key: str) -> Result | None:
        start = self.clock.monotonic()
        try:
            return await self._sync(key)
        except Exception:
            if self.metrics is not None:
                self._sync_errors.inc()
            raise
        finally:
            if self.metrics is not None:
                self._sync_duration.observe(self.clock.monotonic() - start)

    async def _sync(self, key: str) -> Result | None:
        driver, _, pool = key.partition("|")
        slices = self.slices.by_index(SLICE_POOL_INDEX, key)
        existing = self.pools.by_index(_POOL_SPEC_INDEX, key)
        if not slices:
            for pool_obj in existing:
                try:
                    await self.client.delete(RESOURCE_POOLS, name=text(meta(pool_obj).get("name")))
                except Exception as exc:
                    if not is_not_found(exc):
                        raise
            self._last_write.pop(key, None)
            return None
        if existing:
            # inside the window after a write nothing is computed: the key comes back at its
            # end, with every change made meanwhile folded into it
            since = self.clock.monotonic() - self._last_write.get(key, float("-inf"))
            if since < self.min_write_interval:
                return Result(requeue_after=self.min_write_interval - since)
        pool_obj = existing[0] if existing else await self._create(driver, pool, slices)
        rules = self.rules.list() if self.rules is not None else []
        view = PoolView(
            driver=driver,
            pool=pool,
            slices=slices,
            claims=self.claims.by_index(CLAIM_POOL_INDEX, key),
            taint_rules=rules,
        )
        old = as_dict(pool_obj.get("status"))
        status = compute_status(view, old=old, now=self.clock.now())
        if old and _without_time(status) == _without_time(old):
            return None
        status["lastUpdateTime"] = format_time(self.clock.now())
        updated = deep_copy(pool_obj)
        updated["status"] = status
        await self.client.update_status(RESOURCE_POOLS, body=updated, field_manager=FIELD_MANAGER)
        self._last_write[key] = self.clock.monotonic()
        return None

    async def _create(self, driver: str, pool: str, slices: list[Obj]) -> Obj:
        nodes = {text(as_dict(s.get("spec")).get("nodeName")) for s in slices}
        spec: dict[str, Any] = {"driver": driver, "poolName": pool}
        if len(nodes) == 1 and (node := nodes.pop()):
            spec["nodeName"] = node
        name = resource_pool_name(driver=driver, pool=pool)
        body = {
            "apiVersion": RESOURCE_POOLS.api_version,
            "kind": "ResourcePool",
            "metadata": {"name": name},
            "spec": spec,
        }
        try:
            return await self.client.create(RESOURCE_POOLS, body=body, field_manager=FIELD_MANAGER)
        except Exception as exc:
            if not is_already_exists(exc):
                raise
        # the name is taken: by this pool (our cache lags) or by a pool whose name sanitises
        # to the same string
        current = await self.client.get(RESOURCE_POOLS, name=name)
        if _spec_key(current) == [pool_key(driver, pool)]:
            return current
        digest = hashlib.sha256(f"{driver}|{pool}".encode()).hexdigest()[:8]
        body["metadata"] = {"name": f"{name[:240]}-{digest}"}
        return await self.client.create(RESOURCE_POOLS, body=body, field_manager=FIELD_MANAGER)
