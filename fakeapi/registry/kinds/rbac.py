"""rbac.authorization.k8s.io/v1 strategies: Role, ClusterRole, RoleBinding, ClusterRoleBinding.

Stored and validated as upstream (:mod:`fakeapi.validation.rbac`); nothing here grants or denies
a request. Names are URL path segments (upstream's ``ValidateRBACName``), a binding's
``roleRef.apiGroup`` and its users' and groups' ``apiGroup`` default to the RBAC group, and the
printer columns are upstream's (``CREATED AT`` for roles, ``ROLE`` and the wide subject columns
for bindings).
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from fakeapi.objects import as_dict, as_list, meta, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError
from fakeapi.validation.rbac import (
    RBAC_GROUP,
    validate_binding,
    validate_binding_update,
    validate_role,
)

__all__ = ["BindingStrategy", "RoleStrategy"]


def _created_at(obj: Obj, _now: datetime) -> str:
    return text(meta(obj).get("creationTimestamp"))


def _subjects(obj: Obj, kind: str) -> str:
    names = []
    for subject in as_list(obj.get("subjects")):
        subject = as_dict(subject)
        if subject.get("kind") != kind:
            continue
        name = text(subject.get("name"))
        if kind == "ServiceAccount":
            name = f"{text(subject.get('namespace'))}/{name}"
        names.append(name)
    return ", ".join(names)


_ROLE_COLUMNS = (
    NAME_COLUMN,
    Column("Created At", _created_at, format="date",
           description="CreationTimestamp is a timestamp representing the server time when this "
           "object was created."),
)
_BINDING_COLUMNS = (
    NAME_COLUMN,
    Column("Role", lambda obj, _now: f"{text(as_dict(obj.get('roleRef')).get('kind'))}/"
           f"{text(as_dict(obj.get('roleRef')).get('name'))}",
           description="RoleRef can reference a Role in the current namespace or a ClusterRole "
           "in the global namespace."),
    AGE_COLUMN,
    Column("Users", lambda obj, _now: _subjects(obj, "User"), priority=1,
           description="Users in the roleBinding"),
    Column("Groups", lambda obj, _now: _subjects(obj, "Group"), priority=1,
           description="Groups in the roleBinding"),
    Column("ServiceAccounts", lambda obj, _now: _subjects(obj, "ServiceAccount"), priority=1,
           description="ServiceAccounts in the roleBinding"),
)


class RoleStrategy(Strategy):
    """A Role (``namespaced``) or a ClusterRole."""

    name_rule: ClassVar[str] = "path-segment"
    columns: ClassVar[tuple[Column, ...]] = _ROLE_COLUMNS

    def __init__(self, *, namespaced: bool) -> None:
        self.namespaced = namespaced

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_role(obj, namespaced=self.namespaced)


class BindingStrategy(Strategy):
    """A RoleBinding (``namespaced``) or a ClusterRoleBinding; ``roleRef`` is immutable."""

    name_rule: ClassVar[str] = "path-segment"
    columns: ClassVar[tuple[Column, ...]] = _BINDING_COLUMNS

    def __init__(self, *, namespaced: bool) -> None:
        self.namespaced = namespaced

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        ref = obj.get("roleRef")
        if isinstance(ref, dict) and not ref.get("apiGroup"):
            ref["apiGroup"] = RBAC_GROUP
        for subject in as_list(obj.get("subjects")):
            if (
                isinstance(subject, dict)
                and not subject.get("apiGroup")
                and subject.get("kind") in ("User", "Group")
            ):
                subject["apiGroup"] = RBAC_GROUP

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_binding(obj, namespaced=self.namespaced)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_binding_update(new, old, namespaced=self.namespaced)
