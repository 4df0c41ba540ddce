"""PodGroupProtection: a PodGroup is created with a finalizer, so it cannot go before its pods.

Pods find the claims their group shares, and the group's reservations on those claims, by the
group's name; were the PodGroup deleted while pods of it still ran, the claim controller would
drop the reservation and deallocate devices in use. Upstream's admission plugin therefore adds
``scheduling.k8s.io/podgroup-protection`` to every new PodGroup (creates only, never its status),
and the podgroup-protection controller removes it once every pod of the group has finished or is
gone.
"""

from __future__ import annotations

from fakeapi.models.scheduling import POD_GROUP_PROTECTION_FINALIZER
from fakeapi.registry.admission.interface import Attributes

__all__ = ["PodGroupProtection"]


class PodGroupProtection:
    """Adds the protection finalizer to a PodGroup being created."""

    name = "PodGroupProtection"
    resources = frozenset({("scheduling.k8s.io", "podgroups")})

    def handles(self, attrs: Attributes) -> bool:
        return (
            attrs.group == "scheduling.k8s.io"
            and attrs.resource == "podgroups"
            and attrs.operation == "CREATE"
            and not attrs.subresource
        )

    def admit(self, attrs: Attributes) -> None:
        meta = attrs.obj.get("metadata")
        if not isinstance(meta, dict):
            return
        finalizers = meta.get("finalizers")
        if finalizers is None:
            finalizers = []
        if isinstance(finalizers, list) and POD_GROUP_PROTECTION_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, POD_GROUP_PROTECTION_FINALIZER]
