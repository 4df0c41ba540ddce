"""How the registry describes a served resource, and the table of them that requests look up.

A :class:`ResourceType` is one row: names, scope, subresources, the pydantic model (the schema)
and the strategy (the kind's behaviour). The registry, the server's routes, discovery, OpenAPI and
printing all read these rows; which rows exist is decided one level up, in
:func:`fakeapi.resources.default_resources`, so this module imports no kind.

A row may name its model as ``"module:Class"`` instead of holding the class: the model module is
imported when the row's schema is first needed (the first write of that kind, a strategic merge
patch, an OpenAPI document). Declaring the pydantic classes is most of what building a registry
costs, and a cluster that never sees a Pod should not pay for the Pod types.

Rows may also come and go at run time: a :class:`RowSource` added to the table (the custom
resources of :mod:`fakeapi.apiextensions`, derived from the stored CustomResourceDefinitions) is
asked on every look-up whether its rows changed, so a look-up always sees the rows the stored
definitions call for. :attr:`ResourceTable.generation` moves whenever the rows change, which is
how the documents derived from the table (discovery, OpenAPI, cached routes) know to rebuild. A
row made at run time describes itself through the same fields and hooks as a built-in one
(:meth:`ResourceType.new_decoder`, :attr:`ResourceType.published_schema`), so nothing else in
the server tells the two apart.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from pydantic import BaseModel

from fakeapi.features import EMULATED_VERSION, KubernetesVersion
from fakeapi.registry.conversion import ApiVersionConversion
from fakeapi.registry.strategy import Strategy
from fakeapi.registry.typed_decode import DecodeMode, ObjectDecoder, TypedDecoder
from fakeapi.schema import SchemaNode, schema_for
from fakeapi.storage.interface import Converter, ResourceStore, Storage

__all__ = ["ApiVersionConversion", "ResourceType", "ResourceTable", "RowSource"]


class _ModelField:
    """The ``model`` field of :class:`ResourceType`: set to a class or to ``"module:Class"``,
    read as the class (imported on first read, then kept).

    A dataclass field whose default is a descriptor gets its value through ``__set__``; having
    no default, ``__get__`` on the class raises ``AttributeError``.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}"

    def __get__(self, obj: object | None, objtype: type | None = None) -> type[BaseModel]:
        if obj is None:
            raise AttributeError("model")
        model: type[BaseModel] | str = obj.__dict__[self._slot]
        if isinstance(model, str):
            module, _, name = model.partition(":")
            model = getattr(importlib.import_module(module), name)
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise TypeError(f"{module}:{name} is not a pydantic model")
            obj.__dict__[self._slot] = model
        return model

    def __set__(self, obj: object, value: type[BaseModel] | str) -> None:
        obj.__dict__[self._slot] = value


@dataclass(frozen=True, eq=False)
class ResourceType:
    """One served resource: its names, scope, subresources, model and strategy."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    #: the schema: a pydantic model, or ``"module:Class"`` to import it when first needed
    model: _ModelField = _ModelField()
    strategy: Strategy  # type: ignore[misc]  # mypy takes the descriptor above for a default
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
    #: the Kubernetes minor releases (``(36, 37)``) that serve this row; empty: every release
    releases: tuple[int, ...] = ()

    # The derived names and the schema are read several times by every write: each is worked
    # out once (the fields they come from never change) and kept in the instance's __dict__.
    @cached_property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @cached_property
    def qualified_plural(self) -> str:
        """``pods`` or ``resourceclaims.resource.k8s.io``: the prefix of 404/409 messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @cached_property
    def schema(self) -> SchemaNode:
        return schema_for(self.model)

    @cached_property
    def key(self) -> str:
        """Storage key of the resource: ``resourceclaims.resource.k8s.io`` (group-qualified)."""
        return self.qualified_plural

    @property
    def model_reference(self) -> type[BaseModel] | str:
        """The model as the row was given it: the class, or ``"module:Class"`` not imported yet."""
        model: type[BaseModel] | str = self.__dict__["_model"]
        return model

    @property
    def storage_key(self) -> str:
        """The key of the resource whose store holds this row's objects (its own, or the
        storage version's)."""
        return self.stored_in or self.key

    def served_at(self, minor: int) -> bool:
        """Whether Kubernetes 1.<minor> serves this row."""
        return not self.releases or minor in self.releases

    def store(self, storage: Storage) -> ResourceStore:
        """Where this resource's objects live in ``storage`` (converted if stored elsewhere)."""
        if self.converter is None:
            return storage.resource(self.key)
        return storage.converted(
            self._view_name, stored_in=self.stored_in, converter=self.converter
        )

    @cached_property
    def _view_name(self) -> str:
        # several versions of one resource share its key: each needs a view of its own
        return f"{self.key}/{self.version}"

    def new_decoder(self, mode: DecodeMode) -> ObjectDecoder:
        """A decoder for one request body of this resource (:mod:`fakeapi.registry.decode`): Go's
        typed decoding for the built-in kinds; a row made from a schema at run time decodes as
        its kind's API server does."""
        return TypedDecoder(self.version, mode=mode)

    @property
    def published_schema(self) -> dict[str, Any] | None:
        """The OpenAPI schema of the kind when it has no model to build one from (a custom
        resource's, from its definition); None for the built-in kinds."""
        return None

    @property
    def accepts_strategic_merge_patch(self) -> bool:
        """Whether a strategic merge patch may be sent (custom resources refuse them)."""
        return True

    @property
    def request_warnings(self) -> tuple[str, ...]:
        """Warning headers every request to this resource gets (a deprecated version's)."""
        return ()


class RowSource(Protocol):
    """Rows a table serves besides its own, which may change at run time."""

    def refresh(self) -> Sequence[ResourceType] | None:
        """The rows to serve now, or None when they are the ones returned last time."""
        ...


class ResourceTable:
    """The served kinds, indexed the ways requests look them up.

    The built-in rows are fixed; rows of a :class:`RowSource` follow the source, which every
    look-up asks first. A built-in row wins over a source's row with the same address or kind.
    """

    def __init__(
        self, types: Iterable[ResourceType], *, emulated_version: KubernetesVersion | None = None
    ) -> None:
        self._builtin = list(types)
        self._types = list(self._builtin)
        #: the Kubernetes release the table serves (``/version``, OpenAPI's info)
        self.emulated_version = emulated_version or EMULATED_VERSION
        self._sources: list[RowSource] = []
        self._source_rows: dict[int, Sequence[ResourceType]] = {}
        self._generation = 0
        self._index()

    def _index(self) -> None:
        self._by_path: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rt in self._builtin:
            self._by_path[(rt.group, rt.version, rt.plural)] = rt
            self._by_kind[(rt.api_version, rt.kind)] = rt
        for rt in self._types[len(self._builtin):]:
            self._by_path.setdefault((rt.group, rt.version, rt.plural), rt)
            self._by_kind.setdefault((rt.api_version, rt.kind), rt)

    def add_source(self, source: RowSource) -> None:
        """Serve the rows of ``source`` too, from the next look-up on."""
        self._sources.append(source)
        self._refresh()

    def _refresh(self) -> None:
        changed = False
        for source in self._sources:
            rows = source.refresh()
            if rows is not None:
                self._source_rows[id(source)] = rows
                changed = True
        if changed:
            self._types = list(self._builtin)
            for source in self._sources:
                self._types.extend(self._source_rows.get(id(source), ()))
            self._index()
            self._generation += 1

    @property
    def generation(self) -> int:
        """A number that changes whenever the served rows change."""
        if self._sources:
            self._refresh()
        return self._generation

    def __iter__(self) -> Iterator[ResourceType]:
        if self._sources:
            self._refresh()
        return iter(self._types)

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        if self._sources:
            self._refresh()
        return self._by_path.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        if self._sources:
            self._refresh()
        return self._by_kind.get((api_version, kind))

    def group_versions(self) -> list[tuple[str, str]]:
        """(group, version) pairs in first-served order, core first."""
        seen: dict[tuple[str, str], None] = {}
        for rt in self:
            seen.setdefault((rt.group, rt.version), None)
        return list(seen)
