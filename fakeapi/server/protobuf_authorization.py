"""Decode the protobuf bodies of the access reviews ``kubectl auth`` sends.

``kubectl auth can-i`` (SelfSubjectAccessReview, ``--list``: SelfSubjectRulesReview) and
``kubectl auth whoami`` (SelfSubjectReview) create their reviews through the typed clientset, in
protobuf; this adds those messages, and the SubjectAccessReviews controllers send, to the
hand-written decoder in :mod:`fakeapi.server.protobuf` (field numbers of upstream's
``authorization/v1`` and ``authentication/v1`` ``generated.proto``). A review's ``status`` is the
server's answer, so whatever a request carries there is ignored, as upstream ignores it.
"""

from __future__ import annotations

from typing import Any

from fakeapi.server.protobuf_reader import (
    Field,
    FieldDecoder,
    ProtobufDecodeError,
    as_message,
    as_text,
    is_empty,
    read_fields,
)

__all__ = ["review_decoder"]

_RESOURCE_STRINGS = {
    1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name",
}


def _strings(data: bytes, names: dict[int, str], what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number in names:
            if text := as_text(value):
                out[names[number]] = text
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"{what} field {number} in protobuf is not supported")
    return out


def _requirement(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, _, value in read_fields(data):
        if number == 1:
            out["key"] = as_text(value)
        elif number == 2:
            out["operator"] = as_text(value)
        elif number == 3:
            out.setdefault("values", []).append(as_text(value))
    return out


def _selector(data: bytes) -> dict[str, Any]:
    """FieldSelectorAttributes and LabelSelectorAttributes share their shape."""
    out: dict[str, Any] = {}
    for number, _, value in read_fields(data):
        if number == 1:
            if raw := as_text(value):
                out["rawSelector"] = raw
        elif number == 2:
            out.setdefault("requirements", []).append(_requirement(as_message(value)))
    return out


def _resource_attributes(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number in _RESOURCE_STRINGS:
            if text := as_text(value):
                out[_RESOURCE_STRINGS[number]] = text
        elif number in (8, 9):
            out["fieldSelector" if number == 8 else "labelSelector"] = _selector(
                as_message(value)
            )
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(
                f"ResourceAttributes field {number} in protobuf is not supported"
            )
    return out


def _access_spec(data: bytes) -> dict[str, Any]:
    """SubjectAccessReviewSpec (SelfSubjectAccessReviewSpec is its first two fields)."""
    spec: dict[str, Any] = {}
    for number, wire, value in read_fields(data):
        if number == 1:
            spec["resourceAttributes"] = _resource_attributes(as_message(value))
        elif number == 2:
            spec["nonResourceAttributes"] = _strings(
                as_message(value), {1: "path", 2: "verb"}, "NonResourceAttributes"
            )
        elif number == 3:
            if user := as_text(value):
                spec["user"] = user
        elif number == 4:
            spec.setdefault("groups", []).append(as_text(value))
        elif number == 5:
            entry = {n: v for n, _, v in read_fields(as_message(value))}
            items = [as_text(v) for n, _, v in read_fields(as_message(entry.get(2, b"")))
                     if n == 1]
            spec.setdefault("extra", {})[as_text(entry.get(1, b""))] = items
        elif number == 6:
            if uid := as_text(value):
                spec["uid"] = uid
        elif not is_empty(wire, value):
            raise ProtobufDecodeError(f"access review spec field {number} is not supported")
    return spec


def _access_review(fields: list[Field], obj: dict[str, Any]) -> None:
    obj["spec"] = {}
    for number, _, value in fields:
        if number == 2:
            obj["spec"] = _access_spec(as_message(value))


def _rules_review(fields: list[Field], obj: dict[str, Any]) -> None:
    obj["spec"] = {}
    for number, _, value in fields:
        if number == 2:
            obj["spec"] = _strings(as_message(value), {1: "namespace"}, "SelfSubjectRulesReview")


def _self_subject_review(fields: list[Field], obj: dict[str, Any]) -> None:
    """Only metadata and the (ignored) status."""


_DECODERS: dict[tuple[str, str], FieldDecoder] = {
    ("authorization.k8s.io", "SelfSubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "SubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "LocalSubjectAccessReview"): _access_review,
    ("authorization.k8s.io", "SelfSubjectRulesReview"): _rules_review,
    ("authentication.k8s.io", "SelfSubjectReview"): _self_subject_review,
}


def review_decoder(group: str, kind: str) -> FieldDecoder | None:
    """The decoder of a review kind's fields after metadata, or None for other kinds."""
    return _DECODERS.get((group, kind))
