"""Resolve a resource URL to (resource, namespace, name, subresource).

``/api/v1/...`` and ``/apis/<group>/<version>/...`` share one grammar: ``[watch/]`` then either
``namespaces/<ns>/<plural>[/<name>[/<sub>]]`` or ``<plural>[/<name>[/<sub>]]``. Whether
``namespaces/<x>/<y>`` is a namespaced collection or a subresource of namespace ``x`` depends on
whether ``y`` names a namespaced resource of that group-version, as upstream's routes do.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.resources import ResourceTable, ResourceType

__all__ = ["Target", "resolve"]


@dataclass(frozen=True, slots=True)
class Target:
    resource: ResourceType
    namespace: str | None
    name: str | None
    subresource: str
    #: the legacy ``/watch/`` path prefix was used
    watch_path: bool = False


def resolve(resources: ResourceTable, group: str, version: str, tail: str) -> Target | None:
    parts = [p for p in tail.split("/")]
    if parts and parts[-1] == "":
        parts.pop()
    watch_path = False
    if parts and parts[0] == "watch":
        watch_path = True
        parts = parts[1:]
    if not parts:
        return None
    if "" in parts:
        return None  # an empty segment (``namespaces//pods``) names nothing
    namespace: str | None = None
    if parts[0] == "namespaces" and len(parts) >= 3:
        candidate = resources.lookup(group, version, parts[2])
        if candidate is not None and candidate.namespaced:
            namespace = parts[1]
            parts = parts[2:]
    rt = resources.lookup(group, version, parts[0])
    if rt is None or len(parts) > 3:
        return None
    if namespace is not None and not rt.namespaced:
        return None
    name = parts[1] if len(parts) >= 2 else None
    sub = parts[2] if len(parts) == 3 else ""
    if name == "":
        return None
    if sub and sub not in rt.subresources:
        return None
    return Target(rt, namespace, name, sub, watch_path)
