"""DefaultTolerationSeconds: pods tolerate unreachable and not-ready nodes for five minutes.

Upstream's plugin adds two ``NoExecute`` tolerations with ``tolerationSeconds: 300`` to every pod
(create and update of the pod itself, not its subresources) that does not already tolerate the
taint: ``node.kubernetes.io/not-ready`` and ``node.kubernetes.io/unreachable``. A toleration with
an empty key tolerates every taint, and one with an empty effect every effect, so either counts.
This is why ``kubectl get pod -o yaml`` shows two tolerations nobody wrote, and why pods on a node
that stops heartbeating are evicted after 300 seconds rather than at once.
"""

from __future__ import annotations

from typing import Any

from fakeapi.registry.admission.interface import Attributes

__all__ = ["DefaultTolerationSeconds", "DEFAULT_TOLERATION_SECONDS", "NOT_READY", "UNREACHABLE"]

DEFAULT_TOLERATION_SECONDS = 300
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def _tolerates(tolerations: list[Any], key: str) -> bool:
    for toleration in tolerations:
        if not isinstance(toleration, dict):
            continue
        if toleration.get("key") in (key, "", None) and toleration.get("effect") in (
            "NoExecute",
            "",
            None,
        ):
            return True
    return False


class DefaultTolerationSeconds:
    """Adds the not-ready and unreachable NoExecute tolerations a pod lacks."""

    name = "DefaultTolerationSeconds"
    resources = frozenset({("", "pods")})

    def handles(self, attrs: Attributes) -> bool:
        return attrs.group == "" and attrs.resource == "pods" and not attrs.subresource

    def admit(self, attrs: Attributes) -> None:
        spec = attrs.obj.get("spec")
        if not isinstance(spec, dict):
            return
        tolerations = spec.get("tolerations")
        if tolerations is None:
            tolerations = []
        if not isinstance(tolerations, list):
            return
        added = [
            {
                "key": key,
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
            }
            for key in (NOT_READY, UNREACHABLE)
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = [*tolerations, *added]
