"""Serving one kind at several API versions: a row per version, a converter per row.

Upstream keeps one copy of an object (its storage version) however many versions serve it, and
converts on the way in and out. fakeapi does the same with rows of the resource table: a kind's
storage row holds the model and strategy of the storage version and reads and writes its store
directly, at no extra cost; every other served version is a row made by :func:`served_version`
from the storage row, a model of its own and a :class:`~fakeapi.storage.interface.Converter`
between the two shapes. Such a row

- decodes and checks requests against its own model (unknown fields, types, OpenAPI, explain),
- reads and writes the storage row's store through a converting view
  (:class:`fakeapi.storage.view.ConvertedResourceStore`): one history, one resourceVersion, one
  set of watchers for every version,
- runs the storage row's strategy on the object converted to the storage shape
  (:class:`ConvertingStrategy`), so defaults, validation (with field paths in the storage shape,
  as upstream reports paths of its internal version) and every other rule exist once,
- records managedFields with its own apiVersion and field paths of its own shape, as upstream's
  field manager does.

A converter is two pure functions on JSON-shaped dicts. They must not modify their argument (it
may be a stored object) and should share the sub-trees they leave unchanged. A hook's result is
put back into the same dicts (the object's and its ``metadata``), since the store keeps a
reference to the metadata it stamped while a strategy hook runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.storage.interface import Converter
from fakeapi.validation.field import FieldError

if TYPE_CHECKING:
    from fakeapi.registry.resource_table import ResourceType

__all__ = [
    "ApiVersionConversion",
    "ConversionChain",
    "ConvertingStrategy",
    "served_version",
]

#: the class-level settings of a strategy a converting strategy repeats
_SETTINGS = (
    "status_subresource",
    "status_writes_metadata",
    "tracks_generation",
    "non_spec_fields",
    "field_labels",
    "columns",
    "allow_create_on_update",
    "allow_unconditional_update",
    "name_rule",
    "create_only",
    "subresource_actions",
    "subresource_reads",
    "subresource_follows",
)


class ApiVersionConversion:
    """Another version of a kind whose fields are the same: only ``apiVersion`` changes.

    DeviceTaintRule at ``resource.k8s.io/v1`` and ``v1beta2``, and every resource.k8s.io kind at
    v1beta2 (v1 was copied from v1beta2): converting an object is rewriting its ``apiVersion``.
    """

    def __init__(self, *, stored: str, served: str) -> None:
        self.stored = stored
        self.served = served

    def to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.stored}

    def from_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "apiVersion": self.served}


class ConversionChain:
    """Field conversion functions applied in order, then ``apiVersion`` set: a converter made
    of small steps. ``to_storage`` runs ``inward`` steps; ``from_storage`` runs ``outward`` ones.
    """

    def __init__(
        self,
        *,
        stored: str,
        served: str,
        inward: tuple[Callable[[Obj], Obj], ...],
        outward: tuple[Callable[[Obj], Obj], ...],
    ) -> None:
        self.stored = stored
        self.served = served
        self._inward = inward
        self._outward = outward

    def to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = {**obj, "apiVersion": self.stored}
        for step in self._inward:
            out = step(out)
        return out

    def from_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = {**obj, "apiVersion": self.served}
        for step in self._outward:
            out = step(out)
        return out


def _replace_contents(target: Obj, source: Obj) -> None:
    """Make ``target`` hold ``source``, keeping ``target``'s metadata dict (others hold it)."""
    if source is target:
        return
    meta, new_meta = target.get("metadata"), source.get("metadata")
    if isinstance(meta, dict) and isinstance(new_meta, dict) and meta is not new_meta:
        fresh = dict(new_meta)
        meta.clear()
        meta.update(fresh)
        source = {**source, "metadata": meta}
    target.clear()
    target.update(source)


class ConvertingStrategy(Strategy):
    """The storage version's strategy, run on objects converted to the storage shape.

    Hooks that change the object in place convert it to the storage shape, let the storage
    strategy work, and put the result back in the served shape into the same dict. Validation
    reports field paths of the storage shape (upstream validates its internal version).
    """

    def __init__(self, base: Strategy, converter: Converter) -> None:
        self.base = base
        self.converter = converter
        for name in _SETTINGS:  # the storage strategy's class-level settings, as this one's
            self.__dict__[name] = getattr(base, name)

    def _in(self, obj: Obj) -> Obj:
        return self.converter.to_storage(obj)

    def _mutate(self, obj: Obj, hook: Callable[[Obj], None]) -> None:
        stored = self._in(obj)
        hook(stored)
        _replace_contents(obj, self.converter.from_storage(stored))

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        self._mutate(obj, lambda o: self.base.apply_defaults(o, ctx))

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        self._mutate(obj, lambda o: self.base.prepare_for_create(o, ctx))

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return self.base.validate(self._in(obj), ctx)

    def warnings_on_create(self, obj: Obj, ctx: WriteContext) -> list[str]:
        return self.base.warnings_on_create(self._in(obj), ctx)

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return self.converter.from_storage(self.base.answer(self._in(obj), ctx))

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        old_stored = self._in(old)
        self._mutate(new, lambda o: self.base.prepare_for_update(o, old_stored, ctx))

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return self.base.validate_update(self._in(new), self._in(old), ctx)

    def warnings_on_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return self.base.warnings_on_update(self._in(new), self._in(old), ctx)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        old_stored = self._in(old)
        self._mutate(new, lambda o: self.base.prepare_for_status_update(o, old_stored, ctx))

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return self.base.validate_status_update(self._in(new), self._in(old), ctx)

    def check_delete(self, obj: Obj) -> None:
        self.base.check_delete(self._in(obj))

    def grace_period_seconds(self, obj: Obj, requested: int | None) -> int:
        return self.base.grace_period_seconds(self._in(obj), requested)

    def prepare_for_delete(self, obj: Obj, ctx: WriteContext) -> None:
        self._mutate(obj, lambda o: self.base.prepare_for_delete(o, ctx))

    def deletion_blocked(self, obj: Obj) -> bool:
        return self.base.deletion_blocked(self._in(obj))

    def apply_subresource(self, name: str, current: Obj, body: Obj, ctx: WriteContext) -> Obj:
        result = self.base.apply_subresource(name, self._in(current), body, ctx)
        return self.converter.from_storage(result)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return self.base.selectable_fields(self._in(obj))


def served_version(
    storage: ResourceType,
    *,
    version: str,
    model: Any = None,
    converter: Converter | None = None,
    group: str | None = None,
    kind: str | None = None,
    openapi_prefix: str = "",
    strategy: Strategy | None = None,
    releases: tuple[int, ...] | None = None,
) -> ResourceType:
    """The row serving ``storage``'s objects at ``version``: its own model (the storage row's
    when None), the storage row's names, scope, subresources and (converted) strategy, and
    ``converter`` between the shapes (only ``apiVersion`` changes when it is None). ``strategy``
    replaces the converted storage strategy (it must convert for itself); ``releases`` the
    storage row's releases."""
    if model is None:
        model = storage.model_reference
    group = storage.group if group is None else group
    api_version = f"{group}/{version}" if group else version
    if converter is None:
        converter = ApiVersionConversion(stored=storage.api_version, served=api_version)
    if strategy is not None:
        pass  # the caller's, which converts for itself
    elif isinstance(converter, ApiVersionConversion):
        strategy = storage.strategy  # the same fields: the storage rules read them as they are
    else:
        strategy = ConvertingStrategy(storage.strategy, converter)
    return replace(
        storage,
        group=group,
        version=version,
        kind=kind or storage.kind,
        model=model,
        strategy=strategy,
        openapi_prefix=openapi_prefix or _prefix_for(storage.openapi_prefix, version),
        stored_in=storage.key,
        converter=converter,
        releases=storage.releases if releases is None else releases,
    )


def _prefix_for(storage_prefix: str, version: str) -> str:
    head, _, _ = storage_prefix.rpartition(".")
    return f"{head}.{version}" if head else ""
