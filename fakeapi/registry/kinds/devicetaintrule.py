"""DeviceTaintRule (resource.k8s.io v1 and v1beta2, cluster-scoped, ``/status``): device taints.

The server stamps ``spec.taint.timeAdded`` when the client leaves it unset, and stamps it afresh
when the taint's effect changes and the client left the time as it was (a NoSchedule taint
turned NoExecute starts its eviction clock then).
Status (the ``EvictionInProgress`` condition) is written by the eviction controller.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.timefmt import format_time
from fakeapi.validation import dra
from fakeapi.validation.dra_common import as_dict
from fakeapi.validation.field import FieldError

__all__ = ["DeviceTaintRuleStrategy"]


def _taint(obj: Obj) -> dict[str, Any] | None:
    spec = obj.get("spec")
    taint = spec.get("taint") if isinstance(spec, dict) else None
    return taint if isinstance(taint, dict) else None


class DeviceTaintRuleStrategy(Strategy):
    """Taint rules: validated selector and taint, server-set timeAdded, conditions in status."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.pop("status", None)
        taint = _taint(obj)
        if taint is not None and not taint.get("timeAdded"):
            taint["timeAdded"] = format_time(ctx.now)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_device_taint_rule(obj)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        taint, old_taint = _taint(new), as_dict(_taint(old))
        if taint is None:
            return
        time_added = taint.get("timeAdded")
        if taint.get("effect") != old_taint.get("effect") and (
            not time_added or time_added == old_taint.get("timeAdded")
        ):  # a time the client chose for the new effect is kept
            taint["timeAdded"] = format_time(ctx.now)
        elif not time_added:
            taint["timeAdded"] = old_taint.get("timeAdded") or format_time(ctx.now)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_device_taint_rule_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_device_taint_rule_status_update(new)
