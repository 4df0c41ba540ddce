"""JSON patch (RFC 6902) through the ``jsonpatch`` library, failing the way kube-apiserver fails.

Upstream decodes the body as a list of operation objects first (anything else: 400 with the Go
decoder's message), caps it at 10000 operations (413), then applies it; every failure while
applying (a ``test`` that does not match, a path that does not exist, an unknown ``op``) is a 422
whose message is the fixed "the server rejected our request due to an error in our request". The
library's own reason is kept on ``PatchError.detail``.

The library mutates what it patches, so the original is copied first
(:func:`fakeapi.objects.deep_copy`).
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from fakeapi.objects import deep_copy
from fakeapi.patch.errors import bad_request, too_many_operations, unprocessable

__all__ = ["MAX_JSON_PATCH_OPERATIONS", "apply_json_patch"]

#: kube-apiserver's maxJSONPatchOperations.
MAX_JSON_PATCH_OPERATIONS = 10000

_JSON_KINDS = {dict: "object", list: "array", str: "string", bool: "bool", int: "number",
               float: "number"}


def _json_kind(value: Any) -> str:
    return _JSON_KINDS.get(type(value), "object")


def apply_json_patch(*, original: dict[str, Any], patch: Any) -> dict[str, Any]:
    """``original`` after the operations in ``patch``; ``original`` itself is not modified."""
    if patch is None:  # upstream decodes `null` as an empty patch
        return original
    if not isinstance(patch, list):
        raise bad_request(
            f"json: cannot unmarshal {_json_kind(patch)} into Go value of type jsonpatch.Patch"
        )
    for operation in patch:
        if not isinstance(operation, dict):
            raise bad_request(
                f"json: cannot unmarshal {_json_kind(operation)} into Go value of type "
                "jsonpatch.Operation"
            )
    if len(patch) > MAX_JSON_PATCH_OPERATIONS:
        raise too_many_operations(MAX_JSON_PATCH_OPERATIONS, len(patch))
    document = deep_copy(original)
    try:
        result = jsonpatch.JsonPatch(patch).apply(document, in_place=True)
    except (
        jsonpatch.JsonPatchException,
        jsonpatch.JsonPointerException,
        KeyError,
        IndexError,
        TypeError,
        ValueError,
    ) as exc:
        raise unprocessable(str(exc) or type(exc).__name__) from None
    if not isinstance(result, dict):
        raise unprocessable("the patched document is not a JSON object")
    return result
