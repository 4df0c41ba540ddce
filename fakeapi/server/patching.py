"""PATCH: apply a JSON, merge, strategic-merge or apply patch to the current object, then write.

The patched result goes through the same decoding (unknown fields per ``fieldValidation``) and the
same update path as a PUT, so a patch can never store what an update could not. A
``metadata.resourceVersion`` set by the patch is a precondition, as upstream treats it.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import orjson

from fakeapi import errors
from fakeapi.patch.merge import merge_patch
from fakeapi.registry.decode import decode_object
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import Registry, WriteResult
from fakeapi.server.encoding import media_type
from fakeapi.server.routing import Target

__all__ = ["apply_patch_request", "PATCH_TYPES"]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC, APPLY)


def _json_patch(current: dict[str, Any], patch: Any) -> Any:
    if not isinstance(patch, list):
        raise errors.bad_request(
            "json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"
        )
    try:
        return jsonpatch.JsonPatch(patch).apply(current, in_place=False)
    except jsonpatch.JsonPatchTestFailed as exc:
        raise errors.StatusError(
            422, "Invalid", f"the server rejected our request due to an error in our request: {exc}"
        ) from None
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        raise errors.StatusError(422, "Invalid", str(exc)) from None
    except (TypeError, KeyError, IndexError, ValueError) as exc:
        raise errors.bad_request(f"invalid JSON patch: {exc}") from None


def _strategic(current: dict[str, Any], patch: Any, target: Target) -> Any:
    from fakeapi.patch.strategic import PatchError, strategic_merge_patch

    if not isinstance(patch, dict):
        raise errors.bad_request("the body of a strategic merge patch must be a JSON object")
    try:
        return strategic_merge_patch(current, patch, target.resource.schema)
    except PatchError as exc:
        raise errors.bad_request(str(exc)) from None


def apply_patch_request(
    registry: Registry,
    target: Target,
    *,
    content_type: str,
    patch: Any,
    options: WriteOptions,
) -> WriteResult:
    rt = target.resource
    assert target.name is not None
    kind = media_type(content_type)
    if kind == APPLY:
        from fakeapi.server.applying import server_side_apply

        return server_side_apply(registry, target, config=patch, options=options)
    if kind not in (JSON_PATCH, MERGE_PATCH, STRATEGIC):
        raise errors.unsupported_media_type(kind)
    current = registry.get(rt, target.namespace, target.name)
    base: dict[str, Any] = orjson.loads(current.raw)
    if kind == JSON_PATCH:
        patched = _json_patch(base, patch)
    elif kind == MERGE_PATCH:
        if not isinstance(patch, dict):
            raise errors.bad_request("the body of a merge patch must be a JSON object")
        patched = merge_patch(base, patch)
    else:
        patched = _strategic(base, patch, target)
    new, warnings = decode_object(rt, patched, options)
    if new is patched and isinstance(new, dict):
        new = orjson.loads(orjson.dumps(new)) if new is base else new
    precondition = (new.get("metadata") or {}).get("resourceVersion") or None
    return registry.write_update(
        rt,
        current,
        new,
        options,
        subresource=target.subresource,
        precondition=precondition,
        warnings=warnings,
    )
