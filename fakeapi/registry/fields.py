"""Keeps ``metadata.managedFields`` up to date on every write (server-side apply's bookkeeping).

Every create, update and patch records which manager set which fields (operation ``Update``);
server-side apply records ``Apply`` entries. The field-set algebra lives in ``fakeapi.patch``.

A kind with a status subresource has upstream's "reset fields": a write through the main resource
never owns (or takes) ``status``, and a write through ``status`` never owns ``spec``, whatever the
body holds, since the strategy puts the stored values back.
"""

from __future__ import annotations

from typing import Any

from fakeapi.patch import update_managed_fields
from fakeapi.patch.fieldset import FieldSet
from fakeapi.patch.managed import managed_fields_to_start_from
from fakeapi.registry.resource_table import ResourceType

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


class ManagedFieldsTracker:
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
        )
        if fields:
            meta["managedFields"] = fields
        else:
            meta.pop("managedFields", None)
