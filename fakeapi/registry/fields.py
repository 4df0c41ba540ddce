"""Keeps ``metadata.managedFields`` up to date on every write (server-side apply's bookkeeping).

Every create, update and patch records which manager set which fields (operation ``Update``);
server-side apply records ``Apply`` entries. The field-set algebra lives in ``fakeapi.patch``.
"""

from __future__ import annotations

from typing import Any

from fakeapi.patch import update_managed_fields
from fakeapi.patch.managed import managed_fields_to_start_from
from fakeapi.registry.resource_table import ResourceType

__all__ = ["ManagedFieldsTracker"]


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
        )
        if fields:
            meta["managedFields"] = fields
        else:
            meta.pop("managedFields", None)
