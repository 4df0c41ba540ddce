"""The component names and the small schema builders every part of a document shares.

The fixed meta/v1 schemas, the schemas compiled from models and the paths all point at the same
apimachinery components (``Status``, ``DeleteOptions``, ``Patch``, ``ListMeta``, ...), so their
names and the ``$ref``/property helpers live here, below all three, rather than in any one of them.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CORE",
    "DELETE_OPTIONS",
    "INT_OR_STRING",
    "LIST_META",
    "META",
    "MICRO_TIME",
    "PATCH",
    "QUANTITY",
    "SCHEMA_REF",
    "STATUS",
    "TIME",
    "Doc",
    "group_version_kind",
    "prop",
    "ref",
    "ref_prop",
]

Doc = dict[str, Any]

META = "io.k8s.apimachinery.pkg.apis.meta.v1"
CORE = "io.k8s.api.core.v1"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
TIME = f"{META}.Time"
MICRO_TIME = f"{META}.MicroTime"
STATUS = f"{META}.Status"
DELETE_OPTIONS = f"{META}.DeleteOptions"
PATCH = f"{META}.Patch"
LIST_META = f"{META}.ListMeta"
SCHEMA_REF = "#/components/schemas/"


def group_version_kind(group: str, version: str, kind: str) -> Doc:
    """One entry of an ``x-kubernetes-group-version-kind`` list."""
    return {"group": group, "kind": kind, "version": version}


def ref(name: str) -> Doc:
    """A ``$ref`` to the component schema called ``name``."""
    return {"$ref": SCHEMA_REF + name}


def prop(type_: str, description: str, **extra: Any) -> Doc:
    """A property of a plain type, with its description."""
    return {"type": type_, "description": description, **extra}


def ref_prop(name: str, description: str, **extra: Any) -> Doc:
    """A property typed by a component; ``allOf`` lets the description sit beside the ``$ref``."""
    return {"allOf": [ref(name)], "description": description, **extra}
