"""Writes like upstream: the four patch types and server-side apply's field ownership.

Pure functions on JSON-shaped dicts, driven by the compiled schema (:mod:`fakeapi.schema`);
nothing here touches storage. Inputs are never modified and results share untouched sub-trees
with them. Every refusal is a ``StatusError`` carrying upstream's code and message, so handlers
re-raise it as is (see :mod:`fakeapi.patch.errors` for the mapping).
"""

from fakeapi.patch.apply import STRIPPED_FIELDS, apply_patch, update_managed_fields
from fakeapi.patch.errors import ApplyConflict, PatchError
from fakeapi.patch.fieldset import FieldSet, path_string
from fakeapi.patch.json_patch import MAX_JSON_PATCH_OPERATIONS, apply_json_patch
from fakeapi.patch.managed import managed_fields_for_write
from fakeapi.patch.merge import apply_merge_patch, merge_patch
from fakeapi.patch.strategic import apply_strategic_merge_patch, strategic_merge_patch
from fakeapi.patch.typed import to_field_set

__all__ = [
    "MAX_JSON_PATCH_OPERATIONS",
    "STRIPPED_FIELDS",
    "ApplyConflict",
    "FieldSet",
    "PatchError",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_patch",
    "apply_strategic_merge_patch",
    "managed_fields_for_write",
    "merge_patch",
    "path_string",
    "strategic_merge_patch",
    "to_field_set",
    "update_managed_fields",
]
