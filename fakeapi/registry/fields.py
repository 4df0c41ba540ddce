"""Keeps ``metadata.managedFields`` up to date on every write (server-side apply's bookkeeping).

Every create, update and patch records which manager set which fields (operation ``Update``);
server-side apply records ``Apply`` entries. The field-set algebra lives in ``fakeapi.patch``.

An entry keeps the apiVersion it was written at, and field paths of that version's shape. When a
kind is served at several versions whose shapes differ, a write compares the objects converted to
the version of each other entry to find what that entry loses, as upstream's field manager does
(:func:`fakeapi.patch.apply.update_managed_fields`, ``other_version``).

A kind with a status subresource has upstream's "reset fields": a write through the main resource
never owns (or takes) ``status``, and a write through ``status`` never owns ``spec``, whatever the
body holds, since the strategy puts the stored values back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.patch import update_managed_fields
from fakeapi.patch.fieldset import FieldSet
from fakeapi.patch.managed import managed_fields_to_start_from
from fakeapi.registry.resource_table import ResourceTable, ResourceType
from fakeapi.schema import SchemaNode

__all__ = ["ManagedFieldsTracker", "reset_fields"]

_STATUS = FieldSet.from_paths(("f:status",))
_SPEC = FieldSet.from_paths(("f:spec",))


def reset_fields(rt: ResourceType, subresource: str) -> FieldSet | None:
    """The fields a write through ``subresource`` of ``rt`` never owns (None: no such fields)."""
    if not rt.strategy.status_subresource:
        return None
    if subresource == "status":
        return _SPEC
    return None if subresource else _STATUS


Convert = Callable[[dict[str, Any]], dict[str, Any]]


class ManagedFieldsTracker:
    def __init__(self, resources: ResourceTable | None = None) -> None:
        self._resources = resources
        #: row -> how to reach the kind's other versions (None: it has none of another shape)
        self._versions: dict[int, Callable[[str], tuple[Convert, SchemaNode] | None] | None] = {}

    def _other_versions(
        self, rt: ResourceType
    ) -> Callable[[str], tuple[Convert, SchemaNode] | None] | None:
        if self._resources is None:
            return None
        if id(rt) in self._versions:
            return self._versions[id(rt)]
        siblings = {
            other.api_version: other
            for other in self._resources
            if other is not rt
            and other.kind == rt.kind
            and other.storage_key == rt.storage_key
            and other.model_reference != rt.model_reference
        }
        result = None
        if siblings:
            to_storage = rt.converter.to_storage if rt.converter is not None else None

            def other_version(api_version: str) -> tuple[Convert, SchemaNode] | None:
                other = siblings.get(api_version)
                if other is None:
                    return None
                from_storage = other.converter.from_storage if other.converter else None

                def convert(obj: dict[str, Any]) -> dict[str, Any]:
                    stored = to_storage(obj) if to_storage is not None else obj
                    return from_storage(stored) if from_storage is not None else stored

                return convert, other.schema

            result = other_version
        self._versions[id(rt)] = result
        return result

    def track(
        self,
        rt: ResourceType,
        old: dict[str, Any] | None,
        new: dict[str, Any],
        *,
        manager: str,
        operation: str,
        now: str,
        subresource: str,
    ) -> None:
        """Update ``new["metadata"]["managedFields"]`` for a write by ``manager``."""
        if operation == "Apply" or not manager:
            return
        meta = new["metadata"]
        current, decoded = managed_fields_to_start_from(
            live=(old or {}).get("metadata", {}).get("managedFields"),
            request=meta.get("managedFields"),
            subresource=subresource,
        )
        fields = update_managed_fields(
            old=old,
            new=new,
            manager=manager,
            managed_fields=list(current or []),
            decoded=decoded,
            schema=rt.schema,
            api_version=rt.api_version,
            now=now,
            subresource=subresource,
            operation=operation,
            ignored_fields=reset_fields(rt, subresource),
            other_version=self._other_versions(rt),
        )
        if fields:
            meta["managedFields"] = fields
        else:
            meta.pop("managedFields", None)
