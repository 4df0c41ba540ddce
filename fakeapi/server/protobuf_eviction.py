"""Decode the protobuf body of ``POST pods/{name}/eviction`` (policy/v1 Eviction).

``kubectl drain`` evicts through the typed clientset, which sends protobuf; this adds the Eviction
message (metadata and ``deleteOptions``) to the hand-written decoder in
:mod:`fakeapi.server.protobuf`. Pointer fields (``gracePeriodSeconds``, ``orphanDependents``)
are read by presence, as Go writes them only when set, so an explicit ``0`` grace period
survives.
"""

from __future__ import annotations

from typing import Any

from fakeapi.server import protobuf as pb

__all__ = ["decode_eviction"]


def _preconditions(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, _, value in pb._fields(data):
        if number == 1 and (uid := pb._text(value)):
            out["uid"] = uid
        elif number == 2 and (rv := pb._text(value)):
            out["resourceVersion"] = rv
    return out


def _delete_options(data: bytes) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for number, wire, value in pb._fields(data):
        if number == 1:
            options["gracePeriodSeconds"] = pb._int64(value)
        elif number == 2:
            if pre := _preconditions(pb._message(value)):
                options["preconditions"] = pre
        elif number == 3:
            options["orphanDependents"] = bool(pb._number(value))
        elif number == 4:
            if policy := pb._text(value):
                options["propagationPolicy"] = policy
        elif number == 5:
            options.setdefault("dryRun", []).append(pb._text(value))
        elif number == 6:
            if pb._number(value):
                options["ignoreStoreReadErrorWithClusterBreakingPotential"] = True
        elif not pb._is_empty(wire, value):
            raise pb.ProtobufDecodeError(
                f"DeleteOptions field {number} in protobuf is not supported"
            )
    return options


def decode_eviction(fields: list[pb.Field], obj: dict[str, Any]) -> None:
    """Fill ``obj`` (metadata already decoded) from the Eviction's remaining fields."""
    for number, wire, value in fields:
        if number == 2:
            obj["deleteOptions"] = _delete_options(pb._message(value))
        elif not pb._is_empty(wire, value):
            raise pb.ProtobufDecodeError(f"Eviction field {number} in protobuf is not supported")
