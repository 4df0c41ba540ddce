"""Validation of ResourceClaim specs (also inside templates) and of claim status updates.

Follows upstream's ``pkg/apis/resource/validation`` rule by rule. Request references in
constraints, config and allocation results are checked against the names of the claim's requests
and subrequests, so a claim is validated as a whole, never field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_common import (
    as_dict,
    as_list,
    as_str,
    validate_cel_expression,
    validate_list,
    validate_quantity,
    validate_raw_object,
    validate_set,
    validate_toleration,
)
from fakeapi.validation.dra_names import (
    dns1123_label_errors,
    validate_device_name,
    validate_dns_subdomain,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_label_name,
    validate_label_value,
)
from fakeapi.validation.field import (
    FieldError,
    Path,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
)

__all__ = [
    "RequestNames",
    "request_names",
    "validate_claim_spec",
    "validate_selectors",
    "validate_opaque_config",
    "validate_template_metadata",
    "validate_consumer_reference",
    "REQUESTS_MAX",
    "RESULTS_MAX",
    "CONFIG_MAX",
    "validate_request_ref",
    "validate_request_refs",
]

REQUESTS_MAX = 32
CONSTRAINTS_MAX = 32
CONFIG_MAX = 32
SELECTORS_MAX = 32
SUBREQUESTS_MAX = 8
TOLERATIONS_MAX = 16
RESULTS_MAX = 32
OPAQUE_PARAMETERS_MAX = 10 * 1024
ALLOCATION_MODES = ("All", "ExactCount")

_REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a "
    "subrequest separated by '/'"
)

#: request name -> subrequest names (None for an ``exactly`` request)
RequestNames = dict[str, frozenset[str] | None]


def request_names(claim_spec: Mapping[str, Any]) -> RequestNames:
    names: RequestNames = {}
    for request in as_list(as_dict(claim_spec.get("devices")).get("requests")):
        request = as_dict(request)
        subs = as_list(request.get("firstAvailable"))
        names[as_str(request.get("name"))] = (
            frozenset(as_str(as_dict(s).get("name")) for s in subs) if subs else None
        )
    return names


def _has_ref(names: RequestNames, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    if len(parts) == 1:
        return True
    subs = names[parts[0]]
    return subs is not None and parts[1] in subs


def validate_request_ref(ref: Any, path: Path, names: RequestNames) -> list[FieldError]:
    text = as_str(ref)
    parts = text.split("/")
    if len(parts) > 2:
        return [invalid(path, text, _REF_DETAIL)]
    errs = [invalid(path, part, m) for part in parts for m in dns1123_label_errors(part)]
    if not _has_ref(names, text):
        errs.append(invalid(path, text, _REF_DETAIL))
    return errs


def validate_request_refs(refs: Any, path: Path, names: RequestNames) -> list[FieldError]:
    return validate_set(
        as_list(refs),
        REQUESTS_MAX,
        path,
        lambda r, p: validate_request_ref(r, p, names),
        lambda r: as_str(r),
    )


# --- selectors and config ---------------------------------------------------------------------


def validate_selectors(
    selectors: Any, path: Path, *, stored: bool, gates: Mapping[str, bool]
) -> list[FieldError]:
    def check(selector: Any, p: Path) -> list[FieldError]:
        cel = as_dict(selector).get("cel")
        if cel is None:
            return [required(p.child("cel"))]
        expression = as_str(as_dict(cel).get("expression"))
        return validate_cel_expression(
            expression, p.child("cel", "expression"), stored=stored, gates=gates
        )

    return validate_list(as_list(selectors), SELECTORS_MAX, path, check)


def validate_opaque_config(config: Any, path: Path, *, stored: bool) -> list[FieldError]:
    """``opaque`` Required; driver name rules; parameters a JSON object of at most 10Ki."""
    opaque = as_dict(config).get("opaque")
    if opaque is None:
        return [required(path.child("opaque"))]
    opaque = as_dict(opaque)
    errs = validate_driver_name(as_str(opaque.get("driver")), path.child("opaque", "driver"))
    errs += validate_raw_object(
        opaque.get("parameters"),
        path.child("opaque", "parameters"),
        limit=OPAQUE_PARAMETERS_MAX,
        check_size=not stored,
    )
    return errs


# --- requests -----------------------------------------------------------------------------------


def _validate_allocation_mode(request: Mapping[str, Any], path: Path) -> list[FieldError]:
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count")
    if mode == "All":
        if count not in (None, 0):
            return [
                invalid(
                    path.child("count"), count, "must not be specified when allocationMode is 'All'"
                )
            ]
        return []
    if mode == "ExactCount":
        value = 1 if count in (None, 0) else count
        if isinstance(value, int) and value <= 0:
            return [invalid(path.child("count"), value, "must be greater than zero")]
        return []
    return [not_supported(path.child("allocationMode"), mode, ALLOCATION_MODES)]


def _validate_capacity_requests(capacity: Any, path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    requests = as_dict(as_dict(capacity).get("requests"))
    for key, value in requests.items():
        errs.extend(validate_quantity(value, path.child("requests").key(key)))
    return errs


def _validate_request_name(name: Any, path: Path) -> list[FieldError]:
    """A request or subrequest name: required, then a DNS label (as the 422 upstream sends)."""
    if not as_str(name):
        return [required(path)]
    return validate_device_name(as_str(name), path)


def _validate_class_name(name: Any, path: Path) -> list[FieldError]:
    text = as_str(name)
    if not text:
        return [required(path)]
    return validate_dns_subdomain(text, path)


def _validate_exact(
    request: Mapping[str, Any], path: Path, *, gates: Mapping[str, bool]
) -> list[FieldError]:
    errs = _validate_class_name(request.get("deviceClassName"), path.child("deviceClassName"))
    errs += validate_selectors(
        request.get("selectors"), path.child("selectors"), stored=False, gates=gates
    )
    errs += _validate_allocation_mode(request, path)
    errs += validate_list(
        as_list(request.get("tolerations")),
        TOLERATIONS_MAX,
        path.child("tolerations"),
        validate_toleration,
    )
    if request.get("capacity") is not None:
        errs += _validate_capacity_requests(request.get("capacity"), path.child("capacity"))
    return errs


def _validate_request(request: Any, path: Path, *, gates: Mapping[str, bool]) -> list[FieldError]:
    request = as_dict(request)
    errs = _validate_request_name(request.get("name"), path.child("name"))
    first_available = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    if not first_available and exactly is None:
        errs.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif first_available and exactly is not None:
        errs.append(
            invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, "
                "but multiple fields are set",
            )
        )
    elif first_available:

        def check_sub(sub: Any, p: Path) -> list[FieldError]:
            sub = as_dict(sub)
            return _validate_request_name(sub.get("name"), p.child("name")) + _validate_exact(
                sub, p, gates=gates
            )

        errs += validate_set(
            first_available,
            SUBREQUESTS_MAX,
            path.child("firstAvailable"),
            check_sub,
            lambda s: as_str(as_dict(s).get("name")),
        )
    else:
        errs += _validate_exact(as_dict(exactly), path.child("exactly"), gates=gates)
    return errs


def _validate_constraint(
    constraint: Any, path: Path, names: RequestNames, gates: Mapping[str, bool]
) -> list[FieldError]:
    from fakeapi.features import enabled

    constraint = as_dict(constraint)
    errs = validate_request_refs(constraint.get("requests"), path.child("requests"), names)
    match = constraint.get("matchAttribute")
    distinct = constraint.get("distinctAttribute")
    if match is not None and distinct is not None:
        errs.append(
            invalid(
                path,
                "{`matchAttribute`, `distinctAttribute`}",
                'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            )
        )
    if match is not None:
        errs += validate_fully_qualified_name(as_str(match), path.child("matchAttribute"))
    elif distinct is not None:
        errs += validate_fully_qualified_name(as_str(distinct), path.child("distinctAttribute"))
    elif enabled(gates, "DRAConsumableCapacity"):
        errs.append(
            required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is '
                "required, but multiple fields are set",
            )
        )
    else:
        errs.append(required(path.child("matchAttribute")))
    return errs


def validate_consumer_reference(ref: Any, path: Path) -> list[FieldError]:
    """A ResourceClaimConsumerReference: resource, name and uid are required."""
    ref = as_dict(ref)
    errs: list[FieldError] = []
    for name in ("resource", "name", "uid"):
        if not as_str(ref.get(name)):
            errs.append(required(path.child(name)))
    return errs


def validate_claim_spec(
    spec: Any, path: Path, *, gates: Mapping[str, bool], stored: bool = False
) -> list[FieldError]:
    """A ResourceClaimSpec (claims and ``spec.spec`` of templates)."""
    spec = as_dict(spec)
    devices = as_dict(spec.get("devices"))
    devices_path = path.child("devices")
    names = request_names(spec)
    errs = validate_set(
        as_list(devices.get("requests")),
        REQUESTS_MAX,
        devices_path.child("requests"),
        lambda r, p: _validate_request(r, p, gates=gates),
        lambda r: as_str(as_dict(r).get("name")),
    )
    errs += validate_list(
        as_list(devices.get("constraints")),
        CONSTRAINTS_MAX,
        devices_path.child("constraints"),
        lambda c, p: _validate_constraint(c, p, names, gates),
    )

    def check_config(config: Any, p: Path) -> list[FieldError]:
        return validate_request_refs(
            as_dict(config).get("requests"), p.child("requests"), names
        ) + validate_opaque_config(config, p, stored=stored)

    errs += validate_list(
        as_list(devices.get("config")), CONFIG_MAX, devices_path.child("config"), check_config
    )
    if spec.get("reservedFor") is not None:
        errs += validate_consumer_reference(spec.get("reservedFor"), path.child("reservedFor"))
    return errs


_TEMPLATE_META_ALLOWED = frozenset({"labels", "annotations"})
_ANNOTATIONS_MAX_BYTES = 256 * 1024


def validate_template_metadata(meta: Any, path: Path) -> list[FieldError]:
    """Template ``spec.metadata``: valid labels and annotations, nothing else."""
    meta = as_dict(meta)
    errs: list[FieldError] = []
    annotations = as_dict(meta.get("annotations"))
    total = 0
    for key, value in annotations.items():
        total += len(key) + len(as_str(value))
        errs.extend(validate_label_name(key.lower(), path.child("annotations")))
    if total > _ANNOTATIONS_MAX_BYTES:
        errs.append(too_long(path.child("annotations"), _ANNOTATIONS_MAX_BYTES))
    for key, value in as_dict(meta.get("labels")).items():
        errs.extend(validate_label_name(key, path.child("labels")))
        errs.extend(validate_label_value(as_str(value), path.child("labels")))
    for key, value in meta.items():
        if key not in _TEMPLATE_META_ALLOWED and value not in (None, "", [], {}, 0):
            errs.append(forbidden(path.child(key), "cannot be set for a template"))
    return errs
