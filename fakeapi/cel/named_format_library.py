"""The Kubernetes ``format`` library: named string formats and their validation.

``format.dns1123Label()`` (or ``format.named("dns1123Label")``, an optional) is a format value;
``<format>.validate(s)`` is ``optional.none()`` for a valid string, else an optional list of
apimachinery's error messages, the very texts API validation reports for names and labels.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from collections.abc import Callable

from fakeapi.cel.errors import EvalError
from fakeapi.cel.network_library import parse_url
from fakeapi.cel.overloads import Function
from fakeapi.cel.values import NONE, OptionalValue, no_overload
from fakeapi.name_syntax import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    mask_trailing_dash,
    max_len_error,
    regex_error,
)

__all__ = ["NAMED_FORMAT_GLOBALS", "NAMED_FORMAT_MEMBERS", "NamedFormat"]

_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_RE = re.compile(_DNS1035_FMT)
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)
_UUID_RE = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
_DATETIME_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?"
)


def _dns1035_label(value: str) -> list[str]:
    errors = []
    if len(value) > 63:
        errors.append(max_len_error(63))
    if not _DNS1035_RE.fullmatch(value):
        errors.append(regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return errors


def _prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    return lambda value: check(mask_trailing_dash(value))


def _uri(value: str) -> list[str]:
    try:
        parse_url(value)
    except EvalError as exc:
        return [exc.message.removeprefix("URL parse error during conversion from string: ")]
    return []


def _uuid(value: str) -> list[str]:
    return [] if _UUID_RE.fullmatch(value) else ["does not match the UUID format"]


def _byte(value: str) -> list[str]:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(value: str) -> list[str]:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return ["invalid date"]
    return [] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else ["invalid date"]


def _datetime(value: str) -> list[str]:
    return [] if _DATETIME_RE.fullmatch(value) else ["invalid datetime"]


class NamedFormat:
    """A ``kubernetes.NamedFormat`` value."""

    __slots__ = ("check", "name")
    cel_type_name = "kubernetes.NamedFormat"

    def __init__(self, name: str, check: Callable[[str], list[str]]) -> None:
        self.name = name
        self.check = check

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedFormat) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


FORMATS = {
    name: NamedFormat(name, check)
    for name, check in {
        "dns1123Label": is_dns1123_label,
        "dns1123Subdomain": is_dns1123_subdomain,
        "dns1035Label": _dns1035_label,
        "qualifiedName": is_qualified_name,
        "dns1123LabelPrefix": _prefix(is_dns1123_label),
        "dns1123SubdomainPrefix": _prefix(is_dns1123_subdomain),
        "dns1035LabelPrefix": _prefix(_dns1035_label),
        "labelValue": is_valid_label_value,
        "uri": _uri,
        "uuid": _uuid,
        "byte": _byte,
        "date": _date,
        "datetime": _datetime,
    }.items()
}


def _constant(name: str) -> Function:
    def call(*args: object) -> object:
        if args:
            raise no_overload(f"format.{name}", *args)
        return FORMATS[name]

    return call


def _named(*args: object) -> object:
    if len(args) != 1 or not isinstance(args[0], str):
        raise no_overload("format.named", *args)
    found = FORMATS.get(args[0])
    return NONE if found is None else OptionalValue(found)


def _validate(*args: object) -> object:
    if len(args) != 2 or not isinstance(args[0], NamedFormat) or not isinstance(args[1], str):
        raise no_overload("validate", *args)
    errors = args[0].check(args[1])
    return OptionalValue(list(errors)) if errors else NONE


NAMED_FORMAT_GLOBALS: dict[str, Function] = {
    "format.named": _named,
    **{f"format.{name}": _constant(name) for name in FORMATS},
}
NAMED_FORMAT_MEMBERS: dict[str, Function] = {"validate": _validate}
