"""The strategy of CustomResourceDefinition (apiextensions.k8s.io/v1) objects themselves.

The strategy is upstream's: the status is the API server's (its controllers write it through
``/status``; a status write may also change metadata, as upstream's CRD status strategy keeps
it); ``status.storedVersions`` gains the storage version on every write; the generation follows
the spec; updates need a resourceVersion. Validation is :mod:`fakeapi.apiextensions.crd_validation`,
imported by the first write of a definition: it brings structural schemas and CEL with it, which
a server without definitions never needs.

Deleting a definition does not remove it at once: the first delete adds the
``customresourcecleanup.apiextensions.k8s.io`` finalizer and the ``Terminating`` condition, as
upstream's REST storage does, and the finalizer controller
(:mod:`fakeapi.apiextensions.controllers`) removes the definition once its objects are gone.
What a definition serves is derived from the stored definitions
(:mod:`fakeapi.apiextensions.serving`), never from this strategy.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from fakeapi.apiextensions.definitions import CLEANUP_FINALIZER, set_condition
from fakeapi.objects import as_dict, as_list
from fakeapi.registry.strategy import NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.timefmt import format_time, parse_time
from fakeapi.validation.field import FieldError

__all__ = [
    "CustomResourceDefinitionStrategy",
]



def _versions_cell(obj: Obj, _now: datetime) -> str:
    labels = []
    for version in as_list(as_dict(obj.get("spec")).get("versions")):
        if isinstance(version, dict) and version.get("served") is True:
            label = str(version.get("name") or "")
            if version.get("storage") is True:
                label += "(storage)"
            labels.append(label)
    return ",".join(sorted(labels))


def _created_cell(obj: Obj, _now: datetime) -> str:
    created = as_dict(obj.get("metadata")).get("creationTimestamp")
    if not isinstance(created, str):
        return "0001-01-01T00:00:00Z"
    return format_time(parse_time(created).astimezone(UTC))


def _established(obj: Obj, _now: datetime) -> bool:
    for condition in as_list(as_dict(obj.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == "Established":
            return condition.get("status") == "True"
    return False


def _storage_version(obj: Obj) -> str | None:
    for version in as_list(as_dict(obj.get("spec")).get("versions")):
        if isinstance(version, dict) and version.get("storage") is True:
            return str(version.get("name") or "")
    return None


class CustomResourceDefinitionStrategy(Strategy):
    """Cluster-scoped; status written by the API server's controllers."""

    status_subresource: ClassVar[bool] = True
    status_writes_metadata: ClassVar[tuple[str, ...]] = (
        "labels", "annotations", "finalizers", "ownerReferences",
    )
    tracks_generation: ClassVar[bool] = True
    allow_unconditional_update: ClassVar[bool] = False
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Scope", lambda obj, _now: as_dict(obj.get("spec")).get("scope", ""),
               description="Cluster/Namespaced"),
        Column("Versions", _versions_cell, description="Served versions"),
        Column("Created At", _created_cell, type="date",
               description="CreationTimestamp is a timestamp representing the server time when "
               "this object was created. It is not guaranteed to be set in happens-before order "
               "across separate operations. Clients may not set this value. It is represented "
               "in RFC3339 form and is in UTC."),
        Column("Group", lambda obj, _now: as_dict(obj.get("spec")).get("group", ""),
               priority=1, description="API group"),
        Column("Kind", lambda obj, _now: as_dict(as_dict(obj.get("spec")).get("names")).get(
            "kind", ""), priority=1, description="CustomResource kind"),
        Column("ShortNames", lambda obj, _now: ",".join(
            as_list(as_dict(as_dict(obj.get("spec")).get("names")).get("shortNames"))),
            priority=1, description="Short names"),
        Column("Established", _established, type="boolean", priority=1,
               description="Established status"),
    )

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        names = spec.get("names")
        if isinstance(names, dict):
            kind = names.get("kind")
            if not names.get("singular") and isinstance(kind, str):
                names["singular"] = kind.lower()
            if not names.get("listKind") and isinstance(kind, str) and kind:
                names["listKind"] = kind + "List"
        if spec.get("conversion") is None:
            spec["conversion"] = {"strategy": "None"}
        webhook = as_dict(as_dict(spec.get("conversion")).get("webhook"))
        service = as_dict(as_dict(webhook.get("clientConfig")).get("service"))
        if service and service.get("port") is None:
            service["port"] = 443

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        status: dict[str, Any] = {"acceptedNames": {"plural": "", "kind": ""}}
        storage = _storage_version(obj)
        status["storedVersions"] = [storage] if storage is not None else []
        obj["status"] = status

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        storage = _storage_version(new)
        if storage is None:
            return
        status = new.setdefault("status", {})
        stored = status.setdefault("storedVersions", [])
        if storage not in stored:
            stored.append(storage)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        from fakeapi.apiextensions.crd_validation import validate_crd

        return validate_crd(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        from fakeapi.apiextensions.crd_validation import validate_crd_update

        return validate_crd_update(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        from fakeapi.apiextensions.crd_validation import validate_crd_status

        return validate_crd_status(new)

    def warnings_on_create(self, obj: Obj, ctx: WriteContext) -> list[str]:
        from fakeapi.apiextensions.crd_validation import format_warnings

        return format_warnings(as_dict(obj.get("spec")), None)

    def warnings_on_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        from fakeapi.apiextensions.crd_validation import format_warnings

        return format_warnings(as_dict(new.get("spec")), as_dict(old.get("spec")))

    # --- deletion ------------------------------------------------------------------------------
    def deletion_blocked(self, obj: Obj) -> bool:
        # the first delete keeps the definition and adds the cleanup finalizer (below)
        return not as_dict(obj.get("metadata")).get("deletionTimestamp")

    def prepare_for_delete(self, obj: Obj, ctx: WriteContext) -> None:
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CLEANUP_FINALIZER)
        meta["finalizers"] = finalizers
        set_condition(obj, {
            "type": "Terminating",
            "status": "True",
            "reason": "InstanceDeletionPending",
            "message": "CustomResourceDefinition marked for deletion; CustomResource deletion "
            "will begin soon",
        }, now=ctx.now)
