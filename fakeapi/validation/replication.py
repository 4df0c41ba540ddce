"""core/v1 ReplicationController validation.

Upstream's ``ValidateReplicationControllerSpec``: a non-empty, valid label map as selector that
the template's labels match, a valid template whose pods restart Always and have no active
deadline, non-negative counts; status counts as a ReplicaSet's.
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import as_dict, text
from fakeapi.validation.field import FieldError, Path, invalid, required
from fakeapi.validation.meta import validate_labels
from fakeapi.validation.workloads import (
    validate_nonnegative,
    validate_pod_template,
    validate_restart_policy_always,
)

__all__ = ["validate_replication_controller", "validate_replication_controller_status"]

_SPEC = Path("spec")


def validate_replication_controller(obj: dict[str, Any]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    errors = validate_nonnegative(spec.get("replicas"), _SPEC.child("replicas"))
    errors += validate_nonnegative(spec.get("minReadySeconds"), _SPEC.child("minReadySeconds"))
    selector = as_dict(spec.get("selector"))
    if not selector:
        errors.append(required(_SPEC.child("selector")))
    errors += validate_labels(selector, path=_SPEC.child("selector"))
    template = spec.get("template")
    path = _SPEC.child("template")
    if not isinstance(template, dict):
        errors.append(required(path))
        return errors
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    if selector and any(text(labels.get(k)) != text(v) or k not in labels
                        for k, v in selector.items()):
        errors.append(invalid(path.child("metadata", "labels"), labels,
                              "`selector` does not match template `labels`"))
    errors += validate_pod_template(template, path)
    errors += validate_restart_policy_always(template, path, "ReplicationController")
    return errors


def validate_replication_controller_status(obj: dict[str, Any]) -> list[FieldError]:
    from fakeapi.validation.apps import validate_replicas_status

    return validate_replicas_status(
        as_dict(obj.get("status")),
        ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
    )
