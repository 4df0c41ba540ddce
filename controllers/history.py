"""ControllerRevisions: the template history of StatefulSets and DaemonSets.

As upstream's ``pkg/controller/history`` and the two controllers' ``constructHistory`` /
``getStatefulSetRevisions``: each distinct pod template an owner has had is a ControllerRevision
named ``<owner>-<hash>`` (:func:`~fakeapi.rules.templatehash.template_hash` of the template and
the owner's ``collisionCount``), labelled like the template, controlled by the owner, whose
``data`` restores the template (``{"spec": {"template": {..., "$patch": "replace"}}}``, what
``kubectl rollout undo`` patches back) and whose ``revision`` counts up. Going back to an
earlier template reuses its revision and gives it the next number. Revisions beyond
``revisionHistoryLimit`` that no pod and no status names are deleted, oldest first.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi.client import CONTROLLER_REVISIONS, Client, Informer, is_already_exists, is_not_found
from fakeapi.controllers.indexes import OWNER_UID_INDEX
from fakeapi.errors import StatusError
from fakeapi.objects import Obj, as_dict, deep_copy, is_controlled_by, meta, text
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.templatehash import template_hash

__all__ = [
    "REVISION_HASH_LABEL",
    "HashCollisionError",
    "History",
    "live_hashes",
    "revision_data",
    "sync_history",
    "truncate_history",
]

#: the label of pods (and revisions) with the revision they were made from
REVISION_HASH_LABEL = "controller-revision-hash"


def revision_data(template: Any) -> dict[str, Any]:
    """What a revision stores: a patch that puts ``template`` back."""
    return {"spec": {"template": {**deep_copy(as_dict(template)), "$patch": "replace"}}}


def _number(revision: Obj) -> int:
    value = revision.get("revision")
    return value if isinstance(value, int) else 0


@dataclass(frozen=True, slots=True)
class History:
    """An owner's revisions as found (oldest first) and the one its template is now."""

    revisions: tuple[Obj, ...]
    update: Obj

    @property
    def hash(self) -> str:
        return text(as_dict(meta(self.update).get("labels")).get(REVISION_HASH_LABEL))


async def sync_history(
    client: Client,
    revisions: Informer,
    owner: Obj,
    *,
    api_version: str,
    kind: str,
    template: Any,
    collision_count: int | None,
) -> History:
    """The owner's revisions with one for its current template (created, or an old one
    renumbered). A name taken by a different revision raises the create's 409 after the
    caller should bump ``collisionCount`` (:class:`HashCollisionError`)."""
    uid = text(meta(owner).get("uid"))
    found = sorted(
        (r for r in revisions.by_index(OWNER_UID_INDEX, uid) if is_controlled_by(r, owner_uid=uid)),
        key=_number,
    )
    data = revision_data(template)
    latest = _number(found[-1]) if found else 0
    equal = [r for r in found if r.get("data") == data]
    if equal:
        current = equal[-1]
        if _number(current) != latest:
            body = deep_copy(current)
            body["revision"] = latest + 1
            current = await client.update(CONTROLLER_REVISIONS, body=body)
            found = [r for r in found if r is not equal[-1]] + [current]
        return History(tuple(found), current)
    pod_hash = template_hash(template, collision_count)
    name = f"{text(meta(owner).get('name'))}-{pod_hash}"
    labels = {**as_dict(as_dict(as_dict(template).get("metadata")).get("labels")),
              REVISION_HASH_LABEL: pod_hash}
    body = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "namespace": text(meta(owner).get("namespace")),
            "labels": labels,
            "ownerReferences": [new_controller_ref(owner, api_version=api_version, kind=kind)],
        },
        "data": data,
        "revision": latest + 1,
    }
    try:
        created = await client.create(CONTROLLER_REVISIONS, body=body)
    except StatusError as exc:
        if is_already_exists(exc):
            raise HashCollisionError(name) from exc
        raise
    return History((*found, created), created)


class HashCollisionError(Exception):
    """A revision of another template already has the name: bump ``collisionCount``."""


async def truncate_history(
    client: Client, history: History, *, live: Collection[str], limit: int
) -> None:
    """Delete the oldest revisions beyond ``limit`` that are not ``live`` (named by a pod or the
    status) and not the current one."""
    keep = {text(meta(history.update).get("name")), *live}
    old = [r for r in history.revisions if text(meta(r).get("name")) not in keep]
    for revision in old[: max(len(old) - limit, 0)]:
        try:
            await client.delete(CONTROLLER_REVISIONS, name=text(meta(revision).get("name")),
                                namespace=text(meta(revision).get("namespace")))
        except StatusError as exc:
            if not is_not_found(exc):
                raise


def live_hashes(pods: Sequence[Obj]) -> set[str]:
    """The revision hashes pods carry."""
    return {text(as_dict(meta(p).get("labels")).get(REVISION_HASH_LABEL)) for p in pods} - {""}

