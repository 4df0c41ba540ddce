"""Server-side apply (``application/apply-patch+yaml``): merge a manager's configuration.

The field-set algebra and conflict detection live in ``fakeapi.patch.apply``; this module fetches
the live object, applies, and hands the result to the registry's normal create or update path, so
an apply is validated, versioned and watched like any other write. A missing object is created
(create-on-apply); ``status`` applies go through the status subresource.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi import errors
from fakeapi.patch.apply import apply_patch
from fakeapi.registry.decode import decode_object
from fakeapi.registry.fields import reset_fields
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.results import WriteResult
from fakeapi.registry.store import GenericStore
from fakeapi.server.routing import Target
from fakeapi.timefmt import format_time

__all__ = ["server_side_apply"]


def _set_managed(obj: dict[str, Any], managed: list[dict[str, Any]]) -> None:
    meta = obj.setdefault("metadata", {})
    if managed:
        meta["managedFields"] = managed
    else:
        meta.pop("managedFields", None)


def server_side_apply(
    registry: GenericStore, target: Target, *, config: Any, options: WriteOptions
) -> WriteResult:
    rt = target.resource
    assert target.name is not None
    if not isinstance(config, dict):
        raise errors.bad_request("the body of an apply patch must be an object")
    if config.get("apiVersion") != rt.api_version or config.get("kind") != rt.kind:
        group, _, version = str(config.get("apiVersion") or "").rpartition("/")
        raise errors.bad_request(
            f"invalid object type: {group}/{version}, Kind={config.get('kind') or ''}"
        )
    config, warnings = decode_object(rt, config, options, patch=True)
    meta = config.get("metadata") or {}
    if meta.get("name") and meta["name"] != target.name:
        raise errors.bad_request(
            f"the name of the object ({meta['name']}) does not match the name on the URL "
            f"({target.name})"
        )
    namespace = meta.get("namespace")
    if rt.namespaced and namespace and target.namespace and namespace != target.namespace:
        raise errors.bad_request(  # upstream's checkName
            f"the namespace of the object ({namespace}) does not match the namespace on the "
            f"request ({target.namespace})"
        )
    config.setdefault("metadata", {})["name"] = target.name
    now = format_time(registry.clock.now())
    current = registry.find(rt, target.namespace, target.name)
    if current is None:
        if target.subresource:
            raise errors.not_found(resource=rt.plural, group=rt.group, name=target.name)
        new, managed = apply_patch(
            live=None, config=config, manager=options.field_manager, managed_fields=[],
            schema=rt.schema, force=options.force, api_version=rt.api_version, now=now,
            ignored_fields=reset_fields(rt, ""),
        )
        _set_managed(new, managed)
        result = registry.create_object(rt, target.namespace, new, options, warnings,
                                        operation="Apply")
        return result
    live: dict[str, Any] = orjson.loads(current.raw)
    new, managed = apply_patch(
        live=live, config=config, manager=options.field_manager,
        managed_fields=list(live.get("metadata", {}).get("managedFields") or []),
        schema=rt.schema, force=options.force, api_version=rt.api_version, now=now,
        subresource=target.subresource, ignored_fields=reset_fields(rt, target.subresource),
    )
    _set_managed(new, managed)
    precondition = meta.get("resourceVersion") or None
    return registry.write_update(
        rt, current, new, options, subresource=target.subresource, precondition=precondition,
        warnings=warnings, operation="Apply",
    )
