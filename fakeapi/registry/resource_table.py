"""How the registry describes a served resource, and the table of them that requests look up.

A :class:`ResourceType` is one row: names, scope, subresources, the pydantic model (the schema)
and the strategy (the kind's behaviour). The registry, the server's routes, discovery, OpenAPI and
printing all read these rows; which rows exist is decided one level up, in
:func:`fakeapi.resources.default_resources`, so this module imports no kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from fakeapi.registry.strategy import Strategy
from fakeapi.schema import SchemaNode, schema_for
from fakeapi.storage.interface import Converter, ResourceStore, Storage

__all__ = ["ApiVersionConversion", "ResourceType", "ResourceTable"]


@dataclass(frozen=True, eq=False)
class ResourceType:
    """One served resource: its names, scope, subresources, model and strategy."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    model: type[BaseModel]
    strategy: Strategy
    #: ``status`` and/or ``binding`` (pods)
    subresources: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    #: DELETE answers with the object (else with a ``Status`` Success), as upstream's OpenAPI says
    delete_returns_object: bool = False
    #: the upstream OpenAPI schema name prefix, e.g. ``io.k8s.api.core.v1``
    openapi_prefix: str = ""
    singular: str = field(default="")
    #: served from another resource's storage (``stored_in`` is its key) through ``converter``
    stored_in: str = ""
    converter: Converter | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified_plural(self) -> str:
        """``pods`` or ``resourceclaims.resource.k8s.io``: the prefix of 404/409 messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def schema(self) -> SchemaNode:
        return schema_for(self.model)

    @property
    def key(self) -> str:
        """Storage key of the resource: ``resourceclaims.resource.k8s.io`` (group-qualified)."""
        return self.qualified_plural

    def store(self, storage: Storage) -> ResourceStore:
        """Where this resource's objects live in ``storage`` (converted if stored elsewhere)."""
        if self.converter is None:
            return storage.resource(self.key)
        return storage.converted(self.key, stored_in=self.stored_in, converter=self.converter)


class ApiVersionConversion:
    """Another version of a kind whose fields are the same: only ``apiVersion`` changes.

    Upstream serves a kind at several versions from one stored copy; where the versions share
    every field (DeviceTaintRule at ``resource.k8s.io/v1`` and ``v1beta2``), converting an object
    is rewriting its ``apiVersion``.
    """

    def __init__(self, *, stored: str, served: str) -> None:
        self.stored = stored
        self.served = served

    def to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.stored}

    def from_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.served}


class ResourceTable:
    """The served kinds, indexed the ways requests look them up."""

    def __init__(self, types: Iterable[ResourceType]) -> None:
        self._types = list(types)
        self._by_path: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rt in self._types:
            self._by_path[(rt.group, rt.version, rt.plural)] = rt
            self._by_kind[(rt.api_version, rt.kind)] = rt

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(self._types)

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        return self._by_kind.get((api_version, kind))

    def group_versions(self) -> list[tuple[str, str]]:
        """(group, version) pairs in first-served order, core first."""
        seen: dict[tuple[str, str], None] = {}
        for rt in self._types:
            seen.setdefault((rt.group, rt.version), None)
        return list(seen)


