"""Which PodGroup a pod belongs to, and which of its claims are the group's, as every component
reads them.

A pod joins a PodGroup through ``spec.workloadRef.podGroupName`` (the KEP-5729 seed shape fakeapi
serves) or upstream's ``spec.schedulingGroup.podGroupName``; both are accepted (docs/keps.md), so
the scheduler, the controllers and the kubelet must all read both, and read them alike.

A pod uses one of its group's claims in two ways: the seed's ``podGroupResourceClaim: <entry>``,
or upstream's (KEP-5729 as 1.37 shipped it): a ``spec.resourceClaims`` entry identical to one of
the PodGroup's — the same name and the same ``resourceClaimName`` or
``resourceClaimTemplateName``. :func:`group_claim_entries` turns the second form into the first,
so each component resolves group claims by one path; without the PodGroup at hand an identical
entry cannot be told from the pod's own, and :func:`may_use_group_claims` says when to wait.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fakeapi.rules.conditions import find_status_condition, set_status_condition

__all__ = [
    "INITIALLY_SCHEDULED",
    "REASON_SCHEDULED",
    "REASON_SCHEDULER_ERROR",
    "REASON_UNSCHEDULABLE",
    "group_claim_entries",
    "initially_scheduled_condition",
    "may_use_group_claims",
    "pod_group_name",
]

#: upstream's PodGroup condition: True once the group's scheduling requirement was met (and
#: never False again); False with reason Unschedulable or SchedulerError until then
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
REASON_SCHEDULED = "Scheduled"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"

_SOURCES = ("resourceClaimName", "resourceClaimTemplateName")


def pod_group_name(pod: Mapping[str, Any]) -> str:
    """The name of the pod's PodGroup (in the pod's namespace); "" when it has none."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return ""
    for field in ("workloadRef", "schedulingGroup"):
        ref = spec.get(field)
        if isinstance(ref, dict):
            name = ref.get("podGroupName")
            if isinstance(name, str) and name:
                return name
    return ""


def _is_group_entry(entry: Mapping[str, Any], group_entries: list[Any]) -> bool:
    return any(
        isinstance(g, dict)
        and g.get("name") == entry.get("name")
        and all(g.get(field) == entry.get(field) for field in _SOURCES)
        for g in group_entries
    )


def group_claim_entries(
    pod: Mapping[str, Any], group: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """The pod's ``spec.resourceClaims`` with every entry identical to one of ``group``'s
    (the pod's PodGroup) written the seed's way, ``{name, podGroupResourceClaim: name}``."""
    spec = pod.get("spec")
    entries = spec.get("resourceClaims") if isinstance(spec, dict) else None
    if not isinstance(entries, list):
        return []
    group_spec = group.get("spec") if group is not None else None
    group_entries = group_spec.get("resourceClaims") if isinstance(group_spec, dict) else None
    if not isinstance(group_entries, list) or not group_entries:
        return [e for e in entries if isinstance(e, dict)]
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if not entry.get("podGroupResourceClaim") and _is_group_entry(entry, group_entries):
            out.append({"name": entry.get("name"), "podGroupResourceClaim": entry.get("name")})
        else:
            out.append(entry)
    return out


def may_use_group_claims(pod: Mapping[str, Any]) -> bool:
    """Whether an entry of the pod may be one of its group's claims: it belongs to a group and
    names a claim or template (an identical group entry is only known from the PodGroup)."""
    if not pod_group_name(pod):
        return False
    spec = pod.get("spec")
    entries = spec.get("resourceClaims") if isinstance(spec, dict) else None
    return any(
        isinstance(e, dict) and any(e.get(field) for field in _SOURCES)
        for e in (entries if isinstance(entries, list) else ())
    )


def initially_scheduled_condition(
    group: Mapping[str, Any], *, scheduled: bool, reason: str, message: str, now: datetime
) -> list[dict[str, Any]] | None:
    """The group's ``status.conditions`` with :data:`INITIALLY_SCHEDULED` set, or None when
    nothing changes: once True, the condition stays True whatever happens to the pods."""
    status = group.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    conditions = conditions if isinstance(conditions, list) else []
    current = find_status_condition(conditions, INITIALLY_SCHEDULED)
    if current is not None and current.get("status") == "True":
        return None
    wanted = "True" if scheduled else "False"
    if current is not None and (current.get("status"), current.get("reason"),
                                current.get("message")) == (wanted, reason, message):
        return None
    return set_status_condition(
        conditions, type=INITIALLY_SCHEDULED, status=wanted, reason=reason, message=message,
        now=now,
    )
