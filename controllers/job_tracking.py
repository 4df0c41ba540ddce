"""How the Job controller counts finished pods: the tracking finalizer and uncounted pods.

As upstream since 1.26 (``trackJobStatusAndRemoveFinalizers``), every pod a Job creates carries
the finalizer ``batch.kubernetes.io/job-tracking``, so a finished pod cannot disappear before the
Job has counted it. Counting is three steps, each one durable before the next:

1. the uid of each newly finished pod is recorded in ``status.uncountedTerminatedPods``
   (``succeeded`` or ``failed``; an Indexed Job also records the index in
   ``completedIndexes``), in one status write;
2. the finalizer is removed from those pods;
3. the recorded uids whose pods let go are moved into ``status.succeeded``/``status.failed``.

A pod counts as failed when it is ``Failed``, or when it was deleted before it succeeded (an
orphan that never got to fail), unless the Job's pod failure policy ignores it. This module
decides what a pod's outcome is (:func:`classify`); the controller does the writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakeapi.controllers.job_util import (
    INDEX_FAILURE_COUNT_ANNOTATION,
    JOB_TRACKING_FINALIZER,
    match_failure_policy,
    pod_index,
)
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.podutil import pod_phase

__all__ = ["Outcome", "classify", "has_tracking_finalizer", "index_failures"]


def has_tracking_finalizer(pod: Obj) -> bool:
    return JOB_TRACKING_FINALIZER in as_list(meta(pod).get("finalizers"))


def index_failures(pod: Obj) -> int:
    """How often the pod's index failed before it (the index failure count annotation)."""
    try:
        return int(text(as_dict(meta(pod).get("annotations")).get(
            INDEX_FAILURE_COUNT_ANNOTATION)) or 0)
    except ValueError:
        return 0


@dataclass(slots=True)
class Outcome:
    """What the newly finished pods of one reconcile mean for the Job."""

    succeeded: list[Obj] = field(default_factory=list)
    failed: list[Obj] = field(default_factory=list)
    #: finished pods that count for nothing (ignored failures, surplus successes)
    ignored: list[Obj] = field(default_factory=list)
    succeeded_indexes: set[int] = field(default_factory=set)
    failed_indexes: set[int] = field(default_factory=set)
    #: the FailJob message of the first pod a FailJob rule matched
    fail_job: str = ""


def _is_failed(pod: Obj, *, suspended: bool) -> bool:
    """Failed, or deleted before it succeeded (not while the Job is suspended: the controller
    deleted it)."""
    phase = pod_phase(pod)
    if phase == "Failed":
        return True
    return bool(meta(pod).get("deletionTimestamp")) and phase != "Succeeded" and not suspended


def classify(job: Obj, pods: list[Obj], *, recorded: set[str], completed: set[int],
             failed_indexes: set[int]) -> Outcome:
    """The outcome of the pods that finished since the last count (``recorded``: uids already
    in ``uncountedTerminatedPods``; ``completed``/``failed_indexes``: indexes known so far)."""
    spec = as_dict(job.get("spec"))
    indexed = spec.get("completionMode") == "Indexed"
    completions = spec.get("completions")
    per_index = spec.get("backoffLimitPerIndex")
    policy: dict[str, Any] | None = spec.get("podFailurePolicy")
    suspended = spec.get("suspend") is True
    outcome = Outcome()
    for pod in pods:
        if not has_tracking_finalizer(pod) or text(meta(pod).get("uid")) in recorded:
            continue
        index = pod_index(pod)
        valid_index = (
            index is not None and isinstance(completions, int) and index < completions
        )
        if pod_phase(pod) == "Succeeded":
            if not indexed:
                outcome.succeeded.append(pod)
            elif valid_index and index not in completed and index not in outcome.succeeded_indexes:
                assert index is not None
                outcome.succeeded.append(pod)
                outcome.succeeded_indexes.add(index)
            else:
                outcome.ignored.append(pod)
            continue
        if not _is_failed(pod, suspended=suspended):
            continue
        action, message = (None, "")
        if pod_phase(pod) == "Failed":
            action, message = match_failure_policy(policy, pod)
        if action == "Ignore":
            outcome.ignored.append(pod)
            continue
        outcome.failed.append(pod)
        if action == "FailJob" and not outcome.fail_job:
            outcome.fail_job = message
        if indexed and valid_index and isinstance(per_index, int) and index is not None:
            if index in failed_indexes or index in completed:
                continue
            if action == "FailIndex" or index_failures(pod) + 1 > per_index:
                outcome.failed_indexes.add(index)
    return outcome
