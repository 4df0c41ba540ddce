"""Making and removing what a workload owns: pods from templates, slow-start batches, adoption.

The pieces upstream's ``pkg/controller/controller_utils.go`` and ``controller_ref_manager.go``
give every workload controller, shared here by the ReplicaSet, ReplicationController,
StatefulSet, DaemonSet and Job controllers:

- :func:`pod_from_template` — ``GetPodFromTemplate``: the template's labels, annotations,
  finalizers and spec, the owner's controller reference, ``generateName`` ``<owner>-`` (unless a
  name is given);
- :class:`PodControl` — creates and deletes pods on behalf of an owner and records upstream's
  Events (``SuccessfulCreate`` "Created pod: <name>", ``FailedCreate`` "Error creating: ...",
  ``SuccessfulDelete`` "Deleted pod: <name>", ``FailedDelete``);
- :func:`slow_start_batch` — ``slowStartBatch``: creations in batches of 1, 2, 4, ... that stop
  at the first batch with a failure, so a quota or a bad template costs one call, not hundreds;
- :func:`claim` — ``ClaimPods``/``ClaimReplicaSets``: adopt orphans the selector matches and
  release objects it no longer matches (a merge patch of ``ownerReferences``, conditional on
  the version decided from), returning what the owner controls afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from fakeapi.client import (
    PODS,
    Client,
    LegacyEventRecorder,
    Preconditions,
    Resource,
    is_not_found,
)
from fakeapi.errors import StatusError
from fakeapi.name_syntax import is_dns1123_subdomain, mask_trailing_dash
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, text
from fakeapi.rules.controllerref import claim_action

__all__ = ["PodControl", "claim", "pod_from_template", "pods_prefix", "slow_start_batch"]

#: upstream's SlowStartInitialBatchSize
SLOW_START_INITIAL_BATCH = 1


def pods_prefix(owner_name: str) -> str:
    """``getPodsPrefix``: ``<owner>-``, or the bare name when that is no valid prefix."""
    prefix = f"{owner_name}-"
    return prefix if not is_dns1123_subdomain(mask_trailing_dash(prefix)) else owner_name


def pod_from_template(
    template: Mapping[str, Any],
    *,
    namespace: str,
    owner_ref: Mapping[str, Any],
    generate_name: str = "",
    name: str = "",
) -> Obj:
    """``GetPodFromTemplate``: a new pod body made from ``template`` for the owner."""
    template_meta = as_dict(template.get("metadata"))
    pod_meta: dict[str, Any] = {"namespace": namespace, "ownerReferences": [dict(owner_ref)]}
    if name:
        pod_meta["name"] = name
    else:
        pod_meta["generateName"] = generate_name
    for key in ("labels", "annotations"):
        values = as_dict(template_meta.get(key))
        if values:
            pod_meta[key] = dict(values)
    finalizers = as_list(template_meta.get("finalizers"))
    if finalizers:
        pod_meta["finalizers"] = list(finalizers)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_meta,
        "spec": deep_copy(as_dict(template.get("spec"))),
    }


async def slow_start_batch(
    count: int, create: Callable[[int], Awaitable[None]], *, initial: int = SLOW_START_INITIAL_BATCH
) -> tuple[int, BaseException | None]:
    """Call ``create(i)`` for ``i`` in ``range(count)`` in doubling batches; stop after a
    batch in which a call failed. Returns (successes, the first error)."""
    done = 0
    batch = min(count, initial)
    while batch > 0:
        results = await asyncio.gather(
            *(create(done + i) for i in range(batch)), return_exceptions=True
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        done += batch - len(errors)
        if errors:
            for error in errors:
                if isinstance(error, asyncio.CancelledError):
                    raise error
            return done, errors[0]
        remaining = count - done
        batch = min(2 * batch, remaining)
    return done, None


class PodControl:
    """Creates and deletes an owner's pods, recording upstream's Events on the owner."""

    def __init__(self, client: Client, events: LegacyEventRecorder) -> None:
        self.client = client
        self.events = events

    async def create(self, pod: Obj, *, owner: Obj) -> Obj:
        """Create ``pod``; a ``SuccessfulCreate`` or ``FailedCreate`` Event on ``owner``."""
        try:
            created = await self.client.create(PODS, body=pod)
        except StatusError as exc:
            if not _namespace_terminating(exc):
                self.events.event(regarding=owner, type="Warning", reason="FailedCreate",
                                  note=f"Error creating: {exc.message}")
            raise
        self.events.event(regarding=owner, type="Normal", reason="SuccessfulCreate",
                          note=f"Created pod: {text(meta(created).get('name'))}")
        return created

    async def delete(self, pod: Obj, *, owner: Obj) -> None:
        """Delete ``pod`` (uid precondition); a ``SuccessfulDelete`` or ``FailedDelete``
        Event on ``owner``. A pod already gone is no failure."""
        pod_meta = meta(pod)
        name = text(pod_meta.get("name"))
        try:
            await self.client.delete(
                PODS, name=name, namespace=text(pod_meta.get("namespace")),
                preconditions=Preconditions(uid=text(pod_meta.get("uid"))),
            )
        except StatusError as exc:
            if is_not_found(exc):
                return
            self.events.event(regarding=owner, type="Warning", reason="FailedDelete",
                              note=f"Error deleting: {exc.message}")
            raise
        self.events.event(regarding=owner, type="Normal", reason="SuccessfulDelete",
                          note=f"Deleted pod: {name}")


def _namespace_terminating(exc: StatusError) -> bool:
    """Upstream stays quiet about creations refused by a namespace being deleted."""
    causes = as_list(as_dict(exc.status().get("details")).get("causes"))
    return any(as_dict(c).get("reason") == "NamespaceTerminating" for c in causes)


async def claim(
    client: Client,
    resource: Resource,
    *,
    owner: Obj,
    owner_ref: Mapping[str, Any],
    candidates: Sequence[Obj],
    matches: Callable[[Mapping[str, str]], bool],
    owner_resource: Resource,
) -> list[Obj]:
    """``ClaimObjects``: what ``owner`` controls among ``candidates`` after adopting the
    orphans its selector matches and releasing what it controls but no longer matches.

    Before the first adoption the owner is read again from the API (``owner_resource``), as
    upstream's ``RecheckDeletionTimestamp``: an owner deleted, replaced or being deleted adopts
    nothing.
    """
    owned: list[Obj] = []
    may_adopt: bool | None = None
    owner_uid = text(meta(owner).get("uid"))
    for obj in candidates:
        action = claim_action(owner, obj, matches=matches)
        if action == "keep":
            owned.append(obj)
        elif action == "adopt":
            if may_adopt is None:
                may_adopt = await _still_adoptable(client, owner_resource, owner)
            if not may_adopt:
                continue
            refs = [*as_list(meta(obj).get("ownerReferences")), dict(owner_ref)]
            adopted = await _patch_refs(client, resource, obj, refs)
            if adopted is not None:
                owned.append(adopted)
        elif action == "release":
            refs = [r for r in as_list(meta(obj).get("ownerReferences"))
                    if as_dict(r).get("uid") != owner_uid]
            await _patch_refs(client, resource, obj, refs)
    return owned


async def _still_adoptable(client: Client, resource: Resource, owner: Obj) -> bool:
    try:
        fresh = await client.get(resource, name=text(meta(owner).get("name")),
                                 namespace=text(meta(owner).get("namespace")) or None)
    except StatusError as exc:
        if is_not_found(exc):
            return False
        raise
    return meta(fresh).get("uid") == meta(owner).get("uid") and not meta(fresh).get(
        "deletionTimestamp"
    )


async def _patch_refs(
    client: Client, resource: Resource, obj: Obj, refs: list[Any]
) -> Obj | None:
    obj_meta = meta(obj)
    patch = {"metadata": {
        "ownerReferences": refs or None,
        "uid": obj_meta.get("uid"),
        "resourceVersion": obj_meta.get("resourceVersion"),
    }}
    try:
        return await client.patch(
            resource, name=text(obj_meta.get("name")), namespace=obj_meta.get("namespace"),
            patch=patch,
        )
    except StatusError as exc:
        if is_not_found(exc):
            return None
        raise
