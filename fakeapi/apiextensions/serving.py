"""Rows of the resource table for custom resources, derived from the stored definitions.

:class:`CustomResourceRows` is the table's :class:`~fakeapi.registry.resource_table.RowSource`
for CustomResourceDefinitions. It watches the definitions' store (a storage watcher whose queue
it drains on every look-up) and, when anything changed, derives the rows again from what is
stored: one :class:`CustomResourceType` per served version of every definition that upstream
would serve (names accepted, or established). Rows are never registered by a handler, so
whatever puts a definition into storage (a create, an update, a restore from disk) changes the
served API the same way, at once. A definition whose spec and accepted names did not change
keeps its row objects, and compiling a version happens once per schema
(:func:`~fakeapi.apiextensions.versions.served_version`).

A custom resource is stored once, in its definition's storage version, under the key
``<plural>.<group>``; each served version reads it through :class:`CustomResourceStore`, which
sets the served ``apiVersion`` (the ``None`` conversion) and, as upstream does on reads, applies
the served version's defaults and pruning to objects written before the schema last changed.
Objects written since went through the same schema on their way in and are handed out as they
are stored, bytes included.

The schema machinery (structural schemas, validation, pruning, defaulting, CEL) is imported by
the first row derived, not with this module: every server carries the row source, and most never
see a definition (it is most of a sandbox's import time otherwise).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import orjson

from fakeapi.objects import as_dict, as_list
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.typed_decode import DecodeMode, ObjectDecoder
from fakeapi.schema import SchemaNode
from fakeapi.storage.events import Event, Stored, encode
from fakeapi.storage.interface import ResourceStore, Storage
from fakeapi.storage.view import ResourceStoreView
from fakeapi.storage.watch import Watcher

if TYPE_CHECKING:
    from fakeapi.apiextensions.versions import ServedVersion

__all__ = [
    "CRD_STORAGE_KEY",
    "CustomResourceRows",
    "CustomResourceStore",
    "CustomResourceType",
    "is_served",
]

#: where the definitions themselves are stored
CRD_STORAGE_KEY = "customresourcedefinitions.apiextensions.k8s.io"
_CUSTOM_RESOURCE_MODEL = "fakeapi.models.apiextensions:CustomResourceObject"
_CACHE_SIZE = 4096


def _condition(crd: dict[str, Any], kind: str) -> str | None:
    for condition in as_list(as_dict(crd.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == kind:
            status = condition.get("status")
            return status if isinstance(status, str) else None
    return None


def is_served(crd: dict[str, Any]) -> bool:
    """Upstream serves a definition's resources once its names are accepted or it is
    established."""
    return _condition(crd, "NamesAccepted") == "True" or _condition(crd, "Established") == "True"


def is_terminating(crd: dict[str, Any]) -> bool:
    return bool(as_dict(crd.get("metadata")).get("deletionTimestamp")) or (
        _condition(crd, "Terminating") == "True"
    )


# mypy takes ResourceType's model descriptor for a default, as it does for the base class
@dataclass(frozen=True, eq=False)
class CustomResourceType(ResourceType):  # type: ignore[misc]
    """A row for one served version of a definition."""

    served: ServedVersion | None = None
    #: the definition's name (``<plural>.<group>``)
    crd_name: str = ""
    #: the resourceVersion the row's schema took effect at: objects written after it went
    #: through this schema on their way in
    schema_rv: int = 0
    terminating: bool = False
    _views: dict[int, CustomResourceStore] = field(default_factory=dict, compare=False, repr=False)

    @property
    def version_info(self) -> ServedVersion:
        assert self.served is not None
        return self.served

    @cached_property
    def schema(self) -> SchemaNode:
        return self.version_info.schema_node

    @property
    def list_kind(self) -> str:
        return self.version_info.list_kind

    @property
    def accepts_strategic_merge_patch(self) -> bool:
        return False

    @property
    def request_warnings(self) -> tuple[str, ...]:
        warning = self.version_info.warning
        return (warning,) if warning else ()

    def new_decoder(self, mode: DecodeMode) -> ObjectDecoder:
        from fakeapi.apiextensions.strategy import CustomResourceDecoder

        return CustomResourceDecoder(self.version_info, mode)

    @cached_property
    def published_schema(self) -> dict[str, Any] | None:
        from fakeapi.apiextensions.openapi import resource_schema

        return resource_schema(self.version_info)

    def store(self, storage: Storage) -> ResourceStore:
        view = self._views.get(id(storage))
        if view is None:
            view = self._views[id(storage)] = CustomResourceStore(
                storage.resource(self.key), self
            )
        return view


def _row(crd: dict[str, Any], version: dict[str, Any], schema_rv: int) -> CustomResourceType | None:
    # the schema machinery (structural schemas, validation, CEL) loads with the first definition
    from fakeapi.apiextensions.strategy import strategy_for
    from fakeapi.apiextensions.versions import served_version

    served = served_version(crd, version)
    if served is None or not served.kind or not served.plural:
        return None
    subresources: tuple[str, ...] = ()
    if served.status_subresource:
        subresources += ("status",)
    if served.scale is not None:
        subresources += ("scale",)
    terminating = is_terminating(crd)
    return CustomResourceType(
        served.group, served.name, served.kind, served.plural, served.namespaced,
        _CUSTOM_RESOURCE_MODEL, strategy_for(served, terminating=terminating),
        subresources=subresources,
        short_names=served.short_names,
        categories=served.categories,
        singular=served.singular,
        served=served,
        crd_name=str(as_dict(crd.get("metadata")).get("name") or ""),
        schema_rv=schema_rv,
        terminating=terminating,
    )


class CustomResourceRows:
    """The table rows of the stored definitions (a ``RowSource``)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._watcher: Watcher | None = None
        #: definition name -> (fingerprint, its rows)
        self._rows: dict[str, tuple[bytes, list[CustomResourceType]]] = {}

    def refresh(self) -> Sequence[ResourceType] | None:
        watcher = self._watcher
        if watcher is not None and not watcher.closed and not watcher.queue:
            return None  # no definition changed since the last look (every request asks)
        store = self._storage.resource(CRD_STORAGE_KEY)
        if watcher is None or watcher.closed:
            self._watcher = store.watch(prefix="", predicate=None)
        else:
            watcher.drain()
        return self._derive(store)

    def _derive(self, store: ResourceStore) -> list[ResourceType]:
        rows: list[ResourceType] = []
        kept: dict[str, tuple[bytes, list[CustomResourceType]]] = {}
        for stored in store.scan("", None, None):
            crd = stored.obj
            name = str(as_dict(crd.get("metadata")).get("name") or "")
            if not is_served(crd):
                continue
            spec = as_dict(crd.get("spec"))
            fingerprint = orjson.dumps(
                [spec, as_dict(crd.get("status")).get("acceptedNames"), is_terminating(crd)],
                option=orjson.OPT_SORT_KEYS,
            )
            known = self._rows.get(name)
            if known is not None and known[0] == fingerprint:
                built = known[1]
            else:
                schema_rv = self._storage.resource_version
                built = [
                    row for row in (
                        _row(crd, version, schema_rv)
                        for version in as_list(spec.get("versions"))
                        if isinstance(version, dict) and version.get("served") is True
                    ) if row is not None
                ]
            kept[name] = (fingerprint, built)
            rows.extend(built)
        self._rows = kept
        return rows

    def rows_of(self, crd_name: str) -> list[CustomResourceType]:
        """The rows of one definition as last derived."""
        known = self._rows.get(crd_name)
        return list(known[1]) if known is not None else []


class CustomResourceStore(ResourceStoreView):
    """One served version's view of its definition's storage (a ``ResourceStore``)."""

    def __init__(self, base: ResourceStore, row: CustomResourceType) -> None:
        super().__init__(base)
        self.row = row
        served = row.version_info
        self.api_version = served.api_version
        self.storage_api_version = f"{served.group}/{served.storage_version}"
        self._fix_reads = served.has_defaults or not served.structural.preserve_unknown_fields
        self._cache: OrderedDict[int, Stored] = OrderedDict()

    # --- shapes ---------------------------------------------------------------------------------
    def _current(self, stored: Stored) -> bool:
        """Whether ``stored`` is already in this view's shape (no copy needed)."""
        if stored.rv > self.row.schema_rv or not self._fix_reads:
            return stored.obj.get("apiVersion") == self.api_version
        return False

    def _view(self, stored: Stored) -> Stored:
        if self._current(stored):
            return stored
        cached = self._cache.get(stored.rv)
        if cached is not None:
            return cached
        obj: dict[str, Any] = orjson.loads(stored.raw)
        obj["apiVersion"] = self.api_version
        served = self.row.version_info
        if stored.rv <= self.row.schema_rv:
            from fakeapi.apiextensions.defaulting import apply_defaults
            from fakeapi.apiextensions.pruning import prune

            if not served.structural.preserve_unknown_fields:
                prune(obj, served.structural)
            if served.has_defaults:
                apply_defaults(obj, served.structural)
        raw = encode(obj)
        view = stored if raw == stored.raw else Stored(obj, raw, stored.rv)
        self._cache[stored.rv] = view
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return view

    def _view_event(self, event: Event) -> Event:
        version = Stored(event.obj, event.raw, event.rv)
        viewed = self._view(version) if event.type != "DELETED" else self._deleted(version)
        prev = self._view(event.prev) if event.prev is not None else None
        if viewed is version and prev is event.prev:
            return event
        return Event(event.type, event.key, viewed, prev)

    def _deleted(self, stored: Stored) -> Stored:
        if stored.obj.get("apiVersion") == self.api_version:
            return stored
        obj = {**stored.obj, "apiVersion": self.api_version}
        return Stored(obj, encode(obj), stored.rv)

    def _to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        if obj.get("apiVersion") != self.storage_api_version:
            obj = {**obj, "apiVersion": self.storage_api_version}
        return obj
