"""Name and key syntax checks, worded exactly as apimachinery words them.

Each check returns a list of error strings (empty when the value is fine), like upstream's
``IsDNS1123Label`` family: callers wrap every string in a ``FieldError`` at their own path, so
one rule can report at ``metadata.name``, ``spec.containers[0].name`` or a device name alike.
Label selectors use the same checks for their keys and values, so both report identical text.

These are apimachinery's ``util/validation`` and sit as low as it does: below API validation
(:mod:`fakeapi.validation`), label selectors and CEL, whose Kubernetes ``format`` library reports
the very same texts; none of them may be imported from here.

Patterns are matched against the whole string (``fullmatch``): Go's ``^...$`` never lets a
trailing newline through, while Python's ``$`` would. The checks every write makes (names,
namespaces, label keys and values, finalizers) are memoised per value: each call still gets a
list of its own.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "QUALIFIED_NAME_MAX_LENGTH",
    "is_c_identifier",
    "is_config_map_key",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_path_segment_name",
    "is_qualified_name",
    "is_valid_label_value",
    "is_valid_port_name",
    "mask_trailing_dash",
    "max_len_error",
    "regex_error",
]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
CONFIG_MAP_KEY_MAX_LENGTH = 253

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"

_DNS1123_LABEL_RE = re.compile(f"^{_DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_C_IDENTIFIER_RE = re.compile(f"^{_C_IDENTIFIER_FMT}$")
_CONFIG_MAP_KEY_RE = re.compile(f"^{_CONFIG_MAP_KEY_FMT}$")

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)
_C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'"
)
_CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """Upstream ``RegexError``: the message, the examples and the regex, in its exact layout."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    # upstream writes "'a', " per example and joins them with " or ", hence the double space
    listed = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {listed}regex used for validation is '{pattern}')"


def max_len_error(length: int, *, unit: str = "characters") -> str:
    """Upstream's length message: DNS names say ``characters``, label keys and values ``bytes``
    (two generations of apimachinery helpers, both still in use)."""
    return f"must be no more than {length} {unit}"


def is_dns1123_label(value: str) -> list[str]:
    """Errors of a DNS label (RFC 1123): lower case alphanumerics and '-', at most 63 bytes."""
    return list(_memo_dns1123_label(value))


@lru_cache(maxsize=8192)
def _memo_dns1123_label(value: str) -> tuple[str, ...]:
    return tuple(_dns1123_label_errors(value))


def _dns1123_label_errors(value: str) -> list[str]:
    errors: list[str] = []
    if len(value.encode()) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_path_segment_name(value: str) -> list[str]:
    """Errors of a name that must be one URL path segment (apimachinery's
    ``IsValidPathSegmentName``, the rule of RBAC roles and bindings): not ``.`` or ``..``, no
    ``/`` or ``%``."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in value]


def is_dns1123_subdomain(value: str) -> list[str]:
    """Errors of a DNS subdomain (RFC 1123): dot-separated labels, at most 253 bytes."""
    return list(_memo_dns1123_subdomain(value))


@lru_cache(maxsize=8192)
def _memo_dns1123_subdomain(value: str) -> tuple[str, ...]:
    return tuple(_dns1123_subdomain_errors(value, length_unit="characters"))


def _dns1123_subdomain_errors(value: str, *, length_unit: str) -> list[str]:
    # The prefix of a qualified name is checked by the newer helpers, which say "bytes".
    errors: list[str] = []
    if len(value.encode()) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, unit=length_unit))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    """Errors of a qualified name (label keys, annotation keys, finalizers): ``[prefix/]name``."""
    return list(_memo_qualified_name(value))


@lru_cache(maxsize=8192)
def _memo_qualified_name(value: str) -> tuple[str, ...]:
    return tuple(_qualified_name_errors(value))


def _qualified_name_errors(value: str) -> list[str]:
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend(
                "prefix part " + msg
                for msg in _dns1123_subdomain_errors(prefix, length_unit="bytes")
            )
    else:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name.encode()) > QUALIFIED_NAME_MAX_LENGTH:
        errors.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH, unit="bytes"))
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append(
            "name part "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def is_valid_label_value(value: str) -> list[str]:
    """Errors of a label value: empty, or a qualified-name-like word of at most 63 bytes."""
    return list(_memo_valid_label_value(value))


@lru_cache(maxsize=8192)
def _memo_valid_label_value(value: str) -> tuple[str, ...]:
    return tuple(_valid_label_value_errors(value))


def _valid_label_value_errors(value: str) -> list[str]:
    errors: list[str] = []
    if len(value.encode()) > LABEL_VALUE_MAX_LENGTH:
        errors.append(max_len_error(LABEL_VALUE_MAX_LENGTH, unit="bytes"))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def is_c_identifier(value: str) -> list[str]:
    """Errors of a C identifier (``[A-Za-z_][A-Za-z0-9_]*``)."""
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    return [regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


def is_config_map_key(value: str) -> list[str]:
    """Errors of a config map or secret key: a file name made of ``[-._a-zA-Z0-9]``."""
    errors: list[str] = []
    if len(value.encode()) > CONFIG_MAP_KEY_MAX_LENGTH:
        errors.append(max_len_error(CONFIG_MAP_KEY_MAX_LENGTH))
    if not _CONFIG_MAP_KEY_RE.fullmatch(value):
        errors.append(
            regex_error(
                _CONFIG_MAP_KEY_MSG, _CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"
            )
        )
    if value == ".":
        errors.append("must not be '.'")
    elif value == "..":
        errors.append("must not be '..'")
    elif value.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def mask_trailing_dash(name: str) -> str:
    """How upstream checks a ``generateName`` prefix: a trailing '-' (and the character before
    it) become ``a``, so ``web-`` is checked as ``wea``."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


_PORT_NAME_CHARS = re.compile(r"^[-a-z0-9]+$")
_HAS_LETTER = re.compile(r"[a-z]")


def is_valid_port_name(name: str) -> list[str]:
    """``IsValidPortName``: an IANA service name (a container port's name, a target port's)."""
    errs: list[str] = []
    if len(name) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARS.match(name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if name and _HAS_LETTER.search(name) is None:
        errs.append("must contain at least one letter (a-z)")
    if name.startswith("-") or name.endswith("-"):
        errs.append("must not begin or end with a hyphen")
    return errs
