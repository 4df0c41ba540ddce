"""The CronJob controller: a Job at each scheduled time, and the history kept short.

As upstream's ``pkg/controller/cronjob`` (v2). Keys are ``namespace/name`` of CronJobs, queued by
their own changes, by changes of the Jobs they own, and by a timer for the next scheduled time
on the injected clock. A reconcile:

1. refreshes ``status.active`` from the Jobs the CronJob controls (a finished one leaves it:
   ``SawCompletedJob``; a successful one moves ``lastSuccessfulTime``);
2. unless suspended, finds the most recent scheduled time not yet run (since
   ``lastScheduleTime``, or creation; no older than ``startingDeadlineSeconds``) and, as the
   ``concurrencyPolicy`` allows (``Forbid``: not while a Job runs; ``Replace``: the running Jobs
   are deleted first), creates the Job ``<cronjob>-<scheduled time in minutes since the epoch>``
   from the template, annotated ``batch.kubernetes.io/cronjob-scheduled-timestamp``
   (``SuccessfulCreate`` "Created job ..."), and records it in ``status.active`` and
   ``lastScheduleTime``;
3. deletes finished Jobs beyond ``successfulJobsHistoryLimit`` and ``failedJobsHistoryLimit``,
   oldest first (``SuccessfulDelete``);
4. comes back at the next scheduled time.

Schedules are evaluated in UTC (:mod:`fakeapi.rules.cron`); a ``timeZone`` is stored as given.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    CRON_JOBS,
    JOBS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    is_already_exists,
    is_not_found,
)
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import OWNER_UID_INDEX, ensure_index
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import (
    Obj,
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    is_controlled_by,
    meta,
    owner_uids,
    text,
)
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.cron import CronError, parse_schedule
from fakeapi.timefmt import format_time, parse_time

__all__ = ["SCHEDULED_TIMESTAMP_ANNOTATION", "CronJobController"]

SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"


def _finished(job: Obj) -> str:
    """``Complete``, ``Failed`` or ``""``."""
    for condition in as_list(as_dict(job.get("status")).get("conditions")):
        condition = as_dict(condition)
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return text(condition.get("type"))
    return ""


def _time(value: Any) -> datetime | None:
    try:
        return parse_time(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


class CronJobController(ControllerComponent):
    """Starts CronJobs' Jobs on schedule."""

    name = "cronjob-controller"

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
        self.events = LegacyEventRecorder(client, component="cronjob-controller", clock=clock)
        self.controller = Controller(
            name="cronjob", reconcile=self.reconcile, clock=clock, workers=1, metrics=metrics
        )
        self.cron_jobs = informers.informer(CRON_JOBS)
        self.jobs = informers.informer(JOBS)
        ensure_index(self.jobs, OWNER_UID_INDEX, owner_uids)
        self.informers = [self.cron_jobs, self.jobs]
        self.controller.watch(self.cron_jobs, on_delete=False)
        self.jobs.add_handler(
            on_add=self._job_changed,
            on_update=lambda _old, new: self._job_changed(new),
            on_delete=self._job_changed,
        )

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    def _job_changed(self, job: Obj) -> None:
        ref = controller_ref(job)
        if ref is not None and ref.get("kind") == "CronJob":
            self.controller.enqueue(f"{text(meta(job).get('namespace'))}/{text(ref.get('name'))}")

    async def reconcile(self, key: str) -> Result | None:
        cached = self.cron_jobs.get(key)
        if cached is None or meta(cached).get("deletionTimestamp"):
            return None
        cron_job = deep_copy(cached)
        spec = as_dict(cron_job.get("spec"))
        uid = text(meta(cron_job).get("uid"))
        jobs = [j for j in self.jobs.by_index(OWNER_UID_INDEX, uid)
                if is_controlled_by(j, owner_uid=uid)]
        status = deep_copy(as_dict(cron_job.get("status")))
        now = self.clock.now()
        self._refresh_active(cron_job, jobs, status)
        try:
            schedule = parse_schedule(text(spec.get("schedule")))
        except CronError:
            await self._write(cron_job, status)
            return None
        result: Result | None = None
        if spec.get("suspend") is not True:
            due = self._most_recent_due(cron_job, status, schedule, now)
            if due is not None:
                await self._run(cron_job, status, jobs, due)
            following = schedule.next_after(now)
            if following is not None:
                result = Result(requeue_after=(following - now) / timedelta(seconds=1) + 0.1)
        await self._cleanup(cron_job, jobs)
        await self._write(cron_job, status)
        return result

    def _refresh_active(self, cron_job: Obj, jobs: list[Obj], status: dict[str, Any]) -> None:
        by_uid = {text(meta(j).get("uid")): j for j in jobs}
        active = []
        for ref in as_list(status.get("active")):
            job = by_uid.get(text(as_dict(ref).get("uid")))
            if job is None:
                continue
            outcome = _finished(job)
            if outcome:
                self.events.event(regarding=cron_job, type="Normal", reason="SawCompletedJob",
                                  note=f"Saw completed job: {text(meta(job).get('name'))}, "
                                  f"condition: {outcome}")
                if outcome == "Complete":
                    done = as_dict(job.get("status")).get("completionTime")
                    last = _time(status.get("lastSuccessfulTime"))
                    if isinstance(done, str) and (last is None or (_time(done) or last) > last):
                        status["lastSuccessfulTime"] = done
                continue
            active.append(ref)
        listed = {text(as_dict(r).get("uid")) for r in active}
        for job in jobs:
            if not _finished(job) and text(meta(job).get("uid")) not in listed:
                active.append(_reference(job))
        if active:
            status["active"] = active
        else:
            status.pop("active", None)

    def _most_recent_due(
        self, cron_job: Obj, status: Mapping[str, Any], schedule: Any, now: datetime
    ) -> datetime | None:
        """``mostRecentScheduleTime``: the latest scheduled time after the last run (or the
        creation) and within the starting deadline, if any has passed."""
        earliest = _time(status.get("lastScheduleTime")) or _time(
            meta(cron_job).get("creationTimestamp")
        )
        if earliest is None:
            return None
        deadline = as_dict(cron_job.get("spec")).get("startingDeadlineSeconds")
        if isinstance(deadline, int):
            earliest = max(earliest, now - timedelta(seconds=deadline))
        latest = None
        for moment in schedule.times_between(earliest, now):
            latest = moment
        return latest

    async def _run(self, cron_job: Obj, status: dict[str, Any], jobs: list[Obj],
                   due: datetime) -> None:
        spec = as_dict(cron_job.get("spec"))
        policy = spec.get("concurrencyPolicy", "Allow")
        running = [j for j in jobs if not _finished(j) and not meta(j).get("deletionTimestamp")]
        if policy == "Forbid" and running:
            return
        if policy == "Replace":
            for job in running:
                await self._delete(cron_job, job)
            status.pop("active", None)
        name = f"{text(meta(cron_job).get('name'))}-{int(due.timestamp()) // 60}"
        template = as_dict(spec.get("jobTemplate"))
        template_meta = as_dict(template.get("metadata"))
        job_meta: dict[str, Any] = {
            "name": name,
            "namespace": text(meta(cron_job).get("namespace")),
            "labels": dict(as_dict(template_meta.get("labels"))),
            "annotations": {**as_dict(template_meta.get("annotations")),
                            SCHEDULED_TIMESTAMP_ANNOTATION: format_time(due)},
            "ownerReferences": [
                new_controller_ref(cron_job, api_version="batch/v1", kind="CronJob")
            ],
        }
        if not job_meta["labels"]:
            del job_meta["labels"]
        body = {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta,
                "spec": deep_copy(as_dict(template.get("spec")))}
        try:
            created = await self.client.create(JOBS, body=body)
        except StatusError as exc:
            if not is_already_exists(exc):
                self.events.event(regarding=cron_job, type="Warning", reason="FailedCreate",
                                  note=f"Error creating job: {exc.message}")
                raise
            found = self.jobs.get(f"{job_meta['namespace']}/{name}")
            if found is None:
                return
            created = found
        else:
            self.events.event(regarding=cron_job, type="Normal", reason="SuccessfulCreate",
                              note=f"Created job {name}")
        active = [r for r in as_list(status.get("active"))
                  if as_dict(r).get("uid") != meta(created).get("uid")]
        status["active"] = [*active, _reference(created)]
        status["lastScheduleTime"] = format_time(due)

    async def _cleanup(self, cron_job: Obj, jobs: list[Obj]) -> None:
        """``cleanupFinishedJobs``: the oldest finished Jobs beyond the history limits."""
        spec = as_dict(cron_job.get("spec"))
        for outcome, field in (("Complete", "successfulJobsHistoryLimit"),
                               ("Failed", "failedJobsHistoryLimit")):
            limit = spec.get(field)
            if not isinstance(limit, int):
                continue
            finished = sorted(
                (j for j in jobs if _finished(j) == outcome
                 and not meta(j).get("deletionTimestamp")),
                key=lambda j: text(as_dict(j.get("status")).get("startTime")
                                   or meta(j).get("creationTimestamp")),
            )
            for job in finished[: max(len(finished) - limit, 0)]:
                await self._delete(cron_job, job)

    async def _delete(self, cron_job: Obj, job: Obj) -> None:
        try:
            await self.client.delete(JOBS, name=text(meta(job).get("name")),
                                     namespace=text(meta(job).get("namespace")),
                                     propagation_policy="Background")
        except StatusError as exc:
            if not is_not_found(exc):
                raise
            return
        self.events.event(regarding=cron_job, type="Normal", reason="SuccessfulDelete",
                          note=f"Deleted job {text(meta(job).get('name'))}")

    async def _write(self, cron_job: Obj, status: dict[str, Any]) -> None:
        if status != as_dict(cron_job.get("status")):
            await self.client.update_status(CRON_JOBS, body={**cron_job, "status": status})


def _reference(job: Obj) -> dict[str, Any]:
    job_meta = meta(job)
    return {"kind": "Job", "namespace": job_meta.get("namespace"), "name": job_meta.get("name"),
            "uid": job_meta.get("uid"), "apiVersion": "batch/v1",
            "resourceVersion": job_meta.get("resourceVersion")}

