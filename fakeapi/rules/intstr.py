"""``intstr.IntOrString`` counts: a number of pods or a percentage of some total.

Rolling updates (``maxSurge``, ``maxUnavailable``), disruption budgets (``minAvailable``,
``maxUnavailable``) and StatefulSet updates all give a count either as an integer or as a
``"<digits>%"`` string; apimachinery's ``GetScaledValueFromIntOrPercent`` turns it into a number
of pods, rounding a percentage up or down as the caller asks. Validation and the controllers
read the same value through these functions.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["int_or_percent_value", "percent_value", "scaled_value"]

_PERCENT = re.compile(r"[0-9]+%")


def percent_value(value: Any) -> int | None:
    """The number of a valid percent string (``"25%"`` → 25), else None."""
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return int(value[:-1])
    return None


def int_or_percent_value(value: Any) -> int:
    """apps validation's ``getIntOrPercentValue``: the percentage's number or the integer (0 for
    anything else)."""
    found = percent_value(value)
    if found is not None:
        return found
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return 0


def scaled_value(value: Any, total: int, *, round_up: bool) -> int:
    """``GetScaledValueFromIntOrPercent``: an integer as is, a percentage of ``total`` rounded
    up or down; raises ValueError for a string that is not a percentage."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    found = percent_value(value)
    if found is None:
        raise ValueError(f"invalid value for IntOrString: invalid value {value!r}")
    scaled = found * total
    return -(-scaled // 100) if round_up else scaled // 100
