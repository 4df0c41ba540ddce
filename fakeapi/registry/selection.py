"""Which objects a list or watch selects: label and field selectors turned into one predicate.

Field selectors are checked against the labels the kind declares (``Strategy.field_labels``) plus
``metadata.name`` and ``metadata.namespace``; anything else is refused with upstream's message
before any object is looked at.

A write is offered to every watcher of its resource, and each one with a field selector reads the
new and the old state's field values. Computing them is the costly part (a pod has eight), so the
values of the last two objects asked about are remembered per resource and shared by all
predicates: one write computes them once, however many watchers look. Objects handed to
predicates are stored versions, which nobody mutates, so identity is a safe key (the memo holds
them, so their identities cannot be reused). Watchers whose selector pins a field to one value
also get a :class:`~fakeapi.storage.watch.WatchIndex` (see :func:`watch_index`), so the storage
asks only the watchers of that value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from fakeapi import errors
from fakeapi.registry.resource_table import ResourceType
from fakeapi.selectors import FieldSelector, LabelSelector
from fakeapi.storage.watch import WatchIndex

__all__ = ["build_predicate", "field_values", "check_field_selector", "watch_index"]

Predicate = Callable[[dict[str, Any]], bool]
_META_FIELDS = frozenset(("metadata.name", "metadata.namespace"))


def check_field_selector(rt: ResourceType, selector: FieldSelector | None) -> None:
    """Refuse a field selector on a field the kind does not serve, in upstream's words: a kind
    without fields of its own converts with apimachinery's default (``metadata.name`` and
    ``metadata.namespace``); a kind with them has its own conversion, which knows
    ``metadata.namespace`` only when the kind is namespaced and names the kind outside the core
    group."""
    if selector is None:
        return
    supported = rt.strategy.field_labels
    for name in sorted(selector.fields):
        if not supported and not rt.strategy.custom_field_labels:
            if name not in _META_FIELDS:
                raise errors.bad_request(
                    f'"{name}" is not a known field selector: only "metadata.name", '
                    '"metadata.namespace"'
                )
            continue
        if name in supported or name == "metadata.name" or (
            name == "metadata.namespace" and rt.namespaced
        ):
            continue
        if rt.group and not rt.strategy.custom_field_labels:
            raise errors.bad_request(
                f"field label not supported for {rt.api_version}, Kind={rt.kind}: {name}"
            )
        raise errors.bad_request(f"field label not supported: {name}")


def _meta_values(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") or {}
    return {
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
    }


def field_values(rt: ResourceType, obj: dict[str, Any]) -> dict[str, str]:
    values = _meta_values(obj)
    if rt.strategy.field_labels:
        values.update(rt.strategy.selectable_fields(obj))
    return values


class _FieldValues:
    """``field_values`` of one resource, remembered for the last two objects asked about."""

    __slots__ = ("__weakref__", "_extractors", "_last", "_last_values", "_prev",
                 "_prev_values", "rt")

    def __init__(self, rt: ResourceType) -> None:
        self.rt = rt
        self._last: dict[str, Any] | None = None
        self._last_values: dict[str, str] = {}
        self._prev: dict[str, Any] | None = None
        self._prev_values: dict[str, str] = {}
        self._extractors: dict[str, Callable[[dict[str, Any]], str]] = {}

    def __call__(self, obj: dict[str, Any]) -> dict[str, str]:
        if obj is self._last:
            return self._last_values
        if obj is self._prev:
            return self._prev_values
        values = field_values(self.rt, obj)
        self._prev, self._prev_values = self._last, self._last_values
        self._last, self._last_values = obj, values
        return values

    def extractor(self, field: str) -> Callable[[dict[str, Any]], str]:
        """One reader of ``field`` per resource and field (the storage's index requires it)."""
        extract = self._extractors.get(field)
        if extract is None:

            def extract(obj: dict[str, Any]) -> str:
                return self(obj).get(field, "")

            self._extractors[field] = extract
        return extract


_VALUES: WeakKeyDictionary[ResourceType, _FieldValues] = WeakKeyDictionary()


def _values_of(rt: ResourceType) -> _FieldValues:
    values = _VALUES.get(rt)
    if values is None:
        values = _VALUES[rt] = _FieldValues(rt)
    return values


def watch_index(rt: ResourceType, fields: FieldSelector | None) -> WatchIndex | None:
    """Where the storage may file a watch with ``fields``: the first field pinned to a value."""
    if fields is None:
        return None
    for name, op, value in fields.requirements:
        if op == "=":
            return WatchIndex(name, value, _values_of(rt).extractor(name))
    return None


def build_predicate(
    rt: ResourceType, labels: LabelSelector | None, fields: FieldSelector | None
) -> Predicate | None:
    """One callable deciding whether an object is selected; None when everything is."""
    check_field_selector(rt, fields)
    label_sel = labels if labels is not None and not labels.empty else None
    field_sel = fields if fields is not None and not fields.empty else None
    if label_sel is None and field_sel is None:
        return None
    if field_sel is None:
        assert label_sel is not None
        matches = label_sel.matches

        def by_labels(obj: dict[str, Any]) -> bool:
            return matches((obj.get("metadata") or {}).get("labels") or {})

        return by_labels

    values_of: Callable[[dict[str, Any]], dict[str, str]] = (
        _meta_values if field_sel.fields <= _META_FIELDS else _values_of(rt)
    )
    fields_match = field_sel.matches

    def selected(obj: dict[str, Any]) -> bool:
        if label_sel is not None and not label_sel.matches(
            (obj.get("metadata") or {}).get("labels") or {}
        ):
            return False
        return fields_match(values_of(obj))

    return selected
