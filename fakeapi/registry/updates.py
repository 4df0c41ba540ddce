"""How an update builds its new version: one strategy for the resource, one for its status.

Upstream's generic registry has a single ``Store.Update``; a write of ``pods`` and a write of
``pods/status`` differ only by the update strategy the store was given (``podStrategy``, or
``podStatusStrategy``, which keeps the spec). The store here is shaped the same way:
:meth:`~fakeapi.registry.store.GenericStore.write_update` is the one entry point every update
reaches (PUT, the patches, server-side apply, a custom subresource's POST). It does what all
updates share — the uid and resourceVersion preconditions, the no-op check, managedFields, the
removal of an object whose last finalizer went, the storage write — and lets the strategy its
subresource selects build and check the new version:

* :class:`MainResourceUpdate` for the resource itself (and custom subresources whose kind
  strategy builds a whole new object, ``namespaces/finalize``);
* :class:`StatusUpdate` for ``status``.

Both reach a kind only through its :class:`~fakeapi.registry.strategy.Strategy` (hooks and
flags) and its row's schema, never by name; a kind whose strategy is made at run time from a
schema, as a custom resource's would be, plugs in exactly as the built-in kinds do.

Both skip work they can prove redundant: a top-level part that is byte for byte the stored
version's is not decoded again, since the stored version went through the same decoding when it
was written. ``tests/registry/test_write_shortcuts.py`` compares each shortcut with the long way.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

import orjson

from fakeapi.objects import deep_copy
from fakeapi.registry import metadata as md
from fakeapi.registry.admission import AdmissionChain
from fakeapi.registry.decode import check_decoded, check_types
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Obj, WriteContext
from fakeapi.storage.events import Stored
from fakeapi.validation import field as fe
from fakeapi.validation.meta import validate_object_meta_update

__all__ = ["MainResourceUpdate", "StatusUpdate", "UpdateStrategy"]

_TYPE_META = ("apiVersion", "kind")
_METADATA = fe.Path("metadata")


class UpdateStrategy(Protocol):
    """Builds and checks the new version of an update, for one kind of subresource."""

    def build(
        self,
        rt: ResourceType,
        current: Stored,
        obj: Obj,
        ctx: WriteContext,
        *,
        decoded: bool,
        copied: Collection[str],
        missing_below: list[str] | None = None,
    ) -> tuple[Obj, list[fe.FieldError]]:
        """The new version of ``current`` that the request's ``obj`` asks for, and its errors
        (none: it may be stored).

        ``obj`` is the store's; the new version may be built on it. ``decoded``: ``obj`` came out
        of the request decoding (parts equal to the stored version's are the stored decoding),
        so only its required fields are checked; otherwise (a strategy's or a server-side apply
        merge's object) it is decoded in full. ``copied``: top-level parts of ``obj`` that are
        private byte-for-byte copies of the stored version's. ``missing_below``: the decoding
        was ``checked`` and found these required fields absent below the top level (and filled
        the required structs there), so only the top level is left to check.
        """
        ...

    def warnings(self, rt: ResourceType, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        """Warning headers for a valid update."""
        ...


class MainResourceUpdate:
    """An update of the resource itself: PUT, patch or apply without a subresource, and custom
    subresources whose kind strategy builds the whole new object (``namespaces/finalize``).

    What it may change: everything the request sent except what the server owns. The stored
    uid, creationTimestamp, generation, deletion fields and namespace are kept; apiVersion and
    kind are the resource's; a kind with a status subresource keeps its stored status (the
    request's is dropped).

    Steps, in order: types checked (parts byte for byte the stored version's skipped) → server
    metadata and status restored → ``apply_defaults`` → admission (``UPDATE``) →
    ``prepare_for_update`` → object metadata validated, alone and against the stored version →
    ``validate_update``. A valid write of the resource itself to a kind that tracks generation
    bumps ``metadata.generation`` when anything outside metadata and status changed. Warnings:
    ``warnings_on_update``.
    """

    __slots__ = ("_admission",)

    def __init__(self, *, admission: AdmissionChain) -> None:
        self._admission = admission

    def build(
        self,
        rt: ResourceType,
        current: Stored,
        obj: Obj,
        ctx: WriteContext,
        *,
        decoded: bool,
        copied: Collection[str],
        missing_below: list[str] | None = None,
    ) -> tuple[Obj, list[fe.FieldError]]:
        strategy = rt.strategy
        old = current.obj
        old_meta = old["metadata"]
        name = old_meta["name"]
        missing = _check_changed_types(
            rt, obj, old, decoded=decoded, copied=copied, below=missing_below
        )
        new = obj
        new["apiVersion"] = rt.api_version
        new["kind"] = rt.kind
        meta = new.setdefault("metadata", {})
        md.keep_server_fields(meta, old_meta)
        meta["name"] = name
        if strategy.status_subresource:
            if "status" in old:
                new["status"] = deep_copy(old["status"])
            else:
                new.pop("status", None)
            # the request's status is not written, so its missing fields are no error
            missing = [e for e in missing if not _under_status(e.field)]
        strategy.apply_defaults(new, ctx)
        self._admission.admit(
            rt, new, operation="UPDATE", old=old, subresource=ctx.subresource,
            namespace=old_meta.get("namespace"), dry_run=ctx.dry_run, name=name, user=ctx.user,
        )
        strategy.prepare_for_update(new, old, ctx)
        errs = md.validate_metadata(rt, new)
        errs += validate_object_meta_update(meta, old_meta, _METADATA)
        errs += strategy.validate_update(new, old, ctx)
        errs = md.merge_errors(errs, missing)
        if (
            not errs
            and ctx.subresource in ("", "scale")  # a scale write changes the spec
            and strategy.tracks_generation
            and md.spec_changed(strategy, new, old)
        ):
            meta["generation"] = int(old_meta.get("generation") or 0) + 1
        return new, errs

    def warnings(self, rt: ResourceType, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return rt.strategy.warnings_on_update(new, old, ctx)


class StatusUpdate:
    """An update of the ``status`` subresource: PUT, patch or apply of ``.../status``.

    What it may change: ``status``, the request's ``metadata.managedFields`` and the metadata
    fields the kind lists in ``status_writes_metadata`` (pods: labels, annotations,
    finalizers), as upstream's ``ResetObjectMetaForStatus`` and the kinds' status strategies
    allow. Everything else is the stored version's. Only the admission plugins that look at
    every write (NodeRestriction) run, the generation never moves, and there are no warnings.

    Steps, in order: the stored version with the request's status (and the metadata above) →
    types of metadata and status checked → ``prepare_for_status_update`` →
    ``validate_status_update``, and object metadata validated when a writable field of it
    changed.
    """

    __slots__ = ("_admission",)

    def __init__(self, *, admission: AdmissionChain) -> None:
        self._admission = admission

    def build(
        self,
        rt: ResourceType,
        current: Stored,
        obj: Obj,
        ctx: WriteContext,
        *,
        decoded: bool,
        copied: Collection[str],
        missing_below: list[str] | None = None,
    ) -> tuple[Obj, list[fe.FieldError]]:
        strategy = rt.strategy
        old = current.obj
        if _all_but_status_copied(obj, old, copied):
            new = obj  # already a private copy of ``old`` in everything but status
        else:
            new = orjson.loads(current.raw)  # a private copy of ``old``: its bytes decoded
        if "status" in obj:
            new["status"] = obj["status"]
        else:
            new.pop("status", None)
        request_meta = obj.get("metadata") or {}
        if "managedFields" in request_meta:
            new["metadata"]["managedFields"] = request_meta["managedFields"]
        meta_changed = _take_status_metadata(
            new["metadata"], request_meta, strategy.status_writes_metadata
        )
        below = missing_below
        if decoded and missing_below:
            taken = {*strategy.status_writes_metadata, "managedFields"}
            below = [path for path in missing_below if _taken_by_status_write(path, taken)]
        missing = _check_status_types(rt, new, decoded=decoded, below=below)
        self._admission.admit_every_write(
            rt, new, operation="UPDATE", old=old, subresource=ctx.subresource,
            namespace=old["metadata"].get("namespace"), dry_run=ctx.dry_run,
            name=old["metadata"]["name"], user=ctx.user,
        )
        strategy.prepare_for_status_update(new, old, ctx)
        errs = strategy.validate_status_update(new, old, ctx)
        if meta_changed:
            errs = (
                md.validate_metadata(rt, new)
                + validate_object_meta_update(new["metadata"], old["metadata"], _METADATA)
                + errs
            )
        return new, md.merge_errors(errs, missing)

    def warnings(self, rt: ResourceType, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return []


def _under_status(field: str) -> bool:
    return field == "status" or field.startswith(("status.", "status["))


def _taken_by_status_write(path: str, metadata_fields: Collection[str]) -> bool:
    """Whether a status write keeps the request's value at ``path`` (a field path of the
    request): its status, and the ``metadata_fields`` of its metadata. The rest is the stored
    version's, which lacks no required field."""
    top, _, rest = path.partition(".")
    if top.split("[", 1)[0] == "status":
        return True
    return top == "metadata" and rest.split(".", 1)[0].split("[", 1)[0] in metadata_fields


def _take_status_metadata(meta: Obj, request_meta: Obj, fields: tuple[str, ...]) -> bool:
    """Copy the ``fields`` a status write may change from the request's metadata into ``meta``
    (the stored metadata's copy); whether any changed."""
    changed = False
    for name in fields:
        value = request_meta.get(name)
        if value != meta.get(name):
            changed = True
            if value is None:
                del meta[name]
            else:
                meta[name] = value
    return changed


def _all_but_status_copied(obj: Obj, old: Obj, copied: Collection[str]) -> bool:
    """Whether ``obj`` is what a status write builds from ``old`` and ``obj["status"]``: the
    same keys in the same order (status kept in place, or last when new), each but status a
    private byte-for-byte copy (``copied``) or, for apiVersion and kind, the same string."""
    if not copied:
        return False
    has_status = "status" in obj
    expected = [key for key in old if key != "status" or has_status]
    if has_status and "status" not in old:
        expected.append("status")
    if list(obj) != expected:
        return False
    return all(
        key == "status"
        or key in copied
        or (key in _TYPE_META and obj[key] == old[key])
        for key in expected
    )


def _check_status_types(
    rt: ResourceType, obj: Obj, *, decoded: bool, below: list[str] | None = None
) -> list[fe.FieldError]:
    """:func:`check_types` for a status write, over the parts the request supplied.

    Everything but ``status`` (and the request's ``metadata.managedFields``) is the stored
    version's, which went through the same final decoding when it was written, so walking it
    again changes nothing; only ``metadata`` and ``status`` are decoded, in place (``decoded``:
    the request's parts were decoded already, so only their required fields are checked;
    ``below``: and the decoding checked those below the top level, finding these absent).
    """
    supplied = [key for key in ("metadata", "status") if key in obj]
    part: Obj = {key: obj[key] for key in supplied}
    missing = check_decoded(rt, part, below=below) if decoded else check_types(rt, part)
    for key in supplied:  # the decoding drops nulls and may add required parts: carry it over
        if key in part:
            obj[key] = part[key]
        else:
            del obj[key]
    return [e for e in missing if e.field.split(".", 1)[0].split("[", 1)[0] in supplied]


def _check_changed_types(
    rt: ResourceType,
    obj: Obj,
    old: Obj,
    *,
    decoded: bool,
    copied: Collection[str] = (),
    below: list[str] | None = None,
) -> list[fe.FieldError]:
    """:func:`check_types` for an update, skipping top-level parts byte-identical to ``old``.

    The stored version went through the same final decoding when it was written, so a part sent
    back unchanged (the status in a spec update, the spec in a binding) would come out the same.
    ``decoded``: the other parts were decoded already, so only their required fields are checked;
    the decoding compared every part with ``old`` and named the identical ones in ``copied``;
    ``below``: it was ``checked``, and found these absent below the top level of the parts it
    decoded.
    """
    if decoded:
        same = {key for key in copied if key in obj and key in old}
    else:
        same = {
            key for key, value in obj.items()
            if key in old and orjson.dumps(value) == orjson.dumps(old[key])
        }
    if not same:
        return check_decoded(rt, obj, below=below) if decoded else check_types(rt, obj, stored=old)
    part: Obj = {key: value for key, value in obj.items() if key not in same}
    changed = list(part)
    missing = check_decoded(rt, part, below=below) if decoded else check_types(rt, part, stored=old)
    for key in changed:  # the decoding drops nulls in place: carry that over
        if key not in part:
            del obj[key]
    for key, value in part.items():  # decoded parts, and required parts the decoding added
        if key not in same:  # (it fills a skipped required part too: keep the real one)
            obj[key] = value
    return [e for e in missing if e.field.split(".", 1)[0].split("[", 1)[0] not in same]
