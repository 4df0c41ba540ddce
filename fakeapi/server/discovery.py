"""Discovery documents, built from the resource table: aggregated (v2) and legacy.

kubectl asks for the aggregated form on ``/api`` and ``/apis`` and needs nothing else to map
names to resources; ``kubernetes.dynamic`` and kr8s only speak the legacy form, which spreads the
same facts over ``/api``, ``/apis``, ``/apis/<g>`` and one ``APIResourceList`` per group-version.
Both are pure functions of the table so the HTTP layer can encode them once and cache the bytes.

A kind served at several versions (one row each, converted from its storage version) is listed
in every one of them, with the storage version's hash. Versions of a group are listed most
preferred first, by Kubernetes version priority (GA before
beta before alpha, higher numbers first), which is also how clients pick the preferred version.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from typing import Any

from fakeapi.resources import ResourceTable, ResourceType

__all__ = [
    "AGGREGATED_CONTENT_TYPE",
    "RESOURCE_VERBS",
    "aggregated_discovery",
    "legacy_api_versions",
    "legacy_group",
    "legacy_group_list",
    "legacy_resource_list",
    "storage_version_hash",
    "version_priority",
]

#: The Content-Type kubectl requires before it reads a body as aggregated discovery.
AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

#: Every served resource supports the full verb set (sorted, as upstream lists them).
RESOURCE_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


def _verbs(rt: ResourceType) -> list[str]:
    """The verbs of a resource: all of them, or ``create`` for a question kind (a review)."""
    return ["create"] if rt.strategy.create_only else list(RESOURCE_VERBS)
_STATUS_VERBS = ("get", "patch", "update")
_BINDING_VERBS = ("create",)
_READ_VERBS = ("get",)

_VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_STABILITY = {None: 3, "beta": 2, "alpha": 1}

Doc = dict[str, Any]


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Sort key putting the most preferred version first (``v2 < v1 < v1beta2 < v1alpha1``).

    Versions that do not look like Kubernetes versions sort last, alphabetically.
    """
    match = _VERSION_RE.match(version)
    if match is None:
        return (1, 0, 0, version)
    major, stability, minor = match.groups()
    return (0, -_STABILITY[stability], -int(major) * 1000 - int(minor or 0), version)


def storage_version_hash(*, group: str, version: str, kind: str) -> str:
    """Upstream's opaque storage-version hash: base64 of the first 8 bytes of sha256(g/v/k)."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _group_versions(resources: ResourceTable, *, core: bool) -> dict[str, list[str]]:
    """group -> its versions, preferred first; groups in first-served order."""
    groups: dict[str, list[str]] = {}
    for group, version in resources.group_versions():
        if (group == "") != core:
            continue
        groups.setdefault(group, []).append(version)
    for versions in groups.values():
        versions.sort(key=version_priority)
    return groups


def _in_group_version(
    resources: Iterable[ResourceType], group: str, version: str
) -> list[ResourceType]:
    return sorted(
        (rt for rt in resources if rt.group == group and rt.version == version),
        key=lambda rt: rt.plural,
    )


def _gvk(group: str, version: str, kind: str) -> Doc:
    return {"group": group, "version": version, "kind": kind}


#: subresources answered in another group-version than their resource's
_SUBRESOURCE_GROUP_VERSIONS = {
    "binding": ("", "v1"),
    "eviction": ("policy", "v1"),
    "scale": ("autoscaling", "v1"),
}


def _subresource_kind(rt: ResourceType, subresource: str) -> tuple[str, tuple[str, ...]]:
    """(response kind, verbs) of a subresource: ``binding`` answers with a core/v1 Binding."""
    if subresource == "binding":
        return "Binding", _BINDING_VERBS
    if subresource == "eviction":
        return "Eviction", _BINDING_VERBS
    if subresource == "scale":
        return "Scale", _STATUS_VERBS
    if subresource in rt.strategy.subresource_reads:  # pods/log
        return rt.kind, _READ_VERBS
    return rt.kind, _STATUS_VERBS


# --- aggregated ------------------------------------------------------------------------------


def _aggregated_resource(rt: ResourceType) -> Doc:
    entry: Doc = {
        "resource": rt.plural,
        "responseKind": _gvk(rt.group, rt.version, rt.kind),
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": rt.singular_name,
        "verbs": _verbs(rt),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    subresources = []
    for name in sorted(rt.subresources):
        kind, verbs = _subresource_kind(rt, name)
        group, version = _SUBRESOURCE_GROUP_VERSIONS.get(name, (rt.group, rt.version))
        subresources.append(
            {"subresource": name, "responseKind": _gvk(group, version, kind), "verbs": list(verbs)}
        )
    if subresources:
        entry["subresources"] = subresources
    return entry


def aggregated_discovery(resources: ResourceTable, *, core: bool) -> Doc:
    """The ``APIGroupDiscoveryList`` of ``/api`` (``core``) or ``/apis`` (every other group)."""
    items = []
    for group, versions in _group_versions(resources, core=core).items():
        metadata: Doc = {"creationTimestamp": None}
        if group:
            metadata = {"name": group, "creationTimestamp": None}
        items.append(
            {
                "metadata": metadata,
                "versions": [
                    {
                        "version": version,
                        "resources": [
                            _aggregated_resource(rt)
                            for rt in _in_group_version(resources, group, version)
                        ],
                        "freshness": "Current",
                    }
                    for version in versions
                ],
            }
        )
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    }


# --- legacy ----------------------------------------------------------------------------------


def legacy_api_versions(server_address: str) -> Doc:
    """``/api``: the core group's versions and the address clients should use."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
        ],
    }


def _api_group(group: str, versions: list[str]) -> Doc:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": entries, "preferredVersion": dict(entries[0])}


def legacy_group_list(resources: ResourceTable) -> Doc:
    """``/apis``: every named group with its versions, preferred first."""
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            _api_group(group, versions)
            for group, versions in _group_versions(resources, core=False).items()
        ],
    }


def legacy_group(resources: ResourceTable, group: str) -> Doc | None:
    """``/apis/<group>``: one ``APIGroup``, or None when the group is not served."""
    versions = _group_versions(resources, core=False).get(group) if group else None
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(group, versions)}


def _storage_hash(rt: ResourceType) -> str:
    """The hash of the version the row's objects are stored at: one value for every served
    version of a kind, as upstream's (clients compare it to notice a storage migration)."""
    stored = getattr(rt.converter, "stored", "") if rt.converter is not None else ""
    group, _, version = stored.rpartition("/") if stored else (rt.group, "", rt.version)
    return storage_version_hash(group=group, version=version, kind=rt.kind)


def _legacy_resources(rt: ResourceType) -> list[Doc]:
    main: Doc = {
        "name": rt.plural,
        "singularName": rt.singular_name,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": _verbs(rt),
    }
    if rt.short_names:
        main["shortNames"] = list(rt.short_names)
    if rt.categories:
        main["categories"] = list(rt.categories)
    main["storageVersionHash"] = _storage_hash(rt)
    entries = [main]
    for name in sorted(rt.subresources):
        kind, verbs = _subresource_kind(rt, name)
        sub: Doc = {
            "name": f"{rt.plural}/{name}",
            "singularName": "",
            "namespaced": rt.namespaced,
            "kind": kind,
            "verbs": list(verbs),
        }
        other_group, other_version = _SUBRESOURCE_GROUP_VERSIONS.get(name, ("", ""))
        if other_group:  # kubectl drain finds the Eviction version here
            sub["group"], sub["version"] = other_group, other_version
        entries.append(sub)
    return entries


def legacy_resource_list(resources: ResourceTable, group: str, version: str) -> Doc | None:
    """``/api/v1`` or ``/apis/<g>/<v>``: the ``APIResourceList``, or None when not served."""
    served = _in_group_version(resources, group, version)
    if not served:
        return None
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": [entry for rt in served for entry in _legacy_resources(rt)],
    }
