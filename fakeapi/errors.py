"""Errors that become ``kind: Status`` responses, with upstream codes, reasons and messages.

Every rejection anywhere in the server (HTTP handlers, the registry, the in-process client) is a
:class:`StatusError`; the HTTP layer renders :meth:`StatusError.status` as the body and the
in-process transport raises it as is, so both transports fail identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "StatusError",
    "bad_request",
    "not_found",
    "already_exists",
    "conflict",
    "invalid",
    "expired",
    "gone",
    "method_not_allowed",
    "unsupported_media_type",
    "request_entity_too_large",
    "not_acceptable",
    "forbidden",
    "internal_error",
    "timeout",
    "FieldCause",
]

FieldCause = dict[str, str]


class StatusError(Exception):
    """An API error: HTTP ``code``, machine ``reason``, human ``message`` and optional details."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        list_meta: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        #: the Status's own ``metadata`` (a ListMeta: the continue token of an expired page)
        self.list_meta = list_meta

    def status(self) -> dict[str, Any]:
        """The ``meta/v1 Status`` body."""
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": dict(self.list_meta or {}),
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body

    def __repr__(self) -> str:
        return f"StatusError({self.code}, {self.reason!r}, {self.message!r})"


def _qualified(resource: str, group: str) -> str:
    return f"{resource}.{group}" if group else resource


def _details(name: str, group: str, kind: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name} if name else {}  # omitempty, as upstream
    if group:
        details["group"] = group
    details["kind"] = kind
    return details


def bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message)


def not_found(*, resource: str, group: str, name: str) -> StatusError:
    """``pods "x" not found``; ``details.kind`` is the plural resource, as upstream."""
    return StatusError(
        404,
        "NotFound",
        f'{_qualified(resource, group)} "{name}" not found',
        _details(name, group, resource),
    )


def already_exists(*, resource: str, group: str, name: str) -> StatusError:
    return StatusError(
        409,
        "AlreadyExists",
        f'{_qualified(resource, group)} "{name}" already exists',
        _details(name, group, resource),
    )


def conflict(*, resource: str, group: str, name: str, detail: str | None = None) -> StatusError:
    """A stale resourceVersion or a failed precondition (409 Conflict)."""
    detail = detail or (
        "the object has been modified; please apply your changes to the latest version and "
        "try again"
    )
    return StatusError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {_qualified(resource, group)} "{name}": {detail}',
        _details(name, group, resource),
    )


def invalid(*, kind: str, group: str, name: str, causes: Sequence[FieldCause]) -> StatusError:
    """422 Invalid: ``<Kind>.<group> "name" is invalid: <errors>`` with one cause per error.

    The message names each distinct error once (upstream's ``ErrorList.ToAggregate``), while
    the causes keep every one."""
    rendered = list(
        dict.fromkeys(
            f"{c['field']}: {c['message']}" if c.get("field") else c["message"] for c in causes
        )
    )
    summary = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    details = _details(name, group, kind)
    details["causes"] = list(causes)
    return StatusError(
        422, "Invalid", f'{_qualified(kind, group)} "{name}" is invalid: {summary}', details
    )


def expired(message: str, *, continue_token: str = "") -> StatusError:
    """410 Expired; ``continue_token``: one that continues the list at the newest version."""
    return StatusError(
        410, "Expired", message, list_meta={"continue": continue_token} if continue_token else None
    )


def gone(message: str) -> StatusError:
    return StatusError(410, "Gone", message)


def method_not_allowed(message: str) -> StatusError:
    return StatusError(405, "MethodNotAllowed", message)


def unsupported_media_type(content_type: str, why: str = "") -> StatusError:
    """415 in upstream's words; ``why`` says what about a body of an accepted type could not be
    read (a protobuf message this server has no decoder for)."""
    got = f"{content_type!r}: {why}" if why else repr(content_type)
    return StatusError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf"
        + (f" (got {got})" if content_type else ""),
    )


def request_entity_too_large(message: str) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", message)


def not_acceptable(message: str) -> StatusError:
    return StatusError(406, "NotAcceptable", message)


def forbidden(
    *, resource: str, group: str, name: str, message: str, causes: Sequence[FieldCause] = ()
) -> StatusError:
    details = _details(name, group, resource)
    if causes:
        details["causes"] = list(causes)
    return StatusError(
        403, "Forbidden", f'{_qualified(resource, group)} "{name}" is forbidden: {message}', details
    )


def internal_error(message: str) -> StatusError:
    return StatusError(500, "InternalError", f"Internal error occurred: {message}")


def timeout(message: str) -> StatusError:
    return StatusError(504, "Timeout", message)


def too_large_resource_version(requested: int, current: int) -> StatusError:
    """A read asked for a resourceVersion the server has not reached: upstream's
    ``NewTooLargeResourceVersionError`` (a Timeout, retry after 1 s, with a cause that client-go
    recognises)."""
    return StatusError(
        504,
        "Timeout",
        f"Timeout: Too large resource version: {requested}, current: {current}",
        {
            "causes": [
                {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
            ],
            "retryAfterSeconds": 1,
        },
    )
