"""Container rules as upstream's ``ValidatePod`` applies them to each container of a pod.

A container needs a name unique among the pod's containers and init containers and an image; its
pull and termination-message policies are upstream's enums; its ports, env and resources follow
the rules below; its ``resources.claims`` name the pod's resource claims (each claim, or claim and
request, once).

Resource requirements follow ``ValidateContainerResourceRequirements``: every named resource must
be a standard container resource (``cpu``, ``memory``, ``ephemeral-storage``, ``hugepages-*``) or
a qualified extended resource (``example.com/gpu``); amounts are not negative; extended resources
are whole numbers; a request may not exceed its limit, and for resources that cannot be
overcommitted (extended resources, hugepages) request and limit must be equal and a request needs
a limit. The request/limit error is reported on the ``requests`` field as a whole, with the
canonical quantities: ``spec.containers[0].resources.requests: Invalid value: "2": must be less
than or equal to cpu limit of 1``.

Quantities arrive canonical (decoding normalised them), so they print as upstream prints them.
The two small helpers at the end (a required, unique, well-formed name; a value from an enum) are
shared with the pod's own rules in :mod:`fakeapi.validation.pod`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fakeapi.name_syntax import is_dns1123_label, is_qualified_name, is_valid_port_name
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.quantity import QuantityError
from fakeapi.quantity import parse_quantity_cached as quantity
from fakeapi.validation.field import FieldError, Path, duplicate, invalid, not_supported, required

__all__ = [
    "PROTOCOLS",
    "choice_errors",
    "unique_name_errors",
    "validate_container",
    "validate_env",
    "validate_ports",
    "validate_resource_requirements",
]

PROTOCOLS = ("SCTP", "TCP", "UDP")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
_RELAXED_ENV_NAME = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)


def validate_container(
    container: dict[str, Any], *, path: Path, names: set[str], claim_names: set[str]
) -> list[FieldError]:
    """Errors of one container at ``path``; ``names`` are the container names seen so far (this
    one is added), ``claim_names`` the pod's resource claims."""
    name = text(container.get("name"))
    errors = unique_name_errors(name, path.child("name"), names, is_dns1123_label)
    if not text(container.get("image")):
        errors.append(required(path.child("image")))
    errors.extend(choice_errors(container, "imagePullPolicy", PULL_POLICIES, path))
    errors.extend(
        choice_errors(container, "terminationMessagePolicy", TERMINATION_MESSAGE_POLICIES, path)
    )
    errors.extend(validate_ports(as_list(container.get("ports")), path.child("ports")))
    errors.extend(validate_env(as_list(container.get("env")), path.child("env")))
    errors.extend(
        validate_resource_requirements(
            as_dict(container.get("resources")), path.child("resources")
        )
    )
    errors.extend(
        _validate_claim_refs(
            as_list(dig(container, "resources", "claims")),
            claim_names,
            path.child("resources", "claims"),
        )
    )
    return errors


def _validate_claim_refs(refs: list[Any], claim_names: set[str], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, ref in enumerate(refs):
        ref = as_dict(ref)
        at = path.index(i)
        name = text(ref.get("name"))
        request = text(ref.get("request"))
        if not name:
            errors.append(required(at))
            continue
        key = f"{name}/{request}" if request else name
        if key in seen or (request and name in seen):
            errors.append(duplicate(at, key))
        seen.add(key)
        if name not in claim_names:
            listed = ", ".join(sorted(claim_names))
            detail = "must be one of the names in pod.spec.resourceClaims" + (
                f": {listed}" if listed else " which is empty"
            )
            errors.append(FieldError("FieldValueNotFound", str(at), detail, name))
        if request:
            at_request = at.child("request")
            errors.extend(invalid(at_request, request, msg) for msg in is_dns1123_label(request))
    return errors


# --- resources, ports, env -----------------------------------------------------------------------


def _is_native(name: str) -> bool:
    return "/" not in name or name.split("/", 1)[0].endswith("kubernetes.io")


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not name.startswith("hugepages-")


def _is_integer_resource(name: str) -> bool:
    return not _is_native(name)


def _resourceunique_name_errors(name: str, path: Path) -> list[FieldError]:
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and name.startswith("requests."):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _quantity_errors(name: str, raw: Any, path: Path) -> list[FieldError]:
    try:
        amount = quantity(str(raw))
    except QuantityError:
        return []  # decoding already refused it
    if amount.value < 0:
        return [invalid(path, str(amount), "must be greater than or equal to 0")]
    if _is_integer_resource(name) and amount.value.denominator != 1:
        return [invalid(path, str(amount), "must be an integer")]
    return []


def validate_resource_requirements(resources: dict[str, Any], path: Path) -> list[FieldError]:
    """Errors of one container's ``resources`` (limits, requests and their relation)."""
    errors: list[FieldError] = []
    limits = as_dict(resources.get("limits"))
    requests = as_dict(resources.get("requests"))
    limits_path = path.child("limits")
    requests_path = path.child("requests")
    for name in sorted(limits):
        at = limits_path.key(name)
        errors.extend(_resourceunique_name_errors(name, at))
        errors.extend(_quantity_errors(name, limits[name], at))
    for name in sorted(requests):
        at = requests_path.key(name)
        errors.extend(_resourceunique_name_errors(name, at))
        errors.extend(_quantity_errors(name, requests[name], at))
        try:
            request = quantity(str(requests[name]))
        except QuantityError:
            continue
        if name not in limits:
            if not _overcommit_allowed(name):
                errors.append(
                    required(limits_path, "Limit must be set for non overcommitable resources")
                )
            continue
        try:
            limit = quantity(str(limits[name]))
        except QuantityError:
            continue
        if not _overcommit_allowed(name) and request.value != limit.value:
            errors.append(
                invalid(requests_path, str(request), f"must be equal to {name} limit of {limit}")
            )
        elif request.value > limit.value:
            errors.append(
                invalid(
                    requests_path,
                    str(request),
                    f"must be less than or equal to {name} limit of {limit}",
                )
            )
    return errors


def _port_number_errors(value: Any, path: Path) -> list[FieldError]:
    if isinstance(value, int) and not 1 <= value <= 65535:
        return [invalid(path, value, "must be between 1 and 65535, inclusive")]
    return []


def validate_ports(ports: list[Any], path: Path) -> list[FieldError]:
    """Errors of one container's ``ports``: names, numbers, protocols."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port = as_dict(port)
        at = path.index(i)
        name = text(port.get("name"))
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errors.extend(invalid(at.child("name"), name, msg) for msg in msgs)
            elif name in names:
                errors.append(duplicate(at.child("name"), name))
            else:
                names.add(name)
        number = port.get("containerPort")
        if not number:
            errors.append(required(at.child("containerPort")))
        else:
            errors.extend(_port_number_errors(number, at.child("containerPort")))
        if port.get("hostPort"):
            errors.extend(_port_number_errors(port["hostPort"], at.child("hostPort")))
        protocol = port.get("protocol")
        if not protocol:
            errors.append(required(at.child("protocol")))
        elif isinstance(protocol, str) and protocol not in PROTOCOLS:
            errors.append(not_supported(at.child("protocol"), protocol, PROTOCOLS))
    return errors


def validate_env(env: list[Any], path: Path) -> list[FieldError]:
    """Errors of one container's ``env``: names (the relaxed rule upstream now uses) and sources."""
    errors: list[FieldError] = []
    for i, var in enumerate(env):
        var = as_dict(var)
        at = path.index(i)
        name = text(var.get("name"))
        if not name:
            errors.append(required(at.child("name")))
        elif any(ord(c) > 126 or ord(c) < 32 or c == "=" for c in name):
            errors.append(invalid(at.child("name"), name, _RELAXED_ENV_NAME))
        if var.get("valueFrom") is not None and text(var.get("value")):
            errors.append(
                invalid(
                    at.child("valueFrom"),
                    "",
                    "may not be specified when `value` is not empty",
                )
            )
    return errors


# --- small helpers ------------------------------------------------------------------------------


def unique_name_errors(
    name: str, path: Path, seen: set[str], rule: Callable[[str], list[str]]
) -> list[FieldError]:
    """Errors of a name that is required, unique among ``seen`` (it is added) and valid by
    ``rule``."""
    if not name:
        return [required(path)]
    if name in seen:
        return [duplicate(path, name)]
    seen.add(name)
    return [invalid(path, name, msg) for msg in rule(name)]


def choice_errors(
    obj: dict[str, Any], key: str, allowed: Iterable[str], path: Path
) -> list[FieldError]:
    """An unsupported value of ``obj[key]``, a string that is not one of ``allowed``."""
    value = obj.get(key)
    values = tuple(allowed)
    if isinstance(value, str) and value not in values:
        return [not_supported(path.child(key), value, values)]
    return []
