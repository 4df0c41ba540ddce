"""Functions of the selector environment: CEL standard functions plus the Kubernetes libraries
that device selectors use (quantity, semver, strings, lists, sets, regex) and DRA's ``includes``.

Each function is registered with its result type so the checker can reject, at compile time,
expressions whose result is known not to be a bool, exactly as cel-go's type checker would.
Member functions receive the target as the first argument; one name may serve several receiver
types (``compareTo`` on quantities and on semvers), so dispatch happens on the runtime type.

The functions live in one module per library (:mod:`.standard_library`, :mod:`.string_library`,
:mod:`.list_library`, :mod:`.kubernetes_library`); this module assembles the tables the checker
and the program look names up in, and the result types the checker knows.
"""

from __future__ import annotations

from fakeapi.cel.kubernetes_library import KUBERNETES_GLOBALS, KUBERNETES_MEMBERS
from fakeapi.cel.list_library import (
    LIST_ATTRIBUTE_FUNCTIONS,
    LIST_GLOBALS,
    LIST_MEMBERS,
    MAX_LIST_VALUES,
)
from fakeapi.cel.named_format_library import NAMED_FORMAT_GLOBALS, NAMED_FORMAT_MEMBERS
from fakeapi.cel.network_library import NETWORK_GLOBALS, NETWORK_MEMBERS
from fakeapi.cel.optional_library import OPTIONAL_GLOBALS, OPTIONAL_MEMBERS
from fakeapi.cel.overloads import Function
from fakeapi.cel.standard_library import STANDARD_GLOBALS, STANDARD_MEMBERS
from fakeapi.cel.string_library import STRING_GLOBALS, STRING_MEMBERS
from fakeapi.cel.time_library import TIME_GETTERS, TIME_GLOBALS, TIME_MEMBERS
from fakeapi.cel.values import type_name

__all__ = [
    "GLOBAL_FUNCTIONS",
    "LIST_ATTRIBUTE_FUNCTIONS",
    "MAX_LIST_VALUES",
    "MEMBER_FUNCTIONS",
    "RESULT_TYPES",
]

GLOBAL_FUNCTIONS: dict[str, Function] = {
    **KUBERNETES_GLOBALS,
    **STANDARD_GLOBALS,
    **STRING_GLOBALS,
    **LIST_GLOBALS,
    **OPTIONAL_GLOBALS,
    **NETWORK_GLOBALS,
    **TIME_GLOBALS,
    **NAMED_FORMAT_GLOBALS,
}

MEMBER_FUNCTIONS: dict[str, Function] = {
    **KUBERNETES_MEMBERS,
    **STANDARD_MEMBERS,
    **STRING_MEMBERS,
    **LIST_MEMBERS,
    **OPTIONAL_MEMBERS,
    **NETWORK_MEMBERS,
    **TIME_MEMBERS,
    **NAMED_FORMAT_MEMBERS,
}

# Result types known to the checker ("dyn" when it depends on the arguments).
RESULT_TYPES: dict[str, str] = {
    "size": "int",
    "int": "int",
    "uint": "uint",
    "double": "double",
    "string": "string",
    "bool": "bool",
    "bytes": "bytes",
    "matches": "bool",
    "quantity": "kubernetes.Quantity",
    "isQuantity": "bool",
    "semver": "kubernetes.Semver",
    "isSemver": "bool",
    "sets.contains": "bool",
    "sets.equivalent": "bool",
    "sets.intersects": "bool",
    "strings.quote": "string",
    "format": "string",
    "type": "type",
    "contains": "bool",
    "startsWith": "bool",
    "endsWith": "bool",
    "lowerAscii": "string",
    "upperAscii": "string",
    "trim": "string",
    "charAt": "string",
    "indexOf": "int",
    "lastIndexOf": "int",
    "substring": "string",
    "join": "string",
    "replace": "string",
    "find": "string",
    "isSorted": "bool",
    "isInteger": "bool",
    "asInteger": "int",
    "asApproximateFloat": "double",
    "sign": "int",
    "add": "kubernetes.Quantity",
    "sub": "kubernetes.Quantity",
    "compareTo": "int",
    "isGreaterThan": "bool",
    "isLessThan": "bool",
    "major": "int",
    "minor": "int",
    "patch": "int",
    "includes": "bool",
    "hasValue": "bool",
    **dict.fromkeys(
        (
            "isIP",
            "isCIDR",
            "isURL",
            "ip.isCanonical",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
            "containsIP",
            "containsCIDR",
        ),
        "bool",
    ),
    "family": "int",
    **dict.fromkeys(
        TIME_GETTERS,
        "int",
    ),
    "prefixLength": "int",
    **dict.fromkeys(("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"), "string"),
    "ip": "net.IP",
    "cidr": "net.CIDR",
    "masked": "net.CIDR",
    "url": "kubernetes.URL",
}


def describe(value: object) -> str:
    """Type name for messages (re-exported for the program module)."""
    return type_name(value)
