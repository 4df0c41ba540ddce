"""What the API server's side of CustomResourceDefinitions needs to know of one without the
schema machinery: the cleanup finalizer, conditions, the API-approval rule of protected groups
and the OpenAPI name of a custom kind.

A server starts its definition controllers and publishes its OpenAPI documents whether or not any
definition exists; structural schemas, value validation and CEL load with the first definition.
These few facts are what the controllers and the OpenAPI builder need before that, so they live
apart from the modules that validate definitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

from fakeapi.timefmt import format_time

__all__ = [
    "API_APPROVED_ANNOTATION",
    "CLEANUP_FINALIZER",
    "approval_state",
    "is_protected_group",
    "model_name",
    "set_condition",
]

API_APPROVED_ANNOTATION = "api-approved.kubernetes.io"
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def is_protected_group(group: str) -> bool:
    """Groups under k8s.io and kubernetes.io, which need an API-approval annotation."""
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def approval_state(annotations: Mapping[str, Any]) -> tuple[str, str]:
    """(state, reason): ``Missing``, ``Bypassed`` (``unapproved...``), ``Approved`` (a URL) or
    ``Invalid``, as upstream's ``GetAPIApprovalState``."""
    value = str(annotations.get(API_APPROVED_ANNOTATION) or "")
    link = (
        f"protected groups must have approval annotation \"{API_APPROVED_ANNOTATION}\""
    )
    if not value:
        return "Missing", f"{link}, see https://github.com/kubernetes/enhancements/pull/1111"
    if value.startswith("unapproved"):
        return "Bypassed", f"not approved: \"{value}\""
    parsed = urlparse(value)
    if parsed.scheme and parsed.netloc:
        return "Approved", f"approved in {value}"
    return "Invalid", (
        f'{link} with either a URL or a reason starting with "unapproved", see '
        "https://github.com/kubernetes/enhancements/pull/1111"
    )


def set_condition(crd: dict[str, Any], condition: dict[str, Any], *, now: datetime) -> None:
    """Upstream's ``SetCRDCondition`` on a private copy: the transition time moves only when
    the status does."""
    status = crd.setdefault("status", {})
    conditions = status.setdefault("conditions", [])
    stamp = format_time(now)
    for existing in conditions:
        if existing.get("type") == condition["type"]:
            if existing.get("status") != condition["status"] or not existing.get(
                "lastTransitionTime"
            ):
                existing["lastTransitionTime"] = stamp
            existing["status"] = condition["status"]
            existing["reason"] = condition.get("reason", "")
            existing["message"] = condition.get("message", "")
            return
    conditions.append({**condition, "lastTransitionTime": stamp})


def model_name(group: str, version: str, kind: str) -> str:
    """``com.example.stable.v1.CronTab``: upstream's name of a custom resource's schema."""
    return ".".join([*reversed(group.split(".")), version, kind])
