"""The generic store: create, read, update, delete and watch for every kind, one implementation.

Like k8s.io/apiserver's generic registry, the store owns everything that does not depend on the
kind — server-set metadata, namespaces, resourceVersion preconditions (checked by the storage, the
single place that raises a conflict), finalizers, graceful deletion, the main/status split, dry
run, field pruning and watch semantics — and calls the kind's :class:`Strategy` for the rest.

Both transports call this class: the HTTP handlers and the in-process client. So kubectl and an
in-process controller see the same validation, conflicts and events.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Mapping
from typing import Any

import orjson

from fakeapi import errors
from fakeapi.clock import Clock, RealClock
from fakeapi.features import default_gates
from fakeapi.name_syntax import is_dns1123_label, is_dns1123_subdomain
from fakeapi.objects import deep_copy, key_for, object_key
from fakeapi.registry import metadata as md
from fakeapi.registry.admission import default_admission
from fakeapi.registry.decode import check_decoded, check_types, decode_object
from fakeapi.registry.deletion import begin_deletion, check_delete_preconditions, finalized
from fakeapi.registry.fields import ManagedFieldsTracker
from fakeapi.registry.listing import ListResult, check_get_version, list_objects
from fakeapi.registry.options import (
    DeleteOptions,
    ListOptions,
    ReadOptions,
    WatchOptions,
    WriteOptions,
)
from fakeapi.registry.resource_table import ResourceTable, ResourceType
from fakeapi.registry.results import DeleteResult, WriteResult
from fakeapi.registry.strategy import Obj, WriteContext
from fakeapi.registry.watching import open_watch
from fakeapi.selectors import parse_field_selector
from fakeapi.storage.events import Stored, encode
from fakeapi.storage.interface import ConflictError, KeyExistsError, KeyNotFoundError, Storage
from fakeapi.storage.memory import MemoryStorage
from fakeapi.storage.watch import Watcher
from fakeapi.timefmt import format_time
from fakeapi.validation import field as fe
from fakeapi.validation.meta import validate_object_meta, validate_object_meta_update

__all__ = ["GenericStore"]

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GENERATE_ATTEMPTS = 8
#: upstream's maxGeneratedNameLength: 63 characters of a name less the 5 random ones
_GENERATED_PREFIX = 58


class GenericStore:
    """The generic store of one cluster: every kind's CRUD, list and watch, over one storage.

    Kinds differ only by their strategy (``rt.strategy``); this class holds no kind-specific code.
    """

    def __init__(
        self,
        *,
        resources: ResourceTable,
        storage: Storage | None = None,
        clock: Clock | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        random: Callable[[int], str] | None = None,
    ) -> None:
        self.resources = resources
        self.storage: Storage = storage or MemoryStorage()
        self.clock = clock or RealClock()
        self.feature_gates = default_gates() | dict(feature_gates or {})
        self._random = random or _random_suffix
        self._fields = ManagedFieldsTracker()
        self._namespaces = self.resources.lookup("", "v1", "namespaces")
        self.admission = default_admission(resources=self.resources, storage=self.storage)

    # --- helpers -----------------------------------------------------------------------------
    def context(
        self, *, subresource: str = "", options: WriteOptions | None = None
    ) -> WriteContext:
        return WriteContext(
            now=self.clock.now(),
            feature_gates=self.feature_gates,
            subresource=subresource,
            dry_run=bool(options and options.dry_run),
            field_manager=options.field_manager if options else "",
            namespace_labels=self._namespace_labels,
        )

    def _namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        if self._namespaces is None:
            return None
        stored = self._namespaces.store(self.storage).get(namespace)
        if stored is None:
            return None
        labels: Mapping[str, str] = stored.obj["metadata"].get("labels") or {}
        return labels

    def _not_found(self, rt: ResourceType, name: str) -> errors.StatusError:
        return errors.not_found(resource=rt.plural, group=rt.group, name=name)

    def _invalid(
        self, rt: ResourceType, name: str, errs: list[fe.FieldError]
    ) -> errors.StatusError:
        return errors.invalid(kind=rt.kind, group=rt.group, name=name, causes=fe.causes(errs))

    def _namespace_of(self, rt: ResourceType, namespace: str | None) -> str | None:
        return namespace if rt.namespaced else None

    def _check_namespace(self, rt: ResourceType, namespace: str, name: str) -> None:
        if self._namespaces is None:
            return
        ns = self._namespaces.store(self.storage).get(namespace)
        if ns is None:
            raise errors.not_found(resource="namespaces", group="", name=namespace)
        if ns.obj["metadata"].get("deletionTimestamp"):
            raise errors.forbidden(
                resource=rt.plural,
                group=rt.group,
                name=name,
                message=f"unable to create new content in namespace {namespace} because it is "
                "being terminated",
                # the cause controllers look for (apierrors.HasStatusCause)
                causes=[{
                    "reason": "NamespaceTerminating",
                    "message": f"namespace {namespace} is being terminated",
                    "field": "metadata.namespace",
                }],
            )

    def _validate_meta(self, rt: ResourceType, obj: Obj) -> builtins.list[fe.FieldError]:
        rule = is_dns1123_label if rt.strategy.name_rule == "label" else is_dns1123_subdomain
        return validate_object_meta(
            obj.get("metadata") or {},
            namespaced=rt.namespaced,
            name_validator=rule,
            path=fe.Path("metadata"),
        )

    # --- reads -------------------------------------------------------------------------------
    @property
    def resource_version(self) -> int:
        """The cluster's newest resourceVersion: where a list or watch "from now" stands."""
        return self.storage.resource_version

    def find(self, rt: ResourceType, namespace: str | None, name: str) -> Stored | None:
        """The current version of an object, or None when it does not exist."""
        return rt.store(self.storage).get(key_for(self._namespace_of(rt, namespace), name))

    def get(
        self, rt: ResourceType, namespace: str | None, name: str, *, resource_version: str = ""
    ) -> Stored:
        """The current version of an object; 404 NotFound when it does not exist. A
        ``resource_version`` asks for one not older than it (504 when the server is behind)."""
        check_get_version(self.storage, resource_version)
        stored = self.find(rt, namespace, name)
        if stored is None:
            raise self._not_found(rt, name)
        return stored

    def list(self, rt: ResourceType, namespace: str | None, options: ListOptions) -> ListResult:
        return list_objects(self.storage, rt, self._namespace_of(rt, namespace), options)

    def watch(self, rt: ResourceType, namespace: str | None, options: WatchOptions) -> Watcher:
        return open_watch(self.storage, rt, self._namespace_of(rt, namespace), options)

    # --- create ------------------------------------------------------------------------------
    def create(
        self, rt: ResourceType, namespace: str | None, body: Any, options: WriteOptions
    ) -> WriteResult:
        obj, warnings = decode_object(rt, body, options)
        obj = deep_copy(obj) if obj is body else obj
        if rt.strategy.create_only:
            return self._answer(rt, namespace, obj, options, warnings)
        return self.create_object(rt, namespace, obj, options, warnings, decoded=True)

    def _typed_in(
        self, rt: ResourceType, namespace: str | None, obj: Obj
    ) -> tuple[dict[str, Any], str | None]:
        """Set a new body's apiVersion and kind and put it in its namespace; (metadata, ns)."""
        obj["apiVersion"] = rt.api_version
        obj["kind"] = rt.kind
        meta: dict[str, Any] = obj.setdefault("metadata", {})
        return meta, md.set_namespace(rt, meta, self._namespace_of(rt, namespace))

    def _answer(
        self,
        rt: ResourceType,
        namespace: str | None,
        obj: Obj,
        options: WriteOptions,
        warnings: builtins.list[str],
    ) -> WriteResult:
        """A create of a question kind (an access review): validated, answered, not stored."""
        ctx = self.context(options=options)
        meta, _ = self._typed_in(rt, namespace, obj)
        meta.pop("managedFields", None)
        errs = md.merge_errors(rt.strategy.validate(obj, ctx), check_decoded(rt, obj))
        if errs:
            raise self._invalid(rt, meta.get("name") or "", errs)
        answer = rt.strategy.answer(obj, ctx)
        return WriteResult(answer, encode(answer), warnings, created=True)

    def create_object(
        self,
        rt: ResourceType,
        namespace: str | None,
        obj: Obj,
        options: WriteOptions,
        warnings: builtins.list[str],
        *,
        operation: str = "Update",
        decoded: bool = False,
    ) -> WriteResult:
        """Create an object that the caller owns (it is changed in place).

        ``decoded``: ``obj`` is what :func:`decode_object` returned, so its types need no second
        walk (server-side apply hands over a merge that nothing decoded yet).
        """
        ctx = self.context(options=options)
        meta, ns = self._typed_in(rt, namespace, obj)
        md.stamp_new_object(rt.strategy, meta, now=ctx.now)
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            meta["name"] = self._generated_name(meta["generateName"])
        missing = check_decoded(rt, obj) if decoded else check_types(rt, obj)
        rt.strategy.apply_defaults(obj, ctx)
        # as upstream's create handler: the writer owns what it sent and the defaults, not what
        # admission or the strategy sets next
        self._fields.track(
            rt,
            None,
            obj,
            manager=options.field_manager,
            operation=operation,
            now=meta["creationTimestamp"],
            subresource="",
        )
        self.admission.admit(
            rt, obj, operation="CREATE", namespace=ns, dry_run=ctx.dry_run,
            name=meta["generateName"] if generated else meta.get("name") or "",
        )
        rt.strategy.prepare_for_create(obj, ctx)
        errs = md.merge_errors(
            self._validate_meta(rt, obj) + rt.strategy.validate(obj, ctx), missing
        )
        name = meta.get("name") or ""
        if errs:
            raise self._invalid(rt, name, errs)
        if rt.namespaced:
            assert ns is not None
            self._check_namespace(rt, ns, name)
        warnings = warnings + rt.strategy.warnings_on_create(obj, ctx)
        objects = rt.store(self.storage)
        if options.dry_run:
            if objects.get(key_for(ns, name)) is not None:
                raise errors.already_exists(resource=rt.plural, group=rt.group, name=name)
            return WriteResult(obj, encode(obj), warnings, created=True)
        for attempt in range(_GENERATE_ATTEMPTS):
            try:
                stored = objects.create(key_for(ns, name), obj)
                return WriteResult(stored.obj, stored.raw, warnings, created=True)
            except KeyExistsError:
                if not generated or attempt == _GENERATE_ATTEMPTS - 1:
                    raise errors.already_exists(
                        resource=rt.plural, group=rt.group, name=name
                    ) from None
                name = meta["name"] = self._generated_name(meta["generateName"])
        raise AssertionError("unreachable")

    def _generated_name(self, prefix: str) -> str:
        """``prefix`` cut to 58 characters plus 5 random ones: at most 63, as upstream's
        SimpleNameGenerator (a longer ``generateName`` is reported by validation on its own)."""
        return prefix[:_GENERATED_PREFIX] + self._random(5)

    # --- update ------------------------------------------------------------------------------
    def update(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        body: Any,
        options: WriteOptions,
        *,
        subresource: str = "",
    ) -> WriteResult:
        """PUT: replace the object (or its status) with ``body``."""
        ns = self._namespace_of(rt, namespace)
        current = rt.store(self.storage).get(key_for(ns, name))
        copied: set[str] = set()
        obj, warnings = decode_object(
            rt, body, options, stored=current.obj if current is not None else None, copied=copied
        )
        obj = deep_copy(obj) if obj is body else obj
        meta = obj.get("metadata") or {}
        body_name = meta.get("name")
        if body_name and body_name != name:
            raise errors.bad_request(
                f"the name of the object ({body_name}) does not match the name on the URL ({name})"
            )
        body_ns = meta.get("namespace")
        if rt.namespaced and body_ns and body_ns != ns:
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the "
                "request"
            )
        if current is None:
            if rt.strategy.allow_create_on_update and not subresource:
                meta.pop("resourceVersion", None)
                obj.setdefault("metadata", {})["name"] = name
                return self.create_object(rt, namespace, obj, options, warnings, decoded=True)
            raise self._not_found(rt, name)
        uid, stored_uid = meta.get("uid"), current.obj["metadata"].get("uid")
        if uid and uid != stored_uid:  # the body's uid is a precondition (upstream's PUT)
            raise errors.conflict(
                resource=rt.plural,
                group=rt.group,
                name=name,
                detail=f"Precondition failed: UID in precondition: {uid}, UID in object meta: "
                f"{stored_uid}",
            )
        rv = meta.get("resourceVersion")
        if not rv and not rt.strategy.allow_unconditional_update:
            raise self._invalid(
                rt,
                name,
                [fe.invalid("metadata.resourceVersion", 0, "must be specified for an update")],
            )
        return self.write_update(
            rt,
            current,
            obj,
            options,
            subresource=subresource,
            precondition=rv or None,
            warnings=warnings,
            decoded=True,
            copied=copied,
        )

    def guaranteed_update(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        mutate: Callable[[Obj], Obj],
        options: WriteOptions,
        *,
        subresource: str = "",
        operation: str = "Update",
    ) -> WriteResult:
        """Read the current object, let ``mutate`` produce the new one (patches), and write it.

        A resourceVersion that ``mutate`` leaves in the new object (one sent in a patch body) is a
        precondition, as upstream treats it.
        """
        current = self.get(rt, namespace, name)
        new = mutate(orjson.loads(current.raw))  # a private copy: the stored bytes decoded
        precondition = (new.get("metadata") or {}).get("resourceVersion") or None
        return self.write_update(
            rt,
            current,
            new,
            options,
            subresource=subresource,
            precondition=precondition,
            warnings=[],
            operation=operation,
        )

    def write_update(
        self,
        rt: ResourceType,
        current: Stored,
        obj: Obj,
        options: WriteOptions,
        *,
        subresource: str,
        precondition: str | None,
        warnings: builtins.list[str],
        operation: str = "Update",
        decoded: bool = False,
        copied: Collection[str] = (),
    ) -> WriteResult:
        """Write ``obj`` over ``current`` (``obj`` is owned by the store from here on).

        ``decoded``: ``obj`` came out of :func:`decode_object` or :func:`decode_patched` (parts
        equal to the stored version's are the stored decoding), so its types need no second walk,
        only its required fields; objects a strategy or a server-side apply merge built are
        walked in full. ``copied``: top-level parts of ``obj`` that are private, byte for byte
        copies of the stored version's. A status write whose every other part is such a copy
        builds the new version on ``obj`` instead of decoding the stored bytes once more.
        """
        old = current.obj
        name = old["metadata"]["name"]
        uid = (obj.get("metadata") or {}).get("uid")
        if uid and uid != old["metadata"].get("uid"):
            # upstream's BeforeUpdate keeps a uid only when the request gives none
            raise self._invalid(rt, name, [fe.invalid("metadata.uid", uid, "field is immutable")])
        if precondition is not None:
            if not precondition.isdigit():
                raise errors.bad_request(f"invalid resourceVersion: {precondition!r}")
            try:
                rt.store(self.storage).check_version(object_key(old), int(precondition))
            except ConflictError:
                raise errors.conflict(resource=rt.plural, group=rt.group, name=name) from None
        ctx = self.context(subresource=subresource, options=options)
        strategy = rt.strategy
        if subresource == "status":
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
            missing = _check_status_types(rt, new, decoded=decoded)
            strategy.prepare_for_status_update(new, old, ctx)
            errs = strategy.validate_status_update(new, old, ctx)
            if meta_changed:
                meta_path = fe.Path("metadata")
                errs = (
                    self._validate_meta(rt, new)
                    + validate_object_meta_update(new["metadata"], old["metadata"], meta_path)
                    + errs
                )
        else:
            missing = _check_changed_types(rt, obj, old, decoded=decoded, copied=copied)
            new = obj
            new["apiVersion"] = rt.api_version
            new["kind"] = rt.kind
            meta = new.setdefault("metadata", {})
            old_meta = old["metadata"]
            md.keep_server_fields(meta, old_meta)
            meta["name"] = name
            if strategy.status_subresource:
                if "status" in old:
                    new["status"] = deep_copy(old["status"])
                else:
                    new.pop("status", None)
            strategy.apply_defaults(new, ctx)
            self.admission.admit(
                rt, new, operation="UPDATE", old=old, subresource=subresource,
                namespace=old_meta.get("namespace"), dry_run=ctx.dry_run, name=name,
            )
            strategy.prepare_for_update(new, old, ctx)
            errs = self._validate_meta(rt, new)
            errs += validate_object_meta_update(meta, old_meta, fe.Path("metadata"))
            errs += strategy.validate_update(new, old, ctx)
            if (
                not errs
                and not subresource
                and strategy.tracks_generation
                and md.spec_changed(strategy, new, old)
            ):
                meta["generation"] = int(old_meta.get("generation") or 0) + 1
        errs = md.merge_errors(errs, missing)
        if errs:
            raise self._invalid(rt, name, errs)
        if subresource != "status":
            warnings = warnings + strategy.warnings_on_update(new, old, ctx)
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if new == old:  # a no-op write: no new version, no event (as upstream)
            return WriteResult(old, current.raw, warnings)
        self._fields.track(
            rt,
            old,
            new,
            manager=options.field_manager,
            operation=operation,
            now=format_time(ctx.now),
            subresource=subresource,
        )
        objects = rt.store(self.storage)
        key = object_key(new)
        if finalized(rt, new):
            if options.dry_run:
                return WriteResult(new, encode(new), warnings)
            stored = objects.delete(key, expected_rv=current.rv)
            return WriteResult(stored.obj, stored.raw, warnings)
        if options.dry_run:
            return WriteResult(new, encode(new), warnings)
        try:
            stored = objects.update(key, new, expected_rv=current.rv)
        except ConflictError:
            raise errors.conflict(resource=rt.plural, group=rt.group, name=name) from None
        except KeyNotFoundError:
            raise self._not_found(rt, name) from None
        return WriteResult(stored.obj, stored.raw, warnings)

    def write_to_storage(
        self, rt: ResourceType, current: Stored, new: Obj, options: WriteOptions
    ) -> WriteResult:
        """Write ``new`` over ``current`` straight to storage, as upstream REST code that calls
        the storage's update itself (``pods/binding``): no admission, strategy, validation or
        managedFields bookkeeping. ``new`` is owned by the store from here on; it may share
        sub-trees with ``current.obj`` that it leaves unchanged (stored objects are never
        modified)."""
        new["metadata"]["resourceVersion"] = current.obj["metadata"]["resourceVersion"]
        if options.dry_run:
            return WriteResult(new, encode(new), [])
        try:
            stored = rt.store(self.storage).update(object_key(new), new, expected_rv=current.rv)
        except ConflictError:
            name = new["metadata"]["name"]
            raise errors.conflict(resource=rt.plural, group=rt.group, name=name) from None
        return WriteResult(stored.obj, stored.raw, [])

    # --- custom subresources ---------------------------------------------------------------
    def post_subresource(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        subresource: str,
        body: Obj,
        options: WriteOptions,
    ) -> WriteResult:
        """POST to ``pods/binding`` and similar: the strategy turns the body into a new object
        (or, for ``subresource_actions`` such as ``pods/eviction``, acts through the store)."""
        action = rt.strategy.subresource_actions.get(subresource)
        if action is not None:
            result: WriteResult = action(self, rt, namespace, name, body, options)
            return result
        current = self.get(rt, namespace, name)
        ctx = self.context(subresource=subresource, options=options)
        new = rt.strategy.apply_subresource(subresource, orjson.loads(current.raw), body, ctx)
        return self.write_update(
            rt, current, new, options, subresource=subresource, precondition=None, warnings=[]
        )

    def read_subresource(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        subresource: str,
        options: ReadOptions,
    ) -> tuple[str, bytes]:
        """GET of a subresource answered from the object (``pods/log``): content type, body."""
        read = rt.strategy.subresource_reads[subresource]
        return read(self.get(rt, namespace, name).obj, options)

    def follow_subresource(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        subresource: str,
        options: ReadOptions,
    ) -> Watcher | None:
        """For a read with ``follow``: a watch of the object while the read stays open (close
        it when :meth:`still_following` says no, or the object goes); None when it is done."""
        still_open = rt.strategy.subresource_follows.get(subresource)
        if not options.follow or still_open is None:
            return None
        stored = self.get(rt, namespace, name)
        if not still_open(stored.obj, options):
            return None
        return self.watch(rt, namespace, WatchOptions(
            resource_version=str(stored.rv),
            field_selector=parse_field_selector(f"metadata.name={name}"),
        ))

    def still_following(
        self, rt: ResourceType, subresource: str, obj: Obj, options: ReadOptions
    ) -> bool:
        """Whether a followed read stays open for this version of the object."""
        return rt.strategy.subresource_follows[subresource](obj, options)

    # --- delete ------------------------------------------------------------------------------
    def delete(
        self, rt: ResourceType, namespace: str | None, name: str, options: DeleteOptions
    ) -> DeleteResult:
        objects = rt.store(self.storage)
        current = self.get(rt, namespace, name)
        obj = current.obj
        key = object_key(obj)
        rt.strategy.check_delete(obj)
        check_delete_preconditions(rt, obj["metadata"], options.preconditions)
        new = orjson.loads(current.raw)  # a private copy of ``obj``: its bytes decoded
        if not begin_deletion(rt, obj, new, options, self.context()):
            if options.dry_run:
                return DeleteResult(obj, current.raw, deleted=True)
            stored = objects.delete(key, expected_rv=current.rv)
            return DeleteResult(stored.obj, stored.raw, deleted=True)
        if new == obj:
            return DeleteResult(obj, current.raw, deleted=False)
        if options.dry_run:
            return DeleteResult(new, encode(new), deleted=False)
        if finalized(rt, new):
            stored = objects.delete(key, expected_rv=current.rv)
            return DeleteResult(stored.obj, stored.raw, deleted=True)
        stored = objects.update(key, new, expected_rv=current.rv)
        return DeleteResult(stored.obj, stored.raw, deleted=False)

    def delete_collection(
        self,
        rt: ResourceType,
        namespace: str | None,
        list_options: ListOptions,
        options: DeleteOptions,
    ) -> builtins.list[DeleteResult]:
        listed = self.list(rt, namespace, list_options)
        results = []
        for stored in listed.items:
            meta = stored.obj["metadata"]
            try:
                results.append(self.delete(rt, meta.get("namespace"), meta["name"], options))
            except errors.StatusError as exc:
                if exc.code != 404:
                    raise
        return results


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


_TYPE_META = ("apiVersion", "kind")


def _check_status_types(
    rt: ResourceType, obj: Obj, *, decoded: bool
) -> builtins.list[fe.FieldError]:
    """:func:`check_types` for a status write, over the parts the request supplied.

    Everything but ``status`` (and the request's ``metadata.managedFields``) is the stored
    version's, which went through the same final decoding when it was written, so walking it
    again changes nothing; only ``metadata`` and ``status`` are decoded, in place (``decoded``:
    the request's parts were decoded already, so only their required fields are checked).
    """
    supplied = [key for key in ("metadata", "status") if key in obj]
    part: Obj = {key: obj[key] for key in supplied}
    missing = check_decoded(rt, part) if decoded else check_types(rt, part)
    for key in supplied:  # the decoding drops nulls and may add required parts: carry it over
        if key in part:
            obj[key] = part[key]
        else:
            del obj[key]
    return [e for e in missing if e.field.split(".", 1)[0].split("[", 1)[0] in supplied]


def _check_changed_types(
    rt: ResourceType, obj: Obj, old: Obj, *, decoded: bool, copied: Collection[str] = ()
) -> builtins.list[fe.FieldError]:
    """:func:`check_types` for an update, skipping top-level parts byte-identical to ``old``.

    The stored version went through the same final decoding when it was written, so a part sent
    back unchanged (the status in a spec update, the spec in a binding) would come out the same.
    ``decoded``: the other parts were decoded already, so only their required fields are checked;
    the decoding compared every part with ``old`` and named the identical ones in ``copied``.
    """
    if decoded:
        same = {key for key in copied if key in obj and key in old}
    else:
        same = {
            key for key, value in obj.items()
            if key in old and orjson.dumps(value) == orjson.dumps(old[key])
        }
    if not same:
        return check_decoded(rt, obj) if decoded else check_types(rt, obj, stored=old)
    part: Obj = {key: value for key, value in obj.items() if key not in same}
    changed = list(part)
    missing = check_decoded(rt, part) if decoded else check_types(rt, part, stored=old)
    for key in changed:  # the decoding drops nulls in place: carry that over
        if key not in part:
            del obj[key]
    for key, value in part.items():  # decoded parts, and required parts the decoding added
        if key not in same:  # (it fills a skipped required part too: keep the real one)
            obj[key] = value
    return [e for e in missing if e.field.split(".", 1)[0].split("[", 1)[0] not in same]


def _random_suffix(n: int) -> str:
    import secrets

    return "".join(secrets.choice(_NAME_ALPHABET) for _ in range(n))
