"""``--authorization-mode=RBAC``: Roles, ClusterRoles and their bindings, evaluated as upstream.

For a request the authorizer visits the rules that apply to the user — first those of every
ClusterRoleBinding naming the user, one of its groups or its service account, then those of the
RoleBindings of the request's namespace — and allows the request at the first rule that allows
it, with the reason ``RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"``. A
binding whose role does not exist adds an error (``clusterrole.rbac.authorization.k8s.io "y" not
found``) and nothing else; the errors become the reason of a refusal (``RBAC: ...``), which is how
a missing role shows in a 403. Subjects match as upstream's ``appliesTo``: a User by name, a Group
by membership, a ServiceAccount by the name ``system:serviceaccount:<ns>:<name>`` (a RoleBinding's
ServiceAccount without a namespace is one of the binding's namespace).

The policy is read from storage through :class:`~fakeapi.auth.watched.WatchedObjects`, so a
write to a role or binding counts from the next request on. What a user's bindings grant is
worked out once per (user, groups, namespace) and policy generation: the bindings that apply,
their roles' compiled rules (:mod:`fakeapi.auth.rules`), and the errors; a request then costs a
dictionary lookup and the rules' set lookups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi.auth.attributes import Attributes
from fakeapi.auth.authorizer import NO_OPINION, Answer, Decision, Rules, aggregate
from fakeapi.auth.rules import Rule, compile_rules
from fakeapi.auth.user import SERVICE_ACCOUNT_PREFIX, UserInfo
from fakeapi.auth.watched import WatchedObjects
from fakeapi.objects import Obj, as_dict, as_list, text
from fakeapi.storage.interface import ResourceStore

__all__ = ["RBACAuthorizer"]

#: how many (user, groups, namespace) answers are kept before the cache starts over
_CACHE_SIZE = 2048


@dataclass(frozen=True, slots=True)
class _Grant:
    """The rules one applying binding gives, and how to describe where they come from."""

    rules: tuple[Rule, ...]
    describe: Callable[[], str]


@dataclass(frozen=True, slots=True)
class _Visit:
    """Everything a user's bindings give in a namespace, in upstream's visiting order."""

    grants: tuple[_Grant, ...]
    errors: tuple[str, ...]


def _describe_subject(subject: dict[str, Any], binding_namespace: str) -> str:
    kind, name = text(subject.get("kind")), text(subject.get("name"))
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{text(subject.get("namespace")) or binding_namespace}"'
    return f'{kind} "{name}"'


def _applying_subject(user: UserInfo, subjects: list[Any], namespace: str) -> dict[str, Any] | None:
    """The first subject of a binding that is ``user`` (upstream's ``appliesTo``)."""
    for subject in subjects:
        subject = as_dict(subject)
        kind, name = subject.get("kind"), text(subject.get("name"))
        if kind == "User":
            if user.name == name:
                return subject
        elif kind == "Group":
            if name in user.groups:
                return subject
        elif kind == "ServiceAccount":
            sa_namespace = text(subject.get("namespace")) or namespace
            if sa_namespace and user.name == f"{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{name}":
                return subject
    return None


class _Table:
    """One kind's objects by key, fed by a :class:`WatchedObjects`."""

    def __init__(self, store: ResourceStore) -> None:
        self.objects: dict[str, Obj] = {}
        self.watch = WatchedObjects(store, apply=self._apply, reset=self.objects.clear)

    def _apply(self, key: str, obj: Obj | None) -> None:
        if obj is None:
            self.objects.pop(key, None)
        else:
            self.objects[key] = obj


class RBACAuthorizer:
    """The RBAC mode over the stores of the four RBAC kinds."""

    def __init__(
        self,
        *,
        roles: ResourceStore,
        cluster_roles: ResourceStore,
        role_bindings: ResourceStore,
        cluster_role_bindings: ResourceStore,
    ) -> None:
        self._roles = _Table(roles)
        self._cluster_roles = _Table(cluster_roles)
        self._role_bindings = _Table(role_bindings)
        self._cluster_role_bindings = _Table(cluster_role_bindings)
        self._tables = (
            self._roles, self._cluster_roles, self._role_bindings, self._cluster_role_bindings
        )
        self._generation: tuple[int, ...] = ()
        self._visits: dict[tuple[str, tuple[str, ...], str], _Visit] = {}
        #: compiled rules by role key, with the resourceVersion they were compiled from
        self._compiled: dict[tuple[str, str], tuple[str, tuple[Rule, ...]]] = {}
        self._cluster_bindings: list[Obj] = []
        self._bindings_by_namespace: dict[str, list[Obj]] = {}

    # --- the policy -------------------------------------------------------------------------
    def _sync(self) -> None:
        for table in self._tables:
            table.watch.sync()
        generation = tuple(table.watch.generation for table in self._tables)
        if generation == self._generation:
            return
        self._generation = generation
        self._visits.clear()
        bindings = self._cluster_role_bindings.objects
        self._cluster_bindings = [bindings[key] for key in sorted(bindings)]
        by_namespace: dict[str, list[Obj]] = {}
        for key in sorted(self._role_bindings.objects):
            binding = self._role_bindings.objects[key]
            by_namespace.setdefault(text(binding["metadata"].get("namespace")), []).append(binding)
        self._bindings_by_namespace = by_namespace
        live = {("Role", k) for k in self._roles.objects}
        live |= {("ClusterRole", k) for k in self._cluster_roles.objects}
        for gone in set(self._compiled) - live:
            del self._compiled[gone]

    def _rules_of(self, kind: str, key: str, role: Obj) -> tuple[Rule, ...]:
        rv = text(role["metadata"].get("resourceVersion"))
        cached = self._compiled.get((kind, key))
        if cached is not None and cached[0] == rv:
            return cached[1]
        rules = compile_rules(as_list(role.get("rules")))
        self._compiled[(kind, key)] = (rv, rules)
        return rules

    def _role_rules(self, ref: dict[str, Any], namespace: str) -> tuple[Rule, ...] | str:
        """The rules a binding's ``roleRef`` names, or upstream's error when there are none."""
        kind, name = text(ref.get("kind")), text(ref.get("name"))
        if kind == "Role":
            key = f"{namespace}/{name}"
            role = self._roles.objects.get(key)
            if role is None:
                return f'role.rbac.authorization.k8s.io "{name}" not found'
            return self._rules_of(kind, key, role)
        if kind == "ClusterRole":
            role = self._cluster_roles.objects.get(name)
            if role is None:
                return f'clusterrole.rbac.authorization.k8s.io "{name}" not found'
            return self._rules_of(kind, name, role)
        return f'unsupported role reference kind: "{kind}"'

    def _visit(self, user: UserInfo, namespace: str) -> _Visit:
        """What ``user``'s bindings give in ``namespace`` (cached per policy generation)."""
        self._sync()
        cache_key = (user.name, user.groups, namespace)
        visit = self._visits.get(cache_key)
        if visit is not None:
            return visit
        grants: list[_Grant] = []
        errors: list[str] = []
        sources = [("ClusterRoleBinding", b, "") for b in self._cluster_bindings]
        if namespace:
            local = self._bindings_by_namespace.get(namespace, ())
            sources += [("RoleBinding", b, namespace) for b in local]
        for kind, binding, binding_namespace in sources:
            subject = _applying_subject(user, as_list(binding.get("subjects")), binding_namespace)
            if subject is None:
                continue
            ref = as_dict(binding.get("roleRef"))
            rules = self._role_rules(ref, binding_namespace)
            if isinstance(rules, str):
                errors.append(rules)
                continue
            grants.append(_Grant(rules, _describer(kind, binding, ref, subject, binding_namespace)))
        visit = _Visit(tuple(grants), tuple(errors))
        if len(self._visits) >= _CACHE_SIZE:
            self._visits.clear()
        self._visits[cache_key] = visit
        return visit

    # --- the authorizer ---------------------------------------------------------------------
    def authorize(self, attrs: Attributes) -> Answer:
        visit = self._visit(attrs.user, attrs.namespace)
        for grant in visit.grants:
            for rule in grant.rules:
                if rule.allows(attrs):
                    return Answer(Decision.ALLOW, f"RBAC: allowed by {grant.describe()}")
        if visit.errors:
            return Answer(Decision.NO_OPINION, f"RBAC: {aggregate(visit.errors)}")
        return NO_OPINION

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        visit = self._visit(user, namespace)
        rules = Rules(errors=[aggregate(visit.errors)] if visit.errors else [])
        for grant in visit.grants:
            for rule in grant.rules:
                source = rule.source
                if as_list(source.get("resources")):
                    entry: dict[str, Any] = {"verbs": list(as_list(source.get("verbs")))}
                    for field in ("apiGroups", "resources", "resourceNames"):
                        if as_list(source.get(field)):
                            entry[field] = list(as_list(source.get(field)))
                    rules.resource_rules.append(entry)
                if as_list(source.get("nonResourceURLs")):
                    rules.non_resource_rules.append({
                        "verbs": list(as_list(source.get("verbs"))),
                        "nonResourceURLs": list(as_list(source.get("nonResourceURLs"))),
                    })
        return rules

    def close(self) -> None:
        for table in self._tables:
            table.watch.close()


def _describer(
    kind: str, binding: Obj, ref: dict[str, Any], subject: dict[str, Any], namespace: str
) -> Callable[[], str]:
    """Upstream's binding describers, built only for the reason of an allowed request."""

    def describe() -> str:
        name = text(binding["metadata"].get("name"))
        if kind == "RoleBinding":
            name = f"{name}/{namespace}"
        return (
            f'{kind} "{name}" of {text(ref.get("kind"))} "{text(ref.get("name"))}" to '
            f"{_describe_subject(subject, namespace)}"
        )

    return describe

