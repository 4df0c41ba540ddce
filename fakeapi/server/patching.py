"""PATCH: apply a JSON, merge, strategic-merge or apply patch to the current object, then write.

The patched result goes through the same decoding (unknown fields per ``fieldValidation``) and the
same update path as a PUT, so a patch can never store what an update could not. A
``metadata.resourceVersion`` set by the patch is a precondition, as upstream treats it.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi import errors
from fakeapi.patch import apply_json_patch, apply_merge_patch, apply_strategic_merge_patch
from fakeapi.registry.decode import decode_patched
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.results import WriteResult
from fakeapi.registry.store import GenericStore
from fakeapi.server.media import media_type
from fakeapi.server.routing import Target

__all__ = ["apply_patch_request", "PATCH_TYPES"]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC, APPLY)


def apply_patch_request(
    registry: GenericStore,
    target: Target,
    *,
    content_type: str,
    patch: Any,
    options: WriteOptions,
) -> WriteResult:
    rt = target.resource
    assert target.name is not None
    kind = media_type(content_type)
    if kind == STRATEGIC and not rt.accepts_strategic_merge_patch:
        raise _unsupported_patch(kind, (JSON_PATCH, MERGE_PATCH, APPLY))
    if kind == APPLY:
        from fakeapi.server.applying import server_side_apply

        return server_side_apply(registry, target, config=patch, options=options)
    if kind not in (JSON_PATCH, MERGE_PATCH, STRATEGIC):
        raise errors.unsupported_media_type(kind)
    current = registry.get(rt, target.namespace, target.name)
    base: dict[str, Any] = orjson.loads(current.raw)
    untouched: frozenset[str] = frozenset()
    if kind == JSON_PATCH:
        patched = apply_json_patch(original=base, patch=patch)
    else:
        if kind == MERGE_PATCH:
            patched = apply_merge_patch(original=base, patch=patch)
        else:
            patched = apply_strategic_merge_patch(original=base, patch=patch, schema=rt.schema)
        if isinstance(patched, dict):
            # Both keep every part they leave alone as the very object of ``base`` (a private
            # copy of the stored version, never modified) and never place it anywhere else.
            untouched = frozenset(
                key for key, value in patched.items() if base.get(key) is value
            )
    copied: set[str] = set()
    below: list[str] = []
    new, warnings = decode_patched(
        rt, patched, options, patch_type=kind, patch=patch, name=target.name,
        namespace=target.namespace, stored=current.obj, untouched=untouched, copied=copied,
        missing=below,
    )
    precondition = (new.get("metadata") or {}).get("resourceVersion") or None
    return registry.write_update(
        rt,
        current,
        new,
        options,
        subresource=target.subresource,
        precondition=precondition,
        warnings=warnings,
        decoded=True,
        copied=copied,
        missing_below=below,
    )


def _unsupported_patch(kind: str, accepted: tuple[str, ...]) -> errors.StatusError:
    """415 as upstream's PATCH handler words it, naming the patch types the resource takes."""
    return errors.StatusError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(accepted),
    )

