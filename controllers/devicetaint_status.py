"""The ``EvictionInProgress`` condition of a DeviceTaintRule, worded as upstream words it.

- ``NoExecute``: True with reason ``PodsPendingEviction`` ("3 pods need to be evicted in 1
  namespace.") while pods using selected devices remain; otherwise False, ``Completed`` once
  this controller evicted some, ``NotStarted`` before.
- ``None``: a preview — how many published and allocated devices the rule selects and how many
  pods *would* be evicted were the effect NoExecute (reason ``NoEffect``).
- anything else: ``OtherEffect``.
Each message ends with "N pods evicted since starting the controller." once there are any.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from fakeapi.controllers.devicetaints import eviction_time, rule_matches, rule_taint
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.timefmt import format_time

if TYPE_CHECKING:
    from fakeapi.controllers.devicetaint_eviction import DeviceTaintEvictionController

__all__ = ["rule_condition"]


def _plural(count: int, one: str, many: str) -> str:
    return f"1 {one}" if count == 1 else f"{count} {many}"


def _pending(
    ctrl: DeviceTaintEvictionController, rule: Obj, *, now: datetime
) -> tuple[int, int, int]:
    """(pods pending eviction, their namespaces, allocated devices selected)."""
    taint = replace(rule_taint(rule), effect="NoExecute")
    pods: set[str] = set()
    allocated = 0
    for claim in ctrl.claims.list():
        allocation = as_dict(as_dict(claim.get("status")).get("allocation"))
        for result in as_list(as_dict(allocation.get("devices")).get("results")):
            result = as_dict(result)
            if not rule_matches(
                rule,
                text(result.get("driver")),
                text(result.get("pool")),
                text(result.get("device")),
            ):
                continue
            allocated += 1
            tolerations = [as_dict(t) for t in as_list(result.get("tolerations"))]
            if eviction_time(taint, tolerations, now=now) is None:
                continue
            for pod_key in ctrl.pods_of_claim(claim):
                pod = ctrl.pods.get(pod_key)
                if pod is not None and not meta(pod).get("deletionTimestamp"):
                    pods.add(pod_key)
    namespaces = {key.partition("/")[0] for key in pods}
    return len(pods), len(namespaces), allocated


def _published(ctrl: DeviceTaintEvictionController, rule: Obj) -> int:
    count = 0
    for slice_obj in ctrl.slices.list():
        spec = as_dict(slice_obj.get("spec"))
        driver, pool = text(spec.get("driver")), text(as_dict(spec.get("pool")).get("name"))
        for device in as_list(spec.get("devices")):
            if rule_matches(rule, driver, pool, text(as_dict(device).get("name"))):
                count += 1
    return count


def rule_condition(
    ctrl: DeviceTaintEvictionController, rule: Obj, *, now: datetime
) -> dict[str, Any]:
    effect = text(as_dict(as_dict(rule.get("spec")).get("taint")).get("effect"))
    evicted = ctrl.evicted_by_rule.get(text(meta(rule).get("uid")), 0)
    status, reason, message = "False", f"Effect{effect}", ""
    if effect == "NoExecute":
        pending, namespaces, _ = _pending(ctrl, rule, now=now)
        if pending:
            status, reason = "True", "PodsPendingEviction"
            message = (
                ("1 pod needs" if pending == 1 else f"{pending} pods need")
                + " to be evicted in "
                + ("1 namespace." if namespaces == 1 else f"{namespaces} different namespaces.")
            )
        elif evicted:
            reason = "Completed"
        else:
            reason = "NotStarted"
    elif effect == "None":
        pending, namespaces, allocated = _pending(ctrl, rule, now=now)
        reason = "NoEffect"
        message = (
            _plural(
                _published(ctrl, rule),
                "published device selected. ",
                "published devices selected. ",
            )
            + _plural(allocated, "allocated device selected. ", "allocated devices selected. ")
            + ("1 pod would" if pending == 1 else f"{pending} pods would")
            + " be evicted in "
            + ("1 namespace " if namespaces == 1 else f"{namespaces} different namespaces ")
            + "if the effect was NoExecute. This information will not be updated again. "
            "Recreate the DeviceTaintRule to trigger an update."
        )
    else:
        reason = "OtherEffect"
        message = "Eviction only happens for the NoExecute effect."
    if evicted:
        message = (message + " " if message else "") + (
            "1 pod evicted since starting the controller."
            if evicted == 1
            else f"{evicted} pods evicted since starting the controller."
        )
    return {
        "type": "EvictionInProgress",
        "status": status,
        "reason": reason,
        "message": message,
        "observedGeneration": meta(rule).get("generation"),
        "lastTransitionTime": format_time(now),
    }
