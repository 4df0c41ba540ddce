"""Namespace: the ``kubernetes`` finalizer, the Active/Terminating phase, DNS-label names.

A new namespace always carries the ``kubernetes`` spec finalizer and ``status.phase: Active``.
Deleting it moves it to ``Terminating``; it stays until its spec finalizers are gone (upstream's
namespace controller empties the namespace and then clears them through ``/finalize``), which is
why :meth:`NamespaceStrategy.deletion_blocked` looks at ``spec.finalizers``. Main updates cannot
change the spec finalizers; only ``finalize`` can. ``default``, ``kube-system`` and
``kube-public`` may not be deleted.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi import errors
from fakeapi.name_syntax import is_qualified_name
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError, Path, invalid

__all__ = [
    "IMMORTAL_NAMESPACES",
    "KUBERNETES_FINALIZER",
    "METADATA_NAME_LABEL",
    "NamespaceStrategy",
]

KUBERNETES_FINALIZER = "kubernetes"
#: label every namespace carries with its own name (upstream defaulting)
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
#: the namespaces that may not be deleted (upstream's NamespaceLifecycle admission)
IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


def _status_cell(obj: Obj, _now: object) -> str:
    return text(dig(obj, "status", "phase"))


class NamespaceStrategy(Strategy):
    """Cluster-scoped, DNS-label names, status subresource, deletion gated by spec finalizers."""

    status_subresource = True
    name_rule = "label"
    field_labels = ("status.phase",)
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column(
            "Status",
            _status_cell,
            description="The status of the namespace",
        ),
        AGE_COLUMN,
    )
    #: Deletion waits for ``spec.finalizers`` to be emptied (by a namespace controller through
    #: ``finalize``). Set to False where no such controller runs.
    wait_for_spec_finalizers: ClassVar[bool] = True


    def check_delete(self, obj: Obj) -> None:
        name = str(obj["metadata"].get("name", ""))
        if name in IMMORTAL_NAMESPACES:  # upstream's NamespaceLifecycle admission
            raise errors.forbidden(
                resource="namespaces", group="", name=name,
                message="this namespace may not be deleted",
            )

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        _set_name_label(obj)

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        spec = as_dict(obj.get("spec"))
        finalizers = [f for f in as_list(spec.get("finalizers")) if isinstance(f, str)]
        if KUBERNETES_FINALIZER not in finalizers:
            finalizers.append(KUBERNETES_FINALIZER)
        spec["finalizers"] = finalizers
        obj["spec"] = spec
        obj["status"] = {"phase": "Active"}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        path = Path("spec").child("finalizers")
        errors: list[FieldError] = []
        for finalizer in as_list(dig(obj, "spec", "finalizers")):
            name = finalizer if isinstance(finalizer, str) else str(finalizer)
            for msg in is_qualified_name(name):
                errors.append(invalid(path, name, msg))
            if "/" not in name and name not in _STANDARD_FINALIZERS:
                errors.append(
                    invalid(
                        path,
                        name,
                        "name is neither a standard finalizer name nor is it fully qualified",
                    )
                )
        return errors

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        if ctx.subresource == "finalize":  # the one write that may change spec.finalizers
            _set_name_label(new)
            return
        spec = as_dict(new.get("spec"))
        old_finalizers = dig(old, "spec", "finalizers")
        if old_finalizers is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = list(old_finalizers)
        new["spec"] = spec
        _set_name_label(new)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        _set_name_label(new)

    def prepare_for_delete(self, obj: Obj, ctx: WriteContext) -> None:
        status = as_dict(obj.get("status"))
        status["phase"] = "Terminating"
        obj["status"] = status

    def deletion_blocked(self, obj: Obj) -> bool:
        return self.wait_for_spec_finalizers and bool(as_list(dig(obj, "spec", "finalizers")))

    def apply_subresource(self, name: str, current: Obj, body: Obj, ctx: WriteContext) -> Obj:
        """``finalize``: replace ``spec.finalizers`` with the body's (the namespace controller's
        last step); everything else of the body is ignored."""
        if name != "finalize":
            raise NotImplementedError(name)
        finalizers = dig(body, "spec", "finalizers")
        spec = as_dict(current.get("spec"))
        if finalizers:
            spec["finalizers"] = list(finalizers)
        else:
            spec.pop("finalizers", None)
        current["spec"] = spec
        return current

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"status.phase": text(dig(obj, "status", "phase"))}


def _set_name_label(obj: Obj) -> None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not meta.get("name"):
        return
    labels = as_dict(meta.get("labels"))
    labels[METADATA_NAME_LABEL] = meta["name"]
    meta["labels"] = labels
