"""The Job controller: run pods to completion, count them, decide success or failure.

As upstream's ``pkg/controller/job``. Keys are ``namespace/name`` of Jobs (and ``pod|ns/name``
for a pod whose Job is gone but which still carries the tracking finalizer), queued by the
Job's changes and by every change of its pods. A reconcile, from current state:

1. a finished Job (``Complete`` or ``Failed``) only lets go of its pods' finalizers;
2. claims the pods its selector matches and counts the newly finished ones through the
   tracking finalizer (:mod:`~fakeapi.controllers.job_tracking`);
3. decides whether the Job is done: the pod failure policy's ``FailJob`` (reason
   ``PodFailurePolicy``), more failures than ``backoffLimit`` (``BackoffLimitExceeded``; under
   ``restartPolicy: OnFailure`` container restarts count), ``activeDeadlineSeconds`` passed
   (``DeadlineExceeded``), too many failed indexes (``MaxFailedIndexesExceeded``) or every index
   done with some failed (``FailedIndexes``); success when ``completions`` pods (indexes)
   succeeded (``CompletionsReached``) or the success policy is met (``SuccessPolicy``). A
   decision is first written as ``FailureTarget`` or ``SuccessCriteriaMet``; the remaining pods
   are deleted, and once none is left running the terminal ``Failed`` or ``Complete`` follows
   (with ``completionTime`` for success), as upstream;
4. otherwise keeps ``parallelism`` pods running (never more than the completions left): an
   Indexed Job gives each pod the lowest pending index (the ``batch.kubernetes.io/
   job-completion-index`` annotation and label, ``JOB_COMPLETION_INDEX``, host name
   ``<job>-<index>``), replacements wait the failure backoff, surplus pods go;
5. a suspended Job has no pods (``Suspended`` condition, reason ``JobSuspended``); resuming
   restarts the clock of ``activeDeadlineSeconds``.

Events are upstream's (``SuccessfulCreate``, ``SuccessfulDelete``, ``Completed``, ``Suspended``,
``Resumed``, the failure reasons), from the component ``job-controller``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    JOBS,
    NAMESPACE_INDEX,
    PODS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    is_not_found,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers.expectations import ControllerExpectations
from fakeapi.controllers.indexes import ensure_index
from fakeapi.controllers.job_tracking import Outcome, classify, has_tracking_finalizer
from fakeapi.controllers.job_util import (
    COMPLETION_INDEX_ANNOTATION,
    INDEX_FAILURE_COUNT_ANNOTATION,
    JOB_TRACKING_FINALIZER,
    backoff_delay,
    format_intervals,
    match_success_policy,
    parse_intervals,
    pod_index,
)
from fakeapi.controllers.podcontrol import PodControl, claim, pod_from_template, slow_start_batch
from fakeapi.controllers.podranking import pods_to_delete
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import (
    Obj,
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    meta,
    object_key,
    text,
)
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.podutil import is_pod_active, is_pod_ready, is_pod_terminating
from fakeapi.selectors import SelectorError, label_selector_from_api
from fakeapi.timefmt import format_time, parse_time

__all__ = ["JOB_CONTROLLER_NAME", "JobController"]

JOB_CONTROLLER_NAME = "kubernetes.io/job-controller"
#: upstream's MaxPodCreateDeletePerSync
MAX_CREATE_DELETE = 500
_ORPHAN = "pod|"


def _condition(job: Obj, kind: str) -> dict[str, Any] | None:
    for entry in as_list(as_dict(job.get("status")).get("conditions")):
        if as_dict(entry).get("type") == kind and as_dict(entry).get("status") == "True":
            return as_dict(entry)
    return None


def is_finished(job: Obj) -> bool:
    return _condition(job, "Complete") is not None or _condition(job, "Failed") is not None


def _set_condition(status: dict[str, Any], kind: str, state: str, reason: str, message: str,
                   now: datetime) -> bool:
    """Set a Job condition (its times move only with its status); whether anything changed."""
    conditions = [dict(c) for c in as_list(status.get("conditions")) if isinstance(c, dict)]
    stamp = format_time(now)
    for entry in conditions:
        if entry.get("type") != kind:
            continue
        if (entry.get("status"), entry.get("reason"), entry.get("message")) == (
            state, reason, message
        ):
            return False
        if entry.get("status") != state:
            entry["lastTransitionTime"] = stamp
        entry.update(status=state, reason=reason, message=message, lastProbeTime=stamp)
        status["conditions"] = conditions
        return True
    conditions.append({"type": kind, "status": state, "lastProbeTime": stamp,
                       "lastTransitionTime": stamp, "reason": reason, "message": message})
    status["conditions"] = conditions
    return True


class JobController(ControllerComponent):
    """Runs Jobs' pods and records their outcome."""

    name = "job-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        workers: int = 4,
    ) -> None:
        self.client = client
        self.clock = clock
        self.events = LegacyEventRecorder(client, component="job-controller", clock=clock)
        self.pod_control = PodControl(client, self.events)
        self.expectations = ControllerExpectations(clock=clock)
        #: when each Job last saw a pod fail (monotonic), for the replacement backoff
        self._last_failure: dict[str, float] = {}
        self.controller = Controller(
            name="job", reconcile=self.reconcile, clock=clock, workers=workers, metrics=metrics
        )
        self.jobs = informers.informer(JOBS)
        self.pods = informers.informer(PODS)
        ensure_index(self.pods, NAMESPACE_INDEX, namespace_index)
        self.informers = [self.jobs, self.pods]
        self.jobs.add_handler(
            on_add=lambda job: self.controller.enqueue(object_key(job)),
            on_update=lambda _old, new: self.controller.enqueue(object_key(new)),
            on_delete=self._job_deleted,
        )
        self.pods.add_handler(
            on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted
        )

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- event handlers ------------------------------------------------------------------------
    def _job_deleted(self, job: Obj) -> None:
        key = object_key(job)
        self.expectations.forget(key)
        self._last_failure.pop(key, None)

    def _job_key(self, pod: Obj) -> str | None:
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "Job":
            return None
        return f"{text(meta(pod).get('namespace'))}/{text(ref.get('name'))}"

    def _route(self, pod: Obj) -> str | None:
        """The key to queue for a pod: its Job's, or the orphan key when its Job is gone and
        it still holds the tracking finalizer."""
        key = self._job_key(pod)
        if key is None:
            return None
        job = self.jobs.get(key)
        if job is None or meta(job).get("uid") != as_dict(controller_ref(pod)).get("uid"):
            return _ORPHAN + object_key(pod) if has_tracking_finalizer(pod) else None
        return key

    def _pod_added(self, pod: Obj) -> None:
        key = self._route(pod)
        if key is None:
            return
        if not key.startswith(_ORPHAN):
            self.expectations.creation_observed(key)
        self.controller.enqueue(key)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        key = self._route(new)
        if key is None:
            return
        if (
            not key.startswith(_ORPHAN)
            and meta(new).get("deletionTimestamp")
            and not meta(old).get("deletionTimestamp")
        ):
            self.expectations.deletion_observed(key, object_key(new))
        self.controller.enqueue(key)

    def _pod_deleted(self, pod: Obj) -> None:
        key = self._job_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, object_key(pod))
            self.controller.enqueue(key)

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        if key.startswith(_ORPHAN):
            await self._release_orphan(key[len(_ORPHAN):])
            return None
        cached = self.jobs.get(key)
        if cached is None:
            return None
        job = deep_copy(cached)
        spec = as_dict(job.get("spec"))
        managed_by = spec.get("managedBy")
        if managed_by is not None and managed_by != JOB_CONTROLLER_NAME:
            return None
        namespace = text(meta(job).get("namespace"))
        try:
            selector = label_selector_from_api(as_dict(spec.get("selector")))
        except (SelectorError, ValueError):
            return None
        candidates = self.pods.by_index(NAMESPACE_INDEX, namespace)
        pods = await claim(
            self.client, PODS, owner=job,
            owner_ref=new_controller_ref(job, api_version="batch/v1", kind="Job"),
            candidates=candidates, matches=lambda labels: selector.matches(labels),
            owner_resource=JOBS,
        )
        if is_finished(job):
            await self._remove_finalizers([p for p in pods if has_tracking_finalizer(p)])
            return None
        return await JobSync(self, key, job, pods).run()

    async def _release_orphan(self, pod_key: str) -> None:
        pod = self.pods.get(pod_key)
        if pod is not None and has_tracking_finalizer(pod):
            await self._remove_finalizers([pod])

    async def _remove_finalizers(self, pods: list[Obj]) -> set[str]:
        """Patch the tracking finalizer out of ``pods``; the uids that let go (or are gone)."""

        async def remove(pod: Obj) -> str | None:
            pod_meta = meta(pod)
            finalizers = [f for f in as_list(pod_meta.get("finalizers"))
                          if f != JOB_TRACKING_FINALIZER]
            patch = {"metadata": {"finalizers": finalizers or None,
                                  "resourceVersion": pod_meta.get("resourceVersion")}}
            try:
                await self.client.patch(PODS, name=text(pod_meta.get("name")),
                                        namespace=text(pod_meta.get("namespace")), patch=patch)
            except StatusError as exc:
                if not is_not_found(exc):
                    raise
            return text(pod_meta.get("uid"))

        done = await asyncio.gather(*(remove(p) for p in pods))
        return {uid for uid in done if uid}


class JobSync:
    """One reconcile of one Job: counts, decisions and pod management, then the status."""

    def __init__(self, owner: JobController, key: str, job: Obj, pods: list[Obj]) -> None:
        self.c = owner
        self.key = key
        self.job = job
        self.pods = pods
        self.spec = as_dict(job.get("spec"))
        self.status: dict[str, Any] = deep_copy(as_dict(job.get("status")))
        self.now = owner.clock.now()
        self.indexed = self.spec.get("completionMode") == "Indexed"
        completions = self.spec.get("completions")
        self.completions: int | None = completions if isinstance(completions, int) else None
        self.suspended = self.spec.get("suspend") is True

    # --- counting ------------------------------------------------------------------------------
    def _uncounted(self) -> tuple[set[str], set[str]]:
        uncounted = as_dict(self.status.get("uncountedTerminatedPods"))
        return set(as_list(uncounted.get("succeeded"))), set(as_list(uncounted.get("failed")))

    def _set_uncounted(self, succeeded: set[str], failed: set[str]) -> None:
        entry: dict[str, Any] = {}
        if succeeded:
            entry["succeeded"] = sorted(succeeded)
        if failed:
            entry["failed"] = sorted(failed)
        self.status["uncountedTerminatedPods"] = entry

    def completed_indexes(self) -> set[int]:
        return parse_intervals(text(self.status.get("completedIndexes")), self.completions)

    def failed_indexes(self) -> set[int]:
        return parse_intervals(text(self.status.get("failedIndexes")), self.completions)

    async def _write_status(self) -> None:
        if self.status == as_dict(self.job.get("status")):
            return
        body = {**self.job, "status": self.status}
        self.job = await self.c.client.update_status(JOBS, body=body)
        self.status = deep_copy(as_dict(self.job.get("status")))

    async def _track(self) -> Outcome:
        """Record newly finished pods, let go of their finalizers, count them."""
        recorded_s, recorded_f = self._uncounted()
        outcome = classify(self.job, self.pods, recorded=recorded_s | recorded_f,
                           completed=self.completed_indexes(), failed_indexes=self.failed_indexes())
        if outcome.succeeded or outcome.failed:
            recorded_s |= {text(meta(p).get("uid")) for p in outcome.succeeded}
            recorded_f |= {text(meta(p).get("uid")) for p in outcome.failed}
            self._set_uncounted(recorded_s, recorded_f)
            if self.indexed and outcome.succeeded_indexes:
                self.status["completedIndexes"] = format_intervals(
                    self.completed_indexes() | outcome.succeeded_indexes
                )
            if outcome.failed_indexes:
                self.status["failedIndexes"] = format_intervals(
                    self.failed_indexes() | outcome.failed_indexes
                )
            await self._write_status()
        if outcome.failed:
            self.c._last_failure[self.key] = self.c.clock.monotonic()
        recorded = recorded_s | recorded_f
        releasing = [
            p for p in self.pods
            if has_tracking_finalizer(p)
            and (text(meta(p).get("uid")) in recorded or p in outcome.ignored)
        ]
        released = await self.c._remove_finalizers(releasing)
        present = {text(meta(p).get("uid")) for p in self.pods}
        done_s = {u for u in recorded_s if u in released or u not in present}
        done_f = {u for u in recorded_f if u in released or u not in present}
        if done_s or done_f:
            self.status["succeeded"] = int(self.status.get("succeeded") or 0) + len(done_s)
            self.status["failed"] = int(self.status.get("failed") or 0) + len(done_f)
            self._set_uncounted(recorded_s - done_s, recorded_f - done_f)
        return outcome

    def succeeded_total(self) -> int:
        succeeded, _ = self._uncounted()
        return int(self.status.get("succeeded") or 0) + len(succeeded)

    def failed_total(self) -> int:
        _, failed = self._uncounted()
        return int(self.status.get("failed") or 0) + len(failed)

    # --- decisions -----------------------------------------------------------------------------
    def _failure(self, outcome: Outcome, active: list[Obj]) -> tuple[str, str] | None:
        if outcome.fail_job:
            return "PodFailurePolicy", outcome.fail_job
        backoff_limit = self.spec.get("backoffLimit")
        if (
            self.spec.get("backoffLimitPerIndex") is None
            and isinstance(backoff_limit, int)
            and (self.failed_total() > backoff_limit
                 or self._restarts_exceed(active, backoff_limit))
        ):
            return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
        if self._past_deadline():
            return "DeadlineExceeded", "Job was active longer than specified deadline"
        if self.indexed and self.spec.get("backoffLimitPerIndex") is not None:
            failed = self.failed_indexes()
            max_failed = self.spec.get("maxFailedIndexes")
            if isinstance(max_failed, int) and len(failed) > max_failed:
                return ("MaxFailedIndexesExceeded",
                        "Job has exceeded the specified maximal number of failed indexes")
            if (
                failed
                and self.completions is not None
                and len(failed | self.completed_indexes()) >= self.completions
                and not active
            ):
                return "FailedIndexes", "Job has failed indexes"
        return None

    def _restarts_exceed(self, active: list[Obj], limit: int) -> bool:
        """``pastBackoffLimitOnFailure``: container restarts of running pods count."""
        template_spec = as_dict(as_dict(self.spec.get("template")).get("spec"))
        if template_spec.get("restartPolicy") != "OnFailure":
            return False
        restarts = 0
        for pod in active:
            status = as_dict(pod.get("status"))
            if status.get("phase") not in ("Running", "Pending"):
                continue
            for key in ("initContainerStatuses", "containerStatuses"):
                restarts += sum(int(as_dict(s).get("restartCount") or 0)
                                for s in as_list(status.get(key)))
        return restarts > 0 if limit == 0 else restarts >= limit

    def _deadline(self) -> datetime | None:
        seconds = self.spec.get("activeDeadlineSeconds")
        start = self.status.get("startTime")
        if not isinstance(seconds, int) or not isinstance(start, str) or self.suspended:
            return None
        try:
            return parse_time(start) + timedelta(seconds=seconds)
        except ValueError:
            return None

    def _past_deadline(self) -> bool:
        deadline = self._deadline()
        return deadline is not None and self.now >= deadline

    def _success(self, active: list[Obj]) -> tuple[str, str] | None:
        if self.indexed and self.completions is not None:
            message = match_success_policy(
                self.spec.get("successPolicy"), self.completions, self.completed_indexes()
            )
            if message is not None:
                return "SuccessPolicy", message
            if len(self.completed_indexes()) >= self.completions:
                return "CompletionsReached", "Reached expected number of succeeded pods"
            return None
        succeeded = self.succeeded_total()
        if self.completions is None:
            done = succeeded > 0 and not active
        else:
            done = succeeded >= self.completions and not active
        return ("CompletionsReached", "Reached expected number of succeeded pods") if done else None

    # --- the reconcile ---------------------------------------------------------------------------
    async def run(self) -> Result | None:
        c = self.c
        if self.status.get("startTime") is None and not self.suspended:
            self.status["startTime"] = format_time(self.now)
        outcome = await self._track()
        active = [p for p in self.pods if is_pod_active(p)]
        terminating = [p for p in self.pods if is_pod_terminating(p)]
        result: Result | None = None
        failing = _condition({"status": self.status}, "FailureTarget")
        succeeding = _condition({"status": self.status}, "SuccessCriteriaMet")
        if failing is None and succeeding is None:
            failure = self._failure(outcome, active)
            if failure is not None:
                _set_condition(self.status, "FailureTarget", "True", *failure, self.now)
                failing = _condition({"status": self.status}, "FailureTarget")
            else:
                success = self._success(active)
                if success is not None:
                    _set_condition(self.status, "SuccessCriteriaMet", "True", *success, self.now)
                    succeeding = _condition({"status": self.status}, "SuccessCriteriaMet")
        if failing is not None or succeeding is not None:
            terminating += await self._delete(active)
            active = []
            if not terminating:
                await self._finish(failing, succeeding)
        elif self.suspended:
            terminating += await self._delete(active)
            active = []
            if _set_condition(self.status, "Suspended", "True", "JobSuspended", "Job suspended",
                              self.now):
                c.events.event(regarding=self.job, type="Normal", reason="Suspended",
                               note="Job suspended")
        else:
            if _condition({"status": self.status}, "Suspended") is not None:
                _set_condition(self.status, "Suspended", "False", "JobResumed", "Job resumed",
                               self.now)
                self.status["startTime"] = format_time(self.now)
                c.events.event(regarding=self.job, type="Normal", reason="Resumed",
                               note="Job resumed")
            if c.expectations.satisfied(self.key):
                active, deleted, result = await self._manage(active)
                terminating += deleted
        self.status["active"] = len(active)
        self.status["ready"] = sum(1 for p in active if is_pod_ready(p))
        self.status["terminating"] = len(terminating)
        self.status.setdefault("uncountedTerminatedPods", {})
        for name in ("active", "succeeded", "failed"):
            self.status.setdefault(name, 0)
            if self.status[name] == 0:
                del self.status[name]
        await self._write_status()
        if result is None and not is_finished(self.job):
            deadline = self._deadline()
            if deadline is not None:
                left = (deadline - self.now) / timedelta(seconds=1)
                result = Result(requeue_after=max(left, 0.0) + 0.001)
        return result

    async def _finish(self, failing: dict[str, Any] | None,
                      succeeding: dict[str, Any] | None) -> None:
        events = self.c.events
        if failing is not None:
            reason, message = text(failing.get("reason")), text(failing.get("message"))
            if _set_condition(self.status, "Failed", "True", reason, message, self.now):
                events.event(regarding=self.job, type="Warning", reason=reason, note=message)
        elif succeeding is not None:
            reason, message = text(succeeding.get("reason")), text(succeeding.get("message"))
            if _set_condition(self.status, "Complete", "True", reason, message, self.now):
                self.status["completionTime"] = format_time(self.now)
                events.event(regarding=self.job, type="Normal", reason="Completed",
                             note="Job completed")

    async def _delete(self, pods: list[Obj]) -> list[Obj]:
        """Delete ``pods`` (they are terminating afterwards)."""
        if not pods:
            return []
        self.c.expectations.expect(self.key, deletions={object_key(p) for p in pods})
        results = await asyncio.gather(
            *(self.c.pod_control.delete(p, owner=self.job) for p in pods), return_exceptions=True
        )
        deleted = []
        for pod, outcome in zip(pods, results, strict=True):
            if isinstance(outcome, BaseException):
                self.c.expectations.lower(self.key, deletion=object_key(pod))
            else:
                deleted.append(pod)
        return deleted

    def _want_active(self, active: list[Obj]) -> int:
        parallelism = int(self.spec.get("parallelism") or 0)
        succeeded = len(self.completed_indexes()) if self.indexed else self.succeeded_total()
        if self.completions is None:
            return len(active) if succeeded > 0 else parallelism
        left = self.completions - succeeded
        if self.indexed:
            left -= len(self.failed_indexes() - self.completed_indexes())
        return max(min(left, parallelism), 0)

    async def _manage(self, active: list[Obj]) -> tuple[list[Obj], list[Obj], Result | None]:
        """``manageJob``: create or delete pods towards the wanted number of active pods;
        (the active pods after, the deleted ones, a revisit for the backoff)."""
        want = self._want_active(active)
        surplus: list[Obj] = []
        if self.indexed and self.completions is not None:
            surplus = self._duplicate_index_pods(active)
        keep = [p for p in active if p not in surplus]
        if len(keep) > want:
            surplus += pods_to_delete(keep, len(keep) - want)
        deleted: list[Obj] = []
        if surplus:
            deleted = await self._delete(surplus[:MAX_CREATE_DELETE])
            active = [p for p in active if p not in deleted]
            return active, deleted, None
        if len(active) >= want:
            return active, deleted, None
        wait = self._backoff_left()
        if wait > 0:
            return active, deleted, Result(requeue_after=wait)
        count = min(want - len(active), MAX_CREATE_DELETE)
        indexes: list[int | None] = [None] * count
        if self.indexed and self.completions is not None:
            indexes = list(self._pending_indexes(active, count))
            count = len(indexes)
        if count == 0:
            return active, deleted, None
        self.c.expectations.expect(self.key, creations=count)
        created: list[Obj] = []

        async def create(i: int) -> None:
            created.append(await self.c.pod_control.create(self._pod(indexes[i]), owner=self.job))

        done, _failure = await slow_start_batch(count, create)
        if done < count:
            self.c.expectations.lower(self.key, creations=count - done)
        return [*active, *created], deleted, None

    def _backoff_left(self) -> float:
        last = self.c._last_failure.get(self.key)
        failures = self.failed_total()
        if last is None or failures == 0:
            return 0.0
        return max(last + backoff_delay(failures) - self.c.clock.monotonic(), 0.0)

    def _duplicate_index_pods(self, active: list[Obj]) -> list[Obj]:
        """Active pods of an index that is out of range or taken by an earlier pod."""
        seen: set[int] = set()
        out = []
        for pod in sorted(active, key=lambda p: text(meta(p).get("creationTimestamp"))):
            index = pod_index(pod)
            assert self.completions is not None
            if index is None or index >= self.completions or index in seen:
                out.append(pod)
            else:
                seen.add(index)
        return out

    def _pending_indexes(self, active: list[Obj], count: int) -> list[int | None]:
        """``firstPendingIndexes``: the lowest indexes neither done, failed nor running."""
        assert self.completions is not None
        taken = self.completed_indexes() | self.failed_indexes()
        taken |= {i for p in active if (i := pod_index(p)) is not None}
        out: list[int | None] = []
        for index in range(self.completions):
            if len(out) >= count:
                break
            if index not in taken:
                out.append(index)
        return out

    def _index_failures(self, index: int) -> int:
        """Failures so far of ``index`` (the highest count among its failed pods, plus one)."""
        count = 0
        for pod in self.pods:
            if pod_index(pod) == index and as_dict(pod.get("status")).get("phase") == "Failed":
                try:
                    seen = int(text(as_dict(meta(pod).get("annotations")).get(
                        INDEX_FAILURE_COUNT_ANNOTATION)) or 0)
                except ValueError:
                    seen = 0
                count = max(count, seen + 1)
        return count

    def _pod(self, index: int | None) -> Obj:
        """A new pod from the template (for ``index`` of an Indexed Job)."""
        template = deep_copy(as_dict(self.spec.get("template")))
        name = text(meta(self.job).get("name"))
        template_meta = template.setdefault("metadata", {})
        template_meta["finalizers"] = [*as_list(template_meta.get("finalizers")),
                                       JOB_TRACKING_FINALIZER]
        prefix = f"{name}-"
        if index is not None:
            prefix = f"{name}-{index}-"
            annotations = dict(as_dict(template_meta.get("annotations")))
            annotations[COMPLETION_INDEX_ANNOTATION] = str(index)
            if self.spec.get("backoffLimitPerIndex") is not None:
                annotations[INDEX_FAILURE_COUNT_ANNOTATION] = str(self._index_failures(index))
            template_meta["annotations"] = annotations
            template_meta["labels"] = {**as_dict(template_meta.get("labels")),
                                       COMPLETION_INDEX_ANNOTATION: str(index)}
            pod_spec = template.setdefault("spec", {})
            pod_spec.setdefault("hostname", f"{name}-{index}")
            for key in ("initContainers", "containers"):
                for container in as_list(pod_spec.get(key)):
                    if isinstance(container, dict):
                        _add_index_env(container)
        return pod_from_template(
            template, namespace=text(meta(self.job).get("namespace")),
            owner_ref=new_controller_ref(self.job, api_version="batch/v1", kind="Job"),
            generate_name=prefix,
        )


def _add_index_env(container: dict[str, Any]) -> None:
    """``JOB_COMPLETION_INDEX`` from the pod's completion index label (unless set)."""
    env = [e for e in as_list(container.get("env")) if isinstance(e, dict)]
    if any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
        return
    env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "apiVersion": "v1",
        "fieldPath": f"metadata.labels['{COMPLETION_INDEX_ANNOTATION}']",
    }}})
    container["env"] = env
