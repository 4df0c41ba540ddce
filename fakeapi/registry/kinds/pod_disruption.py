"""What an eviction asks the PodDisruptionBudgets before the pod may go.

Upstream's eviction REST (``pkg/registry/core/pod/storage/eviction.go``), budget part:

- a pod that is finished, still ``Pending`` or already being deleted is evicted without asking;
- a pod no budget selects (a budget with an empty selector selects every pod of its namespace,
  one without a selector none) is evicted; a pod two budgets select cannot be evicted (500
  ``This pod has more than one PodDisruptionBudget, which the eviction subresource does not
  support.``);
- a pod that is not ready may go when the budget's ``unhealthyPodEvictionPolicy`` is
  ``AlwaysAllow``, or (``IfHealthyBudget``, the default) when the budget is healthy
  (``currentHealthy >= desiredHealthy > 0``), without using up a disruption;
- otherwise the budget must be up to date (its status observed its generation) and allow a
  disruption: then ``disruptionsAllowed`` goes down by one and the pod is recorded in
  ``status.disruptedPods`` (so the disruption controller does not count it healthy meanwhile),
  in a status write conditional on the budget's version. A budget that allows none answers 429
  ``Cannot evict pod as it would violate the pod's disruption budget.``, with a
  ``DisruptionBudget`` cause saying how many healthy pods it needs — what ``kubectl drain``
  prints and retries on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi import errors
from fakeapi.objects import as_dict, as_list, meta, text
from fakeapi.registry.options import ListOptions, WriteOptions
from fakeapi.selectors import SelectorError, label_selector_from_api
from fakeapi.timefmt import format_time

if TYPE_CHECKING:
    from fakeapi.registry.store import GenericStore

__all__ = ["VIOLATION", "check_disruption_budgets"]

VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
#: upstream's MaxDisruptedPodSize
_MAX_DISRUPTED_PODS = 2000


def _too_many_requests(message: str) -> errors.StatusError:
    return errors.StatusError(
        429, "TooManyRequests", VIOLATION,
        {"causes": [{"reason": "DisruptionBudget", "message": message}]},
    )


def _is_ready(pod: dict[str, Any]) -> bool:
    return any(
        as_dict(c).get("type") == "Ready" and as_dict(c).get("status") == "True"
        for c in as_list(as_dict(pod.get("status")).get("conditions"))
    )


def _selects(budget: dict[str, Any], labels: dict[str, str]) -> bool:
    selector = as_dict(budget.get("spec")).get("selector")
    if selector is None:
        return False
    try:
        return label_selector_from_api(as_dict(selector)).matches(labels)
    except (SelectorError, ValueError):
        return False


def check_disruption_budgets(
    registry: GenericStore, pod: dict[str, Any], *, dry_run: bool, field_manager: str
) -> None:
    """Raise unless the budgets let ``pod`` be evicted now; take one disruption from the
    budget that covers it (unless ``dry_run``)."""
    phase = as_dict(pod.get("status")).get("phase")
    if phase in ("Succeeded", "Failed", "Pending") or meta(pod).get("deletionTimestamp"):
        return
    budgets_rt = registry.resources.lookup("policy", "v1", "poddisruptionbudgets")
    if budgets_rt is None:
        return
    namespace = text(meta(pod).get("namespace"))
    labels = {k: text(v) for k, v in as_dict(meta(pod).get("labels")).items()}
    budgets = [
        stored for stored in registry.list(budgets_rt, namespace, ListOptions()).items
        if _selects(stored.obj, labels)
    ]
    if not budgets:
        return
    if len(budgets) > 1:
        raise errors.internal_error(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource "
            "does not support."
        )
    budget = budgets[0].obj
    spec, status = as_dict(budget.get("spec")), as_dict(budget.get("status"))
    name = text(meta(budget).get("name"))
    current = int(status.get("currentHealthy") or 0)
    desired = int(status.get("desiredHealthy") or 0)
    observed = int(status.get("observedGeneration") or 0)
    generation = int(meta(budget).get("generation") or 0)
    if not _is_ready(pod):
        if spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
            return
        if observed >= generation and current >= desired > 0:
            return
    if observed < generation:
        raise _too_many_requests(
            f"The disruption budget {name} is still being processed by the server."
        )
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise errors.forbidden(resource="poddisruptionbudget", group="policy", name=name,
                               message="pdb disruptions allowed is negative")
    disrupted = dict(as_dict(status.get("disruptedPods")))
    if len(disrupted) > _MAX_DISRUPTED_PODS:
        raise errors.forbidden(
            resource="poddisruptionbudget", group="policy", name=name,
            message="DisruptedPods map too big - too many evictions not confirmed by PDB "
            "controller",
        )
    if allowed == 0:
        raise _too_many_requests(
            f"The disruption budget {name} needs {desired} healthy pods and has {current} "
            "currently"
        )
    if dry_run:
        return
    disrupted[text(meta(pod).get("name"))] = format_time(registry.clock.now())

    def take_one(obj: dict[str, Any]) -> dict[str, Any]:
        new_status = dict(as_dict(obj.get("status")))
        new_status["disruptionsAllowed"] = allowed - 1
        new_status["disruptedPods"] = disrupted
        if allowed - 1 == 0:
            new_status["conditions"] = _insufficient(new_status, registry)
        obj["status"] = new_status
        obj.setdefault("metadata", {})["resourceVersion"] = meta(budget).get("resourceVersion")
        return obj

    registry.guaranteed_update(
        budgets_rt, namespace, name, take_one,
        WriteOptions(field_manager=field_manager or "kube-apiserver"), subresource="status",
    )


def _insufficient(status: dict[str, Any], registry: GenericStore) -> list[dict[str, Any]]:
    """``UpdateDisruptionAllowedCondition`` once no disruption is left."""
    now = format_time(registry.clock.now())
    out = []
    found = False
    for condition in as_list(status.get("conditions")):
        condition = dict(as_dict(condition))
        if condition.get("type") == "DisruptionAllowed":
            found = True
            if condition.get("status") != "False":
                condition["lastTransitionTime"] = now
            condition.update(status="False", reason="InsufficientPods", message="")
        out.append(condition)
    if not found:
        out.append({"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                    "message": "", "lastTransitionTime": now,
                    "observedGeneration": status.get("observedGeneration", 0)})
    return out
