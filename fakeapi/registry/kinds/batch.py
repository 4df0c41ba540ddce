"""batch/v1 strategies: Job and CronJob.

As upstream's ``pkg/registry/batch``: the batch/v1 defaults (a Job runs one pod to completion
unless told otherwise, six retries, NonIndexed, not suspended; a CronJob allows concurrent runs
and keeps three successful and one failed Job), the pod defaults on the templates, a generated
selector for a Job (the ``batch.kubernetes.io/controller-uid`` and ``job-name`` labels, also in
their legacy unprefixed form, added to the template) unless ``manualSelector``, no status on
create, and a generation bumped with the spec. ``status.successful`` is a Job field label.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi.objects import as_dict, text
from fakeapi.registry.kinds.apps import default_template
from fakeapi.registry.kinds.workload_printing import CRON_JOB_COLUMNS, JOB_COLUMNS
from fakeapi.registry.strategy import Column, Obj, Strategy, WriteContext
from fakeapi.validation import batch as validation
from fakeapi.validation.field import FieldError

__all__ = ["CronJobStrategy", "JobStrategy", "default_job_spec"]

_INT32_MAX = 2**31 - 1
_DEFAULT_BACKOFF_LIMIT = 6


def default_job_spec(spec: dict[str, Any]) -> None:
    """batch/v1 ``SetDefaults_Job`` on a Job's spec, in place."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        limit = _INT32_MAX if spec.get("backoffLimitPerIndex") is not None else (
            _DEFAULT_BACKOFF_LIMIT
        )
        spec["backoffLimit"] = limit
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    if spec.get("podReplacementPolicy") is None:
        failed = spec.get("podFailurePolicy") is not None
        spec["podReplacementPolicy"] = "Failed" if failed else "TerminatingOrFailed"
    default_template(spec.get("template"))


def _generate_selector(job: Obj) -> None:
    """Upstream's ``generateSelector``: label the template with the Job's uid and name and
    select on the uid, unless the user manages the selector."""
    spec = job.get("spec")
    if not isinstance(spec, dict) or spec.get("manualSelector") is True:
        return
    meta = as_dict(job.get("metadata"))
    uid, name = text(meta.get("uid")), text(meta.get("name"))
    template = spec.setdefault("template", {})
    if not isinstance(template, dict):
        return
    template_meta = template.setdefault("metadata", {})
    if not isinstance(template_meta, dict):
        return
    labels = template_meta.get("labels")
    if not isinstance(labels, dict):
        labels = template_meta["labels"] = {}
    for key, value in (
        (validation.LEGACY_CONTROLLER_UID_LABEL, uid),
        (validation.LEGACY_JOB_NAME_LABEL, name),
        (validation.CONTROLLER_UID_LABEL, uid),
        (validation.JOB_NAME_LABEL, name),
    ):
        labels.setdefault(key, value)
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    match_labels = selector.get("matchLabels")
    if not isinstance(match_labels, dict):
        match_labels = selector["matchLabels"] = {}
    match_labels.setdefault(validation.CONTROLLER_UID_LABEL, uid)


class JobStrategy(Strategy):
    """Namespaced; status subresource; the selector generated on create."""

    status_subresource = True
    tracks_generation = True
    columns: ClassVar[tuple[Column, ...]] = JOB_COLUMNS
    field_labels: ClassVar[tuple[str, ...]] = ("status.successful",)

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            default_job_spec(spec)

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        super().prepare_for_create(obj, ctx)
        _generate_selector(obj)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"status.successful": str(as_dict(obj.get("status")).get("succeeded") or 0)}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_job(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_job_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_job_status(new, old)


class CronJobStrategy(Strategy):
    """Namespaced; status subresource."""

    status_subresource = True
    tracks_generation = True
    columns: ClassVar[tuple[Column, ...]] = CRON_JOB_COLUMNS

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        job_spec = as_dict(spec.get("jobTemplate")).get("spec")
        if isinstance(job_spec, dict):
            default_template(job_spec.get("template"))

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_cron_job(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_cron_job_update(new, old)
