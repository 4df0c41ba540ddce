"""JSON merge patch (RFC 7386): ``null`` deletes a key, an object merges, anything else replaces.

This is what ``application/merge-patch+json`` does, and what strategic merge patch falls back to
for free-form JSON (``RawJSON`` fields) where no schema says how lists merge. The result shares
every untouched sub-tree with the original and never modifies either input.
"""

from __future__ import annotations

from typing import Any

from fakeapi.patch.errors import bad_request

__all__ = ["apply_merge_patch", "merge_patch"]


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 MergePatch(target, patch): the value ``target`` becomes after ``patch``."""
    if not isinstance(patch, dict):
        return patch
    base: dict[str, Any] = target if isinstance(target, dict) else {}
    out = dict(base)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = merge_patch(base.get(key), value)
        else:
            out[key] = value
    return out


def apply_merge_patch(*, original: dict[str, Any], patch: Any) -> dict[str, Any]:
    """A merge patch request body applied to a stored object.

    Upstream (evanphx/json-patch) refuses a body that is not a JSON object with 400
    ``Invalid JSON Patch``; an array would replace the whole object, which no kind accepts.
    """
    if not isinstance(patch, dict):
        raise bad_request("Invalid JSON Patch")
    result: dict[str, Any] = merge_patch(original, patch)
    return result
