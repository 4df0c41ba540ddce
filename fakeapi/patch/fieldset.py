"""Field sets: the paths of an object a manager owns, and their FieldsV1 encoding.

A set is a trie keyed by *path elements* in their FieldsV1 spelling, exactly as upstream's
structured-merge-diff writes them:

* ``f:<name>`` — a field of a struct or a key of a map;
* ``k:{"name":"c"}`` — an item of a map-list, by its key fields (sorted, compact JSON);
* ``v:"x"`` — an item of a set-list, by its value;
* ``i:3`` — an item of a list by position (only read, never produced here).

Keeping elements as canonical strings makes sets plain dicts and Python sets: equality, hashing
and membership need no parsing. Each node has ``members`` (elements that are themselves owned)
and ``children`` (elements with owned descendants). In FieldsV1 JSON a member without children
is ``{}`` and a member with children carries ``".": {}`` among them; entries are written in
upstream's element order (fields, then keys, then values, then indexes, each sorted), so encoded
managedFields compare byte for byte with a real cluster's.

Sets are immutable once built: the algebra returns new sets that may share unchanged sub-trees,
and returns an operand itself when the result equals it. Every write decodes and re-encodes the
managedFields of the object it changes, so both directions are memoised: a decoded FieldsV1 object
is cached by its content (objects written by the same client mostly share a few shapes), and a
set keeps its own encoding once computed, so an entry nobody touched is not re-encoded.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import orjson

from fakeapi.patch.errors import go_escaped, go_json

__all__ = [
    "FieldSet",
    "Path",
    "element_sort_key",
    "field_element",
    "key_element",
    "path_string",
    "sorted_elements",
    "value_element",
]

#: A path from the object root, one encoded element per step.
Path = tuple[str, ...]


def field_element(name: str) -> str:
    return "f:" + name


def key_element(fields: dict[str, Any]) -> str:
    """``k:{...}`` for a map-list item whose key fields are ``fields`` (sorted by name)."""
    try:
        # each value's type is part of the memo key: ``true == 1`` in Python, not in JSON
        return _key_element(
            tuple((name, value.__class__, value) for name, value in sorted(fields.items()))
        )
    except TypeError:  # an unhashable key value
        return "k:" + go_json({name: fields[name] for name in sorted(fields)})


#: key values orjson writes as Go does (the usual keys: names, uids, ports)
_ORJSON_LIKE_GO = frozenset((str, int, bool))


@lru_cache(maxsize=8192)
def _key_element(items: tuple[tuple[str, type, Any], ...]) -> str:
    fields = {name: value for name, _, value in items}
    if all(kind in _ORJSON_LIKE_GO for _, kind, _ in items):
        try:
            text = orjson.dumps(fields).decode()
        except TypeError:  # an integer beyond 64 bits, a lone surrogate: the long way
            pass
        else:
            return "k:" + go_escaped(text)
    return "k:" + go_json(fields)


_SCALARS = frozenset((str, int, float, bool))


def value_element(value: Any) -> str:
    """``v:...`` for an item of a set list: a scalar's (the usual item) is memoised."""
    if value.__class__ in _SCALARS:
        return _scalar_element(value)
    return "v:" + go_json(value)


@lru_cache(maxsize=8192, typed=True)  # typed: ``True`` and ``1`` are different items
def _scalar_element(value: str | float | bool) -> str:
    return "v:" + go_json(value)


@lru_cache(maxsize=8192)
def _canonical(element: str) -> str | None:
    """``element`` respelled canonically; None for an unknown kind (dropped, as upstream)."""
    if len(element) < 2 or element[1] != ":":
        raise ValueError(f"invalid path element {element!r}")
    prefix, body = element[0], element[2:]
    if prefix == "f":
        return element
    if prefix == "k":
        fields = json.loads(body)
        if not isinstance(fields, dict):
            raise ValueError(f"invalid key path element {element!r}")
        return key_element(fields)
    if prefix == "v":
        return value_element(json.loads(body))
    if prefix == "i":
        return "i:" + str(int(body))
    return None


def _value_key(value: Any) -> tuple[Any, ...]:
    # structured-merge-diff's total order: numbers < strings < bools < lists < maps < null
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(_value_key(v) for v in value))
    if isinstance(value, dict):
        return (4, tuple((k, _value_key(value[k])) for k in sorted(value)))
    return (5,)


@lru_cache(maxsize=8192)
def element_sort_key(element: str) -> tuple[Any, ...]:
    """Upstream's PathElement order: fields < keys < values < indexes, each by content."""
    prefix, body = element[0], element[2:]
    if prefix == "f":
        return (0, body)
    if prefix == "k":
        fields = json.loads(body)
        return (1, tuple((name, _value_key(fields[name])) for name in sorted(fields)))
    if prefix == "v":
        return (2, _value_key(json.loads(body)))
    return (3, int(body))


def sorted_elements(elements: Iterable[str]) -> list[str]:
    """``elements`` in upstream's order (:func:`element_sort_key`).

    Most nodes hold field elements only, and those sort as plain strings (one shared ``f:``
    prefix): a plain sort that ends on a field element held nothing else, since ``f`` sorts
    before the other kinds' letters. A single element (an object's one owner reference, whose
    key is new with every object) needs no sort key at all.
    """
    ordered = sorted(elements)
    if len(ordered) < 2 or ordered[-1][0] == "f":
        return ordered
    return sorted(ordered, key=element_sort_key)


def _go_quote(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(_go_quote(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}={_go_quote(value[k])}" for k in sorted(value)) + "}"
    return str(value)


def _element_string(element: str) -> str:
    prefix, body = element[0], element[2:]
    if prefix == "f":
        return "." + body
    if prefix == "k":
        fields = json.loads(body)
        return "[" + ",".join(f"{k}={_go_quote(fields[k])}" for k in sorted(fields)) + "]"
    if prefix == "v":
        return "[=" + _go_quote(json.loads(body)) + "]"
    return "[" + body + "]"


def path_string(path: Sequence[str]) -> str:
    """A path as upstream prints it in conflicts: ``.spec.containers[name="c"].image``."""
    return "".join(_element_string(e) for e in path)


_DECODED_CACHE_SIZE = 4096
_decoded: OrderedDict[bytes, FieldSet] = OrderedDict()
#: encodings handed out for managedFields entries, by identity: a stored object's entries are
#: those very dicts (shared, never modified), so the next write of the object decodes them
#: without serialising them first. The dict is held, so its id cannot be reused while cached.
_ENTRY_CACHE_SIZE = 4096
_entries: dict[int, tuple[dict[str, Any], FieldSet]] = {}


class FieldSet:
    """A set of paths, stored as a trie of encoded path elements."""

    __slots__ = ("_fields_v1", "children", "members")

    def __init__(
        self, members: set[str] | None = None, children: dict[str, FieldSet] | None = None
    ) -> None:
        self.members: set[str] = members if members is not None else set()
        #: never holds an empty set
        self.children: dict[str, FieldSet] = children if children is not None else {}
        self._fields_v1: dict[str, Any] | None = None

    @classmethod
    def from_paths(cls, *paths: Sequence[str]) -> FieldSet:
        """A set of the given paths, e.g. ``FieldSet.from_paths(("f:status",))``."""
        out = cls()
        for path in paths:
            out.insert(path)
        return out

    def insert(self, path: Sequence[str]) -> None:
        """Add ``path`` (only while building a fresh set; sets are shared once built)."""
        if not path:
            return  # upstream does not track ownership of the whole object
        node = self
        for element in path[:-1]:
            child = node.children.get(element)
            if child is None:
                child = node.children[element] = FieldSet()
            node = child
        node.members.add(path[-1])

    def has(self, path: Sequence[str]) -> bool:
        node: FieldSet | None = self
        for element in path[:-1]:
            node = node.children.get(element) if node is not None else None
        return node is not None and bool(path) and path[-1] in node.members

    def is_empty(self) -> bool:
        return not self.members and not self.children

    def __bool__(self) -> bool:
        return not self.is_empty()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self.members == other.members and self.children == other.children

    __hash__ = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.members) + sum(len(c) for c in self.children.values())

    def __repr__(self) -> str:
        return f"FieldSet({[path_string(p) for p in self.paths()]})"

    def union(self, other: FieldSet) -> FieldSet:
        if other.is_empty():
            return self
        if self.is_empty():
            return other
        children: dict[str, FieldSet] | None = None
        for element, sub in other.children.items():
            mine = self.children.get(element)
            merged = sub if mine is None else mine.union(sub)
            if merged is not mine:
                if children is None:
                    children = dict(self.children)
                children[element] = merged
        if children is None and other.members <= self.members:
            return self
        return FieldSet(
            self.members | other.members, self.children if children is None else children
        )

    def intersection(self, other: FieldSet) -> FieldSet:
        children: dict[str, FieldSet] = {}
        for element, sub in self.children.items():
            theirs = other.children.get(element)
            if theirs is not None:
                common = sub.intersection(theirs)
                if common:
                    children[element] = common
        return FieldSet(self.members & other.members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths of ``self`` not in ``other`` (exact paths: descendants stay)."""
        theirs = other.children
        if not other.members and not theirs:
            return self
        mine = self.children
        common = mine.keys() & theirs.keys() if theirs and mine else ()
        children: dict[str, FieldSet] | None = None
        for element in common:
            sub = mine[element]
            rest = sub.difference(theirs[element])
            if rest is not sub:
                if children is None:
                    children = dict(mine)
                if rest:
                    children[element] = rest
                else:
                    del children[element]
        if children is None:
            if self.members.isdisjoint(other.members):
                return self
            children = mine
        return FieldSet(self.members - other.members, children)

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Paths of ``self`` that neither are in ``other`` nor lie under a path of ``other``
        (``self`` itself when that is all of it, as the other operations return an operand)."""
        removed = other.members
        if (
            removed.isdisjoint(self.members)
            and removed.isdisjoint(self.children)
            and other.children.keys().isdisjoint(self.children)
        ):
            return self  # the usual case: a write's reset fields hold nothing it changed
        children: dict[str, FieldSet] = {}
        for element, sub in self.children.items():
            if element in other.members:
                continue
            theirs = other.children.get(element)
            if theirs is None:
                children[element] = sub
            else:
                rest = sub.recursive_difference(theirs)
                if rest:
                    children[element] = rest
        return FieldSet(self.members - other.members, children)

    def paths(self, prefix: Path = ()) -> Iterator[Path]:
        """Every path, in upstream's iteration order (members of a node, then its children)."""
        for element in sorted_elements(self.members):
            yield (*prefix, element)
        for element in sorted_elements(self.children):
            yield from self.children[element].paths((*prefix, element))

    def to_fields_v1(self) -> dict[str, Any]:
        """The FieldsV1 JSON object, keys in upstream's order (shared: do not modify it).

        Every node keeps its own encoding, so a set built by the algebra from shared sub-trees
        (a union that touched one branch) encodes only the nodes that are new.
        """
        encoded = self._fields_v1
        if encoded is None:
            encoded = self._fields_v1 = self._emit()
        return encoded

    def _emit(self) -> dict[str, Any]:
        members = self.members
        children = self.children
        if not children:
            return {element: {} for element in sorted_elements(members)}
        out: dict[str, Any] = {}
        elements: Iterable[str] = sorted_elements(members | children.keys())
        for element in elements:
            child = children.get(element)
            if child is None:
                out[element] = {}
            elif element in members:
                out[element] = {".": {}, **child.to_fields_v1()}
            else:
                out[element] = child.to_fields_v1()
        return out

    def entry_fields_v1(self) -> dict[str, Any]:
        """:meth:`to_fields_v1` for a managedFields entry: :meth:`from_fields_v1` of the very
        dict returned answers this set without reading it."""
        encoded = self.to_fields_v1()
        key = id(encoded)
        if key not in _entries:
            if len(_entries) >= _ENTRY_CACHE_SIZE:
                _entries.clear()  # cheaper than an order of use: a miss is only the long way
            _entries[key] = (encoded, self)
        return encoded

    @classmethod
    def from_fields_v1(cls, data: Any) -> FieldSet:
        """Decode a FieldsV1 object; ValueError if it is not one. Unknown element kinds drop."""
        if not isinstance(data, dict):
            raise ValueError("FieldsV1 must be a JSON object")
        handed_out = _entries.get(id(data))
        if handed_out is not None and handed_out[0] is data:
            return handed_out[1]
        try:
            content = orjson.dumps(data)
        except TypeError:  # not JSON (an integer beyond 64 bits): decoded, not cached
            content = None
        if content is not None:
            cached = _decoded.get(content)
            if cached is not None:
                _decoded.move_to_end(content)
                return cached
        found = cls._read(data)
        decoded = found if found is not None else cls()
        if content is not None:
            _decoded[content] = decoded
            if len(_decoded) > _DECODED_CACHE_SIZE:
                _decoded.popitem(last=False)
        return decoded

    @classmethod
    def _read(cls, data: dict[str, Any]) -> FieldSet | None:
        out: FieldSet | None = None
        for raw, value in data.items():
            if raw == ".":
                continue
            if not isinstance(value, dict):
                raise ValueError(f"FieldsV1 entry {raw!r} is not an object")
            try:
                element = _canonical(raw)
            except (ValueError, json.JSONDecodeError) as exc:
                raise ValueError(f"parsing key as path element: {exc}") from None
            if element is None:
                continue
            grandchildren = cls._read(value)
            if out is None:
                out = cls()
            if grandchildren is None or "." in value:
                out.members.add(element)
            if grandchildren is not None:
                existing = out.children.get(element)
                out.children[element] = (
                    grandchildren if existing is None else existing.union(grandchildren)
                )
        return out
