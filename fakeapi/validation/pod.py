"""Pod spec rules: what a pod's spec must satisfy, on create and after every update.

Upstream's ``ValidatePodSpec`` for what a DRA user writes: volume, container and claim names;
the containers (:mod:`fakeapi.validation.pod_containers`); restart and DNS policies; the active
deadline; the node name; tolerations; required node affinity; scheduling gates; the workload
reference. A new pod may not have ephemeral containers, nor a node name while it is gated. What an
update may change is :mod:`fakeapi.validation.pod_update`.

Resource claims follow core/v1 PodResourceClaim plus the KEP-5729 seed field (docs/keps.md): each
names exactly one of ``resourceClaimName``, ``resourceClaimTemplateName`` or
``podGroupResourceClaim``.

Two requests about a pod are checked here too, as upstream's core validation does: a Binding's
target (``ValidatePodBinding``) and the options of a log read (``ValidatePodLogOptions``).
"""

from __future__ import annotations

from typing import Any

from fakeapi.name_syntax import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from fakeapi.objects import as_dict, as_list, text
from fakeapi.validation.dra_common import validate_node_selector
from fakeapi.validation.field import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from fakeapi.validation.pod_containers import (
    choice_errors,
    unique_name_errors,
    validate_container,
)

__all__ = [
    "validate_binding_target",
    "validate_pod_log_options",
    "validate_pod_node_name",
    "validate_pod_spec",
]

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")
TOLERATION_OPERATORS = ("Equal", "Exists")
_CLAIM_SOURCES = ("resourceClaimName", "resourceClaimTemplateName", "podGroupResourceClaim")
_INT32_MAX = 2**31 - 1


def validate_pod_spec(spec: dict[str, Any], *, path: Path, creating: bool) -> list[FieldError]:
    """Errors of a pod's spec; ``creating`` adds the rules that only apply to a new pod."""
    errors: list[FieldError] = []
    claim_names, claim_errors = _validate_resource_claims(
        as_list(spec.get("resourceClaims")), path.child("resourceClaims")
    )
    volume_names: set[str] = set()
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        name = text(as_dict(volume).get("name"))
        at = path.child("volumes").index(i).child("name")
        errors.extend(unique_name_errors(name, at, volume_names, is_dns1123_label))
    container_names: set[str] = set()
    containers = as_list(spec.get("containers"))
    if not containers:
        errors.append(required(path.child("containers")))
    for key in ("initContainers", "containers"):
        for i, container in enumerate(as_list(spec.get(key))):
            errors.extend(
                validate_container(
                    as_dict(container),
                    path=path.child(key).index(i),
                    names=container_names,
                    claim_names=claim_names,
                )
            )
    errors.extend(claim_errors)
    errors.extend(choice_errors(spec, "restartPolicy", RESTART_POLICIES, path))
    errors.extend(choice_errors(spec, "dnsPolicy", DNS_POLICIES, path))
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= _INT32_MAX:
        errors.append(
            invalid(
                path.child("activeDeadlineSeconds"),
                deadline,
                f"must be between 1 and {_INT32_MAX}, inclusive",
            )
        )
    node_name = text(spec.get("nodeName"))
    errors.extend(validate_pod_node_name(spec, path=path))
    errors.extend(
        _validate_tolerations(as_list(spec.get("tolerations")), path.child("tolerations"))
    )
    errors.extend(_validate_node_affinity(spec.get("affinity"), path.child("affinity")))
    gate_names: set[str] = set()
    for i, gate in enumerate(as_list(spec.get("schedulingGates"))):
        at = path.child("schedulingGates").index(i)
        name = text(as_dict(gate).get("name"))
        if name in gate_names:
            errors.append(duplicate(at, name))
        gate_names.add(name)
        errors.extend(_qualified_name_errors(name, at.child("name")))
    errors.extend(_validate_workload_ref(spec.get("workloadRef"), path.child("workloadRef")))
    if creating:
        if as_list(spec.get("ephemeralContainers")):
            errors.append(forbidden(path.child("ephemeralContainers"), "cannot be set on create"))
        if node_name and gate_names:
            errors.append(
                forbidden(
                    path.child("nodeName"),
                    "cannot be set until all schedulingGates have been cleared",
                )
            )
    return errors


def validate_pod_node_name(spec: dict[str, Any], *, path: Path) -> list[FieldError]:
    """Errors of ``spec.nodeName`` alone (what a binding changes)."""
    node_name = text(spec.get("nodeName"))
    if not node_name:
        return []
    at = path.child("nodeName")
    return [invalid(at, node_name, msg) for msg in is_dns1123_subdomain(node_name)]


# --- resource claims ----------------------------------------------------------------------------


def _validate_resource_claims(claims: list[Any], path: Path) -> tuple[set[str], list[FieldError]]:
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims):
        claim = as_dict(claim)
        at = path.index(i)
        name = text(claim.get("name"))
        errors.extend(unique_name_errors(name, at.child("name"), names, is_dns1123_label))
        sources = [key for key in _CLAIM_SOURCES if claim.get(key) is not None]
        with_group = "podGroupResourceClaim" in sources
        if len(sources) > 1:
            detail = (
                "at most one of `resourceClaimName`, `resourceClaimTemplateName` or "
                "`podGroupResourceClaim` may be specified"
                if with_group
                else "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                "specified"
            )
            errors.append(invalid(at, claim, detail))
        elif not sources:
            errors.append(
                invalid(
                    at,
                    claim,
                    "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`, "
                    "`podGroupResourceClaim`",
                )
            )
        for key in sources:
            value = text(claim.get(key))
            rule = is_dns1123_label if key == "podGroupResourceClaim" else is_dns1123_subdomain
            errors.extend(invalid(at.child(key), value, msg) for msg in rule(value))
    return names, errors


def _validate_workload_ref(ref: Any, path: Path) -> list[FieldError]:
    if ref is None:
        return []
    ref = as_dict(ref)
    errors: list[FieldError] = []
    name = text(ref.get("name"))
    if not name:
        errors.append(required(path.child("name")))
    else:
        errors.extend(invalid(path.child("name"), name, msg) for msg in is_dns1123_subdomain(name))
    group = ref.get("podGroupName")
    if isinstance(group, str):
        at = path.child("podGroupName")
        errors.extend(invalid(at, group, msg) for msg in is_dns1123_subdomain(group))
    return errors


# --- affinity, tolerations ----------------------------------------------------------------------


def _validate_node_affinity(affinity: Any, path: Path) -> list[FieldError]:
    """Upstream's validateNodeAffinity: a required selector has at least one valid term, a
    preferred term weighs 1 to 100."""
    node_affinity = as_dict(as_dict(affinity).get("nodeAffinity"))
    path = path.child("nodeAffinity")
    errors: list[FieldError] = []
    required_terms = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required_terms is not None:
        errors.extend(
            validate_node_selector(
                required_terms, path.child("requiredDuringSchedulingIgnoredDuringExecution")
            )
        )
    preferred = path.child("preferredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(
        as_list(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ):
        weight = as_dict(term).get("weight")
        if isinstance(weight, int) and not 1 <= weight <= 100:
            errors.append(invalid(preferred.index(i).child("weight"), weight,
                                  "must be in the range 1-100"))
    return errors


def _validate_tolerations(tolerations: list[Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, toleration in enumerate(tolerations):
        toleration = as_dict(toleration)
        at = path.index(i)
        key = text(toleration.get("key"))
        if key:
            errors.extend(_qualified_name_errors(key, at.child("key")))
        operator = text(toleration.get("operator")) or "Equal"
        if not key and operator != "Exists":
            errors.append(
                invalid(
                    at.child("operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values '
                    'and all keys"',
                )
            )
        if operator not in TOLERATION_OPERATORS:
            errors.append(not_supported(at.child("operator"), operator, TOLERATION_OPERATORS))
        elif operator == "Exists" and text(toleration.get("value")):
            errors.append(
                invalid(
                    at.child("operator"),
                    toleration.get("value"),
                    "value must be empty when `operator` is 'Exists'",
                )
            )
        effect = text(toleration.get("effect"))
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errors.append(
                not_supported(
                    at.child("effect"), effect, ("NoExecute", "NoSchedule", "PreferNoSchedule")
                )
            )
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                invalid(
                    at.child("effect"),
                    effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
    return errors


def _qualified_name_errors(name: str, path: Path) -> list[FieldError]:
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


# --- requests about a pod -----------------------------------------------------------------------


def validate_binding_target(target: dict[str, Any]) -> list[FieldError]:
    """Upstream's ValidatePodBinding: a Binding's ``target`` is a Node (or names no kind) and
    has a name."""
    errors: list[FieldError] = []
    kind = text(target.get("kind"))
    if kind and kind != "Node":
        errors.append(not_supported(Path("target").child("kind"), kind, ("Node", "<empty>")))
    if not text(target.get("name")):
        errors.append(required(Path("target").child("name")))
    return errors


def validate_pod_log_options(
    *,
    tail_lines: int | None,
    limit_bytes: int | None,
    since_seconds: int | None,
    since_time: str | None,
) -> list[FieldError]:
    """Upstream's ValidatePodLogOptions, for the options that limit what a log read shows."""
    errors: list[FieldError] = []
    if tail_lines is not None and tail_lines < 0:
        errors.append(invalid("tailLines", tail_lines, "must be greater than or equal to 0"))
    if limit_bytes is not None and limit_bytes < 1:
        errors.append(invalid("limitBytes", limit_bytes, "must be greater than 0"))
    if since_seconds is not None and since_time is not None:
        errors.append(
            forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified")
        )
    elif since_seconds is not None and since_seconds < 1:
        errors.append(invalid("sinceSeconds", since_seconds, "must be greater than 0"))
    return errors
