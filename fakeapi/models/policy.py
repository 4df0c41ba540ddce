"""policy/v1 PodDisruptionBudget: how many pods of a set voluntary disruptions may take down.

The disruption controller keeps ``status`` (``disruptionsAllowed`` and the counts it comes from);
the ``pods/eviction`` subresource, which ``kubectl drain`` uses, refuses an eviction the budget
does not allow and records the pods it let go in ``status.disruptedPods``.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import Int32, IntOrString, K8sModel, Time, map_list
from fakeapi.models.meta import Condition, LabelSelector, ObjectMeta

__all__ = ["PodDisruptionBudget", "PodDisruptionBudgetSpec", "PodDisruptionBudgetStatus"]


class PodDisruptionBudgetSpec(K8sModel):
    """The pods a budget protects and how many of them must stay."""

    min_available: IntOrString | None = None
    """Pods that must still be available after an eviction: a number or a percentage."""
    selector: LabelSelector | None = None
    """Label query over the pods the budget covers; empty selects every pod of the namespace."""
    max_unavailable: IntOrString | None = None
    """Pods that may be unavailable after an eviction: a number or a percentage."""
    unhealthy_pod_eviction_policy: str | None = None
    """IfHealthyBudget or AlwaysAllow: when running but not ready pods may be evicted."""


class PodDisruptionBudgetStatus(K8sModel):
    """What the budget allows now, and from which counts."""

    observed_generation: int | None = None
    """The generation observed when this status was computed."""
    disrupted_pods: dict[str, Time] | None = None
    """Pods whose eviction the API server allowed but which are not yet gone, and when."""
    disruptions_allowed: Int32 | None = None
    """Pod disruptions allowed now."""
    current_healthy: Int32 | None = None
    """Healthy pods now."""
    desired_healthy: Int32 | None = None
    """Healthy pods the budget needs."""
    expected_pods: Int32 | None = None
    """Pods counted by the budget (from their controllers' scale)."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """DisruptionAllowed: whether evictions are possible now."""


class PodDisruptionBudget(K8sModel):
    """The maximum disruption a collection of pods may suffer."""

    api_version: str | None = None
    """The versioned schema of this object, policy/v1."""
    kind: str | None = None
    """PodDisruptionBudget."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PodDisruptionBudgetSpec | None = None
    """The desired bounds of the budget."""
    status: PodDisruptionBudgetStatus | None = None
    """The most recently observed status of the budget."""
