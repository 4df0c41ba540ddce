"""core/v1 Secret validation (ServiceAccounts need nothing beyond their metadata).

Upstream's ``ValidateSecret``: keys are config-map keys, the values together at most 1 MiB, and
each well-known type carries the keys it promises (``tls.crt`` and ``tls.key``, a service
account name annotation, a parseable docker config...). On update the type never changes, and an
immutable secret keeps its data and the flag.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from fakeapi.name_syntax import is_config_map_key
from fakeapi.objects import as_dict
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, required, too_long
from fakeapi.validation.meta import validate_immutable

__all__ = ["MAX_SECRET_SIZE", "SERVICE_ACCOUNT_NAME_ANNOTATION", "secret_value",
           "validate_secret", "validate_secret_update"]

MAX_SECRET_SIZE = 1024 * 1024
SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name"
_IMMUTABLE = "field is immutable when `immutable` is set"
_DATA = Path("data")


def secret_value(encoded: Any) -> bytes | None:
    """The bytes of a ``data`` value (base64), or None when it is not base64."""
    try:
        return base64.b64decode(str(encoded), validate=True)
    except (binascii.Error, ValueError):
        return None


def _json_errors(data: dict[str, Any], key: str) -> list[FieldError]:
    if key not in data:
        return [required(_DATA.key(key))]
    value = secret_value(data[key]) or b""
    try:
        orjson.loads(value)
    except orjson.JSONDecodeError as err:
        return [invalid(_DATA.key(key), "<secret contents redacted>", str(err))]
    return []


def validate_secret(obj: dict[str, Any]) -> list[FieldError]:
    data = as_dict(obj.get("data"))
    errors: list[FieldError] = []
    total = 0
    for key, value in data.items():
        errors += [invalid(_DATA.key(key), key, m) for m in is_config_map_key(key)]
        decoded = secret_value(value)
        if decoded is None:
            errors.append(invalid(_DATA.key(key), "<secret contents redacted>",
                                  "must be base64-encoded"))
        else:
            total += len(decoded)
    if total > MAX_SECRET_SIZE:
        errors.append(too_long(_DATA, MAX_SECRET_SIZE))
    kind = obj.get("type") or "Opaque"
    if kind == "kubernetes.io/service-account-token":
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        if not annotations.get(SERVICE_ACCOUNT_NAME_ANNOTATION):
            errors.append(required(Path("metadata.annotations").key(
                SERVICE_ACCOUNT_NAME_ANNOTATION)))
    elif kind == "kubernetes.io/dockercfg":
        errors += _json_errors(data, ".dockercfg")
    elif kind == "kubernetes.io/dockerconfigjson":
        errors += _json_errors(data, ".dockerconfigjson")
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errors += [required(_DATA.key("username")), required(_DATA.key("password"))]
    elif kind == "kubernetes.io/ssh-auth":
        if not secret_value(data.get("ssh-privatekey", "")):
            errors.append(required(_DATA.key("ssh-privatekey")))
    elif kind == "kubernetes.io/tls":
        for key in ("tls.key", "tls.crt"):
            if key not in data:
                errors.append(required(_DATA.key(key)))
    return errors


def validate_secret_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_secret(new)
    errors += validate_immutable(new.get("type"), old.get("type"), Path("type"))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errors.append(forbidden(Path("immutable"), _IMMUTABLE))
        if as_dict(new.get("data")) != as_dict(old.get("data")):
            errors.append(forbidden(_DATA, _IMMUTABLE))
    return errors
