"""Reply shapes shared by the HTTP handlers and the in-process transport.

Both transports must answer identically, so the bodies that are not stored objects — the
``Status`` of a successful delete or subresource POST, and the errors of URLs that name nothing —
are built here once.
"""

from __future__ import annotations

from typing import Any

from fakeapi import errors
from fakeapi.registry.results import DeleteResult
from fakeapi.resources import ResourceType

__all__ = ["url_not_found", "method_not_allowed", "success_status", "delete_reply"]


def url_not_found() -> errors.StatusError:
    return errors.StatusError(
        404, "NotFound", "the server could not find the requested resource", {}
    )


def method_not_allowed(method: str) -> errors.StatusError:
    return errors.method_not_allowed(
        f"the server does not allow this method on the requested resource ({method})"
    )


def success_status(
    *, code: int | None = None, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
    }
    if details is not None:
        body["details"] = details
    if code is not None:
        body["code"] = code
    return body


def delete_reply(rt: ResourceType, result: DeleteResult) -> bytes | dict[str, Any]:
    """What a DELETE answers: the object's bytes (for the kinds whose upstream API returns it,
    and while deletion is pending), or a ``Status`` naming what was deleted."""
    if rt.delete_returns_object or not result.deleted:
        return result.raw
    meta = result.obj.get("metadata") or {}
    details: dict[str, Any] = {"name": meta.get("name", "")}
    if rt.group:
        details["group"] = rt.group
    details["kind"] = rt.plural
    details["uid"] = meta.get("uid", "")
    return success_status(details=details)
