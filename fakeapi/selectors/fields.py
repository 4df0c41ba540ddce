"""Field selectors: upstream's ``fields.ParseSelector`` grammar and equality matching.

Terms split on unescaped commas, values are unescaped with ``\\\\``, ``\\,`` and ``\\=``, and
the error text is upstream's. A field selector is parsed once per request and matched against
every object of a list and every event of a watch, so matching is a plain loop with early exit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fakeapi.selectors.errors import SelectorError

__all__ = ["FieldSelector", "FieldTerm", "escape_field_value", "parse_field_selector"]

FieldTerm = tuple[str, str, str]


def escape_field_value(value: str) -> str:
    """Escape ``\\``, ``,`` and ``=`` so a value survives inside a field selector."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _unescape(value: str) -> str:
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    escaped = False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            # upstream prints the rune with %v, i.e. as its code point number
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    terms: list[str] = []
    start, escaped = 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


class FieldSelector:
    """A conjunction of ``field=value`` / ``field!=value`` terms; missing fields read as ""."""

    __slots__ = ("_checks", "fields", "requirements")

    def __init__(self, requirements: Iterable[FieldTerm] = ()) -> None:
        self.requirements: tuple[FieldTerm, ...] = tuple(requirements)
        self.fields: frozenset[str] = frozenset(f for f, _, _ in self.requirements)
        # identical terms (kr8s repeats metadata.name=X) need checking only once
        self._checks: tuple[tuple[str, str, bool], ...] = tuple(
            dict.fromkeys((f, v, op == "=") for f, op, v in self.requirements)
        )

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        # a plain loop with early exit is measurably faster than all(<generator>) here
        for name, value, equal in self._checks:  # noqa: SIM110
            if (fields.get(name, "") == value) is not equal:
                return False
        return True

    def exact_match(self, field: str) -> str | None:
        """The value an equality term pins ``field`` to (the first one, in sorted term order)."""
        for name, op, value in self.requirements:
            if name == field and op == "=":
                return value
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{escape_field_value(v)}" for f, op, v in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"


def parse_field_selector(text: str) -> FieldSelector:
    """Parse a ``fieldSelector`` query string; terms come out sorted, ``==`` reads as ``=``."""
    if not text:
        return _NO_FIELDS
    terms: list[FieldTerm] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        name, op, raw = split
        value = _unescape(raw)
        if not name and not value:
            continue  # upstream turns a bare "=" into the everything selector
        terms.append((name, "!=" if op == "!=" else "=", value))
    return FieldSelector(terms) if terms else _NO_FIELDS


_NO_FIELDS = FieldSelector()
