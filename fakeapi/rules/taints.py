"""Taints and tolerations, for nodes and devices alike (upstream's ``ToleratesTaint`` family).

Mirrors ``k8s.io/api/core/v1`` ``Toleration.ToleratesTaint``, component-helpers'
``scheduling/corev1`` ``TolerationsTolerateTaint`` and ``FindMatchingUntoleratedTaint``,
``k8s.io/dynamic-resource-allocation/resourceclaim`` ``ToleratesTaint`` (device tolerations) and
the taint-eviction controllers' ``getMinTolerationTime``. The scheduler's TaintToleration,
NodeUnschedulable and PodTopologySpread plugins, the DRA allocator, the node lifecycle controller's
taint eviction and the device taint eviction controller all call these, so a pod the scheduler
placed under a toleration is never evicted for a taint that very toleration tolerates.

The matching, as upstream's: an empty toleration effect matches every effect, an empty key every
key; ``Exists`` matches every value, ``Equal`` (or no operator, as defaulting would write it)
compares the values. An empty key with ``Equal`` therefore tolerates every taint whose value is
the toleration's (both empty, typically). ``Lt`` and ``Gt`` compare the values as decimal
integers, only with the TaintTolerationComparisonOperators gate; fakeapi's feature table does not
know that gate, so callers leave ``comparison_operators`` off and those operators match nothing,
as every unknown operator does. Device tolerations have only ``Exists`` and ``Equal``.

Objects are read as the JSON-shaped dicts they are: these run per pod × node in the scheduler.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "NO_EXECUTE",
    "NO_SCHEDULE",
    "PREFER_NO_SCHEDULE",
    "device_toleration_tolerates_taint",
    "find_untolerated_taint",
    "minimum_toleration_seconds",
    "toleration_tolerates_taint",
    "tolerations_tolerate_taint",
]

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"

#: content.IsDecimalInteger: an optional minus, no plus, no leading zeros ("0" itself is fine)
_DECIMAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _decimal_int64(value: str) -> int | None:
    if not _DECIMAL_INTEGER.fullmatch(value):
        return None
    number = int(value)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _compare(toleration_value: str, taint_value: str, operator: str) -> bool:
    bound, have = _decimal_int64(toleration_value), _decimal_int64(taint_value)
    if bound is None or have is None:
        return False
    return have < bound if operator == "Lt" else have > bound


def toleration_tolerates_taint(
    toleration: Mapping[str, Any],
    taint: Mapping[str, Any],
    *,
    comparison_operators: bool = False,
) -> bool:
    """core/v1 ``Toleration.ToleratesTaint``; ``comparison_operators`` is the
    TaintTolerationComparisonOperators gate (``Lt``/``Gt``)."""
    effect = toleration.get("effect")
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key")
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator")
    if not operator or operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    if operator == "Exists":
        return True
    if comparison_operators and operator in ("Lt", "Gt"):
        return _compare(toleration.get("value") or "", taint.get("value") or "", operator)
    return False


def device_toleration_tolerates_taint(
    toleration: Mapping[str, Any], taint: Mapping[str, Any]
) -> bool:
    """``resourceclaim.ToleratesTaint``: a DeviceToleration against a DeviceTaint, by the core
    rule (device tolerations have no comparison operators)."""
    return toleration_tolerates_taint(toleration, taint)


def tolerations_tolerate_taint(
    tolerations: Iterable[Mapping[str, Any]],
    taint: Mapping[str, Any],
    *,
    comparison_operators: bool = False,
) -> bool:
    """``TolerationsTolerateTaint``: whether any of ``tolerations`` tolerates ``taint``."""
    for toleration in tolerations:
        if toleration_tolerates_taint(
            toleration, taint, comparison_operators=comparison_operators
        ):
            return True
    return False


def find_untolerated_taint(
    taints: Iterable[Mapping[str, Any]],
    tolerations: Sequence[Mapping[str, Any]],
    *,
    effects: frozenset[str] | None = None,
    comparison_operators: bool = False,
) -> Mapping[str, Any] | None:
    """``FindMatchingUntoleratedTaint``: the first taint (of ``effects``, or of any effect) that
    none of ``tolerations`` tolerates, or None."""
    for taint in taints:
        if effects is not None and taint.get("effect") not in effects:
            continue
        if not tolerations_tolerate_taint(
            tolerations, taint, comparison_operators=comparison_operators
        ):
            return taint
    return None


def minimum_toleration_seconds(tolerations: Iterable[Mapping[str, Any]]) -> int | None:
    """The taint-eviction controllers' ``getMinTolerationTime`` over the tolerations that
    tolerate a ``NoExecute`` taint: how many seconds the pod may stay, None for ever.

    No toleration: 0 (evict now). A ``tolerationSeconds`` of zero or less: 0. Tolerations without
    ``tolerationSeconds`` tolerate for ever unless another one sets a limit; the smallest limit
    wins.
    """
    smallest: int | None = None
    seen = False
    for toleration in tolerations:
        seen = True
        seconds = toleration.get("tolerationSeconds")
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            continue
        if seconds <= 0:
            return 0
        if smallest is None or seconds < smallest:
            smallest = seconds
    if not seen:
        return 0
    return smallest
