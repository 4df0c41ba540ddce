"""Worst-case cost estimates, as cel-go's checker and Kubernetes' CEL library make them.

API validation refuses a selector whose estimated cost exceeds the limit, so the estimate decides
which expressions may be stored and has to be upstream's, unit for unit:

* literals cost nothing; an identifier, a field selection on a map or struct, an index, a
  presence test and an ordinary function call cost 1 each, on top of their operands;
* ``&&``, ``||`` and ``?:`` cost their operands only (the dearer branch of a conditional);
  a list literal costs 10, a map literal 30;
* comparing strings or bytes costs a tenth of the shorter operand's size (rounded up; any other
  equality costs 1), a ``+`` of strings a tenth of the result, membership in a list the list's
  size; ``matches``, ``contains``, ``startsWith`` and the Kubernetes string, list and network
  functions scale with the sizes of their operands;
* a macro costs what its expansion costs: the range, the accumulator's initial value and result,
  and the range's size times the loop condition and step (``all``, ``exists``, ``exists_one``,
  ``map``, ``filter`` and the two-variable forms expand as cel-go's macros do; ``cel.bind`` is a
  comprehension over an empty list).

Sizes come from the device's declaration (:data:`DEVICE_SIZES`: a driver name of at most 63
characters, at most 32 domains and 32 attributes or capacities each, attribute values of at most
64 characters or list entries), from literals, or from what a function or macro builds; a scalar
has size 1, anything else of unknown size counts as unbounded. Costs add up without limit and
are reported capped at 2^64 - 1, as cel-go's saturating arithmetic does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "DEVICE_SIZES",
    "LIST_CREATE",
    "MAP_CREATE",
    "UNBOUNDED",
    "SizeDecl",
    "call_cost",
    "capped",
    "comprehension_cost",
    "size_at",
    "traversal",
]

#: cel-go's largest cost or size (uint64)
UNBOUNDED = 2**64 - 1
LIST_CREATE = 10
MAP_CREATE = 30
_STRING_TRAVERSAL = 0.1
_REGEX_LENGTH = 0.25
#: the cost of ``includes``: upstream's ResourceSliceMaxAttributeValuesPerDevice
_INCLUDES = 48


def capped(cost: int) -> int:
    return min(cost, UNBOUNDED)


def traversal(size: int, factor: float = _STRING_TRAVERSAL) -> int:
    """``ceil(size * factor)``: the cost of walking ``size`` characters (cel-go's
    ``MultiplyByCostFactor``)."""
    return math.ceil(min(size, UNBOUNDED) * factor)


@dataclass(frozen=True, slots=True)
class SizeDecl:
    """The largest size of a declared value, and the declarations of its parts: map keys,
    map values or list items, and object fields."""

    max: int
    key: SizeDecl | None = None
    elem: SizeDecl | None = None
    fields: dict[str, SizeDecl] = field(default_factory=dict)


def _map(key: SizeDecl, elem: SizeDecl) -> SizeDecl:
    return SizeDecl(32, key=key, elem=elem)  # ResourceSliceMaxAttributesAndCapacitiesPerDevice


_DOMAIN = SizeDecl(63)
_ID = SizeDecl(32)
#: attribute values: 64 characters (DeviceAttributeMaxValueLength), or a list of at most 48
#: entries (ResourceSliceMaxAttributeValuesPerDevice), whichever is larger
_ATTRIBUTE = SizeDecl(64)
#: a quantity is an object without a declared size
_QUANTITY = SizeDecl(0)

DEVICE_SIZES = SizeDecl(
    0,
    fields={
        "driver": SizeDecl(63),
        "attributes": _map(_DOMAIN, _map(_ID, _ATTRIBUTE)),
        "capacity": _map(_DOMAIN, _map(_ID, _QUANTITY)),
        "allowMultipleAllocations": SizeDecl(1),
    },
)


def size_at(root: SizeDecl, path: tuple[str, ...]) -> int | None:
    """The declared largest size at ``path`` below ``root`` (``@keys``, ``@values`` and
    ``@items`` step into a map's keys, a map's values and a list's items; an undeclared name on
    a map is one of its values), or None when nothing is declared there."""
    decl: SizeDecl | None = root
    for step in path:
        assert decl is not None
        if step in ("@items", "@values"):
            decl = decl.elem
        elif step == "@keys":
            decl = decl.key
        else:
            decl = decl.fields.get(step) or decl.elem
        if decl is None:
            return None
    assert decl is not None
    return decl.max


def call_cost(
    function: str,
    *,
    member: bool,
    target_size: int,
    arg_sizes: list[int],
    arg_literals: list[object],
    element_size: int | None,
    text_elements: bool,
    target_is_string: bool,
) -> tuple[int, int | None]:
    """The cost of calling ``function`` itself (operands excluded) and the size of its result
    when the function declares one.

    ``element_size`` is the size of a list target's items (None: the target is not a list),
    ``text_elements`` whether they are strings or bytes; ``arg_literals`` holds each argument's
    literal value, or None.
    """
    if member:
        match function:
            case "startsWith" | "endsWith":
                return traversal(arg_sizes[0]) if arg_sizes else 1, None
            case "contains" if target_is_string and arg_sizes:
                return traversal(target_size) * traversal(arg_sizes[0]), None
            case "matches" if arg_sizes:
                return traversal(target_size + 1) * traversal(arg_sizes[0], _REGEX_LENGTH), None
            case "find" | "findAll" if arg_sizes:
                cost = traversal(target_size + 1) * traversal(arg_sizes[0], _REGEX_LENGTH)
                return cost, target_size
            case "lowerAscii" | "upperAscii" | "substring" | "trim":
                return traversal(target_size), target_size
            case "replace" if len(arg_sizes) >= 2:
                return traversal(target_size, 2 * _STRING_TRAVERSAL), _replaced_size(
                    target_size, arg_sizes, arg_literals
                )
            case "split":
                limit = arg_literals[1] if len(arg_literals) > 1 else None
                size = limit if isinstance(limit, int) and limit >= 0 else target_size
                return traversal(target_size, 2 * _STRING_TRAVERSAL), size
            case "join":
                joined = 0 if element_size is None else target_size * element_size
                if arg_sizes:
                    joined += arg_sizes[0] * max(target_size - 1, 0)
                return traversal(joined), joined
            case "format":
                return traversal(target_size), None
            case "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf":
                if element_size is None:
                    return traversal(target_size), None
                return target_size * (1 + (traversal(element_size) if text_elements else 0)), None
            case "includes":
                return _INCLUDES, None
            case "sort" | "distinct":
                return target_size * target_size, target_size
        return 1, None
    match function:
        case "bytes" | "string" | "strings.quote" | "url":
            size = arg_sizes[0] if arg_sizes else 1
            return traversal(size), (size if function != "url" else None)
        case "sets.contains" | "sets.equivalent" | "sets.intersects" if len(arg_sizes) == 2:
            return 1 + arg_sizes[0] * arg_sizes[1], None
    return 1, None


def _replaced_size(size: int, arg_sizes: list[int], arg_literals: list[object]) -> int:
    """The largest result of ``replace`` (upstream's estimate: every shortest match replaced by
    the longest replacement)."""
    old = arg_literals[0]
    old_min = len(old) if isinstance(old, str) else 0
    new_max = arg_sizes[1]
    if old_min == 0:
        return (size + 1) * new_max + size
    if new_max <= old_min:
        return size
    return math.ceil(size / old_min) * new_max


def comprehension_cost(macro: str, range_cost: int, size: int, body: list[int]) -> int:
    """The cost of a macro's expansion: ``body`` holds the costs of its expressions (predicate,
    transform) and ``size`` is the range's size."""
    *pred, last = body
    filtered = pred[0] if pred else 0
    match macro:
        case "all":  # init true; condition @not_strictly_false(accu); step accu && p
            return range_cost + 1 + size * (2 + 1 + last)
        case "exists":  # init false; condition @not_strictly_false(!accu); step accu || p
            return range_cost + 1 + size * (3 + 1 + last)
        case "exists_one":  # init 0; step p ? accu + 1 : accu; result accu == 1
            return range_cost + 2 + size * (last + 2)
        case "filter":  # init []; step p ? accu + [x] : accu
            return range_cost + LIST_CREATE + 1 + size * (last + 2 + LIST_CREATE + 1)
        case "map" | "transformList":  # init []; step [p ?] accu + [f] : accu
            return range_cost + LIST_CREATE + 1 + size * (filtered + 2 + LIST_CREATE + last)
        case "transformMap":  # init {}; step [p ?] cel.@mapInsert(accu, k, f) : accu
            return range_cost + MAP_CREATE + 1 + size * (filtered + 3 + last)
        case "transformMapEntry":  # init {}; step [p ?] cel.@mapInsert(accu, f) : accu
            return range_cost + MAP_CREATE + 1 + size * (filtered + 2 + last)
        case "optMap":  # t.hasValue() ? optional.of(cel.bind(x, t.value(), f)) : optional.none()
            return 2 * range_cost + 3 + LIST_CREATE + last
        case "optFlatMap":  # t.hasValue() ? cel.bind(x, t.value(), f) : optional.none()
            return 2 * range_cost + 2 + LIST_CREATE + last
    # sortBy: the keys mapped as ``map`` would, then sorted with them
    return range_cost + LIST_CREATE + 1 + size * (2 + LIST_CREATE + last) + size * size
