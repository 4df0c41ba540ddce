"""HTTP for ``.../scale``: GET, PUT and PATCH of an autoscaling/v1 Scale.

The Scale is a view of the object (:mod:`fakeapi.registry.scale`); a PATCH is applied to the
current Scale (JSON patch, merge patch or strategic merge: ``kubectl scale`` sends a merge patch
of ``spec.replicas``) and written like a PUT of the result. Server-side apply of a Scale is not
served (415).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi import errors
from fakeapi.patch import apply_json_patch, apply_merge_patch
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.scale import read_scale, write_scale
from fakeapi.registry.store import GenericStore
from fakeapi.server.encoding import json_response, media_type
from fakeapi.server.patching import JSON_PATCH, MERGE_PATCH, STRATEGIC
from fakeapi.server.routing import Target

__all__ = ["get_scale", "write_scale_request"]


def get_scale(registry: GenericStore, target: Target) -> web.Response:
    assert target.name is not None
    return json_response(read_scale(registry, target.resource, target.namespace, target.name))


def write_scale_request(
    registry: GenericStore,
    request: web.Request,
    target: Target,
    body: Any,
    options: WriteOptions,
) -> web.Response:
    """A PUT (``body`` is the new Scale) or PATCH (``body`` is the patch) of the Scale."""
    rt, name = target.resource, target.name
    assert name is not None
    if request.method == "PUT":
        return json_response(write_scale(registry, rt, target.namespace, name, body, options))
    kind = media_type(request.headers.get("Content-Type", ""))
    if kind not in (JSON_PATCH, MERGE_PATCH, STRATEGIC):
        raise errors.unsupported_media_type(kind)

    def mutate(current: dict[str, Any]) -> Any:
        if kind == JSON_PATCH:
            return apply_json_patch(original=current, patch=body)
        # a Scale has no lists: its strategic merge is a merge patch
        return apply_merge_patch(original=current, patch=body)

    scale = write_scale(registry, rt, target.namespace, name, None, options, mutate=mutate)
    return json_response(scale)
