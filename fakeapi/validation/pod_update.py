"""What an update of a pod may change, in its spec and in its status.

A pod's spec is frozen after creation except for the few fields upstream lets users change
(container images, a shrinking activeDeadlineSeconds, added tolerations, removed scheduling
gates, a negative grace period raised to 1). Anything else — ``spec.nodeName`` included, which
only the binding subresource sets — is answered with upstream's ``pod updates may not change
fields other than ...`` followed by a short diff of what changed. The new spec must also pass the
spec rules of :mod:`fakeapi.validation.pod`.

A status write may nominate a node only for an unbound pod, never changes the QoS class, names
only the pod's claims in claim statuses, does not bring a container that ended for good back to
life, and reports device health (KEP-4680) only for the claims and requests the containers have.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from fakeapi.name_syntax import is_dns1123_subdomain
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.validation.field import FieldError, Path, duplicate, forbidden, invalid, not_supported
from fakeapi.validation.pod import validate_pod_spec

__all__ = [
    "UPDATABLE_POD_SPEC_FIELDS",
    "validate_pod_status_update",
    "validate_pod_update",
]

UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
_RESOURCE_HEALTH = ("Healthy", "Unhealthy", "Unknown")


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Errors of a change to an existing pod's spec (the new spec's own errors included)."""
    path = Path("spec")
    new_spec = as_dict(new.get("spec"))
    old_spec = as_dict(old.get("spec"))
    errors = validate_pod_spec(new_spec, path=path, creating=False)
    for key in ("containers", "initContainers"):
        new_list = as_list(new_spec.get(key))
        if len(new_list) != len(as_list(old_spec.get(key))):
            errors.append(
                forbidden(path.child(key), "pod updates may not add or remove containers")
            )
            return errors
        for i, container in enumerate(new_list):
            image = text(as_dict(container).get("image"))
            if image and image.strip() != image:
                errors.append(
                    invalid(
                        path.child(key).index(i).child("image"),
                        image,
                        "must not have leading or trailing whitespace",
                    )
                )
    errors.extend(_validate_deadline_update(new_spec, old_spec, path))
    errors.extend(_validate_added_tolerations(new_spec, old_spec, path.child("tolerations")))
    errors.extend(_validate_removed_gates(new_spec, old_spec, path.child("schedulingGates")))
    if new_spec == old_spec:
        return errors
    munged = _munge_updatable(new_spec, old_spec)
    if munged != old_spec:
        detail = "pod updates may not change fields other than " + ",".join(
            UPDATABLE_POD_SPEC_FIELDS
        )
        errors.append(forbidden(path, detail + "\n" + _spec_diff(old_spec, munged)))
    return errors


def validate_pod_status_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Errors of a status write: a new nomination names a node and only an unbound pod gets
    one, QoS is immutable, claim statuses name pod claims."""
    path = Path("status")
    status = as_dict(new.get("status"))
    old_status = as_dict(old.get("status"))
    errors: list[FieldError] = []
    nominated = text(status.get("nominatedNodeName"))
    if nominated and nominated != text(old_status.get("nominatedNodeName")):
        at = path.child("nominatedNodeName")
        errors.extend(invalid(at, nominated, msg) for msg in is_dns1123_subdomain(nominated))
        if text(dig(old, "spec", "nodeName")):
            errors.append(forbidden(at, "may not be set on pods that are already bound to a node"))
    qos = text(status.get("qosClass"))
    if qos != text(old_status.get("qosClass")):
        errors.append(invalid(path.child("qosClass"), qos, "field is immutable"))
    claim_names = {
        text(as_dict(c).get("name")) for c in as_list(dig(new, "spec", "resourceClaims"))
    }
    seen: set[str] = set()
    for i, entry in enumerate(as_list(status.get("resourceClaimStatuses"))):
        at = path.child("resourceClaimStatuses").index(i).child("name")
        name = text(as_dict(entry).get("name"))
        if name not in claim_names:
            errors.append(
                invalid(at, name, "must match the name of an entry in `spec.resourceClaims`")
            )
        if name in seen:
            errors.append(duplicate(at, name))
        seen.add(name)
        generated = as_dict(entry).get("resourceClaimName")
        if isinstance(generated, str):
            errors.extend(invalid(at, generated, msg) for msg in is_dns1123_subdomain(generated))
    restart = text(dig(old, "spec", "restartPolicy"))
    for key, policy in (("containerStatuses", restart), ("ephemeralContainerStatuses", "Never")):
        errors.extend(_state_transitions(status, old_status, key, policy, path.child(key)))
    spec = as_dict(new.get("spec"))
    for key, containers in (("containerStatuses", "containers"),
                            ("initContainerStatuses", "initContainers")):
        errors.extend(_allocated_resources_status(
            as_list(status.get(key)), path.child(key), as_list(spec.get(containers))
        ))
    for i, entry in enumerate(as_list(status.get("ephemeralContainerStatuses"))):
        if as_list(as_dict(entry).get("allocatedResourcesStatus")):
            at = path.child("ephemeralContainerStatuses").index(i).child("allocatedResourcesStatus")
            errors.append(forbidden(at, "must not be specified in container status"))
    errors.extend(_pod_allocated_resources_status(
        as_list(status.get("allocatedResourcesStatus")), path.child("allocatedResourcesStatus"),
        claim_names,
    ))
    return errors


# --- spec updates -------------------------------------------------------------------------------


def _validate_added_tolerations(
    new: dict[str, Any], old: dict[str, Any], path: Path
) -> list[FieldError]:
    new_list = [as_dict(t) for t in as_list(new.get("tolerations"))]
    for old_toleration in as_list(old.get("tolerations")):
        base = {k: v for k, v in as_dict(old_toleration).items() if k != "tolerationSeconds"}
        if not any(
            {k: v for k, v in t.items() if k != "tolerationSeconds"} == base for t in new_list
        ):
            return [
                forbidden(
                    path, "existing toleration can not be modified except its tolerationSeconds"
                )
            ]
    return []


def _validate_removed_gates(
    new: dict[str, Any], old: dict[str, Any], path: Path
) -> list[FieldError]:
    old_names = {text(as_dict(g).get("name")) for g in as_list(old.get("schedulingGates"))}
    errors: list[FieldError] = []
    for i, gate in enumerate(as_list(new.get("schedulingGates"))):
        name = text(as_dict(gate).get("name"))
        if name not in old_names:
            errors.append(
                forbidden(
                    path.index(i).child("name"),
                    f"only deletion is allowed, but found new scheduling gate '{name}'",
                )
            )
    return errors


def _validate_deadline_update(
    new: dict[str, Any], old: dict[str, Any], path: Path
) -> list[FieldError]:
    at = path.child("activeDeadlineSeconds")
    new_value, old_value = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    if new_value is None:
        if old_value is not None:
            return [invalid(at, None, "must not update from a positive integer to nil value")]
        return []
    if isinstance(new_value, int) and isinstance(old_value, int) and old_value < new_value:
        return [invalid(at, new_value, "must be less than or equal to previous value")]
    return []


def _munge_updatable(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``new`` with every field an update may change reset to ``old``'s value."""
    munged = copy.deepcopy(new)
    for key in ("containers", "initContainers"):
        old_list = as_list(old.get(key))
        for i, container in enumerate(as_list(munged.get(key))):
            if isinstance(container, dict) and i < len(old_list):
                old_image = as_dict(old_list[i]).get("image")
                if old_image is None:
                    container.pop("image", None)
                else:
                    container["image"] = old_image
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old:
            munged[key] = old[key]
        else:
            munged.pop(key, None)
    old_grace = old.get("terminationGracePeriodSeconds")
    if (
        isinstance(old_grace, int)
        and old_grace < 0
        and munged.get("terminationGracePeriodSeconds") == 1
    ):
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def _spec_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A short, cmp.Diff-like listing of the top-level spec fields that differ."""
    lines = ["  core.PodSpec{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            if key in old:
                lines.append(f"- \t{key}: {_short(old[key])},")
            if key in new:
                lines.append(f"+ \t{key}: {_short(new[key])},")
    lines.append("  }")
    return "\n".join(lines)


def _short(value: Any) -> str:
    rendered = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    return rendered if len(rendered) <= 200 else rendered[:197] + "..."


# --- status ---------------------------------------------------------------------------------------


def _state_transitions(
    status: dict[str, Any], old_status: dict[str, Any], key: str, policy: str, path: Path
) -> list[FieldError]:
    """A container that ended for good may not be reported running again."""
    if policy == "Always":
        return []
    errors: list[FieldError] = []
    new_by_name = {text(as_dict(s).get("name")): as_dict(s) for s in as_list(status.get(key))}
    for i, old_entry in enumerate(as_list(old_status.get(key))):
        terminated = dig(old_entry, "state", "terminated")
        if not isinstance(terminated, dict):
            continue
        if terminated.get("exitCode") not in (0, None) and policy == "OnFailure":
            continue
        new_entry = new_by_name.get(text(as_dict(old_entry).get("name")))
        if new_entry is not None and dig(new_entry, "state", "terminated") is None:
            errors.append(
                forbidden(
                    path.index(i).child("state"), "may not be transitioned to non-terminated state"
                )
            )
    return errors


def _claim_health_name(ref: dict[str, Any]) -> str:
    """The ``allocatedResourcesStatus`` name of a container's ``resources.claims`` entry:
    ``claim:<claim>/<request>``, or ``claim:<claim>`` when the entry names no request."""
    request = text(ref.get("request"))
    return f"claim:{text(ref.get('name'))}" + (f"/{request}" if request else "")


def _allocated_resources_status(
    statuses: list[Any], path: Path, containers: list[Any]
) -> list[FieldError]:
    """Device health on container statuses (KEP-4680), as upstream validates it: each entry names
    one of the container's resource claims (``claim:<claim>/<request>``, or ``claim:<claim>``
    when the container's entry names no request) or resource requests; its resources have a
    known health and unique IDs. A status of a container the spec lacks is not checked."""
    by_name = {text(as_dict(c).get("name")): as_dict(c) for c in containers}
    errors: list[FieldError] = []
    for i, status in enumerate(statuses):
        status = as_dict(status)
        container = by_name.get(text(status.get("name")))
        for j, entry in enumerate(as_list(status.get("allocatedResourcesStatus"))):
            entry = as_dict(entry)
            at = path.index(i).child("allocatedResourcesStatus").index(j)
            name = text(entry.get("name"))
            if container is not None:
                resources = as_dict(container.get("resources"))
                if name.startswith("claim:"):
                    claims = as_list(resources.get("claims"))
                    known = {_claim_health_name(as_dict(c)) for c in claims}
                    detail = (
                        "must match one of the container's resource claims in a format "
                        "'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty"
                    )
                else:
                    known = set(as_dict(resources.get("requests")))
                    detail = "must match one of the container's resource requests"
                if name not in known:
                    errors.append(invalid(at.child("name"), name, detail))
            errors.extend(_resource_health(as_list(entry.get("resources")), at.child("resources")))
    return errors


def _pod_allocated_resources_status(
    entries: list[Any], path: Path, claim_names: set[str]
) -> list[FieldError]:
    """Device health at the pod level (the KEP-4680 seed's list for devices no container uses):
    names are ``claim:<claim>/<request>`` of one of the pod's claims, each once."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for j, entry in enumerate(entries):
        entry = as_dict(entry)
        at = path.index(j)
        name = text(entry.get("name"))
        claim, slash, request = name.removeprefix("claim:").partition("/")
        if not (name.startswith("claim:") and slash and request and claim in claim_names):
            errors.append(invalid(
                at.child("name"), name,
                "must match one of the pod's resource claims in a format "
                "'claim:<claimName>/<request>'",
            ))
        elif name in seen:
            errors.append(duplicate(at.child("name"), name))
        seen.add(name)
        errors.extend(_resource_health(as_list(entry.get("resources")), at.child("resources")))
    return errors


def _resource_health(resources: list[Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    ids: set[str] = set()
    for k, resource in enumerate(resources):
        resource = as_dict(resource)
        health = text(resource.get("health"))
        if health not in _RESOURCE_HEALTH:
            errors.append(not_supported(path.index(k).child("health"), health, _RESOURCE_HEALTH))
        rid = text(resource.get("resourceID"))
        if rid in ids:
            errors.append(duplicate(path.index(k).child("resourceID"), rid))
        ids.add(rid)
    return errors
