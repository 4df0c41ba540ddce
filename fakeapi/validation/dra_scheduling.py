"""Validation of scheduling.k8s.io/v1alpha1 Workload and PodGroup in the seed KEP-5729 shape.

Rules follow upstream's Workload validation (pod group names, the basic/gang union, at most 8
templates, immutability) and, for the shared ResourceClaims, the rules of a Pod's
``spec.resourceClaims`` (DNS-label names, exactly one of claim or template name), limited to 4
entries as upstream limits PodGroup claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.validation.dra_common import as_dict, as_list, as_str, validate_conditions
from fakeapi.validation.dra_names import validate_dns_label, validate_dns_subdomain
from fakeapi.validation.field import FieldError, Path, duplicate, invalid, required, too_many

__all__ = [
    "validate_workload",
    "validate_workload_update",
    "validate_pod_group",
    "validate_pod_group_update",
    "validate_pod_group_status_update",
    "validate_pod_group_resource_claims",
    "POD_GROUP_TEMPLATES_MAX",
    "POD_GROUP_RESOURCE_CLAIMS_MAX",
]

POD_GROUP_TEMPLATES_MAX = 8
POD_GROUP_RESOURCE_CLAIMS_MAX = 4


def _path_segment_errors(value: str) -> list[str]:
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def _validate_controller_ref(ref: Any, path: Path) -> list[FieldError]:
    ref = as_dict(ref)
    errs: list[FieldError] = []
    group = as_str(ref.get("apiGroup"))
    if group:
        errs += validate_dns_subdomain(group, path.child("apiGroup"))
    for name in ("kind", "name"):
        value = as_str(ref.get(name))
        if not value:
            errs.append(required(path.child(name)))
        else:
            errs += [invalid(path.child(name), value, m) for m in _path_segment_errors(value)]
    return errs


def _validate_policy(policy: Any, path: Path) -> list[FieldError]:
    policy = as_dict(policy)
    set_fields = [f"`{name}`" for name in ("basic", "gang") if policy.get(name) is not None]
    if not set_fields:
        return [invalid(path, "", "must specify one of: `basic`, `gang`")]
    if len(set_fields) > 1:
        return [
            invalid(
                path,
                "{" + ", ".join(set_fields) + "}",
                "exactly one of `basic`, `gang` is required, but multiple fields are set",
            )
        ]
    if policy.get("gang") is not None:
        min_count = as_dict(policy["gang"]).get("minCount")
        count_path = path.child("gang", "minCount")
        if not min_count:
            return [required(count_path)]
        if isinstance(min_count, int) and min_count < 0:
            return [invalid(count_path, min_count, "must be greater than zero")]
    return []


def validate_pod_group_resource_claims(claims: Any, path: Path) -> list[FieldError]:
    """``[]PodGroupResourceClaim``: ≤4, unique DNS-label names, a claim or a template name."""
    items = as_list(claims)
    if len(items) > POD_GROUP_RESOURCE_CLAIMS_MAX:
        return [too_many(path, len(items), POD_GROUP_RESOURCE_CLAIMS_MAX)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, raw in enumerate(items):
        claim = as_dict(raw)
        p = path.index(i)
        name = as_str(claim.get("name"))
        if not name:
            errs.append(required(p.child("name")))
        elif name in seen:
            errs.append(duplicate(p.child("name"), name))
        else:
            errs += validate_dns_label(name, p.child("name"))
        seen.add(name)
        claim_name = claim.get("resourceClaimName")
        template_name = claim.get("resourceClaimTemplateName")
        if claim_name is None and template_name is None:
            errs.append(
                invalid(
                    p, "", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
                )
            )
        elif claim_name is not None and template_name is not None:
            errs.append(
                invalid(
                    p,
                    "",
                    "at most one of `resourceClaimName` or "
                    "`resourceClaimTemplateName` may be specified",
                )
            )
        elif claim_name is not None:
            errs += validate_dns_subdomain(as_str(claim_name), p.child("resourceClaimName"))
        else:
            errs += validate_dns_subdomain(
                as_str(template_name), p.child("resourceClaimTemplateName")
            )
    return errs


def _validate_template(template: Any, path: Path) -> list[FieldError]:
    template = as_dict(template)
    name = as_str(template.get("name"))
    errs = (
        [required(path.child("name"))] if not name else validate_dns_label(name, path.child("name"))
    )
    errs += _validate_policy(template.get("policy"), path.child("policy"))
    errs += validate_pod_group_resource_claims(
        template.get("resourceClaims"), path.child("resourceClaims")
    )
    return errs


def _validate_templates(
    spec: Mapping[str, Any], path: Path, *, items_too: bool
) -> list[FieldError]:
    templates = as_list(spec.get("podGroupTemplates"))
    if not templates:
        return [required(path, "must have at least one item")]
    if len(templates) > POD_GROUP_TEMPLATES_MAX:
        return [too_many(path, len(templates), POD_GROUP_TEMPLATES_MAX)]
    if not items_too:
        return []
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, template in enumerate(templates):
        name = as_str(as_dict(template).get("name"))
        if name in seen:
            errs.append(duplicate(path.index(i), name))
        seen.add(name)
        errs += _validate_template(template, path.index(i))
    return errs


def validate_workload(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    if spec.get("controllerRef") is not None:
        errs += _validate_controller_ref(spec["controllerRef"], path.child("controllerRef"))
    return errs + _validate_templates(spec, path.child("podGroupTemplates"), items_too=True)


def validate_workload_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """Templates are immutable; a controllerRef may be set once, then never changed."""
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    if old_spec.get("controllerRef") is not None:
        if spec.get("controllerRef") != old_spec.get("controllerRef"):
            errs.append(
                invalid(
                    path.child("controllerRef"), spec.get("controllerRef"), "field is immutable"
                )
            )
    elif spec.get("controllerRef") is not None:
        errs += _validate_controller_ref(spec["controllerRef"], path.child("controllerRef"))
    templates_path = path.child("podGroupTemplates")
    if spec.get("podGroupTemplates") != old_spec.get("podGroupTemplates"):
        errs.append(invalid(templates_path, spec.get("podGroupTemplates"), "field is immutable"))
    return errs + _validate_templates(spec, templates_path, items_too=False)


_POD_GROUP_IMMUTABLE = ("workloadRef", "podGroupTemplateRef", "policy", "resourceClaims")


def validate_pod_group(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    workload_ref = spec.get("workloadRef")
    if workload_ref is not None:
        name = as_str(as_dict(workload_ref).get("name"))
        ref_path = path.child("workloadRef", "name")
        errs += [required(ref_path)] if not name else validate_dns_subdomain(name, ref_path)
    template_ref = spec.get("podGroupTemplateRef")
    if template_ref is not None:
        name = as_str(as_dict(template_ref).get("name"))
        ref_path = path.child("podGroupTemplateRef", "name")
        errs += [required(ref_path)] if not name else validate_dns_label(name, ref_path)
        if workload_ref is None:
            errs.append(
                required(path.child("workloadRef"), "must be set when `podGroupTemplateRef` is set")
            )
    if spec.get("policy") is not None:
        errs += _validate_policy(spec["policy"], path.child("policy"))
    errs += validate_pod_group_resource_claims(
        spec.get("resourceClaims"), path.child("resourceClaims")
    )
    return errs


def validate_pod_group_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs = validate_pod_group(new)
    for name in _POD_GROUP_IMMUTABLE:
        if spec.get(name) != old_spec.get(name):
            errs.append(invalid(Path("spec").child(name), spec.get(name), "field is immutable"))
    return errs


def validate_pod_group_status_update(new: Mapping[str, Any]) -> list[FieldError]:
    status = as_dict(new.get("status"))
    path = Path("status")
    errs = validate_conditions(as_list(status.get("conditions")), path.child("conditions"))
    claim_names = {
        as_str(as_dict(c).get("name"))
        for c in as_list(as_dict(new.get("spec")).get("resourceClaims"))
    }
    statuses = as_list(status.get("resourceClaimStatuses"))
    statuses_path = path.child("resourceClaimStatuses")
    if len(statuses) > POD_GROUP_RESOURCE_CLAIMS_MAX:
        return [*errs, too_many(statuses_path, len(statuses), POD_GROUP_RESOURCE_CLAIMS_MAX)]
    seen: set[str] = set()
    for i, raw in enumerate(statuses):
        entry = as_dict(raw)
        name_path = statuses_path.index(i).child("name")
        name = as_str(entry.get("name"))
        if name not in claim_names:
            errs.append(
                invalid(name_path, name, "must match the name of an entry in `spec.resourceClaims`")
            )
        if name in seen:
            errs.append(duplicate(name_path, name))
        seen.add(name)
        claim = entry.get("resourceClaimName")
        if claim is not None:
            errs += validate_dns_subdomain(
                as_str(claim), statuses_path.index(i).child("resourceClaimName")
            )
    return errs
