"""How ``kubectl get`` shows the workload kinds: upstream's printer columns and cells.

Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers
share the wide columns (Containers, Images, Selector, read from the pod template); each kind's
own cells follow upstream's ``pkg/printers/internalversion`` (``READY`` as ``ready/desired``, a
Job's ``STATUS`` from its conditions, its ``COMPLETIONS`` and ``DURATION``...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.objects import as_dict, as_list, dig, meta, text
from fakeapi.registry.kinds.common import since_cell
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj
from fakeapi.selectors import SelectorError, label_selector_from_api
from fakeapi.timefmt import human_duration, parse_time

__all__ = [
    "CONTROLLER_REVISION_COLUMNS",
    "CRON_JOB_COLUMNS",
    "DAEMON_SET_COLUMNS",
    "DEPLOYMENT_COLUMNS",
    "JOB_COLUMNS",
    "REPLICA_SET_COLUMNS",
    "REPLICATION_CONTROLLER_COLUMNS",
    "STATEFUL_SET_COLUMNS",
    "format_labels",
    "job_status_cell",
]


def _count(obj: Obj, *path: str) -> int:
    value = dig(obj, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _template_containers(obj: Obj, *template: str) -> list[dict[str, Any]]:
    return [as_dict(c) for c in as_list(dig(obj, *template, "spec", "containers"))]


def format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: ``k=v`` pairs sorted by key, ``<none>`` when empty."""
    items = as_dict(labels)
    if not items:
        return "<none>"
    return ",".join(f"{k}={text(v)}" for k, v in sorted(items.items()))


def _label_selector_cell(obj: Obj, *path: str) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` for an empty selector."""
    selector = dig(obj, *path)
    if not isinstance(selector, dict):
        return "<none>"
    try:
        rendered = str(label_selector_from_api(selector))
    except (SelectorError, ValueError):
        return "<error>"
    return rendered or "<none>"


def _wide_columns(*template: str, selector: tuple[str, ...] | None) -> tuple[Column, ...]:
    columns = (
        Column("Containers", lambda obj, _now: ",".join(
            text(c.get("name")) for c in _template_containers(obj, *template)
        ), priority=1, description="Names of each container in the template."),
        Column("Images", lambda obj, _now: ",".join(
            text(c.get("image")) for c in _template_containers(obj, *template)
        ), priority=1, description="Images referenced by each container in the template."),
    )
    if selector is None:
        return columns
    return (*columns, Column(
        "Selector", lambda obj, _now: _label_selector_cell(obj, *selector), priority=1,
        description="A label query over pods that should match the replica count.",
    ))


_SPEC_TEMPLATE = ("spec", "template")
_SPEC_SELECTOR = ("spec", "selector")

DEPLOYMENT_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Ready", lambda obj, _now: f"{_count(obj, 'status', 'readyReplicas')}/"
           f"{_count(obj, 'spec', 'replicas')}",
           description="Number of the pod with ready state"),
    Column("Up-to-date", lambda obj, _now: _count(obj, "status", "updatedReplicas"),
           type="integer", description="Total number of non-terminating pods targeted by this "
           "deployment that have the desired template spec."),
    Column("Available", lambda obj, _now: _count(obj, "status", "availableReplicas"),
           type="integer", description="Total number of available non-terminating pods "
           "(ready for at least minReadySeconds) targeted by this deployment."),
    AGE_COLUMN,
    *_wide_columns(*_SPEC_TEMPLATE, selector=_SPEC_SELECTOR),
)


def _replica_columns(selector_cell: Any) -> tuple[Column, ...]:
    return (
        NAME_COLUMN,
        Column("Desired", lambda obj, _now: _count(obj, "spec", "replicas"), type="integer",
               description="Replicas is the number of desired pods."),
        Column("Current", lambda obj, _now: _count(obj, "status", "replicas"), type="integer",
               description="Replicas is the most recently observed number of non-terminating "
               "pods."),
        Column("Ready", lambda obj, _now: _count(obj, "status", "readyReplicas"),
               type="integer", description="The number of non-terminating pods targeted by "
               "this replica set with a Ready Condition."),
        AGE_COLUMN,
        *_wide_columns(*_SPEC_TEMPLATE, selector=None),
        Column("Selector", selector_cell, priority=1,
               description="Selector is a label query over pods that should match the replica "
               "count."),
    )


REPLICA_SET_COLUMNS = _replica_columns(
    lambda obj, _now: _label_selector_cell(obj, *_SPEC_SELECTOR)
)
REPLICATION_CONTROLLER_COLUMNS = _replica_columns(
    lambda obj, _now: format_labels(dig(obj, "spec", "selector"))
)

STATEFUL_SET_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Ready", lambda obj, _now: f"{_count(obj, 'status', 'readyReplicas')}/"
           f"{_count(obj, 'spec', 'replicas')}",
           description="Number of the pod with ready state"),
    AGE_COLUMN,
    *_wide_columns(*_SPEC_TEMPLATE, selector=None),
)

DAEMON_SET_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Desired", lambda obj, _now: _count(obj, "status", "desiredNumberScheduled"),
           type="integer", description="The total number of nodes that should be running the "
           "daemon pod."),
    Column("Current", lambda obj, _now: _count(obj, "status", "currentNumberScheduled"),
           type="integer", description="The number of nodes that are running at least 1 daemon "
           "pod and are supposed to run the daemon pod."),
    Column("Ready", lambda obj, _now: _count(obj, "status", "numberReady"), type="integer",
           description="The number of nodes that should be running the daemon pod and have one "
           "or more of the daemon pod running with a Ready Condition."),
    Column("Up-to-date", lambda obj, _now: _count(obj, "status", "updatedNumberScheduled"),
           type="integer", description="The total number of nodes that are running updated "
           "daemon pod"),
    Column("Available", lambda obj, _now: _count(obj, "status", "numberAvailable"),
           type="integer", description="The number of nodes that should be running the daemon "
           "pod and have one or more of the daemon pod running and available."),
    Column("Node Selector", lambda obj, _now: format_labels(
        dig(obj, "spec", "template", "spec", "nodeSelector")
    ), description="NodeSelector is a selector which must be true for the pod to fit on a node."),
    AGE_COLUMN,
    *_wide_columns(*_SPEC_TEMPLATE, selector=_SPEC_SELECTOR),
)


def _condition_true(obj: Obj, kind: str) -> bool:
    return any(
        as_dict(c).get("type") == kind and as_dict(c).get("status") == "True"
        for c in as_list(dig(obj, "status", "conditions"))
    )


def job_status_cell(obj: Obj) -> str:
    """The STATUS of ``kubectl get jobs``: the first of Complete, Failed, Terminating,
    Suspended, FailureTarget, SuccessCriteriaMet that holds, else Running."""
    if _condition_true(obj, "Complete"):
        return "Complete"
    if _condition_true(obj, "Failed"):
        return "Failed"
    if meta(obj).get("deletionTimestamp"):
        return "Terminating"
    for kind in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if _condition_true(obj, kind):
            return kind
    return "Running"


def _completions_cell(obj: Obj, _now: datetime) -> str:
    succeeded = _count(obj, "status", "succeeded")
    completions = dig(obj, "spec", "completions")
    if isinstance(completions, int):
        return f"{succeeded}/{completions}"
    parallelism = _count(obj, "spec", "parallelism")
    if parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def _duration_cell(obj: Obj, now: datetime) -> str:
    start = dig(obj, "status", "startTime")
    if not isinstance(start, str) or not start:
        return ""
    end = dig(obj, "status", "completionTime")
    try:
        finished = parse_time(end) if isinstance(end, str) and end else now
        return human_duration(finished - parse_time(start))
    except ValueError:
        return ""


JOB_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Status", lambda obj, _now: job_status_cell(obj),
           description="Status of the job."),
    Column("Completions", _completions_cell,
           description="The completion status of the job"),
    Column("Duration", _duration_cell, description="Time required to complete the job."),
    AGE_COLUMN,
    *_wide_columns(*_SPEC_TEMPLATE, selector=_SPEC_SELECTOR),
)

_JOB_TEMPLATE = ("spec", "jobTemplate", "spec", "template")


def _last_schedule_cell(obj: Obj, now: datetime) -> str:
    last = dig(obj, "status", "lastScheduleTime")
    return since_cell(last, now) if last else "<none>"


CRON_JOB_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Schedule", lambda obj, _now: text(dig(obj, "spec", "schedule")),
           description="The schedule in Cron format, see "
           "https://en.wikipedia.org/wiki/Cron."),
    Column("Timezone", lambda obj, _now: text(dig(obj, "spec", "timeZone")) or "<none>",
           description="The time zone name for the given schedule."),
    Column("Suspend", lambda obj, _now: dig(obj, "spec", "suspend") is True, type="boolean",
           description="This flag tells the controller to suspend subsequent executions."),
    Column("Active", lambda obj, _now: len(as_list(dig(obj, "status", "active"))),
           type="integer", description="A list of pointers to currently running jobs."),
    Column("Last Schedule", _last_schedule_cell,
           description="Information when was the last time the job was successfully "
           "scheduled."),
    AGE_COLUMN,
    *_wide_columns(*_JOB_TEMPLATE, selector=("spec", "jobTemplate", "spec", "selector")),
)


def _controller_cell(obj: Obj, _now: datetime) -> str:
    for ref in as_list(meta(obj).get("ownerReferences")):
        ref = as_dict(ref)
        if ref.get("controller") is True:
            group = text(ref.get("apiVersion")).rpartition("/")[0]
            kind = text(ref.get("kind")).lower()
            qualified = f"{kind}.{group}" if group else kind
            return f"{qualified}/{text(ref.get('name'))}"
    return "<none>"


CONTROLLER_REVISION_COLUMNS: tuple[Column, ...] = (
    NAME_COLUMN,
    Column("Controller", _controller_cell, description="Controller of the object"),
    Column("Revision", lambda obj, _now: _count(obj, "revision"), type="integer",
           description="Revision indicates the revision of the state represented by Data."),
    AGE_COLUMN,
)
