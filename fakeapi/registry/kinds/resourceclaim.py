"""ResourceClaim (resource.k8s.io/v1): immutable spec; status by scheduler, controller and drivers.

What the strategy adds to the generic store (upstream: pkg/registry/resource/resourceclaim):
requests are defaulted (allocation mode ``ExactCount``, count 1, toleration operator ``Equal``),
fields of disabled gates are dropped unless already in use, ``adminAccess`` needs the namespace
label ``resource.kubernetes.io/admin-access: "true"`` (checked on create and when a status first
grants it), and a status write drops ``status.devices`` entries of devices that are no longer
allocated. With authorization on, a status write also needs permission for the fields it
changes (:mod:`.resourceclaim_status_authz`, DRAResourceClaimGranularStatusAuthorization).

The namespace labels come from the lookup the registry puts in ``WriteContext.namespace_labels``:
a callable from namespace name to its labels, or None when the namespace does not exist. Without
one, the admin-access checks are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.kinds.resourceclaim_status_authz import claim_status_authorization_errors
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation import dra
from fakeapi.validation.dra_common import as_dict, as_list
from fakeapi.validation.field import FieldError, Path, forbidden, internal

__all__ = [
    "ResourceClaimStrategy",
    "NamespaceLabels",
    "ADMIN_ACCESS_LABEL",
    "claim_state",
    "claim_spec_gated_fields",
    "default_claim_spec",
    "admin_access_errors",
]

#: namespace name -> its labels, or None when the namespace does not exist
NamespaceLabels = Callable[[str], Mapping[str, str] | None]

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
_ADMIN_DETAIL = (
    f"admin access to devices requires the `{ADMIN_ACCESS_LABEL}: true` label on the "
    "containing namespace"
)


def claim_spec_gated_fields(prefix: str) -> list[GatedFields]:
    """Gated fields of a ResourceClaimSpec at ``prefix`` (``spec`` or ``spec.spec``)."""
    requests = f"{prefix}.devices.requests[*]"
    return [
        GatedFields(("DRAPrioritizedList",), (f"{requests}.firstAvailable",)),
        GatedFields(
            ("DRADeviceTaints",),
            (f"{requests}.exactly.tolerations", f"{requests}.firstAvailable[*].tolerations"),
        ),
        GatedFields(
            ("DRAConsumableCapacity",),
            (
                f"{requests}.exactly.capacity",
                f"{requests}.firstAvailable[*].capacity",
                f"{prefix}.devices.constraints[*].distinctAttribute",
            ),
        ),
        GatedFields(("DRAReservedForWorkloads",), (f"{prefix}.reservedFor",)),
    ]


_RESULTS = "status.allocation.devices.results[*]"

_CLAIM_GATED_FIELDS: tuple[GatedFields, ...] = (
    *claim_spec_gated_fields("spec"),
    # admin access: one feature across spec and status, as upstream judges "in use"
    GatedFields(
        ("DRAAdminAccess",),
        ("spec.devices.requests[*].exactly.adminAccess", f"{_RESULTS}.adminAccess"),
    ),
    GatedFields(("DRAResourceClaimDeviceStatus",), ("status.devices",)),
    GatedFields(("DRADeviceTaints",), (f"{_RESULTS}.tolerations",)),
    GatedFields(
        ("DRAConsumableCapacity",),
        (f"{_RESULTS}.shareID", f"{_RESULTS}.consumedCapacity", "status.devices[*].shareID"),
    ),
    GatedFields(
        ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
        (
            f"{_RESULTS}.bindingConditions",
            f"{_RESULTS}.bindingFailureConditions",
            "status.allocation.allocationTimestamp",
        ),
    ),
    GatedFields(("DRAOptionalNodeOperations",), (f"{_RESULTS}.skipNodeOperations",)),
    GatedFields(("DRAReservedForWorkloads",), ("status.allocation.reservedForAnyPod",)),
)


def _default_exact(request: dict[str, Any]) -> None:
    if not request.get("allocationMode"):
        request["allocationMode"] = "ExactCount"
    if request["allocationMode"] == "ExactCount" and not request.get("count"):
        request["count"] = 1
    for toleration in as_list(request.get("tolerations")):
        if isinstance(toleration, dict) and not toleration.get("operator"):
            toleration["operator"] = "Equal"


def default_claim_spec(spec: Any) -> None:
    """Upstream defaulting of a ResourceClaimSpec, in place."""
    for request in as_list(as_dict(as_dict(spec).get("devices")).get("requests")):
        if not isinstance(request, dict):
            continue
        if isinstance(request.get("exactly"), dict):
            _default_exact(request["exactly"])
        for sub in as_list(request.get("firstAvailable")):
            if isinstance(sub, dict):
                _default_exact(sub)


def admin_access_errors(
    lookup: NamespaceLabels | None, namespace: str, path: Path | None
) -> list[FieldError]:
    """The namespace check for a request or result at ``path`` that asks for admin access."""
    if lookup is None or path is None:
        return []
    labels = lookup(namespace)
    if labels is None:
        return [
            internal(
                path,
                "could not retrieve namespace to verify admin access: "
                f'namespaces "{namespace}" not found',
            )
        ]
    if labels.get(ADMIN_ACCESS_LABEL) != "true":
        return [forbidden(path, _ADMIN_DETAIL)]
    return []


def first_admin_request(spec: Any) -> Path | None:
    """Path of the first request with ``adminAccess: true`` (upstream reports only that one)."""
    requests = as_list(as_dict(as_dict(spec).get("devices")).get("requests"))
    for i, request in enumerate(requests):
        if as_dict(as_dict(request).get("exactly")).get("adminAccess") is True:
            return Path("spec.devices.requests").index(i).child("adminAccess")
    return None


def _first_admin_result(status: Any) -> Path | None:
    results = as_list(
        as_dict(as_dict(as_dict(status).get("allocation")).get("devices")).get("results")
    )
    for i, result in enumerate(results):
        if as_dict(result).get("adminAccess") is True:
            return Path("status.allocation.devices.results").index(i).child("adminAccess")
    return None


def claim_state(obj: Obj, _now: datetime) -> str:
    """The State cell: deleted, pending, allocated, reserved — comma-joined."""
    states: list[str] = []
    deleting = bool(as_dict(obj.get("metadata")).get("deletionTimestamp"))
    status = as_dict(obj.get("status"))
    if deleting:
        states.append("deleted")
    if status.get("allocation") is None:
        if not deleting:
            states.append("pending")
    else:
        states.append("allocated")
        if as_list(status.get("reservedFor")):
            states.append("reserved")
    return ",".join(states)


_STATE_COLUMN = Column(
    "State",
    claim_state,
    description="A summary of the current state (allocated, pending, reserved, etc.).",
)


def _device_key(entry: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    return entry.get("driver"), entry.get("pool"), entry.get("device")


class ResourceClaimStrategy(Strategy):
    """Claims: immutable spec, defaulting, gated fields, admin access, status rules."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True
    columns: ClassVar[tuple[Column, ...]] = (NAME_COLUMN, _STATE_COLUMN, AGE_COLUMN)

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        default_claim_spec(obj.get("spec"))

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.pop("status", None)
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=_CLAIM_GATED_FIELDS)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        namespace = str(as_dict(obj.get("metadata")).get("namespace") or "")
        errs = admin_access_errors(
            ctx.namespace_labels, namespace, first_admin_request(obj.get("spec"))
        )
        return errs + dra.validate_resource_claim(obj, gates=ctx.feature_gates)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_CLAIM_GATED_FIELDS)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_claim_update(new, old, gates=ctx.feature_gates)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        self._drop_deallocated_devices(new, old)
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_CLAIM_GATED_FIELDS)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errs: list[FieldError] = []
        if _first_admin_result(old.get("status")) is None:
            namespace = str(as_dict(new.get("metadata")).get("namespace") or "")
            errs = admin_access_errors(
                ctx.namespace_labels, namespace, _first_admin_result(new.get("status"))
            )
        errs += dra.validate_resource_claim_status_update(new, old)
        if (
            ctx.authorizer is not None
            and ctx.user is not None
            and ctx.gate("DRAResourceClaimGranularStatusAuthorization")
        ):
            errs += claim_status_authorization_errors(
                authorizer=ctx.authorizer,
                user=ctx.user,
                verb=ctx.verb,
                namespace=str(as_dict(new.get("metadata")).get("namespace") or ""),
                new=as_dict(new.get("status")),
                old=as_dict(old.get("status")),
            )
        return errs

    @staticmethod
    def _drop_deallocated_devices(new: Obj, old: Obj) -> None:
        """Remove ``status.devices`` entries whose device the new status no longer allocates."""
        status = new.get("status")
        if not isinstance(status, dict) or not as_list(status.get("devices")):
            return

        def allocated(obj: Obj) -> set[tuple[Any, Any, Any]]:
            allocation = as_dict(as_dict(obj.get("status")).get("allocation"))
            return {
                _device_key(as_dict(r))
                for r in as_list(as_dict(allocation.get("devices")).get("results"))
            }

        gone = allocated(old) - allocated(new)
        if not gone:
            return
        kept = [d for d in status["devices"] if _device_key(as_dict(d)) not in gone]
        if kept:
            status["devices"] = kept
        else:
            del status["devices"]
