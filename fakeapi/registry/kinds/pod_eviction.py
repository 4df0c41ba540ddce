"""``POST pods/{name}/eviction``: the policy/v1 Eviction subresource ``kubectl drain`` uses.

An eviction is a deletion that first asks the disruption budgets
(:mod:`~fakeapi.registry.kinds.pod_disruption`: a budget that allows no disruption answers 429
TooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget."); the rest
follows kube-apiserver's eviction REST (``pkg/registry/core/pod/storage/eviction.go``):

- the body is an ``Eviction`` (``policy/v1``, or ``policy/v1beta1``) whose ``metadata.name`` is
  the pod's: otherwise 400 ``name in URL does not match name in Eviction object``;
- unless it is a dry run, a pod that has not finished gets the condition
  ``DisruptionTarget=True`` (reason ``EvictionByEvictionAPI``, message ``Eviction API:
  evicting``) in a status write, then it is deleted with the Eviction's ``deleteOptions`` — a
  *graceful* delete: a scheduled pod lingers until its kubelet has stopped it;
- the reply is upstream's: 201 Created with a ``Status`` of ``Success`` (the handler's generic
  answer to a subresource POST).

The store calls :func:`evict_pod` for this subresource (``PodStrategy.subresource_actions``)
instead of computing a new object, because the outcome is a deletion, not an update.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, cast

from fakeapi import errors
from fakeapi.registry.kinds.pod_disruption import check_disruption_budgets
from fakeapi.registry.options import DeleteOptions, Preconditions, WriteOptions
from fakeapi.registry.results import WriteResult
from fakeapi.timefmt import format_time

if TYPE_CHECKING:
    from fakeapi.registry.resource_table import ResourceType
    from fakeapi.registry.store import GenericStore

__all__ = ["EVICTION_GROUP_VERSIONS", "delete_options_of", "evict_pod"]

EVICTION_GROUP_VERSIONS = ("policy/v1", "policy/v1beta1")
_TERMINAL = ("Succeeded", "Failed")
_Propagation = Literal["Orphan", "Background", "Foreground"]


def delete_options_of(eviction: dict[str, Any]) -> DeleteOptions:
    """The Eviction's ``deleteOptions`` (absent: the pod's own grace period, no preconditions)."""
    raw = eviction.get("deleteOptions")
    if raw is None:
        return DeleteOptions()
    if not isinstance(raw, dict):
        raise errors.bad_request("deleteOptions must be an object")
    grace = raw.get("gracePeriodSeconds")
    if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
        raise errors.bad_request("deleteOptions.gracePeriodSeconds must be an integer")
    policy = raw.get("propagationPolicy")
    if raw.get("orphanDependents") is True and policy is None:
        policy = "Orphan"
    if policy not in (None, "Orphan", "Background", "Foreground"):
        raise errors.StatusError(
            422,
            "Invalid",
            f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
            f'"{policy}": supported values: "Foreground", "Background", "Orphan", "nil"',
        )
    pre = raw.get("preconditions")
    preconditions = None
    if isinstance(pre, dict) and (pre.get("uid") or pre.get("resourceVersion")):
        preconditions = Preconditions(
            uid=pre.get("uid"), resource_version=pre.get("resourceVersion")
        )
    dry_run = raw.get("dryRun") or []
    return DeleteOptions(
        dry_run=isinstance(dry_run, list) and "All" in dry_run,
        grace_period_seconds=None if grace is None else max(grace, 0),
        preconditions=preconditions,
        propagation_policy=cast("_Propagation | None", policy),
    )


def _check_eviction(eviction: dict[str, Any], name: str) -> None:
    kind = eviction.get("kind")
    api_version = eviction.get("apiVersion")
    wrong_version = api_version and api_version not in EVICTION_GROUP_VERSIONS
    if (kind and kind != "Eviction") or wrong_version:
        raise errors.bad_request(
            f"the body of pods/eviction must be a policy/v1 Eviction, not {api_version} {kind}"
        )
    meta = eviction.get("metadata")
    body_name = meta.get("name") if isinstance(meta, dict) else None
    if body_name != name:  # a missing name does not match either, as upstream
        raise errors.bad_request("name in URL does not match name in Eviction object")


def _disruption_condition(now: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Set ``DisruptionTarget=True`` (its transition time kept if it already was True)."""

    def mutate(pod: dict[str, Any]) -> dict[str, Any]:
        status = pod.setdefault("status", {})
        conditions = []
        transition = now
        for condition in status.get("conditions") or []:
            if isinstance(condition, dict) and condition.get("type") == "DisruptionTarget":
                if condition.get("status") == "True" and condition.get("lastTransitionTime"):
                    transition = condition["lastTransitionTime"]
                continue
            conditions.append(condition)
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": transition,
                "reason": "EvictionByEvictionAPI",
                "message": "Eviction API: evicting",
            }
        )
        status["conditions"] = conditions
        return pod

    return mutate


def evict_pod(
    registry: GenericStore,
    rt: ResourceType,
    namespace: str | None,
    name: str,
    body: dict[str, Any],
    options: WriteOptions,
) -> WriteResult:
    """Evict the pod ``name``; returns the pod as the deletion left it."""
    _check_eviction(body, name)
    delete = delete_options_of(body)
    dry_run = options.dry_run or delete.dry_run
    current = registry.get(rt, namespace, name)
    pre = delete.preconditions
    current_rv = str(current.obj["metadata"].get("resourceVersion") or "")
    if pre is not None and pre.resource_version and pre.resource_version != current_rv:
        raise errors.conflict(
            resource=rt.plural,
            group=rt.group,
            name=name,
            detail=f"Precondition failed: ResourceVersion in precondition: "
            f"{pre.resource_version}, ResourceVersion in object meta: {current_rv}",
        )
    check_disruption_budgets(
        registry, current.obj, dry_run=dry_run, field_manager=options.field_manager
    )
    phase = (current.obj.get("status") or {}).get("phase")
    if not dry_run and phase not in _TERMINAL:
        status_options = WriteOptions(field_manager=options.field_manager or "kube-apiserver")
        mark = _disruption_condition(format_time(registry.clock.now()))
        written = registry.guaranteed_update(
            rt, namespace, name, mark, status_options, subresource="status"
        )
        if pre is not None and pre.resource_version:  # we moved the version ourselves
            new_rv = str(written.obj["metadata"].get("resourceVersion") or "")
            delete = replace(delete, preconditions=replace(pre, resource_version=new_rv))
    if dry_run:
        delete = replace(delete, dry_run=True)
    result = registry.delete(rt, namespace, name, delete)
    return WriteResult(result.obj, result.raw, [])
