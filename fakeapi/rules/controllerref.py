"""Controller references: how a workload controller marks, finds and adopts what it owns.

Upstream's ``metav1.NewControllerRef`` and the ``ControllerRefManager`` rules
(``pkg/controller/controller_ref_manager.go``), shared by every controller that owns objects by
a selector (ReplicaSets and ReplicationControllers own pods, Deployments own ReplicaSets,
StatefulSets, DaemonSets and Jobs own pods and revisions):

- a **controller reference** names the owner's apiVersion, kind, name and uid with
  ``controller: true`` and ``blockOwnerDeletion: true`` (so foreground deletion waits);
- an object is **adoptable** by an owner when it has no controller, is not being deleted, the
  owner is not being deleted, and the owner's selector matches its labels;
- an object the owner controls is **released** when the selector no longer matches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakeapi.objects import as_dict, controller_ref, meta, text

__all__ = ["claim_action", "new_controller_ref"]


def new_controller_ref(owner: Mapping[str, Any], *, api_version: str, kind: str) -> dict[str, Any]:
    """``NewControllerRef``: the reference an owner puts on what it controls."""
    owner_meta = meta(owner)
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": text(owner_meta.get("name")),
        "uid": text(owner_meta.get("uid")),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def claim_action(
    owner: Mapping[str, Any],
    obj: Mapping[str, Any],
    *,
    matches: Callable[[Mapping[str, str]], bool],
) -> str:
    """What ``ClaimObject`` does with ``obj`` for ``owner``: ``keep`` (controlled and
    selected), ``release`` (controlled, no longer selected), ``adopt`` (orphan, selected, both
    alive) or ``ignore``."""
    labels = {k: text(v) for k, v in as_dict(meta(obj).get("labels")).items()}
    ref = controller_ref(obj)
    owner_uid = text(meta(owner).get("uid"))
    if ref is not None:
        if ref.get("uid") != owner_uid:
            return "ignore"
        if matches(labels):
            return "keep"
        if meta(owner).get("deletionTimestamp"):
            return "ignore"
        return "release"
    if meta(owner).get("deletionTimestamp") or meta(obj).get("deletionTimestamp"):
        return "ignore"
    return "adopt" if matches(labels) else "ignore"
