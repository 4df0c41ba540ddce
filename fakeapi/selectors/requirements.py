"""Label requirements and label selectors: validated once, then matched fast.

A selector is parsed once per request and then matched against every object of a list and
every event of a watch, so each requirement compiles to a small ``(key, opcode, argument)``
check and matching is one plain loop over them with early exit. Validation follows upstream's
``NewRequirement`` and raises its aggregated message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fakeapi.selectors.errors import (
    SelectorError,
    aggregate_errors,
    invalid_value,
    label_key_errors,
    label_value_errors,
)

__all__ = [
    "BINARY_OPERATORS",
    "DOES_NOT_EXIST",
    "DOUBLE_EQUALS",
    "EQUALS",
    "EXISTS",
    "GREATER_THAN",
    "IN",
    "LESS_THAN",
    "NOT_EQUALS",
    "NOT_IN",
    "LabelSelector",
    "Requirement",
    "new_requirement",
]

IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
GREATER_THAN, LESS_THAN, EXISTS, DOES_NOT_EXIST = "gt", "lt", "exists", "!"
BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_INT64 = re.compile(r"[+-]?[0-9]+")


def _go_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None where Go would fail."""
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if -(1 << 63) <= number < (1 << 63) else None


# Each requirement compiles to (key, opcode, argument). One loop branching on small integers
# runs about a third faster than calling a closure per requirement, and matching is hot.
_IS, _IS_ONE_OF, _IS_NOT, _IS_NONE_OF, _HAS, _LACKS, _ABOVE, _BELOW, _NEVER = range(9)
LabelOp = tuple[str, int, Any]


def _compile(key: str, op: str, values: tuple[str, ...]) -> LabelOp:
    """The opcode form of one requirement; absent keys read as None, never equal to a value."""
    if op in (EQUALS, DOUBLE_EQUALS, IN):
        return (key, _IS, values[0]) if len(values) == 1 else (key, _IS_ONE_OF, frozenset(values))
    if op in (NOT_EQUALS, NOT_IN):
        if len(values) == 1:
            return key, _IS_NOT, values[0]
        return key, _IS_NONE_OF, frozenset(values)
    if op == EXISTS:
        return key, _HAS, None
    if op == DOES_NOT_EXIST:
        return key, _LACKS, None
    bound = _go_int64(values[0]) if len(values) == 1 else None
    if bound is None:
        return key, _NEVER, None
    return key, _ABOVE if op == GREATER_THAN else _BELOW, bound


def _matches_all(ops: tuple[LabelOp, ...], labels: Mapping[str, str]) -> bool:
    # literal opcodes: a global name lookup per comparison would cost more than the comparison
    for key, code, arg in ops:
        if code == 0:  # _IS
            if labels.get(key) != arg:
                return False
        elif code == 1:  # _IS_ONE_OF
            if labels.get(key) not in arg:
                return False
        elif code == 2:  # _IS_NOT
            if labels.get(key) == arg:
                return False
        elif code == 3:  # _IS_NONE_OF
            if labels.get(key) in arg:
                return False
        elif code == 4:  # _HAS
            if key not in labels:
                return False
        elif code == 5:  # _LACKS
            if key in labels:
                return False
        elif code == 8:  # _NEVER
            return False
        else:  # _ABOVE, _BELOW
            raw = labels.get(key)
            number = None if raw is None else _go_int64(raw)
            if number is None or (number <= arg if code == 6 else number >= arg):
                return False
    return True


class Requirement:
    """One term of a label selector: a key, an operator and its values."""

    __slots__ = ("compiled", "key", "operator", "values")

    def __init__(self, key: str, operator: str, values: Sequence[str]) -> None:
        self.key = key
        self.operator = operator
        self.values: tuple[str, ...] = tuple(values)
        self.compiled: LabelOp = _compile(key, operator, self.values)

    def matches(self, labels: Mapping[str, str]) -> bool:
        return _matches_all((self.compiled,), labels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values))

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {self.values!r})"

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def new_requirement(
    key: str, op: str, values: Sequence[str], *, api_values: bool = False
) -> Requirement:
    """Validate like upstream ``NewRequirement``; raise with its aggregated message."""
    errors: list[str] = []
    if key_errors := label_key_errors(key):
        errors.append(invalid_value("key", key, "; ".join(key_errors)))
    # upstream renders an empty value list from an API object as Go's nil slice
    shown: object = list(values) if values or not api_values else None
    if op in (IN, NOT_IN):
        if not values:
            errors.append(
                invalid_value(
                    "values", shown, "for 'in', 'notin' operators, values set can't be empty"
                )
            )
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(values) != 1:
            errors.append(
                invalid_value(
                    "values", shown, "exact-match compatibility requires one single value"
                )
            )
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            errors.append(
                invalid_value(
                    "values", shown, "values set must be empty for exists and does not exist"
                )
            )
    elif op in (GREATER_THAN, LESS_THAN):
        if len(values) != 1:
            errors.append(
                invalid_value(
                    "values", shown, "for 'Gt', 'Lt' operators, exactly one value is required"
                )
            )
        for i, value in enumerate(values):
            if _go_int64(value) is None:
                errors.append(
                    invalid_value(
                        f"values[{i}]",
                        value,
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    for i, value in enumerate(values):
        if value_errors := label_value_errors(value):
            errors.append(invalid_value(f"values[{i}][{key}]", value, "; ".join(value_errors)))
    if errors:
        raise SelectorError(aggregate_errors(errors))
    return Requirement(key, op, values)


class LabelSelector:
    """A conjunction of requirements, sorted by key as upstream sorts them."""

    __slots__ = ("_ops", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(
            sorted(requirements, key=lambda r: r.key)
        )
        ops = tuple(r.compiled for r in self.requirements)
        self._ops: tuple[LabelOp, ...] = (("", _NEVER, None),) if nothing else ops

    @classmethod
    def everything(cls) -> LabelSelector:
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> LabelSelector:
        """The selector of a null ``metav1.LabelSelector``: matches no object at all."""
        return _NOTHING

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (the empty string)."""
        return not self._ops

    def matches(self, labels: Mapping[str, str]) -> bool:
        return _matches_all(self._ops, labels)

    def requires_exact_match(self, key: str) -> str | None:
        """The single value the first requirement on ``key`` pins it to, if it pins one."""
        for req in self.requirements:
            if req.key == key:
                if req.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(req.values) == 1:
                    return req.values[0]
                return None
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return (self.requirements, self._is_nothing) == (other.requirements, other._is_nothing)

    def __hash__(self) -> int:
        return hash((self.requirements, self._is_nothing))

    @property
    def _is_nothing(self) -> bool:
        return bool(self._ops) and not self.requirements

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "LabelSelector(<nothing>)" if self._is_nothing else f"LabelSelector({str(self)!r})"


_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector(nothing=True)
