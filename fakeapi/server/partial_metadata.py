"""``Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1``: metadata only.

client-go's metadata client and metadata-only informers (controller-runtime's
``PartialObjectMetadata`` watches) ask a GET or a watch for ``PartialObjectMetadata`` and a list
for ``PartialObjectMetadataList``; kube-apiserver then answers ``meta.k8s.io/v1`` objects that
carry only the object's metadata (``endpoints/handlers/response.go``), and 406 when no clause
of the ``Accept`` header names a view it offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import orjson

from fakeapi import errors

__all__ = ["View", "partial_list", "partial_object", "response_view"]

View = Literal["", "Table", "PartialObjectMetadata", "PartialObjectMetadataList"]
_VIEWS: tuple[View, ...] = ("Table", "PartialObjectMetadata", "PartialObjectMetadataList")
_META_V1 = "meta.k8s.io/v1"


def response_view(accept: str) -> View:
    """The view the first acceptable clause of ``accept`` asks for ("" for the object itself);
    406 when every clause asks for a view this server does not offer."""
    if "as=" not in accept:
        return ""
    unknown = ""
    for clause in accept.split(","):
        params = dict(
            part.strip().partition("=")[::2] for part in clause.split(";")[1:] if "=" in part
        )
        wanted = params.get("as")
        if wanted is None:
            return ""
        if wanted in _VIEWS:
            return wanted  # type: ignore[return-value]
        unknown = unknown or wanted
    raise errors.not_acceptable(
        f"only the following media types are accepted: application/json, "
        f"application/json;as=Table;g=meta.k8s.io;v=v1, "
        f"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1 (not as={unknown})"
    )


def partial_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": "PartialObjectMetadata", "apiVersion": _META_V1,
            "metadata": obj.get("metadata") or {}}


def partial_list(meta: Mapping[str, Any], objects: Iterable[Mapping[str, Any]]) -> bytes:
    return orjson.dumps({
        "kind": "PartialObjectMetadataList",
        "apiVersion": _META_V1,
        "metadata": meta,
        "items": [partial_object(obj) for obj in objects],
    })
