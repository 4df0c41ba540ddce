"""The controllers kube-apiserver runs for CustomResourceDefinitions, inside the API server.

Upstream's apiextensions server starts them as post-start hooks of kube-apiserver (they are not
kube-controller-manager's): fakeapi runs them in the server too, on the registry itself, as one
level-based loop over the stored definitions:

* names (``NamingConditionController``): a definition's requested names are accepted unless
  another definition of its group already accepted them (``PluralConflict``,
  ``SingularConflict``, ``ShortNamesConflict``, ``KindConflict``, ``ListKindConflict``, with
  upstream's ``"x" is already in use``); when a definition goes, or gives up a name, the others
  of its group are looked at again;
* establishing: once the names are accepted the definition is ``Established``
  (``InitialNamesAccepted``);
* API approval: definitions in the protected ``k8s.io``/``kubernetes.io`` groups get the
  ``KubernetesAPIApprovalPolicyConformant`` condition their annotation calls for;
* finalizer (``CRDFinalizer``): a deleted definition's objects are deleted (namespace by
  namespace), the ``Terminating`` condition says how far it got, and once none is left the
  ``customresourcecleanup.apiextensions.k8s.io`` finalizer goes, and with it the definition.

All writes go through the ``/status`` subresource with the definition's resourceVersion, so a
conflict only means the definition changed meanwhile and is looked at again. Whoever serves the
registry starts the loop (:meth:`ApiExtensionsControllers.start`): the HTTP server and the
in-process cluster alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any

import orjson

from fakeapi import errors
from fakeapi.apiextensions.definitions import (
    CLEANUP_FINALIZER,
    approval_state,
    is_protected_group,
    set_condition,
)
from fakeapi.apiextensions.serving import CRD_STORAGE_KEY
from fakeapi.objects import as_dict, as_list
from fakeapi.registry.options import DeleteOptions, ListOptions, WriteOptions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.store import GenericStore
from fakeapi.storage.watch import Watcher

__all__ = ["ApiExtensionsControllers"]

log = logging.getLogger("fakeapi.apiextensions")

_MANAGER = "kube-apiserver"
_GROUP = "apiextensions.k8s.io"
_APPROVAL_REASONS = {
    "Invalid": ("False", "InvalidAnnotation"),
    "Missing": ("False", "MissingAnnotation"),
    "Approved": ("True", "ApprovedAnnotation"),
    "Bypassed": ("False", "UnapprovedAnnotation"),
}
_NAME_FIELDS = (
    ("plural", "PluralConflict"),
    ("singular", "SingularConflict"),
)


def _condition(crd: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in as_list(as_dict(crd.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == kind:
            return condition
    return None


def _true(crd: dict[str, Any], kind: str) -> bool:
    condition = _condition(crd, kind)
    return condition is not None and condition.get("status") == "True"


def _same_names(a: Any, b: Any) -> bool:
    return orjson.dumps(a or {}, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
        b or {}, option=orjson.OPT_SORT_KEYS
    )


class ApiExtensionsControllers:
    """Names, establishing, API approval and cleanup of definitions, over one registry."""

    def __init__(self, registry: GenericStore) -> None:
        self.registry = registry
        self._task: asyncio.Task[None] | None = None
        self._users = 0
        #: terminating definitions waiting for their objects to go: name -> watcher
        self._instances: dict[str, Watcher] = {}

    @property
    def _crds(self) -> ResourceType:
        rt = self.registry.resources.lookup(_GROUP, "v1", "customresourcedefinitions")
        assert rt is not None
        return rt

    # --- lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the loop (once however many servers share the registry)."""
        self._users += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop the loop when the last server sharing the registry stops."""
        self._users = max(self._users - 1, 0)
        if self._users or self._task is None:
            return
        task, self._task = self._task, None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        for watcher in self._instances.values():
            watcher.close()
        self._instances.clear()

    async def _run(self) -> None:
        store = self.registry.storage.resource(CRD_STORAGE_KEY)
        watcher = store.watch(prefix="", predicate=None)
        queue = self._all_names()
        try:
            while True:
                while queue:
                    name = min(queue)
                    queue.discard(name)
                    try:
                        queue |= self.reconcile(name)
                    except errors.StatusError as exc:  # a conflict: looked at again below
                        log.debug("reconciling %s: %s", name, exc)
                        if exc.code == 409:
                            queue.add(name)
                        await asyncio.sleep(0)
                queue |= await self._wait(watcher)
                if watcher.closed:
                    watcher = store.watch(prefix="", predicate=None)
                    queue |= self._all_names()
        finally:
            watcher.close()

    async def _wait(self, watcher: Watcher) -> set[str]:
        """The definitions to look at once something changed (a definition, or the objects of
        one being deleted)."""
        waiters: dict[asyncio.Task[bool], str] = {}
        loop = asyncio.get_running_loop()
        waiters[loop.create_task(_awaitable(watcher.wait()))] = ""
        for name, instances in self._instances.items():
            waiters[loop.create_task(_awaitable(instances.wait()))] = name
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiters:
                task.cancel()
        names: set[str] = set()
        for _, obj, _ in watcher.drain():
            names.add(str(as_dict(obj.get("metadata")).get("name") or ""))
        for name, instances in list(self._instances.items()):
            if instances.queue or instances.closed:
                instances.drain()
                names.add(name)
        names.discard("")
        return names

    def _all_names(self) -> set[str]:
        store = self.registry.storage.resource(CRD_STORAGE_KEY)
        return {
            str(as_dict(s.obj.get("metadata")).get("name") or "")
            for s in store.scan("", None, None)
        }

    # --- one definition ---------------------------------------------------------------------------
    def reconcile(self, name: str) -> set[str]:
        """Bring one definition's status to what its spec and the other definitions call for;
        the names of the definitions to look at next."""
        stored = self.registry.find(self._crds, None, name)
        if stored is None:
            self._forget(name)
            return self._group_others(name, None)
        crd: dict[str, Any] = orjson.loads(stored.raw)
        names_differ = not _same_names(
            as_dict(crd.get("spec")).get("names"), as_dict(crd.get("status")).get("acceptedNames")
        )
        if names_differ and self._name(crd):
            # a name this definition gave up or took may settle another one's conflict
            return self._group_others(name, crd) | {name}
        if _true(crd, "NamesAccepted") and not _true(crd, "Established"):
            self._establish(crd)
            return {name}
        if self._approval(crd):
            return {name}
        meta = as_dict(crd.get("metadata"))
        if (
            meta.get("deletionTimestamp")
            and CLEANUP_FINALIZER in as_list(meta.get("finalizers"))
            and self._finalize(crd)
        ):
            return {name}  # gone now: its names are free for the others of its group
        return set()

    def _write_status(self, crd: dict[str, Any]) -> None:
        self.registry.update(
            self._crds, None, crd["metadata"]["name"], crd,
            WriteOptions(field_manager=_MANAGER), subresource="status",
        )

    def _group_others(self, name: str, crd: dict[str, Any] | None) -> set[str]:
        group = name.split(".", 1)[1] if "." in name else ""
        store = self.registry.storage.resource(CRD_STORAGE_KEY)
        return {
            str(s.obj["metadata"]["name"]) for s in store.scan("", None, None)
            if as_dict(s.obj.get("spec")).get("group") == group
            and s.obj["metadata"]["name"] != name
        }

    # --- names ----------------------------------------------------------------------------------
    def _taken(self, crd: dict[str, Any]) -> tuple[set[str], set[str]]:
        """(resource names, kind names) the other definitions of the group accepted."""
        group = as_dict(crd.get("spec")).get("group")
        name = crd["metadata"]["name"]
        resources: set[str] = set()
        kinds: set[str] = set()
        store = self.registry.storage.resource(CRD_STORAGE_KEY)
        for stored in store.scan("", None, None):
            other = stored.obj
            if as_dict(other.get("spec")).get("group") != group or other["metadata"][
                "name"
            ] == name:
                continue
            accepted = as_dict(as_dict(other.get("status")).get("acceptedNames"))
            resources.update(str(accepted.get(k) or "") for k in ("plural", "singular"))
            resources.update(str(s) for s in as_list(accepted.get("shortNames")))
            kinds.update(str(accepted.get(k) or "") for k in ("kind", "listKind"))
        resources.discard("")
        kinds.discard("")
        return resources, kinds

    def _name(self, crd: dict[str, Any]) -> bool:
        """Upstream's naming controller; whether the status changed."""
        resources, kinds = self._taken(crd)
        requested = as_dict(as_dict(crd.get("spec")).get("names"))
        status = crd.setdefault("status", {})
        accepted = as_dict(status.get("acceptedNames"))
        new_names = dict(accepted)
        reason, message = "", ""

        def fresh(wanted: Any, current: Any, used: set[str]) -> str | None:
            if wanted == current or wanted not in used:
                return None
            return f'"{wanted}" is already in use'

        for key, conflict in _NAME_FIELDS:
            problem = fresh(requested.get(key), accepted.get(key), resources)
            if problem:
                reason, message = conflict, problem
            else:
                new_names[key] = requested.get(key)
        wanted_short = as_list(requested.get("shortNames"))
        if wanted_short != as_list(accepted.get("shortNames")):
            mine = set(as_list(accepted.get("shortNames")))
            problems = [
                f'"{short}" is already in use' for short in wanted_short
                if short not in mine and short in resources
            ]
            if problems:
                reason = "ShortNamesConflict"
                message = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
            else:
                new_names["shortNames"] = wanted_short
        for key, conflict in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
            problem = fresh(requested.get(key), accepted.get(key), kinds)
            if problem:
                reason, message = conflict, problem
            else:
                new_names[key] = requested.get(key)
        if requested.get("categories") is not None:
            new_names["categories"] = requested.get("categories")
        else:
            new_names.pop("categories", None)
        new_names = {k: v for k, v in new_names.items() if v not in (None, [])}
        new_names.setdefault("plural", "")
        new_names.setdefault("kind", "")
        if reason:
            naming = {"type": "NamesAccepted", "status": "False", "reason": reason,
                      "message": message}
        else:
            naming = {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                      "message": "no conflicts found"}
        established = _condition(crd, "Established")
        if established is None:
            established = {"type": "Established", "status": "False", "reason": "NotAccepted",
                           "message": "not all names are accepted"}
        else:
            established = dict(established)
        if established.get("status") != "True" and naming["status"] == "True":
            established = {"type": "Established", "status": "False", "reason": "Installing",
                           "message": "the initial names have been accepted"}
        previous = _condition(crd, "NamesAccepted")
        if _same_names(accepted, new_names) and previous is not None and all(
            previous.get(k) == naming[k] for k in ("status", "reason", "message")
        ):
            return False
        status["acceptedNames"] = new_names
        now = self.registry.clock.now()
        set_condition(crd, naming, now=now)
        set_condition(crd, {k: established.get(k, "") for k in (
            "type", "status", "reason", "message")}, now=now)
        self._write_status(crd)
        return True

    def _establish(self, crd: dict[str, Any]) -> None:
        set_condition(crd, {
            "type": "Established", "status": "True", "reason": "InitialNamesAccepted",
            "message": "the initial names have been accepted",
        }, now=self.registry.clock.now())
        self._write_status(crd)

    def _approval(self, crd: dict[str, Any]) -> bool:
        if not is_protected_group(str(as_dict(crd.get("spec")).get("group") or "")):
            return False
        state, reason = approval_state(as_dict(as_dict(crd.get("metadata")).get("annotations")))
        status, why = _APPROVAL_REASONS.get(state, ("Unknown", "UnknownAnnotation"))
        wanted = {"type": "KubernetesAPIApprovalPolicyConformant", "status": status,
                  "reason": why, "message": reason}
        current = _condition(crd, "KubernetesAPIApprovalPolicyConformant")
        if current is not None and all(current.get(k) == wanted[k] for k in (
            "status", "reason", "message"
        )):
            return False
        set_condition(crd, wanted, now=self.registry.clock.now())
        self._write_status(crd)
        return True

    # --- deletion -------------------------------------------------------------------------------
    def _forget(self, name: str) -> None:
        watcher = self._instances.pop(name, None)
        if watcher is not None:
            watcher.close()

    def _finalize(self, crd: dict[str, Any]) -> bool:
        """Delete the definition's objects; drop the finalizer once none is left (True)."""
        name = crd["metadata"]["name"]
        now = self.registry.clock.now()
        if not _true(crd, "Established"):
            set_condition(crd, {
                "type": "Terminating", "status": "False", "reason": "NeverEstablished",
                "message": "resource was never established",
            }, now=now)
            self._drop_finalizer(crd)
            return True
        rt = self._instance_row(crd)
        remaining = 0
        if rt is not None:
            remaining = self._delete_instances(rt)
        if remaining:
            progress = _condition(crd, "Terminating")
            if progress is None or progress.get("reason") != "InstanceDeletionInProgress":
                set_condition(crd, {
                    "type": "Terminating", "status": "True",
                    "reason": "InstanceDeletionInProgress",
                    "message": "CustomResource deletion is in progress",
                }, now=now)
                self._write_status(crd)
            if name not in self._instances:
                store = self.registry.storage.resource(name)
                self._instances[name] = store.watch(prefix="", predicate=None)
            return False
        self._forget(name)
        set_condition(crd, {
            "type": "Terminating", "status": "False", "reason": "InstanceDeletionCompleted",
            "message": "removed all instances",
        }, now=now)
        self._drop_finalizer(crd)
        return True

    def _drop_finalizer(self, crd: dict[str, Any]) -> None:
        meta = crd["metadata"]
        meta["finalizers"] = [f for f in as_list(meta.get("finalizers")) if f != CLEANUP_FINALIZER]
        self._write_status(crd)

    def _instance_row(self, crd: dict[str, Any]) -> ResourceType | None:
        spec = as_dict(crd.get("spec"))
        plural = str(as_dict(as_dict(crd.get("status")).get("acceptedNames")).get("plural") or "")
        for version in as_list(spec.get("versions")):
            if not isinstance(version, dict):
                continue
            rt = self.registry.resources.lookup(
                str(spec.get("group") or ""), str(version.get("name") or ""), plural
            )
            if rt is not None:
                return rt
        return None

    def _delete_instances(self, rt: ResourceType) -> int:
        """Delete every object (namespace by namespace, as upstream); how many remain."""
        listed = self.registry.list(rt, None, ListOptions())
        namespaces = sorted({
            str(as_dict(s.obj.get("metadata")).get("namespace") or "") for s in listed.items
        })
        for namespace in namespaces:
            try:
                self.registry.delete_collection(
                    rt, namespace or None, ListOptions(), DeleteOptions()
                )
            except errors.StatusError as exc:
                log.debug("deleting %s in %r: %s", rt.key, namespace, exc)
        return len(self.registry.list(rt, None, ListOptions()).items)


async def _awaitable(waiting: Awaitable[bool]) -> bool:
    return await waiting
