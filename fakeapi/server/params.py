"""Query parameters of list, watch, write and Table requests, parsed and validated once.

Handlers call one function per request shape and get a frozen, typed options object, or a
:class:`~fakeapi.errors.StatusError` carrying the status and text a real API server would send.
Upstream rejects in two stages and the stage decides the answer: a value that does not decode
(a bad integer, a bad boolean, a malformed selector) is 400 BadRequest with the decoder's
message; a decodable but inconsistent combination is 422 Invalid against the pseudo-kind
``ListOptions.meta.k8s.io`` (or ``CreateOptions``, ``UpdateOptions``, ``PatchOptions``,
``DeleteOptions``), named "". Parameters this server does not implement are ignored.

Booleans follow Go's ``strconv.ParseBool`` and reject anything else with 400, as the HTTP
contract requires (upstream's own query decoding is laxer: any value but ``0``/``false`` is true).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from fakeapi import errors
from fakeapi.selectors import (
    FieldSelector,
    LabelSelector,
    SelectorError,
    parse_field_selector,
    parse_label_selector,
)
from fakeapi.validation import field

__all__ = [
    "FIELD_MANAGER_MAX_LENGTH",
    "FieldValidation",
    "IncludeObject",
    "ListOptions",
    "WriteOptions",
    "WriteVerb",
    "parse_bool",
    "parse_include_object",
    "parse_int",
    "parse_list_options",
    "parse_write_options",
]

FieldValidation = Literal["Strict", "Warn", "Ignore"]
IncludeObject = Literal["None", "Metadata", "Object"]
WriteVerb = Literal["create", "update", "patch", "delete"]

FIELD_MANAGER_MAX_LENGTH: Final = 128
RESOURCE_VERSION_MATCH_NOT_OLDER_THAN: Final = "NotOlderThan"
RESOURCE_VERSION_MATCH_EXACT: Final = "Exact"

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_DECIMAL = re.compile(r"[+-]?[0-9]+")


def parse_bool(value: str) -> bool:
    """Go's ``strconv.ParseBool``; ValueError (with Go's message) for anything else."""
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f'strconv.ParseBool: parsing "{value}": invalid syntax')


def parse_int(value: str, *, bits: int = 64) -> int:
    """Go's ``strconv.ParseInt(value, 10, bits)``; ValueError (with Go's message) on failure."""
    if not _DECIMAL.fullmatch(value):
        raise ValueError(f'strconv.ParseInt: parsing "{value}": invalid syntax')
    number = int(value)
    if not -(1 << (bits - 1)) <= number < (1 << (bits - 1)):
        raise ValueError(f'strconv.ParseInt: parsing "{value}": value out of range')
    return number


def _all(query: Mapping[str, str], name: str) -> list[str]:
    """Every value of a repeated parameter (aiohttp's multidict), or the single one of a dict."""
    getall = getattr(query, "getall", None)
    if getall is not None:
        values: list[str] = getall(name, [])
        return values
    return [query[name]] if name in query else []


def _bool(query: Mapping[str, str], name: str) -> bool | None:
    raw = query.get(name)
    if raw is None:
        return None
    try:
        return parse_bool(raw)
    except ValueError as err:
        raise errors.bad_request(str(err)) from None


def _int(query: Mapping[str, str], name: str) -> int | None:
    raw = query.get(name)
    if raw is None:
        return None
    try:
        return parse_int(raw)
    except ValueError as err:
        raise errors.bad_request(str(err)) from None


def _invalid_options(kind: str, problems: Sequence[field.FieldError]) -> errors.StatusError:
    return errors.invalid(kind=kind, group="meta.k8s.io", name="", causes=field.causes(problems))


# --------------------------------------------------------------------------------------------
# List and watch.


@dataclass(frozen=True, slots=True)
class ListOptions:
    """What a list or watch request asked for (``metav1.ListOptions``)."""

    label_selector: LabelSelector
    field_selector: FieldSelector
    watch: bool = False
    allow_watch_bookmarks: bool = False
    resource_version: str = ""
    resource_version_match: str = ""
    timeout_seconds: int | None = None
    limit: int = 0
    """Page size; 0 (or negative) means no limit."""
    continue_token: str = ""
    send_initial_events: bool | None = None
    """None when the parameter was absent; ``false`` counts as given for validation."""

    @property
    def is_watch_list(self) -> bool:
        """A streaming list: initial ADDED events, then a bookmark marking their end."""
        return self.watch and self.send_initial_events is True and self.allow_watch_bookmarks


def _validate_list(opts: ListOptions) -> list[field.FieldError]:
    """Upstream's ValidateListOptions with the WatchList feature enabled."""
    problems: list[field.FieldError] = []
    match = opts.resource_version_match
    if opts.watch:
        if opts.send_initial_events is not None and match != RESOURCE_VERSION_MATCH_NOT_OLDER_THAN:
            problems.append(
                field.forbidden(
                    "resourceVersionMatch",
                    f"sendInitialEvents requires setting resourceVersionMatch to "
                    f"{RESOURCE_VERSION_MATCH_NOT_OLDER_THAN}",
                )
            )
        if match:
            if opts.send_initial_events is None:
                problems.append(
                    field.forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch "
                        "unless sendInitialEvents is provided",
                    )
                )
            if match != RESOURCE_VERSION_MATCH_NOT_OLDER_THAN:
                problems.append(
                    field.not_supported(
                        "resourceVersionMatch", match, [RESOURCE_VERSION_MATCH_NOT_OLDER_THAN]
                    )
                )
            if opts.continue_token:
                problems.append(
                    field.forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    )
                )
        return problems
    if match:
        if not opts.resource_version:
            problems.append(
                field.forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                )
            )
        if opts.continue_token:
            problems.append(
                field.forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                )
            )
        if match not in (RESOURCE_VERSION_MATCH_EXACT, RESOURCE_VERSION_MATCH_NOT_OLDER_THAN):
            problems.append(
                field.not_supported(
                    "resourceVersionMatch",
                    match,
                    [RESOURCE_VERSION_MATCH_EXACT, RESOURCE_VERSION_MATCH_NOT_OLDER_THAN, ""],
                )
            )
        if match == RESOURCE_VERSION_MATCH_EXACT and opts.resource_version == "0":
            problems.append(
                field.forbidden(
                    "resourceVersionMatch",
                    'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                )
            )
    if opts.send_initial_events is not None:
        problems.append(
            field.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")
        )
    return problems


def parse_list_options(query: Mapping[str, str], *, force_watch: bool = False) -> ListOptions:
    """Decode and validate list/watch parameters; ``force_watch`` for the legacy ``/watch/`` paths.

    Checks run in upstream's order: the scalar decodes (400), then the selectors (400), then the
    combination rules (422). Field names are not checked here: the caller knows which fields a
    kind supports and answers ``field label not supported: <field>`` itself.
    """
    watch = _bool(query, "watch") or force_watch
    allow_bookmarks = _bool(query, "allowWatchBookmarks") or False
    timeout_seconds = _int(query, "timeoutSeconds")
    limit = _int(query, "limit") or 0
    send_initial_events = _bool(query, "sendInitialEvents")
    try:
        label_selector = parse_label_selector(query.get("labelSelector", ""))
        field_selector = parse_field_selector(query.get("fieldSelector", ""))
    except SelectorError as err:
        raise errors.bad_request(err.message) from None
    opts = ListOptions(
        label_selector=label_selector,
        field_selector=field_selector,
        watch=watch,
        allow_watch_bookmarks=allow_bookmarks,
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        timeout_seconds=timeout_seconds,
        limit=limit,
        continue_token=query.get("continue", ""),
        send_initial_events=send_initial_events,
    )
    if problems := _validate_list(opts):
        raise _invalid_options("ListOptions", problems)
    return opts


# --------------------------------------------------------------------------------------------
# Writes.

_OPTIONS_KIND: Mapping[str, str] = {
    "create": "CreateOptions",
    "update": "UpdateOptions",
    "patch": "PatchOptions",
    "delete": "DeleteOptions",
}
_FIELD_VALIDATION_VALUES = ("", "Ignore", "Strict", "Warn")


@dataclass(frozen=True, slots=True)
class WriteOptions:
    """What a create, update, patch or delete asked for beyond its body."""

    dry_run: bool = False
    field_manager: str = ""
    field_validation: FieldValidation = "Warn"
    """How to treat unknown fields; ``Warn`` when the parameter is absent, as upstream."""
    force: bool | None = None
    """Server-side apply only: take over conflicting fields."""


def _go_char(ch: str) -> str:
    """Go's ``%#U`` of a non-printable rune, e.g. ``U+0007``."""
    return f"U+{ord(ch):04X}"


def _validate_field_manager(manager: str) -> list[field.FieldError]:
    problems: list[field.FieldError] = []
    if len(manager.encode()) > FIELD_MANAGER_MAX_LENGTH:
        problems.append(field.too_long("fieldManager", FIELD_MANAGER_MAX_LENGTH))
    position = 0
    for ch in manager:
        if not ch.isprintable():
            problems.append(
                field.invalid(
                    "fieldManager",
                    manager,
                    f"invalid character {_go_char(ch)} (at position {position})",
                )
            )
        position += len(ch.encode())
    return problems


def parse_write_options(
    query: Mapping[str, str], *, verb: WriteVerb, apply_patch: bool = False
) -> WriteOptions:
    """Decode and validate ``dryRun``, ``fieldManager``, ``fieldValidation`` and ``force``.

    ``verb`` names the upstream options kind in 422 messages; ``apply_patch`` marks a
    server-side apply PATCH, which requires a field manager and alone may carry ``force``.
    DELETE carries only ``dryRun`` (its other options arrive in the body).
    """
    force = _bool(query, "force") if verb == "patch" else None
    dry_run_values = _all(query, "dryRun")
    manager = query.get("fieldManager", "") if verb != "delete" else ""
    validation = query.get("fieldValidation", "") if verb != "delete" else ""
    problems: list[field.FieldError] = []
    if verb == "patch":
        if apply_patch and not manager:
            problems.append(field.required("fieldManager", "is required for apply patch"))
        if not apply_patch and force is not None:
            problems.append(field.forbidden("force", "may not be specified for non-apply patch"))
    problems += _validate_field_manager(manager)
    if any(value != "All" for value in dry_run_values):
        problems.append(field.not_supported("dryRun", dry_run_values, ["All"]))
    if validation not in _FIELD_VALIDATION_VALUES:
        problems.append(
            field.not_supported("fieldValidation", validation, _FIELD_VALIDATION_VALUES)
        )
    if problems:
        raise _invalid_options(_OPTIONS_KIND[verb], problems)
    mode: FieldValidation = "Warn"
    if validation in ("Strict", "Ignore"):
        mode = "Strict" if validation == "Strict" else "Ignore"
    return WriteOptions(
        dry_run=bool(dry_run_values), field_manager=manager, field_validation=mode, force=force
    )


# --------------------------------------------------------------------------------------------
# Tables.


def parse_include_object(query: Mapping[str, str]) -> IncludeObject:
    """What a Table row's ``object`` holds: ``Metadata`` unless the request says otherwise."""
    value = query.get("includeObject", "")
    if value in ("", "Metadata"):
        return "Metadata"
    if value == "None":
        return "None"
    if value == "Object":
        return "Object"
    problem = field.invalid(
        "includeObject", value, "must be 'Metadata', 'Object', 'None', or empty"
    )
    raise errors.bad_request(f"Unable to convert to Table as requested: {problem}")
