"""apps/v1 strategies: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision.

What the API server itself does to these kinds, as upstream's ``pkg/registry/apps``: apply the
apps/v1 defaults (and the pod defaults to the template), start with no status, bump
``metadata.generation`` when the spec changes (``kubectl rollout status`` compares it with
``status.observedGeneration``), validate (:mod:`fakeapi.validation.apps`), and serve ``/scale``
for the replicated kinds. A DaemonSet also carries the deprecated template generation as the
``deprecated.daemonset.template.generation`` annotation, as apps/v1 stores it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi.objects import as_dict
from fakeapi.registry.kinds.pod import default_pod
from fakeapi.registry.kinds.workload_printing import (
    CONTROLLER_REVISION_COLUMNS,
    DAEMON_SET_COLUMNS,
    DEPLOYMENT_COLUMNS,
    REPLICA_SET_COLUMNS,
    STATEFUL_SET_COLUMNS,
)
from fakeapi.registry.scale import ScaleSubresource
from fakeapi.registry.strategy import Column, Obj, Strategy, WriteContext
from fakeapi.rules.daemons import DAEMON_SET_TEMPLATE_GENERATION
from fakeapi.validation import apps as validation
from fakeapi.validation.field import FieldError

__all__ = [
    "ControllerRevisionStrategy",
    "DaemonSetStrategy",
    "DeploymentStrategy",
    "ReplicaSetStrategy",
    "StatefulSetStrategy",
    "default_template",
]

_REVISION_HISTORY_LIMIT = 10
_PROGRESS_DEADLINE_SECONDS = 600


def default_template(template: Any) -> None:
    """The pod defaults, applied to a pod template in place (``SetDefaults_PodSpec`` and the
    container defaults run on every template, as on a pod)."""
    if isinstance(template, dict):
        default_pod(template)


def _spec(obj: Obj) -> dict[str, Any] | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


class _WorkloadStrategy(Strategy):
    """What the replicated apps kinds share: a status subresource and a tracked generation."""

    status_subresource = True
    tracks_generation = True


# --- Deployment ----------------------------------------------------------------------------------


class DeploymentStrategy(_WorkloadStrategy):
    """Namespaced; status and scale subresources."""

    columns: ClassVar[tuple[Column, ...]] = DEPLOYMENT_COLUMNS
    scale = ScaleSubresource()
    # upstream's deployment status strategy keeps only the spec and labels: the controller
    # writes the revision annotation together with the status
    status_writes_metadata = ("annotations",)

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = _spec(obj)
        if spec is None:
            return
        spec.setdefault("replicas", 1)
        strategy = spec.setdefault("strategy", {})
        if isinstance(strategy, dict):
            kind = strategy.setdefault("type", "RollingUpdate")
            if kind == "RollingUpdate":
                rolling = strategy.setdefault("rollingUpdate", {})
                if isinstance(rolling, dict):
                    rolling.setdefault("maxUnavailable", "25%")
                    rolling.setdefault("maxSurge", "25%")
        spec.setdefault("revisionHistoryLimit", _REVISION_HISTORY_LIMIT)
        spec.setdefault("progressDeadlineSeconds", _PROGRESS_DEADLINE_SECONDS)
        default_template(spec.get("template"))

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_deployment(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_deployment_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_deployment_status(new, old)


# --- ReplicaSet ----------------------------------------------------------------------------------


class ReplicaSetStrategy(_WorkloadStrategy):
    """Namespaced; status and scale subresources; ``status.replicas`` is a field label."""

    columns: ClassVar[tuple[Column, ...]] = REPLICA_SET_COLUMNS
    field_labels: ClassVar[tuple[str, ...]] = ("status.replicas",)
    scale = ScaleSubresource()

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = _spec(obj)
        if spec is None:
            return
        spec.setdefault("replicas", 1)
        default_template(spec.get("template"))

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"status.replicas": str(as_dict(obj.get("status")).get("replicas") or 0)}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_replica_set(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_replica_set_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_replica_set_status(new, old)


# --- StatefulSet ---------------------------------------------------------------------------------


class StatefulSetStrategy(_WorkloadStrategy):
    """Namespaced; status and scale subresources; names are DNS labels (pod names and host
    names are made from them)."""

    columns: ClassVar[tuple[Column, ...]] = STATEFUL_SET_COLUMNS
    name_rule: ClassVar[str] = "label"
    scale = ScaleSubresource()

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = _spec(obj)
        if spec is None:
            return
        spec.setdefault("podManagementPolicy", "OrderedReady")
        strategy = spec.setdefault("updateStrategy", {})
        if isinstance(strategy, dict):
            kind = strategy.setdefault("type", "RollingUpdate")
            if kind == "RollingUpdate":
                rolling = strategy.setdefault("rollingUpdate", {})
                if isinstance(rolling, dict):
                    rolling.setdefault("partition", 0)
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", _REVISION_HISTORY_LIMIT)
        retention = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
        if isinstance(retention, dict):
            retention.setdefault("whenDeleted", "Retain")
            retention.setdefault("whenScaled", "Retain")
        default_template(spec.get("template"))
        for claim in spec.get("volumeClaimTemplates") or []:
            claim_spec = as_dict(claim).get("spec") if isinstance(claim, dict) else None
            if isinstance(claim_spec, dict):
                claim_spec.setdefault("volumeMode", "Filesystem")

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_stateful_set(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_stateful_set_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_stateful_set_status(new, old)


# --- DaemonSet -----------------------------------------------------------------------------------


class DaemonSetStrategy(_WorkloadStrategy):
    """Namespaced; status subresource; the template generation kept as an annotation."""

    columns: ClassVar[tuple[Column, ...]] = DAEMON_SET_COLUMNS

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = _spec(obj)
        if spec is None:
            return
        strategy = spec.setdefault("updateStrategy", {})
        if isinstance(strategy, dict):
            kind = strategy.setdefault("type", "RollingUpdate")
            if kind == "RollingUpdate":
                rolling = strategy.setdefault("rollingUpdate", {})
                if isinstance(rolling, dict):
                    rolling.setdefault("maxUnavailable", 1)
                    rolling.setdefault("maxSurge", 0)
        spec.setdefault("revisionHistoryLimit", _REVISION_HISTORY_LIMIT)
        default_template(spec.get("template"))

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        super().prepare_for_create(obj, ctx)
        annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
        if isinstance(annotations, dict):
            annotations[DAEMON_SET_TEMPLATE_GENERATION] = "1"

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        old_annotations = as_dict(as_dict(old.get("metadata")).get("annotations"))
        generation = old_annotations.get(DAEMON_SET_TEMPLATE_GENERATION)
        if generation is None:
            return
        if as_dict(new.get("spec")).get("template") != as_dict(old.get("spec")).get("template"):
            try:
                generation = str(int(generation) + 1)
            except ValueError:
                generation = "1"
        annotations = new.setdefault("metadata", {}).get("annotations")
        if not isinstance(annotations, dict):
            annotations = new["metadata"]["annotations"] = {}
        annotations[DAEMON_SET_TEMPLATE_GENERATION] = generation

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_daemon_set(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_daemon_set_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_daemon_set_status(new, old)


# --- ControllerRevision --------------------------------------------------------------------------


class ControllerRevisionStrategy(Strategy):
    """Namespaced; data and revision are immutable once written."""

    columns: ClassVar[tuple[Column, ...]] = CONTROLLER_REVISION_COLUMNS

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_controller_revision(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validation.validate_controller_revision_update(new, old)
