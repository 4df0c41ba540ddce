"""Schema-driven walks over JSON-shaped objects, as structured-merge-diff does them for apply.

Server-side apply needs five operations that all read the same facts from the compiled schema:
how each list is identified (map-list keys, set values, or atomic) and whether a struct or map is
atomic. They live together here so they agree on those facts:

* :func:`to_field_set` — the paths an applied configuration sets (upstream ``ToFieldSet``);
* :func:`compare` — the paths added, modified and removed between two versions (``Compare``);
* :func:`merge` — a configuration merged into the live object (``Merge``; the config wins);
* :func:`remove_items` — an object without the given paths (``RemoveItems``);
* :func:`ensure_named_fields_are_members` — a set that also owns the struct fields leading to
  its paths, which is how pruning decides what another manager still holds.

Rules that mirror upstream and look surprising: a struct field holding a non-empty object is not
itself a member (only its leaves are), list items always are, map entries always are, a field set
to ``null`` or ``{}`` is a member, and an empty granular list contributes nothing. Two empty (or
null) containers compare as leaves, so ``{}`` versus ``null`` is a modification. Unknown fields
and free-form JSON are atomic leaves. A map-list item that omits a key field takes that field's
schema default in its key (a port without ``protocol`` is keyed as ``TCP``), and one without a
default is simply left out of the key; only an item with no key field at all is rejected.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from fakeapi.patch.errors import bad_request
from fakeapi.patch.fieldset import FieldSet, key_element, path_string, value_element
from fakeapi.schema import SchemaNode

__all__ = [
    "MISSING",
    "Comparison",
    "compare",
    "ensure_named_fields_are_members",
    "merge",
    "remove_items",
    "to_field_set",
    "zero_object",
]

Shape = Literal["leaf", "struct", "map", "set", "assoc"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: An absent key or list item (as opposed to a present ``null``).
MISSING: Any = _Missing()
_ANY = SchemaNode("any")
#: a tuple, not ``dict | list``: ``isinstance`` takes a tuple several times faster
_CONTAINERS = (dict, list)


#: shapes by node, so the walks read them with one dict lookup
_shapes: dict[SchemaNode, Shape] = {}


def _shape(node: SchemaNode) -> Shape:
    shape = _shapes.get(node)
    if shape is None:
        if len(_shapes) > 100_000:  # schemas compiled again and again (custom resources)
            _shapes.clear()
        shape = _shapes[node] = _node_shape(node)
    return shape


def _node_shape(node: SchemaNode) -> Shape:
    kind = node.kind
    if kind == "object":
        return "leaf" if node.map_type == "atomic" else "struct"
    if kind == "map":
        return "leaf" if node.map_type == "atomic" else "map"
    if kind == "array":
        list_type = node.list_meta.list_type if node.list_meta else "atomic"
        if list_type == "set":
            return "set"
        if list_type == "map" and node.list_meta and node.list_meta.map_keys:
            return "assoc"
    return "leaf"


def _child(node: SchemaNode, shape: Shape, key: str) -> tuple[SchemaNode, bool]:
    """The schema of ``key`` under a struct or map, and whether it is a declared struct field."""
    if shape == "struct":
        sub = node.properties.get(key)
        return (sub, True) if sub is not None else (_ANY, False)
    return (node.item or _ANY), False


def _item_element(node: SchemaNode, shape: Shape, item: Any, where: tuple[str, ...]) -> str:
    if shape == "set":
        return value_element(item)
    keys = node.list_meta.map_keys if node.list_meta else ()
    if not isinstance(item, dict):
        raise bad_request(f"{path_string(where)}: associative list item is not an object")
    fields: dict[str, Any] = {}
    for key in keys:
        value = item.get(key)
        if value is None:
            value = _key_default(node, key)
            if value is None:
                continue  # an optional key without a default: the key simply lacks it
        fields[key] = value
    if not fields:
        quoted = " ".join(f'"{key}"' for key in keys)
        raise bad_request(
            f"{path_string(where)}: associative list with keys has an element that omits all "
            f"key fields [{quoted}] (and doesn't have default values for any key fields)"
        )
    return key_element(fields)


def _key_default(node: SchemaNode, key: str) -> Any:
    """The schema default of key field ``key`` of a map-list's items (None when it has none).

    The default only identifies the item; it is never written into the object, so an item
    that omits ``protocol`` is the same item as a stored one that says ``protocol: TCP``.
    """
    item_node = node.item
    if item_node is None:
        return None
    sub = item_node.properties.get(key)
    return sub.default if sub is not None else None


def _granular(value: Any, shape: Shape) -> bool:
    if shape in ("struct", "map"):
        return isinstance(value, dict)
    if shape in ("set", "assoc"):
        return isinstance(value, list)
    return False


# --- field sets --------------------------------------------------------------------------------


def to_field_set(value: Any, node: SchemaNode) -> FieldSet:
    """The paths ``value`` sets, as an applier of it would own them."""
    if isinstance(value, dict) and _shape(node) == "struct":
        return _to_set_root(value, node)
    return _to_set(value, node, ()) or FieldSet()


_APPLIED_PART_CACHE_SIZE = 1024
_applied_parts: OrderedDict[tuple[SchemaNode, bytes], FieldSet | None] = OrderedDict()


def _to_set_root(value: dict[str, Any], node: SchemaNode) -> FieldSet:
    """``_to_set`` of a whole configuration, each top-level part but metadata memoised.

    An applier mostly applies the same configuration again (a kubelet its pod's status); a
    part's set depends only on its schema and content, which equal JSON pins exactly.
    """
    out = FieldSet()
    for key, sub in value.items():
        element = "f:" + key
        child, declared = _child(node, "struct", key)
        grand: FieldSet | None
        if key == "metadata" or not isinstance(sub, _CONTAINERS):
            grand = _to_set(sub, child, (element,))
        else:
            try:
                content = orjson.dumps(sub)
            except TypeError:  # not JSON (an integer beyond 64 bits): walked, not memoised
                content = None
            if content is None:
                grand = _to_set(sub, child, (element,))
            else:
                memo_key = (child, content)
                if memo_key in _applied_parts:
                    _applied_parts.move_to_end(memo_key)
                    grand = _applied_parts[memo_key]
                else:
                    grand = _to_set(sub, child, (element,))
                    _applied_parts[memo_key] = grand
                    if len(_applied_parts) > _APPLIED_PART_CACHE_SIZE:
                        _applied_parts.popitem(last=False)
        if grand:
            out.children[element] = grand
        if (
            not declared
            or sub is None
            or (isinstance(sub, dict) and not sub)
            or not _granular(sub, _shape(child))
        ):
            out.members.add(element)
    return out


def _to_set(value: Any, node: SchemaNode, where: tuple[str, ...]) -> FieldSet | None:
    shape = _shape(node)
    if not _granular(value, shape):
        return None
    out = FieldSet()
    if shape in ("struct", "map"):
        for key, sub in value.items():
            element = "f:" + key
            child, declared = _child(node, shape, key)
            grand = _to_set(sub, child, (*where, element))
            if grand:
                out.children[element] = grand
            if (
                not declared
                or sub is None
                or (isinstance(sub, dict) and not sub)
                or not _granular(sub, _shape(child))
            ):
                out.members.add(element)
        return out
    item_node = node.item or _ANY
    seen: set[str] = set()
    for item in value:
        element = _item_element(node, shape, item, where)
        out.members.add(element)
        if element in seen:  # duplicates are owned as a whole, never descended into
            out.children.pop(element, None)
            continue
        seen.add(element)
        grand = _to_set(item, item_node, (*where, element))
        if grand:
            out.children[element] = grand
    return out


def ensure_named_fields_are_members(fields: FieldSet, node: SchemaNode) -> FieldSet:
    """``fields`` plus every declared struct field that leads to one of its paths."""
    if not fields.children:
        return fields
    shape = _shape(node)
    members = set(fields.members)
    children: dict[str, FieldSet] = {}
    for element, sub in fields.children.items():
        child_node = _ANY
        if shape in ("struct", "map") and element.startswith("f:"):
            child_node, declared = _child(node, shape, element[2:])
            if declared:
                members.add(element)
        elif shape in ("set", "assoc"):
            child_node = node.item or _ANY
        children[element] = ensure_named_fields_are_members(sub, child_node)
    return FieldSet(members, children)


# --- comparison --------------------------------------------------------------------------------


@dataclass(slots=True)
class Comparison:
    """Paths ``new`` added, modified and removed relative to ``old``."""

    added: FieldSet = field(default_factory=FieldSet)
    modified: FieldSet = field(default_factory=FieldSet)
    removed: FieldSet = field(default_factory=FieldSet)

    def changed(self) -> FieldSet:
        return self.modified.union(self.added)

    def exclude(self, ignored: FieldSet | None) -> Comparison:
        if ignored is None or ignored.is_empty():
            return self
        added = self.added.recursive_difference(ignored)
        modified = self.modified.recursive_difference(ignored)
        removed = self.removed.recursive_difference(ignored)
        if added is self.added and modified is self.modified and removed is self.removed:
            return self
        return Comparison(added, modified, removed)


def compare(old: Any, new: Any, node: SchemaNode) -> Comparison:
    """Paths ``new`` added, modified and removed relative to ``old`` (sets shared: read only)."""
    out = Comparison()
    if (
        isinstance(new, dict)
        and old is zero_object(node)
        and _shape(node) == "struct"
        and not _same(old, new)
        and not (_empty(old) and _empty(new))
    ):
        _compare_with_zero(old, new, node, out)
    else:
        _compare(old, new, node, out, ())
    return out


_CREATED_PART_CACHE_SIZE = 1024
_created_parts: OrderedDict[tuple[SchemaNode, str, int, bytes], Comparison] = OrderedDict()


def _compare_with_zero(
    zero: dict[str, Any], new: dict[str, Any], node: SchemaNode, out: Comparison,
    path: tuple[str, ...] = (),
) -> None:
    """``_compare(zero, new, node, out, path)`` for a zero struct and a dict, faster.

    Every create compares the new object with the zero object, which holds little (empty
    structs, a null). The fields of a struct own disjoint paths, so each field is compared on
    its own: a field the zero struct lacks is added with every path below it, found in one
    walk; a zero struct inside (a pod's ``spec``) is split the same way; any other field is
    compared as usual. At the top, a part the zero object holds other than ``metadata`` (which
    varies with every object), that is ``spec`` and ``status``, is memoised by its JSON: objects
    made from one template (pods, their claims) repeat their ``spec``, and one encoding finds it
    again where the walk would take several times as long. Other parts (an Event's
    ``regarding``) mostly differ from object to object, and would pay for the encoding as well.
    """
    walk = _walk_of(node)
    assert walk is not None  # a struct
    added_here: FieldSet | None = None
    for key, after in new.items():
        element, sub_walk = walk.fields.get(key) or walk.field(key)
        before = zero.get(key, MISSING)
        if before is MISSING:  # added, with every path below it
            if added_here is None:
                added_here = _own_node(out.added, path)
            added_here.members.add(element)
            if sub_walk is not None and after and isinstance(after, sub_walk.container):
                added_here.children[element] = _all_paths(after, sub_walk, (*path, element))
            continue
        if path or key == "metadata" or not isinstance(after, _CONTAINERS):
            _field_with_zero(before, after, element, sub_walk, out, path)
            continue
        try:
            content = orjson.dumps(after)
        except TypeError:  # not JSON (an integer beyond 64 bits): compared, not memoised
            _field_with_zero(before, after, element, sub_walk, out, path)
            continue
        memo_key = (node, element, id(before), content)
        part = _created_parts.get(memo_key)
        if part is None:
            part = Comparison()
            _field_with_zero(before, after, element, sub_walk, part, ())
            _created_parts[memo_key] = part
            if len(_created_parts) > _CREATED_PART_CACHE_SIZE:
                _created_parts.popitem(last=False)
        else:
            _created_parts.move_to_end(memo_key)
        for mine, theirs in (
            (out.added, part.added), (out.modified, part.modified), (out.removed, part.removed)
        ):
            if element in theirs.members:
                mine.members.add(element)
            below = theirs.children.get(element)
            if below is not None:
                mine.children[element] = below
    for key in zero.keys() - new.keys():
        element, sub_walk = walk.fields.get(key) or walk.field(key)
        child = sub_walk.node if sub_walk is not None else _ANY
        _compare(zero[key], MISSING, child, out, (*path, element))


def _field_with_zero(
    before: Any, after: Any, element: str, walk: _Walk | None, out: Comparison,
    path: tuple[str, ...],
) -> None:
    """A field of :func:`_compare_with_zero` that the zero struct at ``path`` holds."""
    child = walk.node if walk is not None else _ANY
    if (
        walk is not None
        and walk.shape == "struct"
        and isinstance(before, dict)
        and isinstance(after, dict)
        and not _same(before, after)
        and not (_empty(before) and _empty(after))
    ):
        _compare_with_zero(before, after, child, out, (*path, element))
    else:
        _compare(before, after, child, out, (*path, element))


def _own_node(fields: FieldSet, path: tuple[str, ...]) -> FieldSet:
    """The node at ``path`` of a set being built, made if absent (the caller fills it)."""
    target = fields
    for step in path:
        found = target.children.get(step)
        if found is None:
            found = target.children[step] = FieldSet()
        target = found
    return target


def _leaf(old: Any, new: Any, out: Comparison, path: tuple[str, ...]) -> None:
    if old is MISSING:
        out.added.insert(path)
    elif new is MISSING:
        out.removed.insert(path)
    elif not _same(old, new):
        out.modified.insert(path)


def _same(old: Any, new: Any) -> bool:
    return bool(old == new) and isinstance(old, bool) == isinstance(new, bool)


def _empty(value: Any) -> bool:
    return value is MISSING or value is None or (isinstance(value, _CONTAINERS) and not value)


def _compare(old: Any, new: Any, node: SchemaNode, out: Comparison, path: tuple[str, ...]) -> None:
    if old is new or (
        old is not MISSING
        and new is not MISSING
        and old == new
        and (old.__class__ is bool) == (new.__class__ is bool)
    ):
        return  # shared or equal sub-trees (the common case after a patch) change nothing
    shape = _shapes.get(node) or _shape(node)
    if shape == "leaf":
        _leaf(old, new, out, path)
        return
    container = dict if shape == "struct" or shape == "map" else list
    old_ok = old is MISSING or old is None or isinstance(old, container)
    new_ok = new is MISSING or new is None or isinstance(new, container)
    if not (old_ok and new_ok) or (_empty(old) and _empty(new)):
        # a type change, or two empty containers: compared as values
        _leaf(old, new, out, path)
        return
    if path and (old is MISSING or new is MISSING):
        # a whole sub-tree added (every create) or removed: all its paths, built in one walk
        present, into = (new, out.added) if old is MISSING else (old, out.removed)
        if _empty(present):
            into.insert(path)
        else:
            walk = _walk_of(node)
            assert walk is not None  # a granular shape
            _graft(into, path, _all_paths(present, walk, path))
        return
    # Children equal to their old selves are skipped here rather than in a call of their own
    # (the test is the one the call would start with).
    if container is dict:
        old_map: dict[str, Any] = old if isinstance(old, dict) else {}
        new_map: dict[str, Any] = new if isinstance(new, dict) else {}
        props = node.properties if shape == "struct" else None
        any_value = node.item or _ANY
        for key in old_map.keys() | new_map.keys():
            before, after = old_map.get(key, MISSING), new_map.get(key, MISSING)
            if before is after or (
                before is not MISSING
                and after is not MISSING
                and before == after
                and (before.__class__ is bool) == (after.__class__ is bool)
            ):
                continue
            child = (props.get(key) or _ANY) if props is not None else any_value
            if (_shapes.get(child) or _shape(child)) == "leaf":  # what the call would do first
                _leaf(before, after, out, (*path, "f:" + key))
            else:
                _compare(before, after, child, out, (*path, "f:" + key))
    else:
        item_node = node.item or _ANY
        old_items = _index(node, shape, old, path)
        new_items = _index(node, shape, new, path)
        for element in old_items.keys() | new_items.keys():
            before, after = old_items.get(element, MISSING), new_items.get(element, MISSING)
            if before is after or (
                before is not MISSING
                and after is not MISSING
                and before == after
                and (before.__class__ is bool) == (after.__class__ is bool)
            ):
                continue
            _compare(before, after, item_node, out, (*path, element))
    if path:
        if old is MISSING:
            out.added.insert(path)
        elif new is MISSING:
            out.removed.insert(path)


class _Walk:
    """What :func:`_all_paths` needs of a granular schema node, worked out once.

    For a struct, each field's path element and the walk of its schema (None for a leaf) are
    filed by key as keys are met; for a map or a list, the walk of the items.
    """

    __slots__ = ("container", "fields", "item", "node", "shape")

    def __init__(self, node: SchemaNode, shape: Shape) -> None:
        self.node = node
        self.shape = shape
        self.container: type = dict if shape == "struct" or shape == "map" else list
        self.fields: dict[str, tuple[str, _Walk | None]] = {}
        self.item = None if shape == "struct" else _walk_of(node.item or _ANY)

    def field(self, key: str) -> tuple[str, _Walk | None]:
        step = self.fields[key] = ("f:" + key, _walk_of(self.node.properties.get(key) or _ANY))
        return step


_walks: dict[SchemaNode, _Walk | None] = {}


def _walk_of(node: SchemaNode) -> _Walk | None:
    """The walk of ``node``; None for a leaf (an atomic value has no paths below it)."""
    try:
        return _walks[node]
    except KeyError:
        pass
    if len(_walks) > 100_000:  # schemas compiled again and again (custom resources)
        _walks.clear()
    shape = _shape(node)
    found = _walks[node] = None if shape == "leaf" else _Walk(node, shape)
    return found


def _all_paths(value: Any, walk: _Walk, where: tuple[str, ...]) -> FieldSet:
    """Every path below a non-empty ``value`` of ``walk``'s container type, as comparing it with
    nothing finds (the first of duplicate list items gives the paths below their element).

    Every create walks its whole object here, so the walk reads what it needs of the schema
    from ``walk`` (one dict lookup per struct field). The paths below a value depend on its
    keys, not on its leaf values, so most sub-trees of objects of one kind repeat (a pod's
    containers, a claim's requests): each set found is shared with the equal sets found before
    (see ``_shared_sets``), which keeps its encoding (``FieldSet.to_fields_v1``) from one object
    to the next.
    """
    members: set[str] = set()
    children: dict[str, FieldSet] = {}
    #: the elements in walk order, each followed by the identity of its (shared) child set
    key: list[str | int] = []
    shape = walk.shape
    if shape == "struct" or shape == "map":
        fields = walk.fields if shape == "struct" else None
        sub_walk = walk.item
        for name, sub in value.items():
            if fields is not None:
                element, sub_walk = fields.get(name) or walk.field(name)
            else:
                element = "f:" + name
            members.add(element)
            key.append(element)
            if sub_walk is not None and sub and isinstance(sub, sub_walk.container):
                below = children[element] = _all_paths(sub, sub_walk, (*where, element))
                key.append(id(below))
    else:
        node = walk.node
        item_walk = walk.item
        for item in value:
            element = _item_element(node, shape, item, where)
            if element in members:
                continue  # a duplicate: the first item gives the paths below the element
            members.add(element)
            key.append(element)
            if item_walk is not None and item and isinstance(item, item_walk.container):
                below = children[element] = _all_paths(item, item_walk, (*where, element))
                key.append(id(below))
    shared = tuple(key)
    found = _shared_sets.get(shared)
    if found is None:
        if len(_shared_sets) >= _SHARED_SETS_SIZE:
            _shared_sets.clear()
        found = _shared_sets[shared] = FieldSet(members, children)
    return found


#: :func:`_all_paths`' sets by their elements in walk order, each element followed by the
#: identity of its child set. Shared sets are never modified. A set keeps its children alive,
#: so the identities in a key stay theirs while the entry lives.
_shared_sets: dict[tuple[str | int, ...], FieldSet] = {}
_SHARED_SETS_SIZE = 20_000


def _graft(target: FieldSet, path: tuple[str, ...], below: FieldSet) -> None:
    """Add ``path`` and, under it, the paths of ``below`` to ``target`` (a set being built)."""
    target.insert(path)
    node = target
    for element in path[:-1]:
        node = node.children[element]
    if below:
        existing = node.children.get(path[-1])
        node.children[path[-1]] = below if existing is None else existing.union(below)


def _index(node: SchemaNode, shape: Shape, items: Any, where: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(items, list):
        for item in items:
            out.setdefault(_item_element(node, shape, item, where), item)
    return out


# --- merging -----------------------------------------------------------------------------------


def merge(live: Any, config: Any, node: SchemaNode) -> Any:
    """``config`` merged into ``live``: the config's values win, lists merge by identity."""
    return _merge(live, config, node, ())


def _merge(live: Any, config: Any, node: SchemaNode, where: tuple[str, ...]) -> Any:
    if config is MISSING:
        return live
    if live is MISSING:
        _check_duplicates(config, node, where)
        return config
    shape = _shape(node)
    if not (_granular(live, shape) and _granular(config, shape)) or (not live and not config):
        _check_duplicates(config, node, where)
        return config
    if shape in ("struct", "map"):
        out: dict[str, Any] | None = None
        for key, value in config.items():
            child, _ = _child(node, shape, key)
            current = live.get(key, MISSING)
            merged = _merge(current, value, child, (*where, "f:" + key))
            if merged is not current:
                if out is None:
                    out = dict(live)
                out[key] = merged
        return live if out is None else out
    return _merge_list(live, config, node, shape, where)


def _check_duplicates(config: Any, node: SchemaNode, where: tuple[str, ...]) -> None:
    shape = _shape(node)
    if shape in ("set", "assoc") and isinstance(config, list):
        seen: set[str] = set()
        for item in config:
            element = _item_element(node, shape, item, where)
            if element in seen:
                raise bad_request(
                    f"{path_string(where)}: duplicate entries for key "
                    f"{path_string((element,))}"
                )
            seen.add(element)
            if shape == "assoc":  # a new item's own lists are checked too
                _check_duplicates(item, node.item or _ANY, (*where, element))
    elif shape in ("struct", "map") and isinstance(config, dict):
        for key, value in config.items():
            if isinstance(value, _CONTAINERS):
                child, _ = _child(node, shape, key)
                _check_duplicates(value, child, (*where, "f:" + key))


def _merge_list(
    live: list[Any], config: list[Any], node: SchemaNode, shape: Shape, where: tuple[str, ...]
) -> list[Any]:
    # Upstream's order: live-only items keep their places, config items follow the config's
    # order, and an item present in both is emitted where the config puts it.
    item_node = node.item or _ANY
    config_elements = [_item_element(node, shape, item, where) for item in config]
    config_items: dict[str, Any] = {}
    for element, item in zip(config_elements, config, strict=True):
        if element in config_items:
            raise bad_request(
                f"{path_string(where)}: duplicate entries for key {path_string((element,))}"
            )
        config_items[element] = item
    live_elements = [_item_element(node, shape, item, where) for item in live]
    live_items: dict[str, Any] = {}
    for element, item in zip(live_elements, live, strict=True):
        live_items.setdefault(element, item)
    shared = [e for e in config_elements if e in live_items]
    shared_at = 0
    next_shared = shared[0] if shared else None

    def advance() -> str | None:
        nonlocal shared_at
        shared_at += 1
        return shared[shared_at] if shared_at < len(shared) else None

    out: list[Any] = []
    done: set[str] = set()
    li = ri = 0
    n_live, n_config = len(live_elements), len(config_elements)
    while li < n_live or ri < n_config:
        if li < n_live and ri < n_config:
            element = live_elements[li]
            if element == config_elements[ri]:
                done.add(element)
                out.append(_merge(live_items[element], config_items[element], item_node,
                                  (*where, element)))
                li += 1
                ri += 1
                next_shared = advance()
                continue
            if element in config_items and next_shared is not None and next_shared != element:
                li += 1
                continue
        if li < n_live:
            element = live_elements[li]
            if element not in config_items:
                out.append(live[li])
                li += 1
                continue
            if element in done:
                li += 1
        if ri < n_config:
            element = config_elements[ri]
            done.add(element)
            out.append(_merge(live_items.get(element, MISSING), config_items[element], item_node,
                              (*where, element)))
            ri += 1
            if next_shared == element:
                next_shared = advance()
    return out


# --- removal -----------------------------------------------------------------------------------


def remove_items(value: Any, node: SchemaNode, to_remove: FieldSet) -> Any:
    """``value`` without the paths in ``to_remove`` (each with everything under it).

    A container emptied by the removal disappears from its parent, as upstream's result does
    once decoded into the API type. Inputs are not modified; untouched sub-trees are shared.
    """
    if to_remove.is_empty():
        return value
    result = _remove(value, node, to_remove)
    return {} if result is MISSING else result


def _remove(value: Any, node: SchemaNode, to_remove: FieldSet) -> Any:
    shape = _shape(node)
    if not _granular(value, shape) or not value:
        return value
    if shape in ("struct", "map"):
        out: dict[str, Any] | None = None
        for key, sub in value.items():
            element = "f:" + key
            if element in to_remove.members:
                new: Any = MISSING
            else:
                below = to_remove.children.get(element)
                if below is None:
                    continue
                child, _ = _child(node, shape, key)
                new = _remove(sub, child, below)
                if new is sub:
                    continue
            if out is None:
                out = dict(value)
            if new is MISSING:
                del out[key]
            else:
                out[key] = new
        if out is None:
            return value
        return out if out else MISSING
    item_node = node.item or _ANY
    items: list[Any] | None = None
    for index, item in enumerate(value):
        element = _item_element(node, shape, item, ())
        if element in to_remove.members:
            new_item: Any = MISSING
        else:
            below = to_remove.children.get(element)
            if below is None:
                if items is not None:
                    items.append(item)
                continue
            new_item = _remove(item, item_node, below)
        if items is None:
            items = list(value[:index])
        if new_item is not MISSING:
            items.append(new_item)
    if items is None:
        return value
    return items if items else MISSING


# --- the zero object ---------------------------------------------------------------------------

_zero_cache: dict[SchemaNode, dict[str, Any]] = {}


def zero_object(node: SchemaNode) -> dict[str, Any]:
    """The object upstream starts from on create: a zero-valued API struct.

    In a zero Go struct a non-pointer struct field is ``{}`` and a field without ``omitempty``
    is ``null`` rather than absent; that decides whether the creator's entry marks ``f:spec``
    or ``f:containers`` with ``.``. Here ``metadata``/``spec``/``status`` and the required
    fields below them play those parts. The result is shared: never modify it.
    """
    cached = _zero_cache.get(node)
    if cached is None:
        cached = {}
        for key in ("metadata", "spec", "status"):
            sub = node.properties.get(key)
            if sub is not None and _shape(sub) == "struct":
                cached[key] = _zero_struct(sub, depth=0)
        _zero_cache[node] = cached
    return cached


def _zero_struct(node: SchemaNode, *, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if depth > 8:
        return out
    for key in node.required:
        sub = node.properties.get(key)
        if sub is None:
            continue
        out[key] = _zero_struct(sub, depth=depth + 1) if _shape(sub) == "struct" else None
    return out
