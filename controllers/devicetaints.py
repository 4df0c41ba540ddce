"""Device taints and tolerations as the eviction controller reads them: pure functions.

A device's taints are those in its ResourceSlice (newest pool generation only) plus, with the
DRADeviceTaintRules gate, the taint of every DeviceTaintRule whose selector matches its driver,
pool and name (an absent selector matches nothing, an empty one everything). Only ``NoExecute``
evicts. Against an allocation result's tolerations a taint is judged as upstream judges it, by
the shared rules of :mod:`fakeapi.rules.taints` (the allocator's own): untolerated → evict at the
taint's ``timeAdded``; tolerated with ``tolerationSeconds`` → that much later (the smallest of
the matching tolerations); tolerated without → never.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fakeapi.models.device_taint_rule import rule_selects
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.taints import NO_EXECUTE, minimum_toleration_seconds, toleration_tolerates_taint
from fakeapi.timefmt import parse_time

__all__ = ["Taint", "eviction_time", "rule_matches", "rule_taint", "slice_taints"]


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str
    time_added: datetime | None
    #: the uid of the DeviceTaintRule it comes from ("" for a slice taint)
    rule_uid: str = ""


def _taint(raw: dict[str, Any], rule_uid: str = "") -> Taint:
    added = text(raw.get("timeAdded"))
    return Taint(
        key=text(raw.get("key")),
        value=text(raw.get("value")),
        effect=text(raw.get("effect")),
        time_added=parse_time(added) if added else None,
        rule_uid=rule_uid,
    )


def _generation(slice_obj: Obj) -> int:
    value = as_dict(as_dict(slice_obj.get("spec")).get("pool")).get("generation")
    return value if isinstance(value, int) else 0


def slice_taints(slices: list[Obj], device: str) -> list[Taint]:
    """The taints of ``device`` in the newest generation of its pool's slices."""
    newest = max((_generation(s) for s in slices), default=0)
    for slice_obj in slices:
        if _generation(slice_obj) != newest:
            continue
        for raw in as_list(as_dict(slice_obj.get("spec")).get("devices")):
            if as_dict(raw).get("name") == device:
                return [_taint(as_dict(t)) for t in as_list(as_dict(raw).get("taints"))]
    return []


def rule_matches(rule: Obj, driver: str, pool: str, device: str) -> bool:
    return rule_selects(rule, driver=driver, pool=pool, device=device)


def rule_taint(rule: Obj) -> Taint:
    return _taint(as_dict(as_dict(rule.get("spec")).get("taint")), text(meta(rule).get("uid")))


def eviction_time(
    taint: Taint, tolerations: list[dict[str, Any]], *, now: datetime
) -> datetime | None:
    """When a pod using a device with ``taint`` (or on a node with it) must go (None: never):
    the taint's ``timeAdded`` plus the minimum toleration time of the tolerations that tolerate
    it (:mod:`fakeapi.rules.taints`, the rule the scheduler and the allocator apply)."""
    if taint.effect != NO_EXECUTE:
        return None
    added = taint.time_added or now
    fields = {"key": taint.key, "value": taint.value, "effect": taint.effect}
    seconds = minimum_toleration_seconds(
        t for t in tolerations if toleration_tolerates_taint(t, fields)
    )
    return None if seconds is None else added + timedelta(seconds=seconds)
