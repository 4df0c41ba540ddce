"""Claim constraints: ``matchAttribute`` and ``distinctAttribute``.

Both are checked incrementally while devices are tentatively added and undone in LIFO order when
the search backtracks. Semantics are upstream's, including two details that matter for results:
attributes are looked up by the full name, else by the bare identifier when the domain is the
device's driver; and ``distinctAttribute`` compares a new device with every device chosen so far,
those of its own request included (upstream's fix of kubernetes#140438; released allocators
remembered one value per request name, so two devices of one request could share a value). With
DRAListTypeAttributes, values are sets: match keeps a running intersection that must stay
non-empty, distinct requires disjoint sets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.scheduler.plugins.dynamic_resources.entries import DeviceEntry

__all__ = ["Constraint", "DistinctAttribute", "MatchAttribute", "lookup_attribute"]

_SCALARS = ("string", "int", "bool", "version")
_LISTS = (("ints", "int"), ("bools", "bool"), ("strings", "string"), ("versions", "version"))


def lookup_attribute(device: DeviceEntry, name: str) -> Mapping[str, Any] | None:
    attributes = device.attributes
    found = attributes.get(name)
    if found is not None:
        return found
    domain, sep, ident = name.partition("/")
    if not sep or domain != device.driver:
        return None
    return attributes.get(ident)


def _scalar(attribute: Mapping[str, Any]) -> tuple[str, object] | None:
    for kind in _SCALARS:
        if attribute.get(kind) is not None:
            return (kind, attribute[kind])
    return None


def _as_set(attribute: Mapping[str, Any]) -> tuple[str, frozenset[object]] | None:
    for key, kind in _LISTS:
        values = attribute.get(key)
        if values:
            return (kind, frozenset(values))
    scalar = _scalar(attribute)
    if scalar is None:
        return None
    return (scalar[0], frozenset((scalar[1],)))


class Constraint:
    """Base: applies to the named requests (all when empty)."""

    def __init__(self, requests: list[str], attribute: str, list_semantics: bool) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.list_semantics = list_semantics

    def applies(self, request: str, subrequest: str | None) -> bool:
        if not self.requests:
            return True
        if request in self.requests:
            return True
        return subrequest is not None and f"{request}/{subrequest}" in self.requests

    def add(self, request: str, subrequest: str | None, device: DeviceEntry) -> bool:
        raise NotImplementedError

    def remove(self, request: str, subrequest: str | None, device: DeviceEntry) -> None:
        raise NotImplementedError


class MatchAttribute(Constraint):
    def __init__(self, requests: list[str], attribute: str, list_semantics: bool) -> None:
        super().__init__(requests, attribute, list_semantics)
        # One entry per added device: the scalar fixed by the first device, or the running
        # intersection of value sets (list semantics), so that removal restores the previous one.
        self.scalars: list[tuple[str, object]] = []
        self.sets: list[tuple[str, frozenset[object]]] = []

    def add(self, request: str, subrequest: str | None, device: DeviceEntry) -> bool:
        if not self.applies(request, subrequest):
            return True
        attribute = lookup_attribute(device, self.attribute)
        if attribute is None:
            return False
        if self.list_semantics:
            values = _as_set(attribute)
            if values is None:
                return False
            if self.sets:
                kind, current = self.sets[-1]
                if values[0] != kind or not (current & values[1]):
                    return False
                values = (kind, current & values[1])
            self.sets.append(values)
            return True
        scalar = _scalar(attribute)
        if scalar is None or (self.scalars and self.scalars[0] != scalar):
            return False
        self.scalars.append(scalar)
        return True

    def remove(self, request: str, subrequest: str | None, device: DeviceEntry) -> None:
        if self.applies(request, subrequest):
            if self.list_semantics:
                self.sets.pop()
            else:
                self.scalars.pop()


class DistinctAttribute(Constraint):
    def __init__(self, requests: list[str], attribute: str, list_semantics: bool) -> None:
        super().__init__(requests, attribute, list_semantics)
        #: the attribute of each device chosen so far, in the order chosen (undone LIFO)
        self.values: list[Mapping[str, Any]] = []

    def add(self, request: str, subrequest: str | None, device: DeviceEntry) -> bool:
        if not self.applies(request, subrequest):
            return True
        attribute = lookup_attribute(device, self.attribute)
        if attribute is None:
            return False
        if self.values and not self._distinct(attribute):
            return False
        self.values.append(attribute)
        return True

    def _distinct(self, attribute: Mapping[str, Any]) -> bool:
        if self.list_semantics:
            new = _as_set(attribute)
            if new is None:
                return False
            for existing in self.values:
                old = _as_set(existing)
                if old is not None and old[0] == new[0] and old[1] & new[1]:
                    return False
            return True
        new_scalar = _scalar(attribute)
        if new_scalar is None:
            return False
        return all(_scalar(existing) != new_scalar for existing in self.values)

    def remove(self, request: str, subrequest: str | None, device: DeviceEntry) -> None:
        if self.applies(request, subrequest):
            self.values.pop()
