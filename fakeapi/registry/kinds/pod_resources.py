"""Container rules upstream's ``ValidatePod`` applies per container: resources, ports, env.

Resource requirements follow ``ValidateContainerResourceRequirements``: every named resource must
be a standard container resource (``cpu``, ``memory``, ``ephemeral-storage``, ``hugepages-*``) or
a qualified extended resource (``example.com/gpu``); amounts are not negative; extended resources
are whole numbers; a request may not exceed its limit, and for resources that cannot be
overcommitted (extended resources, hugepages) request and limit must be equal and a request needs
a limit. The request/limit error is reported on the ``requests`` field as a whole, with the
canonical quantities: ``spec.containers[0].resources.requests: Invalid value: "2": must be less
than or equal to cpu limit of 1``.

Quantities arrive canonical (decoding normalised them), so they print as upstream prints them.
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import as_dict, text
from fakeapi.quantity import QuantityError
from fakeapi.registry.kinds.common import quantity
from fakeapi.validation.field import FieldError, Path, duplicate, invalid, not_supported, required
from fakeapi.validation.names import is_qualified_name, is_valid_port_name

__all__ = ["validate_env", "validate_ports", "validate_resource_requirements", "PROTOCOLS"]

PROTOCOLS = ("SCTP", "TCP", "UDP")
_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
_RELAXED_ENV_NAME = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)


def _is_native(name: str) -> bool:
    return "/" not in name or name.split("/", 1)[0].endswith("kubernetes.io")


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not name.startswith("hugepages-")


def _is_integer_resource(name: str) -> bool:
    return not _is_native(name)


def _resource_name_errors(name: str, path: Path) -> list[FieldError]:
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
        errors.extend(_resource_name_errors(name, at))
        errors.extend(_quantity_errors(name, limits[name], at))
    for name in sorted(requests):
        at = requests_path.key(name)
        errors.extend(_resource_name_errors(name, at))
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
