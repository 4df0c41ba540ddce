"""The string formats a CRD schema may check (kube-openapi's ``strfmt`` registry).

Upstream keeps a schema's ``format`` only when it is one of the formats the API server knows at
its compatibility version (the others are dropped before validation, and warned about when the
definition is written); :func:`supported_format` decides that and :func:`format_checker` gives
the check of a kept one. The checks follow the Go functions kube-openapi registers (``net``'s
address parsers, govalidator's patterns and checksums, ``time.Parse`` for dates).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable
from datetime import date

from fakeapi.apiextensions.regex import compile_go_regex

__all__ = [
    "format_checker",
    "parse_go_duration",
    "supported_format",
    "unrecognized_format",
]

Check = Callable[[str], bool]

_HOSTNAME = compile_go_regex(
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}]"
    r"(([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
)
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID3 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID4 = re.compile(
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
)
_UUID5 = re.compile(
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
)
_SSN = re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")
_HEXCOLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_RGB_PART = r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*"
_RGBCOLOR = re.compile(rf"^rgb\({_RGB_PART},{_RGB_PART},{_RGB_PART}\)$")
_CREDITCARD = re.compile(
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01]"
    r"[0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])"
    r"[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$"
)
_BASE64 = re.compile(
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$"
)
_BSON = re.compile(r"^[0-9a-fA-F]{24}$")
_TIME_OF_DAY = re.compile(
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
)
_SHORT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LONG_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_MAC = re.compile(
    r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{2}[:-]){7}([0-9A-Fa-f]{2})$"
    r"|^([0-9A-Fa-f]{2}[:-]){19}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}([0-9A-Fa-f]{4})$"
    r"|^([0-9A-Fa-f]{4}\.){3}([0-9A-Fa-f]{4})$|^([0-9A-Fa-f]{4}\.){9}([0-9A-Fa-f]{4})$"
)
_EMAIL = re.compile(r"^(?:[^<>@\s]+\s*<)?[^<>@\s]+@[^<>@\s]+>?$")
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_GO_DURATION = re.compile(r"^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$")
_SCALA_DURATION = re.compile(r"(\d+)\s*([A-Za-zµ]+)")
_DURATION_UNITS: tuple[tuple[tuple[str, ...], float], ...] = (
    (("ns", "nano"), 1e-9),
    (("us", "µs", "micro"), 1e-6),
    (("ms", "milli"), 1e-3),
    (("s", "sec"), 1.0),
    (("m", "min"), 60.0),
    (("h", "hr", "hour"), 3600.0),
    (("d", "day"), 86400.0),
    (("w", "wk", "week"), 604800.0),
)
_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
             "h": 3600.0}


def _hostname(text: str) -> bool:
    return (
        _HOSTNAME.match(text) is not None
        and len(text) <= 255
        and all(len(part) <= 63 for part in text.split("."))
    )


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Go's ``ParseIPSloppy``: leading zeros in IPv4 parts are tolerated."""
    candidate = text
    if "." in text and ":" not in text:
        parts = text.split(".")
        if len(parts) == 4 and all(p.isdigit() and len(p) <= 3 for p in parts):
            candidate = ".".join(str(int(p)) for p in parts)
    try:
        return ipaddress.ip_address(candidate)
    except ValueError:
        return None


def _ipv4(text: str) -> bool:
    return _ip(text) is not None and "." in text


def _ipv6(text: str) -> bool:
    return _ip(text) is not None and ":" in text


def _cidr(text: str) -> bool:
    address, slash, prefix = text.partition("/")
    if not slash or not prefix.isdigit() or _ip(address) is None:
        return False
    ip = _ip(address)
    assert ip is not None
    return int(prefix) <= (32 if ip.version == 4 else 128)


def _uri(text: str) -> bool:
    """Go's ``url.ParseRequestURI``: an absolute URI or an absolute path, no spaces."""
    if not text or any(c.isspace() for c in text):
        return False
    return text.startswith("/") or _URI_SCHEME.match(text) is not None


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        if i % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _creditcard(text: str) -> bool:
    digits = re.sub(r"[^0-9]", "", text)
    return _CREDITCARD.match(digits) is not None and _luhn(digits)


def _isbn10(text: str) -> bool:
    digits = re.sub(r"[\s-]", "", text)
    if not re.fullmatch(r"\d{9}[\dX]", digits):
        return False
    total = sum((10 - i) * int(c) for i, c in enumerate(digits[:9]))
    total += 10 if digits[9] == "X" else int(digits[9])
    return total % 11 == 0


def _isbn13(text: str) -> bool:
    digits = re.sub(r"[\s-]", "", text)
    if not re.fullmatch(r"\d{13}", digits):
        return False
    total = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(digits[:12]))
    return (10 - total % 10) % 10 == int(digits[12])


def _byte(text: str) -> bool:
    if _BASE64.match(text) is None:
        return False
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _date(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _datetime(text: str) -> bool:
    """strfmt's ``IsDateTime``: a full date, ``t``, and a time of day with a zone."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not _date(parts[0]):
        return False
    match = _TIME_OF_DAY.match(parts[1])
    if match is None:
        return False
    return match.group(1) <= "23" and match.group(2) <= "59" and match.group(3) <= "59"


def parse_go_duration(text: str) -> float | None:
    """strfmt's ``ParseDuration`` in seconds: Go's syntax (``1h30m``) or a number and a unit
    (``22 ns``, ``3 days``); None when neither reads."""
    if _GO_DURATION.match(text) and text not in ("", "+", "-"):
        sign = -1.0 if text.startswith("-") else 1.0
        body = text.lstrip("+-")
        total = 0.0
        for number, _, _, unit in re.findall(r"((\d+(\.\d*)?|\.\d+))(ns|us|µs|μs|ms|s|m|h)", body):
            total += float(number) * _GO_UNITS[unit]
        return sign * total
    if text == "0":
        return 0.0
    found = False
    total = 0.0
    for number, unit in _SCALA_DURATION.findall(text):
        unit = unit.strip().lower()
        for variants, seconds in _DURATION_UNITS:
            last = len(variants) - 1
            for i, variant in enumerate(variants):
                if (i == last and unit.startswith(variant)) or variant == unit:
                    found = True
                    total += int(number) * seconds
    return total if found else None


def _duration(text: str) -> bool:
    return parse_go_duration(text) is not None


_CHECKS: dict[str, Check] = {
    "bsonobjectid": lambda s: _BSON.match(s) is not None,
    "uri": _uri,
    "email": lambda s: _EMAIL.match(s) is not None,
    "hostname": _hostname,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "cidr": _cidr,
    "mac": lambda s: _MAC.match(s) is not None,
    "uuid": lambda s: _UUID.match(s) is not None,
    "uuid3": lambda s: _UUID3.match(s) is not None,
    "uuid4": lambda s: _UUID4.match(s) is not None,
    "uuid5": lambda s: _UUID5.match(s) is not None,
    "isbn": lambda s: _isbn10(s) or _isbn13(s),
    "isbn10": _isbn10,
    "isbn13": _isbn13,
    "creditcard": _creditcard,
    "ssn": lambda s: _SSN.match(s) is not None,
    "hexcolor": lambda s: _HEXCOLOR.match(s) is not None,
    "rgbcolor": lambda s: _RGBCOLOR.match(s) is not None,
    "byte": _byte,
    "password": lambda s: True,
    "date": _date,
    "duration": _duration,
    "datetime": _datetime,
    "k8sshortname": lambda s: len(s) <= 63 and _SHORT_NAME.match(s) is not None,
    "k8slongname": lambda s: len(s) <= 253 and _LONG_NAME.match(s) is not None,
}


def supported_format(schema_type: str, fmt: str) -> str:
    """The format upstream keeps for validation (``""`` when it strips it): string formats it
    knows, ``int32``/``int64`` for integers, ``float``/``double`` for numbers."""
    if not fmt:
        return ""
    if schema_type in ("", "string"):
        return fmt if fmt.replace("-", "") in _CHECKS else ""
    if schema_type == "integer":
        return fmt if fmt in ("int32", "int64") else ""
    if schema_type == "number":
        return fmt if fmt in ("float", "double") else ""
    return ""


def unrecognized_format(schema_type: str, fmt: str) -> bool:
    """Whether a definition's format would be dropped (the strategy warns about it)."""
    return bool(fmt) and not supported_format(schema_type, fmt)


def format_checker(fmt: str) -> Check | None:
    """The check of a string format, or None for formats that are not string checks."""
    return _CHECKS.get(fmt.replace("-", "").lower())
