"""batch/v1: Job and CronJob.

Fields follow upstream ``batch/v1`` one for one, list semantics from its struct tags. A Job's
``scheduling`` (workload-aware scheduling at newer alpha versions of scheduling.k8s.io) is not
modelled: fakeapi serves the seed KEP-5729 shape, where pods name their Workload themselves.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import Int32, K8sModel, Time, atomic_list, map_list, set_list
from fakeapi.models.meta import LabelSelector, ObjectMeta, ObjectReference
from fakeapi.models.pod_template import PodTemplateSpec

__all__ = [
    "CronJob",
    "CronJobSpec",
    "CronJobStatus",
    "Job",
    "JobCondition",
    "JobSpec",
    "JobStatus",
    "JobTemplateSpec",
    "PodFailurePolicy",
    "PodFailurePolicyOnExitCodesRequirement",
    "PodFailurePolicyOnPodConditionsPattern",
    "PodFailurePolicyRule",
    "SuccessPolicy",
    "SuccessPolicyRule",
    "UncountedTerminatedPods",
]


class PodFailurePolicyOnExitCodesRequirement(K8sModel):
    """Exit codes that make a rule apply to a failed pod."""

    container_name: str | None = None
    """The container whose exit code is checked; all containers when empty."""
    operator: str
    """In or NotIn: whether the exit code must (not) be one of the values."""
    values: Annotated[list[Int32], set_list()]
    """The exit codes, ordered, without duplicates; 0 is not allowed with In."""


class PodFailurePolicyOnPodConditionsPattern(K8sModel):
    """A pod condition that makes a rule apply to a failed pod."""

    type: str
    """The pod condition type, e.g. DisruptionTarget."""
    status: str | None = None
    """The condition status to match. Default True."""


class PodFailurePolicyRule(K8sModel):
    """An action taken when a failed pod matches."""

    action: str
    """FailJob, FailIndex, Ignore or Count."""
    on_exit_codes: PodFailurePolicyOnExitCodesRequirement | None = None
    """Match by container exit codes."""
    on_pod_conditions: Annotated[
        list[PodFailurePolicyOnPodConditionsPattern] | None, atomic_list()
    ] = None
    """Match by pod conditions."""


class PodFailurePolicy(K8sModel):
    """How failed pods count towards the backoff limit."""

    rules: Annotated[list[PodFailurePolicyRule], atomic_list()]
    """Rules evaluated in order; the first matching one applies."""


class SuccessPolicyRule(K8sModel):
    """When an Indexed Job may be declared successful early."""

    succeeded_indexes: str | None = None
    """Indexes that must all succeed, as an interval list (1,3-5,7)."""
    succeeded_count: Int32 | None = None
    """How many of those (or of all) indexes must succeed."""


class SuccessPolicy(K8sModel):
    """When an Indexed Job may be declared successful before all indexes succeed."""

    rules: Annotated[list[SuccessPolicyRule], atomic_list()]
    """Any rule that is met makes the Job succeed."""


class JobSpec(K8sModel):
    """The desired state of a Job."""

    parallelism: Int32 | None = None
    """Pods that may run at once. Default 1."""
    completions: Int32 | None = None
    """Pods that must succeed. Default 1 (unset with parallelism: a work queue)."""
    active_deadline_seconds: int | None = None
    """Seconds the Job may be active before the system tries to end it."""
    pod_failure_policy: PodFailurePolicy | None = None
    """How failed pods are handled."""
    success_policy: SuccessPolicy | None = None
    """When an Indexed Job succeeds early."""
    backoff_limit: Int32 | None = None
    """Retries before the Job is marked failed. Default 6."""
    backoff_limit_per_index: Int32 | None = None
    """Retries per index of an Indexed Job before the index is marked failed."""
    max_failed_indexes: Int32 | None = None
    """Failed indexes before the Job is marked failed."""
    selector: LabelSelector | None = None
    """Label query over the pods; generated unless manualSelector."""
    manual_selector: bool | None = None
    """The selector is given by the user instead of generated."""
    template: PodTemplateSpec
    """The pods to run; restartPolicy Never or OnFailure."""
    ttl_seconds_after_finished: Int32 | None = None
    """Seconds after it finished before the Job is deleted."""
    completion_mode: str | None = None
    """NonIndexed or Indexed. Default NonIndexed."""
    suspend: bool | None = None
    """No pods are created while true; running ones are stopped."""
    pod_replacement_policy: str | None = None
    """When failed pods are replaced: TerminatingOrFailed or Failed."""
    managed_by: str | None = None
    """The controller that manages the Job; kubernetes.io/job-controller by default."""


class JobCondition(K8sModel):
    """One aspect of a Job's state."""

    type: str
    """Complete, Failed, Suspended, FailureTarget or SuccessCriteriaMet."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_probe_time: Time | None = None
    """The last time the condition was checked."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """The reason for the condition's last transition."""
    message: str | None = None
    """A human readable message about the transition."""


class UncountedTerminatedPods(K8sModel):
    """Pods that terminated but are not yet counted in the status."""

    succeeded: Annotated[list[str] | None, set_list()] = None
    """UIDs of succeeded pods."""
    failed: Annotated[list[str] | None, set_list()] = None
    """UIDs of failed pods."""


class JobStatus(K8sModel):
    """The most recently observed state of a Job."""

    conditions: Annotated[list[JobCondition] | None, map_list("type")] = None
    """Latest observations of the Job's state."""
    start_time: Time | None = None
    """When the Job controller started processing the Job."""
    completion_time: Time | None = None
    """When the Job completed."""
    active: Int32 | None = None
    """Pending and running pods that are not terminating."""
    succeeded: Int32 | None = None
    """Pods that succeeded."""
    failed: Int32 | None = None
    """Pods that failed."""
    terminating: Int32 | None = None
    """Pods that are terminating."""
    completed_indexes: str | None = None
    """Completed indexes of an Indexed Job, as an interval list."""
    failed_indexes: str | None = None
    """Failed indexes of an Indexed Job with backoffLimitPerIndex."""
    uncounted_terminated_pods: UncountedTerminatedPods | None = None
    """Pods that terminated but are not yet counted."""
    ready: Int32 | None = None
    """Active pods with a Ready condition."""


class Job(K8sModel):
    """A task run to completion by one or more pods."""

    api_version: str | None = None
    """The versioned schema of this object, batch/v1."""
    kind: str | None = None
    """Job."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: JobSpec | None = None
    """The desired behaviour of the job."""
    status: JobStatus | None = None
    """The current status of the job."""


# --- CronJob -------------------------------------------------------------------------------------


class JobTemplateSpec(K8sModel):
    """The Job a CronJob creates."""

    metadata: ObjectMeta | None = None
    """Labels and annotations of the Jobs created."""
    spec: JobSpec | None = None
    """The spec of the Jobs created."""


class CronJobSpec(K8sModel):
    """The desired state of a CronJob."""

    schedule: str
    """The schedule, in cron format."""
    time_zone: str | None = None
    """The time zone of the schedule; the controller's time zone by default."""
    starting_deadline_seconds: int | None = None
    """Seconds after a missed schedule within which the Job may still start."""
    concurrency_policy: str | None = None
    """Allow, Forbid or Replace. Default Allow."""
    suspend: bool | None = None
    """No new Jobs are started while true. Default false."""
    job_template: JobTemplateSpec
    """The Job to create at each scheduled time."""
    successful_jobs_history_limit: Int32 | None = None
    """Successful finished Jobs kept. Default 3."""
    failed_jobs_history_limit: Int32 | None = None
    """Failed finished Jobs kept. Default 1."""


class CronJobStatus(K8sModel):
    """The most recently observed state of a CronJob."""

    active: Annotated[list[ObjectReference] | None, atomic_list()] = None
    """The running Jobs."""
    last_schedule_time: Time | None = None
    """When a Job was last scheduled."""
    last_successful_time: Time | None = None
    """When a Job last completed successfully."""


class CronJob(K8sModel):
    """A Job run on a schedule."""

    api_version: str | None = None
    """The versioned schema of this object, batch/v1."""
    kind: str | None = None
    """CronJob."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: CronJobSpec
    """The desired behaviour of the cron job."""
    status: CronJobStatus | None = None
    """The current status of the cron job."""
