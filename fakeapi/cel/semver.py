"""Semantic versions as CEL values (the Kubernetes ``semver`` library and version attributes).

Strict parsing follows semver.org 2.0.0 as blang/semver does (what version attributes and
``semver("1.2.3")`` accept); ``normalize=True`` applies the library's lenient form: a leading
``v`` is dropped, missing minor/patch become 0 and leading zeros are stripped. Comparison follows
semver precedence (pre-release considered, build metadata ignored).
"""

from __future__ import annotations

import re
from functools import total_ordering

__all__ = ["Semver", "SemverError", "parse_semver"]

_NUM = r"0|[1-9][0-9]*"
_PRE_ID = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER_RE = re.compile(
    rf"^({_NUM})\.({_NUM})\.({_NUM})"
    rf"(?:-({_PRE_ID}(?:\.{_PRE_ID})*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_LENIENT_RE = re.compile(r"^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?([-+].*)?$")


class SemverError(ValueError):
    """Not a semantic version."""


@total_ordering
class Semver:
    """A parsed semantic version; hashable and ordered by semver precedence."""

    __slots__ = ("build", "major", "minor", "patch", "pre", "text")

    def __init__(
        self, major: int, minor: int, patch: int, pre: tuple[str, ...], build: str, text: str
    ) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre
        self.build = build
        self.text = text

    def _key(self) -> tuple[object, ...]:
        if not self.pre:
            return (self.major, self.minor, self.patch, 1, ())
        parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, 0, parts)

    def compare(self, other: Semver) -> int:
        a, b = self._key(), other._key()
        if a == b:
            return 0
        return -1 if a < b else 1

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Semver):
            return self._key() == other._key()
        return NotImplemented

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Semver({self.text!r})"


def parse_semver(text: str, *, normalize: bool = False) -> Semver:
    """Parse ``text``; raises :class:`SemverError` with a blang-like message."""
    if normalize:
        match = _LENIENT_RE.match(text)
        if match is None:
            raise SemverError(f"No Major.Minor.Patch elements found: {text!r}")
        major, minor, patch, rest = match.groups()
        text = f"{int(major)}.{int(minor or 0)}.{int(patch or 0)}{rest or ''}"
    match = _SEMVER_RE.match(text)
    if match is None:
        raise SemverError(_why_not(text))
    major, minor, patch, pre, build = match.groups()
    return Semver(
        int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else (), build or "", text
    )


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _why_not(text: str) -> str:
    """Why ``text`` is not a version, in blang/semver's words (what Kubernetes' CEL ``semver``
    returns as the error), checked in its order."""
    if not text:
        return "Version string empty"
    parts = text.split(".", 2)
    if len(parts) != 3:
        return "No Major.Minor.Patch elements found"
    patch, _, build = parts[2].partition("+")
    patch, dash, pre = patch.partition("-")
    for label, number in (("major", parts[0]), ("minor", parts[1]), ("patch", patch)):
        if not number.isdigit() or not number.isascii():
            return f"Invalid character(s) found in {label} number {_go_quote(number)}"
        if len(number) > 1 and number.startswith("0"):
            capital = label.capitalize()
            return f"{capital} number must not contain leading zeroes {_go_quote(number)}"
    for identifier in pre.split(".") if dash else ():
        if not identifier:
            return "Prerelease is empty"
        if identifier.isdigit() and len(identifier) > 1 and identifier.startswith("0"):
            return (
                "Numeric PreRelease version must not contain leading zeroes "
                + _go_quote(identifier)
            )
        if not re.fullmatch(r"[0-9A-Za-z-]+", identifier):
            return f"Invalid character(s) found in prerelease {_go_quote(identifier)}"
    for identifier in build.split(".") if "+" in parts[2] else ():
        if not identifier:
            return "Build meta data is empty"
        if not re.fullmatch(r"[0-9A-Za-z-]+", identifier):
            return f"Invalid character(s) found in build meta data {_go_quote(identifier)}"
    return f"invalid semantic version {_go_quote(text)}"
