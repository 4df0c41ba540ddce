"""Server-side printing: ``meta.k8s.io/v1 Table`` for lists, single objects and watch events.

Not to be confused with the table of served kinds (:class:`fakeapi.resources.ResourceTable`) or
a resource's objects in storage (:class:`fakeapi.storage.interface.ResourceStore`).

Columns and cells come from the kind's strategy; rows carry ``PartialObjectMetadata`` by default,
the full object with ``includeObject=Object`` (kubectl's ``--sort-by``) or nothing with ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from fakeapi.resources import ResourceType

__all__ = ["render_table", "table_row"]


def table_row(rt: ResourceType, obj: dict[str, Any], now: datetime, include: str) -> dict[str, Any]:
    cells = []
    for column in rt.strategy.columns:
        try:
            cells.append(column.cell(obj, now))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            cells.append("<unknown>")
    row: dict[str, Any] = {"cells": cells}
    if include == "Object":
        row["object"] = obj
    elif include != "None":
        row["object"] = {
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata", {}),
        }
    return row


def render_table(
    rt: ResourceType,
    objects: Iterable[dict[str, Any]],
    *,
    now: datetime,
    include: str,
    resource_version: str = "",
    continue_token: str = "",
    remaining: int | None = None,
    columns: bool = True,
) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if resource_version:
        meta["resourceVersion"] = resource_version
    if continue_token:
        meta["continue"] = continue_token
    if remaining is not None:
        meta["remainingItemCount"] = remaining
    body: dict[str, Any] = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
    if columns:
        body["columnDefinitions"] = [c.definition() for c in rt.strategy.columns]
    body["rows"] = [table_row(rt, obj, now, include) for obj in objects]
    return body
