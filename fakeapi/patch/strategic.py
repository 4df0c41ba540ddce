"""Strategic merge patch: JSON merge patch that knows how each list of the API merges.

The compiled schema supplies what upstream reads from Go struct tags: a list with
``patchStrategy: merge`` merges — objects by their ``patchMergeKey`` (containers by ``name``,
conditions by ``type``, owner references by ``uid``), scalars as a set (finalizers) — and every
other list is replaced. Maps merge key by key and ``null`` deletes a key. Directives:

* ``$patch: replace`` / ``delete`` in a map; ``$patch: delete`` / ``replace`` as a list item;
* ``$setElementOrder/<list>`` — the order of a merged list (objects by merge key, or scalars);
* ``$retainKeys`` — clear the map's fields that are not listed;
* ``$deleteFromPrimitiveList/<list>`` — values to drop from a merged scalar list.

Free-form JSON (``RawJSON``) and fields the schema does not know merge as RFC 7386.

The order of a merged list follows upstream's algorithm exactly, including its surprise: an item
the patch adds goes *before* the items only the server had (``finalizers: [a, b]`` patched with
``[c]`` gives ``[c, a, b]``), while items present in both keep the server's positions.

Values the patch adds where the original had nothing are cleaned the way upstream cleans them:
``null`` entries dropped and any map carrying ``$patch`` removed with its key. Upstream leaves
other directive keys in such new values (to fail later as unknown fields); they are dropped here.

Only the maps on the patched paths are copied; everything else is shared with the original, and
neither input is modified. Errors are ``PatchError``: 400 for malformed patches (upstream's
message), 422 for lists of lists (upstream's generic message).
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakeapi.patch.errors import (
    PatchError,
    bad_request,
    go_string,
    go_value,
    unprocessable,
)
from fakeapi.patch.merge import merge_patch
from fakeapi.patch.ordering import (
    bad_arg_type,
    category,
    dedupe,
    no_merge_key,
    normalize,
    partition,
)
from fakeapi.schema import SchemaNode

__all__ = ["PatchError", "apply_strategic_merge_patch", "strategic_merge_patch"]

_PATCH = "$patch"
_RETAIN_KEYS = "$retainKeys"
_SET_ORDER = "$setElementOrder"
_DELETE_FROM = "$deleteFromPrimitiveList"
_ANY = SchemaNode("any")

_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
_BAD_SET_ORDER = "invalid patch format of setElementOrder list"
_NO_LIST_OF_LISTS = "lists of lists are not supported"


class _Drop:
    __slots__ = ()


_DROP: Any = _Drop()
_ABSENT: Any = _Drop()


def strategic_merge_patch(
    original: dict[str, Any], patch: Any, schema: SchemaNode
) -> dict[str, Any]:
    """``original`` after the strategic merge patch ``patch``, for an object of ``schema``."""
    if patch is None:  # upstream decodes `null` as an empty patch
        return original
    if not isinstance(patch, dict):
        kind = "array" if isinstance(patch, list) else _json_kind(patch)
        raise bad_request(
            f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
        )
    return _merge_map(original, patch, schema)


def apply_strategic_merge_patch(
    *, original: dict[str, Any], patch: Any, schema: SchemaNode
) -> dict[str, Any]:
    """Keyword form of :func:`strategic_merge_patch`."""
    return strategic_merge_patch(original, patch, schema)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def _bad_patch_type(directive: Any, item: dict[str, Any]) -> PatchError:
    return bad_request(f"unknown patch type: {go_string(directive)} in map: {go_value(item)}")


def _child(node: SchemaNode, key: str) -> SchemaNode:
    if node.kind == "object":
        return node.properties.get(key) or _ANY
    if node.kind == "map":
        return node.item or _ANY
    return _ANY


def _list_key(key: str, prefix: str, message: str) -> str:
    head, sep, tail = key.partition("/")
    if not sep or head != prefix:
        raise bad_request(message)
    return tail


def _is_directive_key(key: str) -> bool:
    return key == _RETAIN_KEYS or key.startswith((_SET_ORDER, _DELETE_FROM))


def _clean(value: Any) -> Any:
    """A patch value taken as is: nulls and directives out, maps carrying ``$patch`` dropped."""
    if isinstance(value, dict):
        if _PATCH in value:
            return _DROP
        out: dict[str, Any] | None = None
        for key, sub in value.items():
            new = _DROP if sub is None or _is_directive_key(key) else _clean(sub)
            if new is sub:
                continue
            if out is None:
                out = dict(value)
            if new is _DROP:
                del out[key]
            else:
                out[key] = new
        return value if out is None else out
    if isinstance(value, list):
        items = [_clean(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return [v for v in items if v is not _DROP]
    return value


# --- maps --------------------------------------------------------------------------------------


def _merge_map(original: dict[str, Any], patch: dict[str, Any], node: SchemaNode) -> dict[str, Any]:
    if _PATCH in patch:
        directive = patch[_PATCH]
        if directive == "replace":
            replaced = _clean({k: v for k, v in patch.items() if k != _PATCH})
            return replaced if isinstance(replaced, dict) else {}
        if directive == "delete":
            return {}
        raise _bad_patch_type(directive, patch)
    out = dict(original)
    if _RETAIN_KEYS in patch:
        _retain_keys(out, patch)
    handled = _apply_set_element_orders(out, patch, node)
    deletions: list[tuple[str, Any]] = []
    for key, value in patch.items():
        if key in handled or key == _RETAIN_KEYS or key.startswith(_SET_ORDER):
            continue
        if key.startswith(_DELETE_FROM):
            deletions.append((_list_key(key, _DELETE_FROM, _BAD_PRIMITIVE_LIST), value))
            continue
        if value is None:
            out.pop(key, None)
            continue
        child = _child(node, key)
        current = out.get(key, _ABSENT)
        if child.kind == "any":
            out[key] = merge_patch(None if current is _ABSENT else current, value)
        elif current is _ABSENT or category(current) != category(value):
            cleaned = _clean(value)
            if cleaned is _DROP:
                out.pop(key, None)
            else:
                out[key] = cleaned
        elif isinstance(value, dict):
            out[key] = _merge_map(current, value, child)
        elif isinstance(value, list):
            out[key] = _merge_list(current, value, child)
        else:
            out[key] = value
    for key, value in deletions:
        if value is None:
            out.pop(key, None)  # upstream drops the whole list here
            continue
        current = out.get(key, _ABSENT)
        if isinstance(current, list) and isinstance(value, list):
            out[key] = _merge_list(current, value, _child(node, key), delete=True)
    return out


def _retain_keys(out: dict[str, Any], patch: dict[str, Any]) -> None:
    keys = patch[_RETAIN_KEYS]
    if not isinstance(keys, list):
        raise bad_request(_BAD_RETAIN_KEYS)
    try:
        allowed = set(keys)
    except TypeError:
        raise bad_request(_BAD_RETAIN_KEYS) from None
    for key, value in patch.items():
        if value is None or key == _RETAIN_KEYS or key.startswith((_DELETE_FROM, _SET_ORDER)):
            continue
        if key not in allowed:
            raise bad_request(_BAD_RETAIN_KEYS)
    for key in [k for k in out if k not in allowed]:
        del out[key]


def _apply_set_element_orders(
    out: dict[str, Any], patch: dict[str, Any], node: SchemaNode
) -> set[str]:
    handled: set[str] = set()
    for key, order in patch.items():
        if not key.startswith(_SET_ORDER):
            continue
        list_key = _list_key(key, _SET_ORDER, _BAD_SET_ORDER)
        if not isinstance(order, list):
            raise bad_arg_type("[]interface {}", order)
        current = out.get(list_key, _ABSENT)
        patched = patch.get(list_key, _ABSENT)
        for value in (current, patched):
            if value is not _ABSENT and not isinstance(value, list):
                raise bad_arg_type("[]interface {}", value)
        child = _child(node, list_key)
        merge_key = child.merge_key if child.kind == "array" else None
        _check_against_order(patched if patched is not _ABSENT else [], order, merge_key)
        if current is _ABSENT and patched is _ABSENT:
            continue
        if patched is _ABSENT:
            merged = current
        elif current is _ABSENT:
            merged = _clean(patched)
        else:
            merged = _merge_list(current, patched, child)
        handled.add(list_key)
        if not merged:
            out[list_key] = merged
            continue
        in_order, server_only = partition(merged, order, merge_key)
        out[list_key] = normalize(
            in_order, server_only, order, current if current is not _ABSENT else [], merge_key
        )
    return handled


def _check_against_order(patched: list[Any], order: list[Any], merge_key: str | None) -> None:
    """Every item of the patch list appears in ``$setElementOrder``, in the same order."""
    if not order or not patched:
        return
    items = patched
    if merge_key:
        for item in patched:
            if not isinstance(item, dict):
                raise bad_arg_type("map[string]interface {}", item)
        items = [item for item in patched if item.get(_PATCH) != "delete"]
    at = seen = 0
    while at < len(items) and seen < len(order):
        item = items[at]
        if isinstance(item, dict) and _PATCH in item:
            at += 1
            continue
        if _same_key(item, order[seen], merge_key):
            at += 1
        seen += 1
    if at < len(items) and seen >= len(order):
        raise bad_request(
            f"the order in patch list:\n{go_value(patched)}\n doesn't match {_SET_ORDER} "
            f"list:\n{go_value(order)}"
        )


def _same_key(left: Any, right: Any, merge_key: str | None) -> bool:
    if not merge_key:
        return bool(left == right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise bad_arg_type("map[string]interface {}", item)
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
    return bool(left[merge_key] == right[merge_key])


# --- lists -------------------------------------------------------------------------------------


def _merge_list(
    current: list[Any], patch: list[Any], node: SchemaNode, *, delete: bool = False
) -> list[Any]:
    is_list = node.kind == "array"
    merge = is_list and "merge" in (node.patch_strategy or "").split(",")
    merge_key = node.merge_key if is_list else None
    if delete and not (merge and any(isinstance(v, dict) for v in patch)):
        return _without_values(current, patch)
    if not merge:
        cleaned = _clean(patch)
        return cleaned if isinstance(cleaned, list) else []
    if not current and not patch:
        return current
    if not _items_are_maps(current, patch):
        merged = dedupe(current + patch)
        in_patch, server_only = partition(merged, patch, None)
        return normalize(in_patch, server_only, patch, current, None)
    if not merge_key:
        raise bad_request("cannot merge lists without merge key for type struct")
    return _merge_object_list(current, patch, node.item or _ANY, merge_key)


def _items_are_maps(current: list[Any], patch: list[Any]) -> bool:
    first: str | None = None
    for value in (*current, *patch):
        kind = category(value)
        if first is None:
            if kind == "list":
                raise unprocessable(_NO_LIST_OF_LISTS)
            first = kind
        elif kind != first:
            raise bad_request(
                f"list element types are not identical: {go_value([current, patch])}"
            )
    return first == "map"


def _merge_object_list(
    current: list[Any], patch: list[Any], item_node: SchemaNode, merge_key: str
) -> list[Any]:
    original = current
    plain: list[dict[str, Any]] = []
    replace = False
    for item in patch:
        if _PATCH not in item:
            plain.append(item)
            continue
        directive = item[_PATCH]
        if directive == "delete":
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
            doomed = item[merge_key]
            original = [
                o for o in original
                if not (isinstance(o, dict) and merge_key in o and o[merge_key] == doomed)
            ]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise bad_request("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    if replace:
        cleaned = _clean(plain)
        original, plain = (cleaned if isinstance(cleaned, list) else []), []
    merged = list(original)
    position: dict[Any, int] = {}
    for index, existing in enumerate(merged):
        value = existing.get(merge_key, _ABSENT) if isinstance(existing, dict) else _ABSENT
        if value is not _ABSENT:
            _remember(position, value, index)
    for item in plain:
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
        index = _find(position, merged, merge_key, item[merge_key])
        if index >= 0:
            merged[index] = _merge_map(merged[index], item, item_node)
        else:
            cleaned_item = _clean(item)
            if cleaned_item is not _DROP:
                _remember(position, item[merge_key], len(merged))
                merged.append(cleaned_item)
    in_patch, server_only = partition(merged, plain, merge_key)
    return normalize(in_patch, server_only, plain, original, merge_key)


def _remember(position: dict[Any, int], value: Any, index: int) -> None:
    with contextlib.suppress(TypeError):
        position.setdefault(value, index)


def _find(position: dict[Any, int], items: list[Any], merge_key: str, value: Any) -> int:
    try:
        return position.get(value, -1)
    except TypeError:
        for index, item in enumerate(items):
            if isinstance(item, dict) and item.get(merge_key, _ABSENT) == value:
                return index
        return -1


def _without_values(current: list[Any], doomed: list[Any]) -> list[Any]:
    return [v for v in current if v not in doomed]


