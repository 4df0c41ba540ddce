"""The Job controller's rules as plain functions: indexes, failure and success policies.

From upstream's ``pkg/controller/job`` (``indexed_job_utils.go``, ``pod_failure_policy.go``,
``success_policy.go``, ``backoff_utils.go``):

- **indexes** of an Indexed Job are the ``batch.kubernetes.io/job-completion-index``
  annotation (and label) of its pods; ``completedIndexes`` and ``failedIndexes`` are written as
  ordered intervals (``0-2,4``);
- the **pod failure policy** looks at a failed pod's container exit codes or conditions; the
  first matching rule says whether the failure is ignored, counted, fails its index or fails the
  whole Job (with upstream's message naming the container or condition and the rule's index);
- the **success policy** of an Indexed Job is met when a rule's indexes (all of them, or
  ``succeededCount`` of them) or its ``succeededCount`` succeeded;
- **backoff**: a Job whose pods failed waits ``10s * 2^(failures-1)`` (at most six minutes)
  after the last failure before creating a replacement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list, meta, text

__all__ = [
    "COMPLETION_INDEX_ANNOTATION",
    "INDEX_FAILURE_COUNT_ANNOTATION",
    "INDEX_IGNORED_FAILURE_COUNT_ANNOTATION",
    "JOB_TRACKING_FINALIZER",
    "backoff_delay",
    "format_intervals",
    "match_failure_policy",
    "match_success_policy",
    "parse_intervals",
    "pod_index",
]

COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
#: upstream's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff
_BACKOFF_BASE = 10.0
_BACKOFF_MAX = 360.0


def pod_index(pod: Obj) -> int | None:
    """The completion index of a pod (annotation, else label), None when it has none."""
    for source in (meta(pod).get("annotations"), meta(pod).get("labels")):
        value = as_dict(source).get(COMPLETION_INDEX_ANNOTATION)
        if value is not None:
            try:
                index = int(text(value))
            except ValueError:
                return None
            return index if index >= 0 else None
    return None


def format_intervals(indexes: Iterable[int]) -> str:
    """Sorted indexes as intervals: ``[0, 1, 2, 4]`` → ``0-2,4``."""
    parts: list[str] = []
    start = prev = None
    for index in sorted(set(indexes)):
        if start is None:
            start = prev = index
        elif prev is not None and index == prev + 1:
            prev = index
        else:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = prev = index
    if start is not None:
        parts.append(str(start) if start == prev else f"{start}-{prev}")
    return ",".join(parts)


def parse_intervals(value: str, completions: int | None = None) -> set[int]:
    """The indexes of an interval list (below ``completions`` when given); bad parts are
    skipped, as upstream's ``parseIndexesFromString``."""
    out: set[int] = set()
    for part in (value or "").split(","):
        first, _, last = part.partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            continue
        if completions is not None:
            high = min(high, completions - 1)
        out.update(range(low, high + 1))
    return out


def backoff_delay(failures: int) -> float:
    """The wait before a replacement after ``failures`` failures (0 with none)."""
    if failures <= 0:
        return 0.0
    return float(min(_BACKOFF_BASE * 2.0 ** (failures - 1), _BACKOFF_MAX))


def _terminated(status: Mapping[str, Any]) -> dict[str, Any] | None:
    terminated = as_dict(status.get("state")).get("terminated")
    return terminated if isinstance(terminated, dict) else None


def _exit_code_matches(requirement: Mapping[str, Any], code: int) -> bool:
    values = {v for v in as_list(requirement.get("values")) if isinstance(v, int)}
    if requirement.get("operator") == "In":
        return code in values
    return code not in values


def _matching_container(pod: Obj, requirement: Mapping[str, Any]) -> dict[str, Any] | None:
    status = as_dict(pod.get("status"))
    wanted = requirement.get("containerName")
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in as_list(status.get(key)):
            entry = as_dict(entry)
            if wanted is not None and entry.get("name") != wanted:
                continue
            terminated = _terminated(entry)
            if terminated is None:
                continue
            code = terminated.get("exitCode")
            if isinstance(code, int) and code != 0 and _exit_code_matches(requirement, code):
                return entry
    return None


def _matching_condition(pod: Obj, patterns: Sequence[Any]) -> dict[str, Any] | None:
    for condition in as_list(as_dict(pod.get("status")).get("conditions")):
        condition = as_dict(condition)
        for pattern in patterns:
            pattern = as_dict(pattern)
            if condition.get("type") == pattern.get("type") and condition.get("status") == (
                pattern.get("status") or "True"
            ):
                return condition
    return None


def match_failure_policy(policy: Mapping[str, Any] | None, pod: Obj) -> tuple[str | None, str]:
    """``matchPodFailurePolicy`` for a failed pod: (the action of the first matching rule, or
    None; the FailJob message)."""
    if not policy:
        return None, ""
    pod_meta = meta(pod)
    where = f"{text(pod_meta.get('namespace'))}/{text(pod_meta.get('name'))}"
    for i, rule in enumerate(as_list(policy.get("rules"))):
        rule = as_dict(rule)
        action = text(rule.get("action"))
        if rule.get("onExitCodes") is not None:
            container = _matching_container(pod, as_dict(rule.get("onExitCodes")))
            if container is not None:
                code = as_dict(_terminated(container)).get("exitCode")
                return action, (
                    f"Container {text(container.get('name'))} for pod {where} failed with exit "
                    f"code {code} matching {action} rule at index {i}"
                )
        elif rule.get("onPodConditions"):
            condition = _matching_condition(pod, as_list(rule.get("onPodConditions")))
            if condition is not None:
                return action, (
                    f"Pod {where} has condition {text(condition.get('type'))} matching "
                    f"{action} rule at index {i}"
                )
    return None, ""


def match_success_policy(
    policy: Mapping[str, Any] | None, completions: int, succeeded: set[int]
) -> str | None:
    """``matchSuccessPolicy``: "Matched rules at index <i>" of the first rule met, or None."""
    if not policy or not succeeded:
        return None
    for i, rule in enumerate(as_list(policy.get("rules"))):
        rule = as_dict(rule)
        count = rule.get("succeededCount")
        indexes = rule.get("succeededIndexes")
        if indexes is not None:
            required = parse_intervals(text(indexes), completions)
            if not required:
                continue
            done = len(required & succeeded)
            if (count is None and done == len(required)) or (
                isinstance(count, int) and done >= count
            ):
                return f"Matched rules at index {i}"
        elif isinstance(count, int) and len(succeeded) >= count:
            return f"Matched rules at index {i}"
    return None
