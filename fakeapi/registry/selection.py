"""Which objects a list or watch selects: label and field selectors turned into one predicate.

Field selectors are checked against the labels the kind declares (``Strategy.field_labels``) plus
``metadata.name`` and ``metadata.namespace``; anything else is refused with upstream's message
before any object is looked at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi import errors
from fakeapi.registry.resource_table import ResourceType
from fakeapi.selectors import FieldSelector, LabelSelector

__all__ = ["build_predicate", "field_values", "check_field_selector"]

Predicate = Callable[[dict[str, Any]], bool]
_META_FIELDS = ("metadata.name", "metadata.namespace")


def check_field_selector(rt: ResourceType, selector: FieldSelector | None) -> None:
    if selector is None:
        return
    supported = rt.strategy.field_labels
    for name in sorted(selector.fields):
        if name not in _META_FIELDS and name not in supported:
            raise errors.bad_request(f"field label not supported: {name}")


def field_values(rt: ResourceType, obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") or {}
    values = {
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
    }
    if rt.strategy.field_labels:
        values.update(rt.strategy.selectable_fields(obj))
    return values


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

    def selected(obj: dict[str, Any]) -> bool:
        if label_sel is not None and not label_sel.matches(
            (obj.get("metadata") or {}).get("labels") or {}
        ):
            return False
        assert field_sel is not None
        return field_sel.matches(field_values(rt, obj))

    return selected
