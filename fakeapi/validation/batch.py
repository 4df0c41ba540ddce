"""batch/v1 validation: Jobs and CronJobs.

Upstream's ``pkg/apis/batch/validation`` with its messages and field paths, on the defaulted
object: counts, completion modes (Indexed needs ``completions``; per-index backoff needs it),
pod failure and success policies, the restart policy a Job's pods may have, the generated
selector and its labels, and what an update may change (completions only with parallelism in an
elastic Indexed Job, the template only while the Job is suspended and never started). CronJobs
check their schedule with robfig's parser (:mod:`fakeapi.rules.cron`), their concurrency policy
and the Job template.
"""

from __future__ import annotations

import re
from typing import Any

from fakeapi.name_syntax import is_dns1123_label, is_qualified_name
from fakeapi.objects import as_dict, as_list, text
from fakeapi.rules.cron import CronError, parse_schedule
from fakeapi.validation.field import (
    FieldError,
    Path,
    duplicate,
    invalid,
    not_supported,
    required,
    too_many,
)
from fakeapi.validation.meta import validate_immutable
from fakeapi.validation.workloads import (
    validate_label_selector,
    validate_nonnegative,
    validate_pod_template,
    validate_selected_template,
)

__all__ = [
    "CONTROLLER_UID_LABEL",
    "JOB_NAME_LABEL",
    "LEGACY_CONTROLLER_UID_LABEL",
    "LEGACY_JOB_NAME_LABEL",
    "validate_cron_job",
    "validate_cron_job_update",
    "validate_job",
    "validate_job_status",
    "validate_job_update",
]

CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"

_SPEC = Path("spec")
_MAX_PARALLELISM_INDEXED = 100_000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_HIGH_COMPLETIONS = 10_000
_MAX_FAILED_HIGH_COMPLETIONS = 10_000
_MAX_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_CONDITION_PATTERNS = 20
_MAX_SUCCESS_RULES = 20
_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
_INTERVAL = re.compile(r"\d+(-\d+)?")
#: the longest name a CronJob may have: the controller appends an 11-character suffix
_CRON_JOB_NAME_MAX = 52


def _has_label(meta: dict[str, Any], path: Path, key: str, value: str) -> list[FieldError]:
    """``ValidateHasLabel``: ``<path>.labels[key]`` is ``value``."""
    actual = as_dict(meta.get("labels")).get(key)
    if actual is None:
        return [required(path.child("labels").key(key), f"must be '{value}'")]
    if actual != value:
        return [invalid(path.child("labels").key(key), actual, f"must be '{value}'")]
    return []


def _generated_selector_errors(job: dict[str, Any]) -> list[FieldError]:
    spec = as_dict(job.get("spec"))
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return []
    meta = as_dict(job.get("metadata"))
    uid, name = text(meta.get("uid")), text(meta.get("name"))
    at = Path("spec.template.metadata")
    template_meta = as_dict(as_dict(spec.get("template")).get("metadata"))
    errors: list[FieldError] = []
    for key, value in (
        (LEGACY_CONTROLLER_UID_LABEL, uid), (LEGACY_JOB_NAME_LABEL, name),
        (CONTROLLER_UID_LABEL, uid), (JOB_NAME_LABEL, name),
    ):
        errors += _has_label(template_meta, at, key, value)
    match_labels = as_dict(as_dict(spec.get("selector")).get("matchLabels"))
    if match_labels.get(CONTROLLER_UID_LABEL) != uid:
        errors.append(invalid(_SPEC.child("selector"), spec.get("selector"),
                              "`selector` not auto-generated"))
    return errors


def _success_policy_errors(spec: dict[str, Any], path: Path) -> list[FieldError]:
    policy = spec.get("successPolicy")
    if policy is None:
        return []
    if spec.get("completionMode") != "Indexed":
        return [invalid(path, policy, "requires indexed completion mode")]
    rules = as_list(as_dict(policy).get("rules"))
    errors: list[FieldError] = []
    if not rules:
        errors.append(required(path.child("rules"), "at least one rules must be specified when "
                               "the successPolicy is specified"))
    if len(rules) > _MAX_SUCCESS_RULES:
        errors.append(too_many(path.child("rules"), len(rules), _MAX_SUCCESS_RULES))
    completions = spec.get("completions")
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        at = path.child("rules").index(i)
        indexes = rule.get("succeededIndexes")
        count = rule.get("succeededCount")
        if indexes is None and count is None:
            errors.append(required(at, "at least one of succeededCount or succeededIndexes "
                                   "must be specified"))
        total = None
        if indexes is not None:
            parsed = _parse_intervals(text(indexes), completions)
            if isinstance(parsed, str):
                errors.append(invalid(at.child("succeededIndexes"), indexes,
                                      f"error parsing succeededIndexes: {parsed}"))
            else:
                total = parsed
        if count is not None:
            if isinstance(count, int) and count < 0:
                errors.append(invalid(at.child("succeededCount"), count,
                                      "must be greater than or equal to 0"))
            elif isinstance(completions, int) and isinstance(count, int) and count > completions:
                errors.append(invalid(at.child("succeededCount"), count,
                                      f"must be less than or equal to {completions} (the number "
                                      "of specified completions)"))
            elif total is not None and isinstance(count, int) and count > total:
                errors.append(invalid(at.child("succeededCount"), count,
                                      f"must be less than or equal to {total} (the number of "
                                      "indexes in the specified succeededIndexes field)"))
    return errors


def _parse_intervals(value: str, completions: Any) -> int | str:
    """How many indexes an interval list (``1,3-5``) names, or why it does not parse."""
    count = 0
    last = -1
    for part in value.split(","):
        if not _INTERVAL.fullmatch(part):
            return f"cannot parse {part!r}"
        first, _, end = part.partition("-")
        low, high = int(first), int(end or first)
        if high < low:
            return f"{part}: first index must not be greater than the last"
        if low <= last:
            return "intervals must be ordered and not overlap"
        if isinstance(completions, int) and high >= completions:
            return f"too large index: {high}"
        count += high - low + 1
        last = high
    return count


def _failure_policy_errors(spec: dict[str, Any], path: Path) -> list[FieldError]:
    rules = as_list(as_dict(spec.get("podFailurePolicy")).get("rules"))
    errors: list[FieldError] = []
    rules_path = path.child("rules")
    if len(rules) > _MAX_RULES:
        errors.append(too_many(rules_path, len(rules), _MAX_RULES))
    template_spec = as_dict(as_dict(spec.get("template")).get("spec"))
    names = {
        text(as_dict(c).get("name"))
        for key in ("containers", "initContainers")
        for c in as_list(template_spec.get(key))
    }
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        at = rules_path.index(i)
        action = text(rule.get("action"))
        if not action:
            errors.append(required(at.child("action"), 'valid values: ["Count" "FailIndex" '
                                   '"FailJob" "Ignore"]'))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                errors.append(invalid(at.child("action"), action,
                                      "requires the backoffLimitPerIndex to be set"))
        elif action not in _ACTIONS:
            errors.append(not_supported(at.child("action"), action, _ACTIONS))
        on_codes = rule.get("onExitCodes")
        on_conditions = as_list(rule.get("onPodConditions"))
        if on_codes is not None:
            errors += _exit_code_errors(as_dict(on_codes), at.child("onExitCodes"), names)
        if on_conditions:
            errors += _condition_errors(on_conditions, at.child("onPodConditions"))
        if on_codes is not None and on_conditions:
            errors.append(invalid(at, None, "specifying both OnExitCodes and OnPodConditions is "
                                  "not supported"))
        if on_codes is None and not on_conditions:
            errors.append(invalid(at, None, "specifying one of OnExitCodes and OnPodConditions "
                                  "is required"))
    return errors


def _exit_code_errors(req: dict[str, Any], path: Path, names: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = text(req.get("operator"))
    if not operator:
        errors.append(required(path.child("operator"), 'valid values: ["In" "NotIn"]'))
    elif operator not in _EXIT_OPERATORS:
        errors.append(not_supported(path.child("operator"), operator, _EXIT_OPERATORS))
    container = req.get("containerName")
    if container is not None and container not in names:
        errors.append(invalid(path.child("containerName"), container, "must be one of the "
                              "container or initContainer names in the pod template"))
    values = as_list(req.get("values"))
    at = path.child("values")
    if not values:
        errors.append(invalid(at, values, "at least one value is required"))
    elif len(values) > _MAX_EXIT_CODES:
        errors.append(too_many(at, len(values), _MAX_EXIT_CODES))
    seen: set[Any] = set()
    ordered = True
    for j, value in enumerate(values):
        if operator == "In" and value == 0:
            errors.append(invalid(at.index(j), value, "must not be 0 for the In operator"))
        if value in seen:
            errors.append(duplicate(at.index(j), value))
        seen.add(value)
        if j > 0 and isinstance(value, int) and isinstance(values[j - 1], int) and (
            values[j - 1] > value
        ):
            ordered = False
    if not ordered:
        errors.append(invalid(at, values, "must be ordered"))
    return errors


def _condition_errors(patterns: list[Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(patterns) > _MAX_CONDITION_PATTERNS:
        errors.append(too_many(path, len(patterns), _MAX_CONDITION_PATTERNS))
    for j, pattern in enumerate(patterns):
        pattern = as_dict(pattern)
        at = path.index(j)
        kind = text(pattern.get("type"))
        errors += [invalid(at.child("type"), kind, m) for m in is_qualified_name(kind)]
        status = text(pattern.get("status"))
        if not status:
            errors.append(required(at.child("status"), 'valid values: ["False" "True" '
                                   '"Unknown"]'))
        elif status not in _CONDITION_STATUSES:
            errors.append(not_supported(at.child("status"), status, _CONDITION_STATUSES))
    return errors


def _job_spec_errors(spec: dict[str, Any], path: Path) -> list[FieldError]:
    """``validateJobSpec``: what a Job and a CronJob's Job template share."""
    errors: list[FieldError] = []
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                 "ttlSecondsAfterFinished", "backoffLimitPerIndex"):
        errors += validate_nonnegative(spec.get(name), path.child(name))
    completions = spec.get("completions")
    parallelism = spec.get("parallelism")
    per_index = spec.get("backoffLimitPerIndex")
    max_failed = spec.get("maxFailedIndexes")
    if max_failed is not None:
        errors += validate_nonnegative(max_failed, path.child("maxFailedIndexes"))
        if per_index is None:
            errors.append(required(path.child("backoffLimitPerIndex"),
                                   "when maxFailedIndexes is specified"))
    mode = spec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        errors.append(not_supported(path.child("completionMode"), mode, ["NonIndexed", "Indexed"]))
    if mode == "Indexed":
        if completions is None:
            errors.append(required(path.child("completions"), "when completion mode is Indexed"))
        if isinstance(parallelism, int) and parallelism > _MAX_PARALLELISM_INDEXED:
            errors.append(invalid(path.child("parallelism"), parallelism,
                                  f"must be less than or equal to {_MAX_PARALLELISM_INDEXED} "
                                  "when completion mode is Indexed"))
        if isinstance(completions, int) and isinstance(max_failed, int) and (
            max_failed > completions
        ):
            errors.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                  "must be less than or equal to completions"))
        if isinstance(max_failed, int) and max_failed > _MAX_FAILED_INDEXES:
            errors.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                  f"must be less than or equal to {_MAX_FAILED_INDEXES}"))
        if isinstance(completions, int) and completions > _COMPLETIONS_SOFT_LIMIT and (
            per_index is not None
        ):
            suffix = (f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with "
                      "backoff limit per index")
            if max_failed is None:
                errors.append(required(path.child("maxFailedIndexes"), "must be specified when "
                                       f"completions is above {_COMPLETIONS_SOFT_LIMIT}"))
            if isinstance(parallelism, int) and parallelism > _PARALLELISM_HIGH_COMPLETIONS:
                errors.append(invalid(path.child("parallelism"), parallelism, "must be less than "
                                      f"or equal to {_PARALLELISM_HIGH_COMPLETIONS} {suffix}"))
            if isinstance(max_failed, int) and max_failed > _MAX_FAILED_HIGH_COMPLETIONS:
                errors.append(invalid(path.child("maxFailedIndexes"), max_failed, "must be less "
                                      f"than or equal to {_MAX_FAILED_HIGH_COMPLETIONS} {suffix}"))
    else:
        if per_index is not None:
            errors.append(invalid(path.child("backoffLimitPerIndex"), per_index,
                                  "requires indexed completion mode"))
        if max_failed is not None:
            errors.append(invalid(path.child("maxFailedIndexes"), max_failed,
                                  "requires indexed completion mode"))
    if spec.get("podFailurePolicy") is not None:
        errors += _failure_policy_errors(spec, path.child("podFailurePolicy"))
    errors += _success_policy_errors(spec, path.child("successPolicy"))
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        at = path.child("podReplacementPolicy")
        if spec.get("podFailurePolicy") is not None:
            if replacement != "Failed":
                errors.append(not_supported(at, replacement, ["Failed"]))
        elif replacement not in _REPLACEMENT_POLICIES:
            errors.append(not_supported(at, replacement, _REPLACEMENT_POLICIES))
    errors += _managed_by_errors(spec.get("managedBy"), path.child("managedBy"))
    template_path = path.child("template")
    errors += validate_pod_template(spec.get("template"), template_path)
    policy = as_dict(as_dict(spec.get("template")).get("spec")).get("restartPolicy")
    restart_path = template_path.child("spec", "restartPolicy")
    if policy in ("Always", None, ""):
        errors.append(required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        errors.append(not_supported(restart_path, policy, ["OnFailure", "Never"]))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        errors.append(invalid(restart_path, policy,
                              'only "Never" is supported when podFailurePolicy is specified'))
    return errors


def _managed_by_errors(managed_by: Any, path: Path) -> list[FieldError]:
    if managed_by is None:
        return []
    value = text(managed_by)
    errors = [invalid(path, value, m) for m in is_qualified_name(value)]
    if "/" not in value:
        errors.append(
            invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')
        )
    if len(value) > 63:
        errors.append(invalid(path, value, "must be no more than 63 characters"))
    return errors


def validate_job(job: dict[str, Any]) -> list[FieldError]:
    """``ValidateJob`` of a defaulted Job whose selector the strategy generated."""
    spec = as_dict(job.get("spec"))
    errors = _generated_selector_errors(job)
    errors += _job_spec_errors(spec, _SPEC)
    selector = spec.get("selector")
    if selector is None:
        errors.append(required(_SPEC.child("selector")))
    else:
        errors += validate_label_selector(selector, _SPEC.child("selector"))
    errors += validate_selected_template(selector, spec.get("template"), _SPEC.child("template"))
    completions = spec.get("completions")
    if spec.get("completionMode") == "Indexed" and isinstance(completions, int) and (
        completions > 0
    ):
        name = text(as_dict(job.get("metadata")).get("name"))
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            errors.append(invalid(Path("metadata.name"), name, "will not able to create pod with "
                                  f"invalid DNS label: {hostname}"))
    return errors


def _template_errors_on_update(
    new_spec: dict[str, Any], old_spec: dict[str, Any], old_status: dict[str, Any]
) -> list[FieldError]:
    """The template is immutable; a suspended Job that never started may change its
    scheduling directives (node affinity and selector, tolerations, labels, annotations,
    scheduling gates), as upstream's ``AllowMutableSchedulingDirectives``."""
    new_t, old_t = as_dict(new_spec.get("template")), as_dict(old_spec.get("template"))
    if old_spec.get("suspend") is True and not old_status.get("startTime"):
        new_t = _without_scheduling_directives(new_t)
        old_t = _without_scheduling_directives(old_t)
    return validate_immutable(new_t, old_t, _SPEC.child("template"))


def _without_scheduling_directives(template: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in as_dict(template.get("metadata")).items()
            if k not in ("labels", "annotations")}
    spec = {k: v for k, v in as_dict(template.get("spec")).items()
            if k not in ("nodeSelector", "tolerations", "schedulingGates")}
    affinity = {k: v for k, v in as_dict(spec.get("affinity")).items() if k != "nodeAffinity"}
    spec.pop("affinity", None)
    if affinity:
        spec["affinity"] = affinity
    return {"metadata": meta, "spec": spec}


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateJobUpdate``: the Job's own rules; selector, completion mode, pod failure
    policy and per-index backoff are immutable; completions change only together with
    parallelism in an Indexed Job (elastic Indexed Jobs); the template as above."""
    errors = validate_job(new)
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    if new_spec.get("completions") != old_spec.get("completions"):
        elastic = (
            new_spec.get("completionMode") == "Indexed"
            and new_spec.get("completions") == new_spec.get("parallelism")
            and old_spec.get("completions") == old_spec.get("parallelism")
        )
        if not elastic:
            at = _SPEC.child("completions")
            if new_spec.get("completionMode") == "Indexed":
                errors.append(invalid(at, new_spec.get("completions"),
                                      "can only be modified in tandem with spec.parallelism"))
            else:
                errors += validate_immutable(
                    new_spec.get("completions"), old_spec.get("completions"), at
                )
    for name in ("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex"):
        errors += validate_immutable(new_spec.get(name), old_spec.get(name), _SPEC.child(name))
    errors += _template_errors_on_update(new_spec, old_spec, as_dict(old.get("status")))
    return errors


def validate_job_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    status = as_dict(new.get("status"))
    at = Path("status")
    errors: list[FieldError] = []
    for name in ("active", "succeeded", "failed", "ready", "terminating"):
        errors += validate_nonnegative(status.get(name), at.child(name))
    uncounted = as_dict(status.get("uncountedTerminatedPods"))
    seen: set[str] = set()
    for name in ("succeeded", "failed"):
        for i, uid in enumerate(as_list(uncounted.get(name))):
            p = at.child("uncountedTerminatedPods", name).index(i)
            if not uid:
                errors.append(invalid(p, uid, "must not be empty"))
            elif uid in seen:
                errors.append(duplicate(p, uid))
            seen.add(text(uid))
    return errors


# --- CronJob -------------------------------------------------------------------------------------


def _cron_job_spec_errors(
    spec: dict[str, Any], old_spec: dict[str, Any] | None
) -> list[FieldError]:
    errors: list[FieldError] = []
    schedule = text(spec.get("schedule"))
    at = _SPEC.child("schedule")
    if not schedule:
        errors.append(required(at))
    else:
        try:
            parse_schedule(schedule)
        except CronError as err:
            errors.append(invalid(at, schedule, str(err)))
        allow_tz = old_spec is not None and "TZ" in text(old_spec.get("schedule"))
        if allow_tz and "TZ" in schedule and spec.get("timeZone") is not None:
            errors.append(invalid(at, schedule, "cannot use both timeZone field and TZ or "
                                  "CRON_TZ in schedule"))
        elif not allow_tz and "TZ" in schedule:
            errors.append(invalid(at, schedule, "cannot use TZ or CRON_TZ in schedule, use "
                                  "timeZone field instead"))
    errors += validate_nonnegative(spec.get("startingDeadlineSeconds"),
                                   _SPEC.child("startingDeadlineSeconds"))
    policy = spec.get("concurrencyPolicy")
    if not policy:
        errors.append(required(_SPEC.child("concurrencyPolicy")))
    elif policy not in ("Allow", "Forbid", "Replace"):
        errors.append(not_supported(_SPEC.child("concurrencyPolicy"), policy,
                                    ["Allow", "Forbid", "Replace"]))
    template = as_dict(spec.get("jobTemplate"))
    job_spec = as_dict(template.get("spec"))
    tpath = _SPEC.child("jobTemplate")
    errors += _job_spec_errors(job_spec, tpath.child("spec"))
    if job_spec.get("selector") is not None:
        errors.append(invalid(tpath.child("spec", "selector"), job_spec["selector"],
                              "`selector` will be auto-generated"))
    if job_spec.get("manualSelector") is True:
        errors.append(not_supported(tpath.child("spec", "manualSelector"), True,
                                    ["nil", "false"]))
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errors += validate_nonnegative(spec.get(name), _SPEC.child(name))
    return errors


def validate_cron_job(obj: dict[str, Any]) -> list[FieldError]:
    errors = _cron_job_spec_errors(as_dict(obj.get("spec")), None)
    name = text(as_dict(obj.get("metadata")).get("name"))
    if len(name) > _CRON_JOB_NAME_MAX:
        errors.append(invalid(Path("metadata.name"), name,
                              f"must be no more than {_CRON_JOB_NAME_MAX} characters"))
    return errors


def validate_cron_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return _cron_job_spec_errors(as_dict(new.get("spec")), as_dict(old.get("spec")))
