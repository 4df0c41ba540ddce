"""Resolve a resource URL to (resource, namespace, name, subresource).

``/api/v1/...`` and ``/apis/<group>/<version>/...`` share one grammar: ``[watch/]`` then either
``namespaces/<ns>/<plural>[/<name>[/<sub>]]`` or ``<plural>[/<name>[/<sub>]]``. Whether
``namespaces/<x>/<y>`` is a namespaced collection or a subresource of namespace ``x`` depends on
whether ``y`` names a namespaced resource of that group-version, as upstream's routes do.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.resources import ResourceTable, ResourceType

__all__ = ["Target", "resolve", "unserved_stream"]

#: subresources of a real cluster that stream to a running container (or through the kubelet)
_STREAMS = {"pods": ("exec", "attach", "portforward", "proxy"), "nodes": ("proxy",)}


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


def unserved_stream(group: str, tail: str) -> tuple[str, str, str, str] | None:
    """(namespace, kind, name, subresource) when ``tail`` asks a core pod or node for a stream
    to something running (``pods/web/exec``): a real API server proxies these to the kubelet,
    and the simulated kubelets run nothing to connect to."""
    if group:
        return None
    parts = tail.strip("/").split("/")
    namespace = ""
    if len(parts) >= 5 and parts[0] == "namespaces":
        namespace, parts = parts[1], parts[2:]
    if len(parts) < 3 or parts[2] not in _STREAMS.get(parts[0], ()):
        return None
    if len(parts) > 3 and parts[2] != "proxy":  # only a proxy carries a path of its own
        return None
    if (parts[0] == "pods") != bool(namespace):
        return None
    return namespace, parts[0], parts[1], parts[2]
