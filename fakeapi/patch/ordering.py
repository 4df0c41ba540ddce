"""Where items end up in a list a strategic merge patch merged: upstream's ordering, exactly.

Upstream splits the merged list into the items the patch (or ``$setElementOrder``) names and the
items only the server had, sorts the first by the patch's order and the second by the server's,
then interleaves them: a server item goes first only when both it and the competing patch item
sit in the server's list and it sat earlier. A patch item new to the server therefore lands
*before* the server's items. Items are matched by merge key (objects) or by value (scalars),
comparing decoded JSON the way Go does: ``1`` matches ``1.0``, ``1`` does not match ``true``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.patch.errors import PatchError, bad_request, go_type, go_value

__all__ = ["bad_arg_type", "category", "dedupe", "no_merge_key", "normalize", "partition"]


def bad_arg_type(expected: str, actual: Any) -> PatchError:
    return bad_request(f"expected a {expected}, but received a {go_type(actual)}")


def no_merge_key(item: dict[str, Any], key: str) -> PatchError:
    return bad_request(f"map: {go_value(item)} does not contain declared merge key: {key}")


def category(value: Any) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "null"


def dedupe(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    seen: set[Any] = set()
    for value in values:
        try:
            if (category(value), value) in seen:
                continue
            seen.add((category(value), value))
        except TypeError:
            if value in out:
                continue
        out.append(value)
    return out


def _key_of(merge_key: str | None) -> Callable[[Any], Any]:
    if not merge_key:
        return lambda item: item
    return lambda item: item.get(merge_key) if isinstance(item, dict) else None


def _positions(order: list[Any], key: Callable[[Any], Any]) -> Callable[[Any], int]:
    """Index of an item's key in ``order`` (-1 if absent): a dict lookup when every key is
    hashable, a scan otherwise (keys may be lists or objects in a malformed patch)."""

    def scan(item: Any) -> int:
        wanted = key(item)
        for index, candidate in enumerate(order):
            if key(candidate) == wanted:
                return index
        return -1

    table: dict[Any, int] = {}
    for index, item in enumerate(order):
        try:
            table.setdefault(_hashable(key(item)), index)
        except TypeError:
            return scan

    def lookup(item: Any) -> int:
        try:
            return table.get(_hashable(key(item)), -1)
        except TypeError:
            return scan(item)

    return lookup


def _hashable(value: Any) -> tuple[str, Any]:
    # Go compares decoded JSON by type and value: 1 and 1.0 match, 1 and true do not
    return (category(value), value)


def partition(
    merged: list[Any], present: list[Any], merge_key: str | None
) -> tuple[list[Any], list[Any]]:
    """Items of ``merged`` that ``present`` names, and the rest (each in ``merged`` order)."""
    if merge_key:
        for item in merged:
            if not isinstance(item, dict):
                raise bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
    where = _positions(present, _key_of(merge_key))
    inside = [item for item in merged if where(item) >= 0]
    outside = [item for item in merged if where(item) < 0]
    return inside, outside


def normalize(
    from_patch: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str | None,
) -> list[Any]:
    """Patch items in patch order, server items in server order, interleaved as upstream does."""
    if merge_key:
        for items in (from_patch, patch_order, server_only, server_order):
            for item in items:
                if not isinstance(item, dict):
                    raise bad_arg_type("map[string]interface {}", item)
                if merge_key not in item:
                    raise no_merge_key(item, merge_key)
    key = _key_of(merge_key)
    in_patch = _positions(patch_order, key)
    in_server = _positions(server_order, key)
    right = sorted(from_patch, key=lambda item: _rank(in_patch(item), len(patch_order)))
    left = sorted(server_only, key=lambda item: _rank(in_server(item), len(server_order)))
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li, ri = in_server(left[i]), in_server(right[j])
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _rank(index: int, missing: int) -> int:
    return index if index >= 0 else missing
