"""The TTL-after-finished controller: finished Jobs with ``ttlSecondsAfterFinished`` go away.

As upstream's ``pkg/controller/ttlafterfinished``: a Job that is ``Complete`` or ``Failed`` and
sets ``spec.ttlSecondsAfterFinished`` is deleted (in the foreground, so its pods go first) once
that many seconds have passed since it finished (the terminal condition's
``lastTransitionTime``); until then it is revisited when its time comes, on the injected clock.
Before deleting, the Job is read again from the API: a TTL changed meanwhile is honoured.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta

from prometheus_client import CollectorRegistry

from fakeapi.client import JOBS, Client, InformerFactory, Preconditions, is_not_found
from fakeapi.clock import Clock
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import Obj, as_dict, as_list, meta, object_key, text
from fakeapi.timefmt import parse_time

__all__ = ["TTLAfterFinishedController", "expires_at"]


def _finish_time(job: Obj) -> datetime | None:
    for condition in as_list(as_dict(job.get("status")).get("conditions")):
        condition = as_dict(condition)
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            stamp = condition.get("lastTransitionTime")
            try:
                return parse_time(stamp) if isinstance(stamp, str) and stamp else None
            except ValueError:
                return None
    return None


def expires_at(job: Obj) -> datetime | None:
    """When a finished Job with a TTL is due for deletion; None when it is not finished, has
    no TTL or is being deleted."""
    ttl = as_dict(job.get("spec")).get("ttlSecondsAfterFinished")
    if not isinstance(ttl, int) or meta(job).get("deletionTimestamp"):
        return None
    finished = _finish_time(job)
    return None if finished is None else finished + timedelta(seconds=ttl)


class TTLAfterFinishedController(ControllerComponent):
    """Deletes finished Jobs whose time to live has passed."""

    name = "ttl-after-finished-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
    ) -> None:
        self.client = client
        self.clock = clock
        self.controller = Controller(
            name="ttl_jobs_to_delete", reconcile=self.reconcile, clock=clock, workers=1,
            metrics=metrics,
        )
        self.jobs = informers.informer(JOBS)
        self.informers = [self.jobs]
        self.controller.watch(
            self.jobs,
            key=lambda job: object_key(job) if expires_at(job) is not None else None,
            on_delete=False,
        )

    async def reconcile(self, key: str) -> Result | None:
        job = self.jobs.get(key)
        if job is None or (due := expires_at(job)) is None:
            return None
        left = (due - self.clock.now()) / timedelta(seconds=1)
        if left > 0:
            return Result(requeue_after=left)
        namespace, name = text(meta(job).get("namespace")), text(meta(job).get("name"))
        fresh = await self.client.get(JOBS, name=name, namespace=namespace)
        due = expires_at(fresh)
        if due is None:
            return None
        left = (due - self.clock.now()) / timedelta(seconds=1)
        if left > 0:
            return Result(requeue_after=left)
        try:
            await self.client.delete(
                JOBS, name=name, namespace=namespace, propagation_policy="Foreground",
                preconditions=Preconditions(resource_version=text(
                    meta(fresh).get("resourceVersion"))),
            )
        except StatusError as exc:
            if not is_not_found(exc):
                raise
        return None
