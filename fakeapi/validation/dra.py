"""Validation entry points of the resource.k8s.io kinds, one function per kind and operation.

Claims and slices have their own modules (:mod:`dra_claim`, :mod:`dra_slice`); this module holds
the smaller kinds (DeviceClass, DeviceTaintRule, the KEP-5677 ResourcePool) and gathers everything
registry strategies call, so a strategy imports from one place. Every function takes JSON-shaped
objects and returns field errors; metadata is the store's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_claim import (
    request_names,
    validate_claim_spec,
    validate_opaque_config,
    validate_selectors,
    validate_template_metadata,
)
from fakeapi.validation.dra_claim_status import (
    validate_allocation_result,
    validate_claim_status_update,
)
from fakeapi.validation.dra_common import (
    as_dict,
    as_list,
    as_str,
    validate_conditions,
    validate_list,
    validate_taint,
)
from fakeapi.validation.dra_names import (
    qualified_name_errors,
    validate_device_name,
    validate_driver_name,
    validate_node_name,
    validate_pool_name,
)
from fakeapi.validation.dra_slice import validate_slice_spec
from fakeapi.validation.field import FieldError, Path, invalid, required, too_many
from fakeapi.validation.remembered import ValidByContent

__all__ = [
    "validate_resource_claim",
    "validate_resource_claim_update",
    "validate_resource_claim_status_update",
    "validate_resource_claim_template",
    "validate_resource_claim_template_update",
    "validate_resource_slice",
    "validate_resource_slice_update",
    "validate_device_class",
    "validate_device_class_update",
    "validate_device_taint_rule",
    "validate_device_taint_rule_update",
    "validate_device_taint_rule_status_update",
    "validate_resource_pool",
    "validate_resource_pool_update",
    "validate_resource_pool_status",
    "validate_allocation_result",
    "request_names",
    "is_extended_resource_name",
]

CLASS_SELECTORS_MAX = 32
CLASS_CONFIG_MAX = 32
TAINT_RULE_CONDITIONS_MAX = 8
POOL_VALIDATION_ERRORS_MAX = 10

Gates = Mapping[str, bool]


def _immutable(path: Path, new: Any, old: Any) -> list[FieldError]:
    return [] if new == old else [invalid(path, new, "field is immutable")]


# --- ResourceClaim / ResourceClaimTemplate ---------------------------------------------------


#: claim specs that passed, with the gates they passed under: claims made from one template
#: (every pod's own claim) repeat their template's spec
_valid_claim_specs = ValidByContent(1024)


def validate_resource_claim(obj: Mapping[str, Any], *, gates: Gates) -> list[FieldError]:
    return _valid_claim_specs.errors(
        obj.get("spec"),
        lambda spec: validate_claim_spec(spec, Path("spec"), gates=gates),
        frozenset(gates.items()),
    )


def validate_resource_claim_update(
    new: Mapping[str, Any], old: Mapping[str, Any], *, gates: Gates
) -> list[FieldError]:
    """The whole new object, plus: the spec never changes.

    A spec equal to the stored one (every metadata or finalizer write) passed these rules when
    it was stored, so only a changed spec is walked again.
    """
    if new.get("spec") == old.get("spec"):
        return []
    return validate_resource_claim(new, gates=gates) + _immutable(
        Path("spec"), new.get("spec"), old.get("spec")
    )


def validate_resource_claim_status_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    return validate_claim_status_update(new, old)


def validate_resource_claim_template(obj: Mapping[str, Any], *, gates: Gates) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs = validate_template_metadata(spec.get("metadata"), path.child("metadata"))
    return errs + validate_claim_spec(spec.get("spec"), path.child("spec"), gates=gates)


def validate_resource_claim_template_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    """Only immutability: a stored template is not re-validated against newer rules."""
    return _immutable(Path("spec"), new.get("spec"), old.get("spec"))


# --- ResourceSlice --------------------------------------------------------------------------------


def validate_resource_slice(obj: Mapping[str, Any], *, gates: Gates) -> list[FieldError]:
    return validate_slice_spec(obj.get("spec"), None, gates=gates)


def validate_resource_slice_update(
    new: Mapping[str, Any], old: Mapping[str, Any], *, gates: Gates
) -> list[FieldError]:
    return validate_slice_spec(new.get("spec"), as_dict(old.get("spec")), gates=gates)


# --- DeviceClass -------------------------------------------------------------------------------


def is_extended_resource_name(name: str) -> bool:
    """core ``IsExtendedResourceName``: domain-prefixed, not kubernetes.io, a valid quota name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def _validate_class_spec(spec: Any, old_spec: Any | None, *, gates: Gates) -> list[FieldError]:
    spec = as_dict(spec)
    old = as_dict(old_spec) if old_spec is not None else None
    path = Path("spec")
    stored_selectors = old is not None and spec.get("selectors") == old.get("selectors")
    errs = validate_selectors(
        spec.get("selectors"), path.child("selectors"), stored=stored_selectors, gates=gates
    )
    stored_config = old is not None and spec.get("config") == old.get("config")
    errs += validate_list(
        as_list(spec.get("config")),
        CLASS_CONFIG_MAX,
        path.child("config"),
        lambda c, p: validate_opaque_config(c, p, stored=stored_config),
    )
    name = spec.get("extendedResourceName")
    if name is not None and not is_extended_resource_name(as_str(name)):
        errs.append(
            invalid(
                path.child("extendedResourceName"), name, "must be a valid extended resource name"
            )
        )
    return errs


def validate_device_class(obj: Mapping[str, Any], *, gates: Gates) -> list[FieldError]:
    return _validate_class_spec(obj.get("spec"), None, gates=gates)


def validate_device_class_update(
    new: Mapping[str, Any], old: Mapping[str, Any], *, gates: Gates
) -> list[FieldError]:
    """Unchanged selectors and config count as stored: not compiled or size-checked again."""
    return _validate_class_spec(new.get("spec"), as_dict(old.get("spec")), gates=gates)


# --- DeviceTaintRule ---------------------------------------------------------------------------


def _validate_taint_rule_spec(spec: Any, old_spec: Any | None) -> list[FieldError]:
    spec = as_dict(spec)
    path = Path("spec")
    errs: list[FieldError] = []
    selector = spec.get("deviceSelector")
    if selector is not None:
        selector = as_dict(selector)
        sel_path = path.child("deviceSelector")
        if selector.get("driver") is not None:
            errs += validate_driver_name(as_str(selector["driver"]), sel_path.child("driver"))
        if selector.get("pool") is not None:
            errs += validate_pool_name(as_str(selector["pool"]), sel_path.child("pool"))
        if selector.get("device") is not None:
            errs += validate_device_name(as_str(selector["device"]), sel_path.child("device"))
    old_taint = as_dict(old_spec).get("taint") if old_spec is not None else None
    errs += validate_taint(spec.get("taint"), old_taint, path.child("taint"))
    return errs


def validate_device_taint_rule(obj: Mapping[str, Any]) -> list[FieldError]:
    return _validate_taint_rule_spec(obj.get("spec"), None)


def validate_device_taint_rule_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    return _validate_taint_rule_spec(new.get("spec"), as_dict(old.get("spec")))


def validate_device_taint_rule_status_update(new: Mapping[str, Any]) -> list[FieldError]:
    conditions = as_list(as_dict(new.get("status")).get("conditions"))
    path = Path("status").child("conditions")
    errs = validate_conditions(conditions, path)
    if len(conditions) > TAINT_RULE_CONDITIONS_MAX:
        errs.append(too_many(path, len(conditions), TAINT_RULE_CONDITIONS_MAX))
    return errs


# --- ResourcePool (KEP-5677) --------------------------------------------------------------------


def validate_resource_pool(obj: Mapping[str, Any]) -> list[FieldError]:
    """The pool spec. ``driver`` is only required: the seed names pools of drivers like
    ``example.com/gpu``, which are not DNS subdomains."""
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    if not as_str(spec.get("driver")):
        errs.append(required(path.child("driver")))
    errs += validate_pool_name(as_str(spec.get("poolName")), path.child("poolName"))
    node_name = spec.get("nodeName")
    if node_name is not None and node_name != "":
        errs += validate_node_name(as_str(node_name), path.child("nodeName"))
    return errs + validate_resource_pool_status(obj)


def validate_resource_pool_update(
    new: Mapping[str, Any], old: Mapping[str, Any]
) -> list[FieldError]:
    return validate_resource_pool(new) + _immutable(Path("spec"), new.get("spec"), old.get("spec"))


def validate_resource_pool_status(obj: Mapping[str, Any]) -> list[FieldError]:
    status = as_dict(obj.get("status"))
    path = Path("status")
    errs: list[FieldError] = []
    summary = as_dict(status.get("summary"))
    for name, value in summary.items():
        if isinstance(value, int) and value < 0:
            errs.append(
                invalid(path.child("summary", name), value, "must be greater than or equal to 0")
            )
    for name in (
        "truncatedErrorCount",
        "observedSliceCount",
        "expectedSliceCount",
        "observedGeneration",
    ):
        value = status.get(name)
        if isinstance(value, int) and value < 0:
            errs.append(invalid(path.child(name), value, "must be greater than or equal to 0"))
    validation_errors = as_list(status.get("validationErrors"))
    if len(validation_errors) > POOL_VALIDATION_ERRORS_MAX:
        errs.append(
            too_many(
                path.child("validationErrors"), len(validation_errors), POOL_VALIDATION_ERRORS_MAX
            )
        )
    errs += validate_conditions(as_list(status.get("conditions")), path.child("conditions"))
    return errs
