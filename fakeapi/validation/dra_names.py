"""Name and identifier rules of the DRA API, with apimachinery's wording.

The generic string checks (DNS labels and subdomains, qualified names, label values, C identifiers)
return lists of upstream-worded messages; the ``validate_*`` functions wrap them into field errors
the way ``pkg/apis/resource/validation`` does for drivers, pools, devices, requests and attribute
names.

The string checks themselves come from the shared :mod:`fakeapi.name_syntax`; this module
adds the DRA-specific compositions (driver names, pool names, qualified attribute names, share IDs).
"""

from __future__ import annotations

import uuid

from fakeapi import name_syntax
from fakeapi.validation.field import FieldError, Path, invalid, required, too_long

__all__ = [
    "dns1123_label_errors",
    "dns1123_subdomain_errors",
    "qualified_name_errors",
    "label_value_errors",
    "c_identifier_errors",
    "validate_dns_label",
    "validate_dns_subdomain",
    "validate_label_name",
    "validate_label_value",
    "validate_driver_name",
    "validate_pool_name",
    "validate_device_name",
    "validate_qualified_name",
    "validate_fully_qualified_name",
    "validate_uid",
    "validate_node_name",
    "DRIVER_NAME_MAX_LENGTH",
    "POOL_NAME_MAX_LENGTH",
]

DRIVER_NAME_MAX_LENGTH = 63
POOL_NAME_MAX_LENGTH = 253
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32

dns1123_label_errors = name_syntax.is_dns1123_label
dns1123_subdomain_errors = name_syntax.is_dns1123_subdomain
qualified_name_errors = name_syntax.is_qualified_name
label_value_errors = name_syntax.is_valid_label_value
c_identifier_errors = name_syntax.is_c_identifier


# --- field-level wrappers ----------------------------------------------------------------------


def validate_dns_label(value: str, path: Path) -> list[FieldError]:
    return [invalid(path, value, m) for m in dns1123_label_errors(value)]


def validate_dns_subdomain(value: str, path: Path) -> list[FieldError]:
    return [invalid(path, value, m) for m in dns1123_subdomain_errors(value)]


def validate_label_name(value: str, path: Path) -> list[FieldError]:
    """``metav1validation.ValidateLabelName`` (also used for taint keys and condition names)."""
    return [invalid(path, value, m) for m in qualified_name_errors(value)]


def validate_label_value(value: str, path: Path) -> list[FieldError]:
    return [invalid(path, value, m) for m in label_value_errors(value)]


def validate_node_name(value: str, path: Path) -> list[FieldError]:
    return validate_dns_subdomain(value, path)


def validate_driver_name(value: str, path: Path) -> list[FieldError]:
    """Driver names follow the CSI driver rule: ≤63, a DNS subdomain when lower-cased."""
    if not value:
        return [required(path)]
    errs: list[FieldError] = []
    if len(value) > DRIVER_NAME_MAX_LENGTH:
        errs.append(too_long(path, DRIVER_NAME_MAX_LENGTH))
    errs.extend(invalid(path, value, m) for m in dns1123_subdomain_errors(value.lower()))
    return errs


def validate_pool_name(value: str, path: Path) -> list[FieldError]:
    """Pool names: ≤253 characters, each '/'-separated part a DNS subdomain."""
    if not value:
        return [required(path)]
    errs: list[FieldError] = []
    if len(value) > POOL_NAME_MAX_LENGTH:
        errs.append(too_long(path, POOL_NAME_MAX_LENGTH))
    for part in value.split("/"):
        errs.extend(invalid(path, part, m) for m in dns1123_subdomain_errors(part))
    return errs


def validate_device_name(value: str, path: Path) -> list[FieldError]:
    """Device, request, subrequest, counter and counter-set names are DNS labels."""
    return validate_dns_label(value, path)


def _c_identifier(value: str, path: Path) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(value) > DEVICE_MAX_ID_LENGTH:
        errs.append(too_long(path, DEVICE_MAX_ID_LENGTH))
    errs.extend(invalid(path, value, m) for m in c_identifier_errors(value))
    return errs


def validate_qualified_name(value: str, path: Path) -> list[FieldError]:
    """An attribute or capacity name: a C identifier, or ``<domain>/<C identifier>``."""
    parts = value.split("/")
    if len(parts) == 1:
        return _c_identifier(parts[0], path)
    if len(parts) == 2:
        errs: list[FieldError] = []
        if not parts[0]:
            errs.append(invalid(path, "", "the domain must not be empty"))
        else:
            errs.extend(validate_driver_name(parts[0], path))
        if not parts[1]:
            errs.append(invalid(path, "", "the name must not be empty"))
        else:
            errs.extend(_c_identifier(parts[1], path))
        return errs
    # Upstream accepts names with two or more slashes here (a known gap); kept as is.
    return []


def validate_fully_qualified_name(value: str, path: Path) -> list[FieldError]:
    """A qualified name that must carry a domain (constraint attributes)."""
    errs = validate_qualified_name(value, path)
    if "/" not in value:
        errs.append(
            invalid(
                path,
                value,
                "a fully qualified name must be a domain and a name separated by a slash",
            )
        )
    return errs


def validate_uid(value: str, path: Path) -> list[FieldError]:
    """A ``shareID``: an RFC 4122 UUID in lower-case, 36-character form."""
    try:
        uuid.UUID(value)
    except ValueError as exc:
        return [invalid(path, value, f"error validating uid: {exc}")]
    if len(value) != 36 or value != value.lower():
        return [
            invalid(
                path,
                value,
                "uid must be in RFC 4122 normalized form, "
                "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                "hexadecimal characters",
            )
        ]
    return []
