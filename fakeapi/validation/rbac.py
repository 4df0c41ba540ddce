"""rbac.authorization.k8s.io/v1 validation: roles, cluster roles and their bindings.

Upstream's ``pkg/apis/rbac/validation`` with its messages: every rule names verbs; a resource
rule names API groups and resources, a non-resource rule only URLs and only in a ClusterRole; an
aggregated ClusterRole has at least one valid selector; a binding refers to a Role or
ClusterRole of this group by a valid name, its subjects are users, groups or service accounts
(with a namespace where the binding has none), and its ``roleRef`` never changes.
"""

from __future__ import annotations

from typing import Any

from fakeapi.name_syntax import is_dns1123_subdomain, is_path_segment_name
from fakeapi.objects import as_dict, as_list, text
from fakeapi.validation.field import FieldError, Path, invalid, not_supported, required
from fakeapi.validation.workloads import validate_label_selector

__all__ = [
    "RBAC_GROUP",
    "validate_binding",
    "validate_binding_update",
    "validate_role",
]

RBAC_GROUP = "rbac.authorization.k8s.io"


def _rule_errors(rule: dict[str, Any], path: Path, *, namespaced: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    if not as_list(rule.get("verbs")):
        errors.append(required(path.child("verbs"), "verbs must contain at least one value"))
    urls = as_list(rule.get("nonResourceURLs"))
    if urls:
        at = path.child("nonResourceURLs")
        if namespaced:
            errors.append(invalid(at, urls, "namespaced rules cannot apply to non-resource URLs"))
        if any(as_list(rule.get(k)) for k in ("apiGroups", "resources", "resourceNames")):
            errors.append(invalid(at, urls, "rules cannot apply to both regular resources and "
                                  "non-resource URLs"))
        return errors
    if not as_list(rule.get("apiGroups")):
        errors.append(required(path.child("apiGroups"),
                               "resource rules must supply at least one api group"))
    if not as_list(rule.get("resources")):
        errors.append(required(path.child("resources"),
                               "resource rules must supply at least one resource"))
    return errors


def validate_role(obj: dict[str, Any], *, namespaced: bool) -> list[FieldError]:
    """A Role (``namespaced``) or ClusterRole: its rules, and a ClusterRole's aggregation."""
    errors: list[FieldError] = []
    for i, rule in enumerate(as_list(obj.get("rules"))):
        errors += _rule_errors(as_dict(rule), Path("rules").index(i), namespaced=namespaced)
    aggregation = obj.get("aggregationRule")
    if not namespaced and aggregation is not None:
        at = Path("aggregationRule").child("clusterRoleSelectors")
        selectors = as_list(as_dict(aggregation).get("clusterRoleSelectors"))
        if not selectors:
            errors.append(required(at, "at least one clusterRoleSelector required if "
                                   "aggregationRule is non-nil"))
        for i, selector in enumerate(selectors):
            errors += validate_label_selector(selector, at.index(i))
    return errors


def _subject_errors(subject: dict[str, Any], path: Path, *, namespaced: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    name = text(subject.get("name"))
    if not name:
        errors.append(required(path.child("name")))
    kind = text(subject.get("kind"))
    group = text(subject.get("apiGroup"))
    if kind == "ServiceAccount":
        if name:
            errors += [invalid(path.child("name"), name, m) for m in is_dns1123_subdomain(name)]
        if group:
            errors.append(not_supported(path.child("apiGroup"), group, [""]))
        if not namespaced and not text(subject.get("namespace")):
            errors.append(required(path.child("namespace")))
    elif kind in ("User", "Group"):
        if group != RBAC_GROUP:
            errors.append(not_supported(path.child("apiGroup"), group, [RBAC_GROUP]))
    else:
        errors.append(not_supported(path.child("kind"), kind, ["ServiceAccount", "User", "Group"]))
    return errors


def validate_binding(obj: dict[str, Any], *, namespaced: bool) -> list[FieldError]:
    """A RoleBinding (``namespaced``: a Role or ClusterRole) or ClusterRoleBinding (a
    ClusterRole only)."""
    ref = as_dict(obj.get("roleRef"))
    errors: list[FieldError] = []
    group = text(ref.get("apiGroup"))
    if group != RBAC_GROUP:
        errors.append(not_supported(Path("roleRef.apiGroup"), group, [RBAC_GROUP]))
    kind = text(ref.get("kind"))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if kind not in kinds:
        errors.append(not_supported(Path("roleRef.kind"), kind, kinds))
    name = text(ref.get("name"))
    if not name:
        errors.append(required(Path("roleRef.name")))
    else:
        errors += [invalid(Path("roleRef.name"), name, m) for m in is_path_segment_name(name)]
    for i, subject in enumerate(as_list(obj.get("subjects"))):
        errors += _subject_errors(as_dict(subject), Path("subjects").index(i),
                                  namespaced=namespaced)
    return errors


def validate_binding_update(
    new: dict[str, Any], old: dict[str, Any], *, namespaced: bool
) -> list[FieldError]:
    errors = validate_binding(new, namespaced=namespaced)
    if as_dict(new.get("roleRef")) != as_dict(old.get("roleRef")):
        errors.append(invalid(Path("roleRef"), new.get("roleRef"), "cannot change roleRef"))
    return errors
