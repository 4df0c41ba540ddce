"""The generic store: create, read, update, delete and watch for every kind, one implementation.

Like k8s.io/apiserver's generic registry, the store owns everything that does not depend on the
kind — server-set metadata, namespaces, resourceVersion preconditions (checked by the storage, the
single place that raises a conflict), finalizers, graceful deletion, the main/status split (one
update strategy each, :mod:`fakeapi.registry.updates`), dry run, field pruning and watch
semantics — and calls the kind's :class:`Strategy` for the rest. Mutating admission is handed in
by whoever assembles the server (:func:`fakeapi.bootstrap.new_registry`), as kube-apiserver hands
its chain to the generic registry.

Both transports call this class: the HTTP handlers and the in-process client. So kubectl and an
in-process controller see the same validation, conflicts and events.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

import orjson

from fakeapi import errors
from fakeapi.auth.authorizer import AuthorizerChain
from fakeapi.clock import Clock, RealClock
from fakeapi.features import default_gates
from fakeapi.objects import deep_copy, key_for, object_key
from fakeapi.registry import metadata as md
from fakeapi.registry.admission import AdmissionChain
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
from fakeapi.registry.updates import MainResourceUpdate, StatusUpdate, UpdateStrategy
from fakeapi.registry.watching import open_watch
from fakeapi.selectors import parse_field_selector
from fakeapi.storage.events import Stored, encode
from fakeapi.storage.interface import ConflictError, KeyExistsError, KeyNotFoundError, Storage
from fakeapi.storage.memory import MemoryStorage
from fakeapi.storage.watch import Watcher
from fakeapi.timefmt import format_time
from fakeapi.validation import field as fe

__all__ = ["GenericStore", "PostStartHook"]

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GENERATE_ATTEMPTS = 8
#: upstream's maxGeneratedNameLength: 63 characters of a name less the 5 random ones
_GENERATED_PREFIX = 58


class PostStartHook(Protocol):
    """Something the server runs while it serves the registry."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


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
        admission: AdmissionChain | None = None,
    ) -> None:
        self.resources = resources
        self.storage: Storage = storage or MemoryStorage()
        self.clock = clock or RealClock()
        self.feature_gates = default_gates() | dict(feature_gates or {})
        self._random = random or _random_suffix
        self._fields = ManagedFieldsTracker(resources)
        self._namespaces = self.resources.lookup("", "v1", "namespaces")
        #: mutating admission, run on every create and on updates of the resource itself; the
        #: server's assembly (:func:`fakeapi.bootstrap.new_registry`) passes kube-apiserver's
        #: default chain in, a store built without one admits everything unchanged
        self.admission = admission if admission is not None else AdmissionChain(())
        self._main_update = MainResourceUpdate(admission=self.admission)
        self._status_update = StatusUpdate(admission=self.admission)
        #: the server's authorizers (``--authorization-mode``), set by whoever assembles the
        #: server when authorization is on: what the access reviews answer from, and what the
        #: strategies ask about parts of a write (:mod:`fakeapi.auth`); None: everything is
        #: allowed and nobody is authenticated
        self.authorizer: AuthorizerChain | None = None
        #: what runs beside the handlers of whoever serves this registry, as kube-apiserver's
        #: post-start hooks (the apiextensions controllers, added by
        #: :func:`fakeapi.bootstrap.new_registry`); the server starts and stops them
        self.post_start_hooks: builtins.list[PostStartHook] = []

    async def start_hooks(self) -> None:
        """Start the post-start hooks (each counts its starts: servers may share a registry)."""
        for hook in self.post_start_hooks:
            await hook.start()

    async def stop_hooks(self) -> None:
        for hook in reversed(self.post_start_hooks):
            await hook.stop()

    # --- helpers -----------------------------------------------------------------------------
    def context(
        self, *, subresource: str = "", options: WriteOptions | None = None
    ) -> WriteContext:
        if options is None:
            return WriteContext(
                now=self.clock.now(),
                feature_gates=self.feature_gates,
                subresource=subresource,
                namespace_labels=self._namespace_labels,
                authorizer=self.authorizer,
            )
        return WriteContext(
            now=self.clock.now(),
            feature_gates=self.feature_gates,
            subresource=subresource,
            dry_run=options.dry_run,
            field_manager=options.field_manager,
            namespace_labels=self._namespace_labels,
            authorizer=self.authorizer,
            user=options.user,
            verb=options.verb,
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
        below: builtins.list[str] = []
        obj, warnings = decode_object(rt, body, options, missing=below)
        obj = deep_copy(obj) if obj is body else obj
        if rt.strategy.create_only:
            return self._answer(rt, namespace, obj, options, warnings, below)
        return self.create_object(
            rt, namespace, obj, options, warnings, decoded=True, missing_below=below
        )

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
        missing_below: builtins.list[str],
    ) -> WriteResult:
        """A create of a question kind (an access review): validated, answered, not stored."""
        ctx = self.context(options=options)
        meta, _ = self._typed_in(rt, namespace, obj)
        meta.pop("managedFields", None)
        errs = md.merge_errors(
            rt.strategy.validate(obj, ctx), check_decoded(rt, obj, below=missing_below)
        )
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
        missing_below: builtins.list[str] | None = None,
    ) -> WriteResult:
        """Create an object that the caller owns (it is changed in place).

        ``decoded``: ``obj`` is what :func:`decode_object` returned, so its types need no second
        walk (server-side apply hands over a merge that nothing decoded yet); ``missing_below``:
        it decoded in ``checked`` mode and found these required fields absent (see
        :func:`check_decoded`).
        """
        ctx = self.context(options=options)
        meta, ns = self._typed_in(rt, namespace, obj)
        md.stamp_new_object(rt.strategy, meta, now=ctx.now)
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            meta["name"] = self._generated_name(meta["generateName"])
        missing = (
            check_decoded(rt, obj, below=missing_below) if decoded else check_types(rt, obj)
        )
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
            name=meta["generateName"] if generated else meta.get("name") or "", user=ctx.user,
        )
        rt.strategy.prepare_for_create(obj, ctx)
        errs = md.merge_errors(
            md.validate_metadata(rt, obj) + rt.strategy.validate(obj, ctx), missing
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
        below: builtins.list[str] = []
        obj, warnings = decode_object(
            rt, body, options, stored=current.obj if current is not None else None,
            copied=copied, missing=below,
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
                return self.create_object(
                    rt, namespace, obj, options, warnings, decoded=True, missing_below=below
                )
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
            missing_below=below,
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
        missing_below: builtins.list[str] | None = None,
    ) -> WriteResult:
        """Write ``obj`` over ``current`` (``obj`` is owned by the store from here on): the one
        entry point of every update, whatever its verb.

        It checks the preconditions, lets the update strategy of ``subresource`` build and
        validate the new version (:mod:`fakeapi.registry.updates`), and stores it unless it is
        the stored version again. ``decoded``, ``copied`` and ``missing_below`` say what the
        request decoding already did (:meth:`fakeapi.registry.updates.UpdateStrategy.build`).
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
        # ``status`` keeps all but the status; anything else updates the resource itself
        update: UpdateStrategy = (
            self._status_update if subresource == "status" else self._main_update
        )
        new, errs = update.build(
            rt, current, obj, ctx, decoded=decoded, copied=copied, missing_below=missing_below
        )
        if errs:
            raise self._invalid(rt, name, errs)
        extra = update.warnings(rt, new, old, ctx)
        if extra:
            warnings = warnings + extra
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
        self.admission.admit_every_write(
            rt, obj, operation="DELETE", old=obj, namespace=obj["metadata"].get("namespace"),
            dry_run=options.dry_run, name=name, user=options.user,
        )
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


def _random_suffix(n: int) -> str:
    import secrets

    return "".join(secrets.choice(_NAME_ALPHABET) for _ in range(n))
