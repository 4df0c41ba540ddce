"""Decode the protobuf bodies of the access reviews ``kubectl auth`` sends.

``kubectl auth can-i`` (SelfSubjectAccessReview, ``--list``: SelfSubjectRulesReview) and
``kubectl auth whoami`` (SelfSubjectReview) create their reviews through the typed clientset, in
protobuf; this adds those messages, and the SubjectAccessReviews controllers send, to the
hand-written decoder in :mod:`fakeapi.server.protobuf` (field numbers of upstream's
``authorization/v1`` and ``authentication/v1`` ``generated.proto``). A review's ``status`` is the
server's answer, so whatever a request carries there is ignored, as upstream ignores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.server import protobuf as pb

__all__ = ["review_decoder"]

_RESOURCE_STRINGS = {
    1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name",
}


def _strings(data: bytes, names: dict[int, str], what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, wire, value in pb._fields(data):
        if number in names:
            if text := pb._text(value):
                out[names[number]] = text
        elif not pb._is_empty(wire, value):
            raise pb.ProtobufDecodeError(f"{what} field {number} in protobuf is not supported")
    return out


def _requirement(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, _, value in pb._fields(data):
        if number == 1:
            out["key"] = pb._text(value)
        elif number == 2:
            out["operator"] = pb._text(value)
        elif number == 3:
            out.setdefault("values", []).append(pb._text(value))
    return out


def _selector(data: bytes) -> dict[str, Any]:
    """FieldSelectorAttributes and LabelSelectorAttributes share their shape."""
    out: dict[str, Any] = {}
    for number, _, value in pb._fields(data):
        if number == 1:
            if raw := pb._text(value):
                out["rawSelector"] = raw
        elif number == 2:
            out.setdefault("requirements", []).append(_requirement(pb._message(value)))
    return out


def _resource_attributes(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, wire, value in pb._fields(data):
        if number in _RESOURCE_STRINGS:
            if text := pb._text(value):
                out[_RESOURCE_STRINGS[number]] = text
        elif number in (8, 9):
            out["fieldSelector" if number == 8 else "labelSelector"] = _selector(
                pb._message(value)
            )
        elif not pb._is_empty(wire, value):
            raise pb.ProtobufDecodeError(
                f"ResourceAttributes field {number} in protobuf is not supported"
            )
    return out


def _access_spec(data: bytes) -> dict[str, Any]:
    """SubjectAccessReviewSpec (SelfSubjectAccessReviewSpec is its first two fields)."""
    spec: dict[str, Any] = {}
    for number, wire, value in pb._fields(data):
        if number == 1:
            spec["resourceAttributes"] = _resource_attributes(pb._message(value))
        elif number == 2:
            spec["nonResourceAttributes"] = _strings(
                pb._message(value), {1: "path", 2: "verb"}, "NonResourceAttributes"
            )
        elif number == 3:
            if user := pb._text(value):
                spec["user"] = user
        elif number == 4:
            spec.setdefault("groups", []).append(pb._text(value))
        elif number == 5:
            entry = {n: v for n, _, v in pb._fields(pb._message(value))}
            items = [pb._text(v) for n, _, v in pb._fields(pb._message(entry.get(2, b"")))
                     if n == 1]
            spec.setdefault("extra", {})[pb._text(entry.get(1, b""))] = items
        elif number == 6:
            if uid := pb._text(value):
                spec["uid"] = uid
        elif not pb._is_empty(wire, value):
            raise pb.ProtobufDecodeError(f"access review spec field {number} is not supported")
    return spec


def _access_review(fields: list[pb.Field], obj: dict[str, Any]) -> None:
    obj["spec"] = {}
    for number, _, value in fields:
        if number == 2:
            obj["spec"] = _access_spec(pb._message(value))


def _rules_review(fields: list[pb.Field], obj: dict[str, Any]) -> None:
    obj["spec"] = {}
    for number, _, value in fields:
        if number == 2:
            obj["spec"] = _strings(pb._message(value), {1: "namespace"}, "SelfSubjectRulesReview")


def _self_subject_review(fields: list[pb.Field], obj: dict[str, Any]) -> None:
    """Only metadata and the (ignored) status."""


_DECODERS: dict[tuple[str, str], Callable[[list[pb.Field], dict[str, Any]], None]] = {
    ("authorization.k8s.io", "SelfSubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "SubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "LocalSubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "SelfSubjectRulesReview"): _rules_review,
    ("authentication.k8s.io", "SelfSubjectReview"): _self_subject_review,
}


def review_decoder(
    group: str, kind: str
) -> Callable[[list[pb.Field], dict[str, Any]], None] | None:
    """The decoder of a review kind's fields after metadata, or None for other kinds."""
    return _DECODERS.get((group, kind))
