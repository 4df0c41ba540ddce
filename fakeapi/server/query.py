"""Query parameters → registry options.

``fakeapi.server.params`` decodes and validates parameters with upstream's messages; this module
turns the result into the transport-independent options the registry takes. Unknown parameters
are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal, cast

from fakeapi import errors
from fakeapi.registry.options import (
    DeleteOptions,
    ListOptions,
    Preconditions,
    ReadOptions,
    WatchOptions,
    WriteOptions,
)
from fakeapi.server.params import (
    WriteVerb,
    parse_bool,
    parse_include_object,
    parse_int,
    parse_list_options,
    parse_write_options,
)

Match = Literal["", "Exact", "NotOlderThan"]
Propagation = Literal["Orphan", "Background", "Foreground"] | None

__all__ = [
    "flag",
    "list_options",
    "watch_options",
    "write_options",
    "delete_options",
    "timeout_seconds",
    "include_object",
]


def flag(query: Mapping[str, str], name: str) -> bool:
    value = query.get(name)
    if value is None or value == "":
        return False
    try:
        return parse_bool(value)
    except ValueError:
        raise errors.bad_request(
            f'strconv.ParseBool: parsing "{value}": invalid syntax (parameter {name})'
        ) from None


def read_options(query: Mapping[str, str]) -> ReadOptions:
    """``PodLogOptions`` from the query (its other flags checked, their effect nil: simulated
    containers print nothing, so there are no timestamps to add)."""
    for name in ("timestamps", "insecureSkipTLSVerifyBackend"):
        flag(query, name)
    return ReadOptions(
        container=query.get("container", ""),
        previous=flag(query, "previous"),
        follow=flag(query, "follow"),
        tail_lines=_int(query, "tailLines"),
        limit_bytes=_int(query, "limitBytes"),
        since_seconds=_int(query, "sinceSeconds"),
        since_time=query.get("sinceTime") or None,
    )


def list_options(query: Mapping[str, str]) -> ListOptions:
    parsed = parse_list_options(query)
    return ListOptions(
        label_selector=parsed.label_selector,
        field_selector=parsed.field_selector,
        limit=max(parsed.limit, 0),
        continue_token=parsed.continue_token,
        resource_version=parsed.resource_version,
        resource_version_match=cast(Match, parsed.resource_version_match),
    )


def watch_options(query: Mapping[str, str], *, watch_path: bool = False) -> WatchOptions:
    parsed = parse_list_options(query, force_watch=watch_path)
    return WatchOptions(
        label_selector=parsed.label_selector,
        field_selector=parsed.field_selector,
        resource_version=parsed.resource_version,
        resource_version_match=cast(Match, parsed.resource_version_match),
        allow_bookmarks=parsed.allow_watch_bookmarks,
        send_initial_events=parsed.send_initial_events,
    )


def _int(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if not value:
        return None
    try:
        return parse_int(value)
    except ValueError as exc:
        raise errors.bad_request(str(exc)) from None


def timeout_seconds(query: Mapping[str, str]) -> int | None:
    return _int(query, "timeoutSeconds")


def include_object(query: Mapping[str, str]) -> str:
    return parse_include_object(query)


def write_options(
    query: Mapping[str, str],
    *,
    verb: WriteVerb,
    apply_patch: bool = False,
    duplicates: tuple[str, ...] = (),
) -> WriteOptions:
    """The options of a create, update or patch; 422 for bad parameters.

    A component sends the same few parameter sets on every write, so a query with one value per
    name (the in-process client's dict; an HTTP request's multidict, nearly always) is parsed
    once per distinct set; the options are immutable. A multidict that repeats a name (``dryRun``
    twice) is parsed every time.
    """
    items = tuple(query.items())
    if type(query) is dict or len({name for name, _ in items}) == len(items):
        return _write_options_of(items, verb, apply_patch, duplicates)
    return _write_options(query, verb=verb, apply_patch=apply_patch, duplicates=duplicates)


@lru_cache(maxsize=512)
def _write_options_of(
    items: tuple[tuple[str, str], ...],
    verb: WriteVerb,
    apply_patch: bool,
    duplicates: tuple[str, ...],
) -> WriteOptions:
    return _write_options(dict(items), verb=verb, apply_patch=apply_patch, duplicates=duplicates)


def _write_options(
    query: Mapping[str, str],
    *,
    verb: WriteVerb,
    apply_patch: bool,
    duplicates: tuple[str, ...],
) -> WriteOptions:
    parsed = parse_write_options(query, verb=verb, apply_patch=apply_patch)
    return WriteOptions(
        dry_run=parsed.dry_run,
        field_manager=parsed.field_manager,
        field_validation=parsed.field_validation,
        duplicate_fields=duplicates,
        force=bool(parsed.force),
    )


def _dry_run(query: Mapping[str, str]) -> bool:
    return parse_write_options(query, verb="delete").dry_run


def delete_options(query: Mapping[str, str], body: Any) -> DeleteOptions:
    body = body if isinstance(body, dict) else {}
    grace = body.get("gracePeriodSeconds")
    qgrace = _int(query, "gracePeriodSeconds")
    if qgrace is not None:
        grace = qgrace
    policy = query.get("propagationPolicy") or body.get("propagationPolicy")
    orphan = body.get("orphanDependents")
    if query.get("orphanDependents"):
        orphan = flag(query, "orphanDependents")
    if orphan is not None and policy is not None:  # upstream's ValidateDeleteOptions
        raise errors.StatusError(
            422,
            "Invalid",
            f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: '
            f'"{policy}": orphanDependents and deletionPropagation cannot be both set',
        )
    if orphan is not None:  # deprecated: true orphans, false deletes in the background
        policy = "Orphan" if orphan is True else "Background"
    if policy not in (None, "Orphan", "Background", "Foreground"):
        raise errors.StatusError(
            422,
            "Invalid",
            f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
            f'"{policy}": supported values: "Foreground", "Background", "Orphan", "nil"',
        )
    pre = body.get("preconditions") or None
    preconditions = None
    if isinstance(pre, dict):
        preconditions = Preconditions(
            uid=pre.get("uid"), resource_version=pre.get("resourceVersion")
        )
    dry = _dry_run(query) or bool(body.get("dryRun"))
    if grace is not None and not isinstance(grace, int):
        raise errors.bad_request("gracePeriodSeconds must be an integer")
    if grace is not None and grace < 0:  # upstream's BeforeDelete: a negative grace is 1 s
        grace = 1
    return DeleteOptions(
        dry_run=dry,
        grace_period_seconds=grace,
        preconditions=preconditions,
        propagation_policy=cast(Propagation, policy),
    )
