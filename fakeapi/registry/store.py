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
import copy
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import orjson

from fakeapi import errors
from fakeapi.clock import Clock, RealClock
from fakeapi.features import default_gates
from fakeapi.registry.decode import check_types, decode_object
from fakeapi.registry.fields import ManagedFieldsTracker
from fakeapi.registry.listing import ListResult, list_objects
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.strategy import Obj, WriteContext
from fakeapi.registry.watching import open_watch
from fakeapi.resources import ResourceTable, ResourceType
from fakeapi.storage.events import Stored, encode
from fakeapi.storage.memory import (
    ConflictError,
    KeyExistsError,
    KeyNotFoundError,
    Storage,
)
from fakeapi.storage.watch import Watcher
from fakeapi.timefmt import format_time
from fakeapi.validation import field as fe
from fakeapi.validation.meta import validate_object_meta, validate_object_meta_update
from fakeapi.validation.names import is_dns1123_label, is_dns1123_subdomain

__all__ = ["Registry", "WriteResult", "DeleteResult"]

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GENERATE_ATTEMPTS = 8


@dataclass(slots=True)
class WriteResult:
    obj: Obj
    raw: bytes
    warnings: builtins.list[str] = field(default_factory=list)
    created: bool = False


@dataclass(slots=True)
class DeleteResult:
    obj: Obj
    raw: bytes
    #: the object is gone (False: deletion is pending on finalizers or a grace period)
    deleted: bool


def _copy(obj: Obj) -> Obj:
    """A private deep copy (an orjson round trip is far faster than ``copy.deepcopy``)."""
    result: Obj = orjson.loads(orjson.dumps(obj))
    return result


def _key(namespace: str | None, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


class Registry:
    """All kinds of one cluster, over one storage."""

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
        self.storage = storage or Storage()
        self.clock = clock or RealClock()
        self.feature_gates = default_gates() | dict(feature_gates or {})
        self._random = random or _random_suffix
        self._fields = ManagedFieldsTracker()
        self._namespaces = self.resources.lookup("", "v1", "namespaces")

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
        stored = self.storage.table(self._namespaces.key).get(namespace)
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
        ns = self.storage.table(self._namespaces.key).get(namespace)
        if ns is None:
            raise errors.not_found(resource="namespaces", group="", name=namespace)
        if ns.obj["metadata"].get("deletionTimestamp"):
            raise errors.forbidden(
                resource=rt.plural,
                group=rt.group,
                name=name,
                message=f"unable to create new content in namespace {namespace} because it is "
                "being terminated",
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
    def get(self, rt: ResourceType, namespace: str | None, name: str) -> Stored:
        stored = self.storage.table(rt.key).get(_key(self._namespace_of(rt, namespace), name))
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
        obj = _copy(obj) if obj is body else obj
        return self.create_object(rt, namespace, obj, options, warnings)

    def create_object(
        self,
        rt: ResourceType,
        namespace: str | None,
        obj: Obj,
        options: WriteOptions,
        warnings: builtins.list[str],
        *,
        operation: str = "Update",
    ) -> WriteResult:
        """Create a decoded object that the caller owns (it is changed in place)."""
        ctx = self.context(options=options)
        obj["apiVersion"] = rt.api_version
        obj["kind"] = rt.kind
        meta = obj.setdefault("metadata", {})
        if meta.get("resourceVersion"):
            raise errors.bad_request("resourceVersion should not be set on objects to be created")
        ns = self._namespace_of(rt, namespace)
        if rt.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and ns and body_ns != ns:
                raise errors.bad_request(
                    "the namespace of the provided object does not match the namespace sent on "
                    "the request"
                )
            ns = ns or body_ns
            if not ns:
                raise errors.bad_request("the namespace of the object must be set")
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        for server_field in (
            "uid",
            "selfLink",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ):
            meta.pop(server_field, None)
        _drop_empty_maps(meta)
        meta["uid"] = str(uuid.uuid4())
        meta["creationTimestamp"] = format_time(ctx.now)
        if rt.strategy.tracks_generation:
            meta["generation"] = 1
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            meta["name"] = meta["generateName"] + self._random(5)
        missing = check_types(rt, obj)
        rt.strategy.prepare_for_create(obj, ctx)
        errs = _merge_errors(self._validate_meta(rt, obj) + rt.strategy.validate(obj, ctx), missing)
        name = meta.get("name") or ""
        if errs:
            raise self._invalid(rt, name, errs)
        if rt.namespaced:
            assert ns is not None
            self._check_namespace(rt, ns, name)
        warnings = warnings + rt.strategy.warnings_on_create(obj, ctx)
        self._fields.track(
            rt,
            None,
            obj,
            manager=options.field_manager,
            operation=operation,
            now=meta["creationTimestamp"],
            subresource="",
        )
        table = self.storage.table(rt.key)
        if options.dry_run:
            if table.get(_key(ns, name)) is not None:
                raise errors.already_exists(resource=rt.plural, group=rt.group, name=name)
            return WriteResult(obj, encode(obj), warnings, created=True)
        for attempt in range(_GENERATE_ATTEMPTS):
            try:
                stored = table.create(_key(ns, name), obj)
                return WriteResult(stored.obj, stored.raw, warnings, created=True)
            except KeyExistsError:
                if not generated or attempt == _GENERATE_ATTEMPTS - 1:
                    raise errors.already_exists(
                        resource=rt.plural, group=rt.group, name=name
                    ) from None
                name = meta["name"] = meta["generateName"] + self._random(5)
        raise AssertionError("unreachable")

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
        obj, warnings = decode_object(rt, body, options)
        obj = _copy(obj) if obj is body else obj
        meta = obj.get("metadata") or {}
        body_name = meta.get("name")
        if body_name and body_name != name:
            raise errors.bad_request(
                f"the name of the object ({body_name}) does not match the name on the URL ({name})"
            )
        ns = self._namespace_of(rt, namespace)
        body_ns = meta.get("namespace")
        if rt.namespaced and body_ns and body_ns != ns:
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the "
                "request"
            )
        current = self.storage.table(rt.key).get(_key(ns, name))
        if current is None:
            if rt.strategy.allow_create_on_update and not subresource:
                meta.pop("resourceVersion", None)
                obj.setdefault("metadata", {})["name"] = name
                return self.create_object(rt, namespace, obj, options, warnings)
            raise self._not_found(rt, name)
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
        new = mutate(_copy(current.obj))
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
    ) -> WriteResult:
        old = current.obj
        name = old["metadata"]["name"]
        if precondition is not None:
            if not precondition.isdigit():
                raise errors.bad_request(f"invalid resourceVersion: {precondition!r}")
            if int(precondition) != current.rv:
                raise errors.conflict(resource=rt.plural, group=rt.group, name=name)
        ctx = self.context(subresource=subresource, options=options)
        strategy = rt.strategy
        if subresource == "status":
            new = _copy(old)
            if "status" in obj:
                new["status"] = obj["status"]
            else:
                new.pop("status", None)
            if "managedFields" in (obj.get("metadata") or {}):
                new["metadata"]["managedFields"] = obj["metadata"]["managedFields"]
            missing = check_types(rt, new)
            strategy.prepare_for_status_update(new, old, ctx)
            errs = strategy.validate_status_update(new, old, ctx)
        else:
            missing = check_types(rt, obj)
            new = obj
            new["apiVersion"] = rt.api_version
            new["kind"] = rt.kind
            meta = new.setdefault("metadata", {})
            old_meta = old["metadata"]
            for server_field in (
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generation",
                "namespace",
            ):
                if server_field in old_meta:
                    meta[server_field] = old_meta[server_field]
                else:
                    meta.pop(server_field, None)
            meta["name"] = name
            meta.pop("selfLink", None)
            _drop_empty_maps(meta)
            if strategy.status_subresource:
                if "status" in old:
                    new["status"] = copy.deepcopy(old["status"])
                else:
                    new.pop("status", None)
            strategy.prepare_for_update(new, old, ctx)
            errs = self._validate_meta(rt, new)
            errs += validate_object_meta_update(meta, old_meta, fe.Path("metadata"))
            errs += _finalizer_errors(meta, old_meta)
            errs += strategy.validate_update(new, old, ctx)
            if (
                not errs
                and not subresource
                and strategy.tracks_generation
                and _spec_changed(strategy, new, old)
            ):
                meta["generation"] = int(old_meta.get("generation") or 0) + 1
        errs = _merge_errors(errs, missing)
        if errs:
            raise self._invalid(rt, name, errs)
        if subresource != "status":
            warnings = warnings + strategy.warnings_on_update(new, old, ctx)
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if _same(new, old):
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
        if _same(new, old):
            return WriteResult(old, current.raw, warnings)
        table = self.storage.table(rt.key)
        key = _object_key(new)
        if self._finalized(rt, new):
            if options.dry_run:
                return WriteResult(new, encode(new), warnings)
            stored = table.delete(key, expected_rv=current.rv)
            return WriteResult(stored.obj, stored.raw, warnings)
        if options.dry_run:
            return WriteResult(new, encode(new), warnings)
        try:
            stored = table.update(key, new, expected_rv=current.rv)
        except ConflictError:
            raise errors.conflict(resource=rt.plural, group=rt.group, name=name) from None
        except KeyNotFoundError:
            raise self._not_found(rt, name) from None
        return WriteResult(stored.obj, stored.raw, warnings)

    def _finalized(self, rt: ResourceType, obj: Obj) -> bool:
        """A deleting object whose last finalizer (and grace period) is gone must be removed."""
        meta = obj["metadata"]
        return (
            bool(meta.get("deletionTimestamp"))
            and not meta.get("finalizers")
            and not meta.get("deletionGracePeriodSeconds")
            and not rt.strategy.deletion_blocked(obj)
        )

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
        """POST to ``pods/binding`` and similar: the strategy turns the body into a new object."""
        current = self.get(rt, namespace, name)
        ctx = self.context(subresource=subresource, options=options)
        new = rt.strategy.apply_subresource(subresource, _copy(current.obj), body, ctx)
        return self.write_update(
            rt, current, new, options, subresource=subresource, precondition=None, warnings=[]
        )

    # --- delete ------------------------------------------------------------------------------
    def delete(
        self, rt: ResourceType, namespace: str | None, name: str, options: DeleteOptions
    ) -> DeleteResult:
        table = self.storage.table(rt.key)
        current = self.get(rt, namespace, name)
        obj = current.obj
        meta = obj["metadata"]
        pre = options.preconditions
        if pre is not None:
            if pre.uid is not None and pre.uid != meta.get("uid"):
                raise errors.conflict(
                    resource=rt.plural,
                    group=rt.group,
                    name=name,
                    detail=f"Precondition failed: UID in precondition: {pre.uid}, UID in object "
                    f"meta: {meta.get('uid')}",
                )
            if pre.resource_version is not None and pre.resource_version != meta.get(
                "resourceVersion"
            ):
                raise errors.conflict(
                    resource=rt.plural,
                    group=rt.group,
                    name=name,
                    detail=f"Precondition failed: ResourceVersion in precondition: "
                    f"{pre.resource_version}, ResourceVersion in object meta: "
                    f"{meta.get('resourceVersion')}",
                )
        ctx = self.context()
        new = _copy(obj)
        new_meta = new["metadata"]
        finalizers = list(new_meta.get("finalizers") or [])
        policy = options.propagation_policy
        if policy == "Orphan" and "orphan" not in finalizers:
            finalizers.append("orphan")
        if policy == "Foreground" and "foregroundDeletion" not in finalizers:
            finalizers.append("foregroundDeletion")
        if policy in ("Background", "Foreground") and "orphan" in finalizers:
            finalizers.remove("orphan")
        if policy in ("Background", "Orphan") and "foregroundDeletion" in finalizers:
            finalizers.remove("foregroundDeletion")
        if finalizers:
            new_meta["finalizers"] = finalizers
        else:
            new_meta.pop("finalizers", None)
        grace = rt.strategy.grace_period_seconds(obj, options.grace_period_seconds)
        existing_grace = meta.get("deletionGracePeriodSeconds")
        if meta.get("deletionTimestamp") and existing_grace is not None:
            grace = min(grace, int(existing_grace))
        pending = grace > 0 or bool(finalizers) or rt.strategy.deletion_blocked(new)
        if not pending:
            if options.dry_run:
                return DeleteResult(obj, current.raw, deleted=True)
            try:
                stored = table.delete(_object_key(obj), expected_rv=current.rv)
            except (ConflictError, KeyNotFoundError):
                raise errors.conflict(resource=rt.plural, group=rt.group, name=name) from None
            return DeleteResult(stored.obj, stored.raw, deleted=True)
        if not meta.get("deletionTimestamp") or grace != existing_grace:
            when = ctx.now + timedelta(seconds=grace)
            if not meta.get("deletionTimestamp") and new_meta.get("generation"):
                # upstream bumps the generation once, when graceful deletion starts
                new_meta["generation"] = int(new_meta["generation"]) + 1
            if (meta.get("deletionTimestamp") and grace > 0) or not meta.get("deletionTimestamp"):
                new_meta["deletionTimestamp"] = format_time(when)
            new_meta["deletionGracePeriodSeconds"] = grace
        rt.strategy.prepare_for_delete(new, ctx)
        if _same(new, obj):
            return DeleteResult(obj, current.raw, deleted=False)
        if options.dry_run:
            return DeleteResult(new, encode(new), deleted=False)
        if self._finalized(rt, new):
            stored = table.delete(_object_key(obj), expected_rv=current.rv)
            return DeleteResult(stored.obj, stored.raw, deleted=True)
        stored = table.update(_object_key(obj), new, expected_rv=current.rv)
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


def _object_key(obj: Obj) -> str:
    meta = obj["metadata"]
    return _key(meta.get("namespace"), meta["name"])


def _random_suffix(n: int) -> str:
    import secrets

    return "".join(secrets.choice(_NAME_ALPHABET) for _ in range(n))


def _drop_empty_maps(meta: Obj) -> None:
    for key in ("labels", "annotations", "finalizers", "ownerReferences"):
        if key in meta and not meta[key]:
            del meta[key]


def _finalizer_errors(meta: Obj, old_meta: Obj) -> list[fe.FieldError]:
    if not old_meta.get("deletionTimestamp"):
        return []
    added = sorted(set(meta.get("finalizers") or ()) - set(old_meta.get("finalizers") or ()))
    if not added:
        return []
    listing = ", ".join(f'"{f}"' for f in added)
    return [
        fe.forbidden(
            "metadata.finalizers",
            f"no new finalizers can be added if the object is being deleted, found new "
            f"finalizers []string{{{listing}}}",
        )
    ]


def _merge_errors(
    errs: builtins.list[fe.FieldError], missing: builtins.list[fe.FieldError]
) -> builtins.list[fe.FieldError]:
    """The kind's errors plus schema-required fields it did not already report."""
    if not missing:
        return errs
    reported = {e.field for e in errs}
    return errs + [e for e in missing if e.field not in reported]


def _spec_changed(strategy: Any, new: Obj, old: Obj) -> bool:
    skip = strategy.non_spec_fields
    keys = (set(new) | set(old)) - skip
    return any(new.get(k) != old.get(k) for k in keys)


def _same(new: Obj, old: Obj) -> bool:
    return new == old
