"""The options of registry operations, independent of how they arrived (HTTP query or in-process).

Selectors are already parsed here; parsing and validating query strings is the HTTP layer's job
(``fakeapi.server.params``), so the in-process client builds these directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fakeapi.auth.user import UserInfo
from fakeapi.selectors import FieldSelector, LabelSelector

__all__ = [
    "FieldValidation",
    "WriteOptions",
    "DeleteOptions",
    "ListOptions",
    "WatchOptions",
    "Preconditions",
    "ReadOptions",
]

FieldValidation = Literal["Strict", "Warn", "Ignore"]


@dataclass(frozen=True, slots=True)
class WriteOptions:
    dry_run: bool = False
    field_manager: str = ""
    #: upstream's default when the parameter is absent is Warn
    field_validation: FieldValidation = "Warn"
    #: duplicate fields the decoder found in the body (reported like unknown fields)
    duplicate_fields: tuple[str, ...] = ()
    #: server-side apply: take ownership of conflicting fields
    force: bool = False
    #: who writes, when the server authenticates (None: authentication is off, or a trusted
    #: in-process client), and the request's verb (``update``, ``patch``) as authorized
    user: UserInfo | None = None
    verb: str = ""


@dataclass(frozen=True, slots=True)
class Preconditions:
    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    dry_run: bool = False
    grace_period_seconds: int | None = None
    preconditions: Preconditions | None = None
    propagation_policy: Literal["Orphan", "Background", "Foreground"] | None = None
    #: who deletes (see :attr:`WriteOptions.user`)
    user: UserInfo | None = None


@dataclass(frozen=True, slots=True)
class ListOptions:
    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    limit: int = 0
    continue_token: str = ""
    resource_version: str = ""
    resource_version_match: Literal["", "Exact", "NotOlderThan"] = ""


@dataclass(frozen=True, slots=True)
class WatchOptions:
    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    resource_version: str = ""
    resource_version_match: Literal["", "Exact", "NotOlderThan"] = ""
    allow_bookmarks: bool = False
    send_initial_events: bool | None = None


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """What a read of a subresource answered from the object asks for (``pods/log``)."""

    #: the container whose log is read ("" when the request names none)
    container: str = ""
    #: the log of the container's previous, terminated instance
    previous: bool = False
    #: keep the read open while the subresource may still grow (``kubectl logs -f``)
    follow: bool = False
    #: PodLogOptions that only limit what is shown (validated; the simulated log is empty)
    tail_lines: int | None = None
    limit_bytes: int | None = None
    since_seconds: int | None = None
    since_time: str | None = None
