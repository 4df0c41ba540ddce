"""Decode the protobuf body of ``POST pods/{name}/eviction`` (policy/v1 Eviction).

``kubectl drain`` evicts through the typed clientset, which sends protobuf; this adds the Eviction
message (metadata and ``deleteOptions``) to the hand-written decoder in
:mod:`fakeapi.server.protobuf`. Pointer fields (``gracePeriodSeconds``, ``orphanDependents``)
are read by presence, as Go writes them only when set, so an explicit ``0`` grace period
survives.
"""

from __future__ import annotations

from typing import Any

from fakeapi.server.protobuf_reader import (
    Field,
    ProtobufDecodeError,
    as_int64,
    as_message,
    as_number,
    as_text,
    is_empty,
    read_fields,
)

__all__ = ["decode_eviction"]


def _preconditions(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, _, value in read_fields(data):
        if number == 1 and (uid := as_text(value)):
            out["uid"] = uid
        elif number == 2 and (rv := as_text(value)):
            out["resourceVersion"] = rv
    return out


def _delete_options(data: bytes) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number == 1:
            options["gracePeriodSeconds"] = as_int64(value)
        elif number == 2:
            if pre := _preconditions(as_message(value)):
                options["preconditions"] = pre
        elif number == 3:
            options["orphanDependents"] = bool(as_number(value))
        elif number == 4:
            if policy := as_text(value):
                options["propagationPolicy"] = policy
        elif number == 5:
            options.setdefault("dryRun", []).append(as_text(value))
        elif number == 6:
            if as_number(value):
                options["ignoreStoreReadErrorWithClusterBreakingPotential"] = True
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(
                f"DeleteOptions field {number} in protobuf is not supported"
            )
    return options


def decode_eviction(fields: list[Field], obj: dict[str, Any]) -> None:
    """Fill ``obj`` (metadata already decoded) from the Eviction's remaining fields."""
    for number, wire, value in fields:
        if number == 2:
            obj["deleteOptions"] = _delete_options(as_message(value))
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"Eviction field {number} in protobuf is not supported")
