"""The checker's small type lattice, and how cel-go joins and compares literal element types.

Types are strings for simple types (``"int"``, ``"kubernetes.Quantity"``) and tuples for
``("list", elem)`` and ``("map", key, value)``. Four strings are wildcards the checker lets
through every operator, but they are different types to cel-go's homogeneous-literal validator,
which compares exact types:

* ``dyn``: a genuine ``dyn`` (``dyn(x)``, a selection on ``dyn``, list-type attribute values);
* ``any``: attribute values when list-type attributes are off (upstream declares them with the
  protobuf ``Any`` type);
* ``_var``: the free type parameter of an empty literal, which takes whatever type it is
  compared with (cel-go substitutes type parameters before validating);
* ``?``: a type this checker cannot work out although cel-go can (``attribute + 1`` is ``int``
  to cel-go). It is never reported, so the checker stays lenient where it does not know.
"""

from __future__ import annotations

from typing import TypeAlias

from fakeapi.cel.values import type_name

__all__ = [
    "ANY",
    "DYN",
    "PARAM",
    "UNKNOWN",
    "WILDCARDS",
    "Type",
    "is_known",
    "join",
    "literal_type",
    "match",
    "type_str",
]

Type: TypeAlias = "str | tuple[Type, ...]"
DYN = "dyn"
ANY = "any"
PARAM = "_var"
UNKNOWN = "?"
WILDCARDS = frozenset({DYN, ANY, PARAM, UNKNOWN})


def type_str(t: Type) -> str:
    """cel-go's spelling of a type (free type parameters and unknowns print as ``dyn``)."""
    if isinstance(t, str):
        return {"null_type": "null", PARAM: DYN, UNKNOWN: DYN}.get(t, t)
    if t[0] == "list":
        return f"list({type_str(t[1])})"
    return f"map({type_str(t[1])}, {type_str(t[2])})"


def is_known(t: Type) -> bool:
    return not (isinstance(t, str) and t in WILDCARDS)


def literal_type(value: object) -> Type:
    """The type of a scalar literal: the runtime type name the evaluator reports."""
    return type_name(value)


def join(types: list[Type]) -> Type:
    """A literal's element type as cel-go's checker infers it: a free type parameter when
    empty, else the most general of mutually assignable types, else ``dyn``."""
    if not types:
        return PARAM
    joined = types[0]
    for t in types[1:]:
        if UNKNOWN in (joined, t):
            return UNKNOWN
        joined = _most_general(joined, t) if _assignable(joined, t) else DYN
    return joined


def _assignable(a: Type, b: Type) -> bool:
    if not (is_known(a) and is_known(b)):
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return (
            a[0] == b[0]
            and len(a) == len(b)
            and all(_assignable(x, y) for x, y in zip(a[1:], b[1:], strict=True))
        )
    return a == b


def _most_general(a: Type, b: Type) -> Type:
    if not is_known(a):
        return a
    if not is_known(b):
        return b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return (a[0], *(_most_general(x, y) for x, y in zip(a[1:], b[1:], strict=True)))
    return a


def match(expected: Type, found: Type) -> Type | None:
    """``expected`` with its free type parameters bound from ``found`` when the two are the
    same type for cel-go's validator, else None. ``?`` matches anything (nothing is known)."""
    if UNKNOWN in (expected, found):
        return expected
    if expected == PARAM:
        return found
    if found == PARAM:
        return expected
    if isinstance(expected, tuple) and isinstance(found, tuple):
        if expected[0] != found[0] or len(expected) != len(found):
            return None
        params: list[Type] = []
        for e, f in zip(expected[1:], found[1:], strict=True):
            matched = match(e, f)
            if matched is None:
                return None
            params.append(matched)
        return (expected[0], *params)
    return expected if expected == found else None
