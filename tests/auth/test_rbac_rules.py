"""RBAC's rule matching and its authorizer, with the cases of upstream's rbac_test.go
(``TestRuleMatches``, ``TestAuthorizer``) and the 403 message kube-apiserver writes."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.auth.attributes import Attributes, forbidden
from fakeapi.auth.rules import Rule
from fakeapi.auth.user import UserInfo
from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    NAMESPACES,
    ROLE_BINDINGS,
    ROLES,
    Client,
)
from fakeapi.clock import FakeClock
from fakeapi.server.inprocess import InProcessTransport

NOBODY = UserInfo("nobody")


def resource(verb: str, group: str, res: str, sub: str = "", name: str = "") -> Attributes:
    return Attributes(user=NOBODY, verb=verb, api_group=group, resource=res, subresource=sub,
                      name=name)


def path(verb: str, url: str) -> Attributes:
    return Attributes(user=NOBODY, verb=verb, resource_request=False, path=url)


def rule(verbs: list[str], **fields: list[str]) -> Rule:
    return Rule.of({"verbs": verbs, **fields})


RULE_CASES: list[tuple[str, Rule, Attributes, bool]] = [
    # star verb, exact match other
    ("star verb", rule(["*"], apiGroups=["group1"], resources=["resource1"]),
     resource("verb1", "group1", "resource1"), True),
    ("star verb, other group", rule(["*"], apiGroups=["group1"], resources=["resource1"]),
     resource("verb2", "group2", "resource1"), False),
    ("star verb, other resource", rule(["*"], apiGroups=["group1"], resources=["resource1"]),
     resource("verb1", "group1", "resource2"), False),
    # star group, exact match other
    ("star group", rule(["verb1"], apiGroups=["*"], resources=["resource1"]),
     resource("verb1", "group2", "resource1"), True),
    ("star group, other verb", rule(["verb1"], apiGroups=["*"], resources=["resource1"]),
     resource("verb2", "group1", "resource1"), False),
    # star resource, exact match other
    ("star resource", rule(["verb1"], apiGroups=["group1"], resources=["*"]),
     resource("verb1", "group1", "resource2"), True),
    ("star resource, other group", rule(["verb1"], apiGroups=["group1"], resources=["*"]),
     resource("verb1", "group2", "resource1"), False),
    # tuple expansion
    ("tuple expansion", rule(["verb1", "verb2"], apiGroups=["group1", "group2"],
                             resources=["resource1", "resource2"]),
     resource("verb2", "group2", "resource2"), True),
    # subresource expansion
    ("subresource", rule(["*"], apiGroups=["*"], resources=["resource1/subresource1"]),
     resource("verb1", "group1", "resource1", "subresource1"), True),
    ("other subresource", rule(["*"], apiGroups=["*"], resources=["resource1/subresource1"]),
     resource("verb1", "group2", "resource1", "subresource2"), False),
    ("subresource of another resource",
     rule(["*"], apiGroups=["*"], resources=["resource1/subresource1"]),
     resource("verb1", "group1", "resource2", "subresource1"), False),
    ("a resource rule does not allow its subresources",
     rule(["*"], apiGroups=["*"], resources=["pods"]), resource("get", "", "pods", "status"),
     False),
    ("a subresource rule does not allow the resource",
     rule(["*"], apiGroups=["*"], resources=["pods/status"]), resource("get", "", "pods"), False),
    ("*/subresource matches it for every resource",
     rule(["get"], apiGroups=["*"], resources=["*/scale"]),
     resource("get", "apps", "deployments", "scale"), True),
    # resource names
    ("named", rule(["get"], apiGroups=[""], resources=["configmaps"], resourceNames=["a"]),
     resource("get", "", "configmaps", name="a"), True),
    ("other name", rule(["get"], apiGroups=[""], resources=["configmaps"], resourceNames=["a"]),
     resource("get", "", "configmaps", name="b"), False),
    ("a list names nothing",
     rule(["list"], apiGroups=[""], resources=["configmaps"], resourceNames=["a"]),
     resource("list", "", "configmaps"), False),
    # verbs are case-sensitive (upstream's TestAuthorizer refuses "GET")
    ("verbs are case-sensitive", rule(["get"], apiGroups=["*"], resources=["*"]),
     resource("GET", "", "pods"), False),
    # star nonresource, exact match other
    ("star URL", rule(["verb1"], nonResourceURLs=["*"]), path("verb1", "/foo/bar/one"), True),
    ("star URL, other verb", rule(["verb1"], nonResourceURLs=["*"]), path("verb2", "/foo"),
     False),
    # star nonresource subpath
    ("URL prefix is not the path itself", rule(["verb1"], nonResourceURLs=["/foo/*"]),
     path("verb1", "/foo"), False),
    ("URL prefix", rule(["verb1"], nonResourceURLs=["/foo/*"]), path("verb1", "/foo/baz/one"),
     True),
    ("URL prefix, other path", rule(["verb1"], nonResourceURLs=["/foo/*"]),
     path("verb1", "/notfoo/bar"), False),
    # star verb, exact nonresource
    ("exact URL", rule(["*"], nonResourceURLs=["/foo", "/foo/bar/one"]),
     path("verb2", "/foo/bar/one"), True),
    ("exact URL, longer path", rule(["*"], nonResourceURLs=["/foo", "/foo/bar/one"]),
     path("verb1", "/foo/bar"), False),
    ("a resource rule allows no path", rule(["*"], apiGroups=["*"], resources=["*"]),
     path("get", "/healthz"), False),
]


@pytest.mark.parametrize(("rule_", "attrs", "allowed"),
                         [case[1:] for case in RULE_CASES], ids=[case[0] for case in RULE_CASES])
def test_rule_allows_as_upstream(rule_: Rule, attrs: Attributes, allowed: bool) -> None:
    assert rule_.allows(attrs) is allowed


async def _authorizer_with(*objects: tuple[Any, dict[str, Any]]) -> Any:
    registry = new_registry(clock=FakeClock(), authorization=("RBAC",))
    admin = Client(InProcessTransport(registry), field_manager="test")
    created: set[str] = set()
    for res, body in objects:
        namespace = body["metadata"].get("namespace")
        if namespace and namespace not in created:
            created.add(namespace)
            await admin.create(NAMESPACES, body={"metadata": {"name": namespace}})
        await admin.create(res, body=body)
    return registry.authorizer


def _subjects(*subjects: str) -> list[dict[str, str]]:
    kinds = {"User": "rbac.authorization.k8s.io", "Group": "rbac.authorization.k8s.io"}
    out = []
    for subject in subjects:
        kind, name = subject.split(":", 1)
        entry = {"kind": kind, "name": name}
        if kind in kinds:
            entry["apiGroup"] = kinds[kind]
        out.append(entry)
    return out


def _user(name: str, groups: str = "") -> UserInfo:
    return UserInfo(name, groups=tuple(g for g in groups.split(",") if g))


def _ns(user: UserInfo, verb: str, res: str, namespace: str, sub: str = "") -> Attributes:
    return Attributes(user=user, verb=verb, resource=res, subresource=sub, namespace=namespace)


async def test_a_rolebinding_to_a_clusterrole_grants_only_in_its_namespace() -> None:
    """TestAuthorizer's first case: admin bound in ns1 by user and by group."""
    authz = await _authorizer_with(
        (CLUSTER_ROLES, {"metadata": {"name": "ns-admin"},
                         "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]}),
        (ROLE_BINDINGS, {"metadata": {"name": "b", "namespace": "ns1"},
                         "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                     "kind": "ClusterRole", "name": "ns-admin"},
                         "subjects": _subjects("User:admin", "Group:admins")}),
    )
    for user, verb, res in [("admin", "get", "Pods"), ("admin", "watch", "Pods"),
                            ("admin:group1", "watch", "Foobar"), ("joe:admins", "watch", "Foobar"),
                            ("joe:group1,admins", "watch", "Foobar")]:
        name, _, groups = user.partition(":")
        assert authz.allows(_ns(_user(name, groups), verb, res, "ns1")), (user, verb, res)
    for user, verb, res, namespace in [("admin", "GET", "Pods", "ns2"),
                                       ("admin", "GET", "Nodes", ""),
                                       ("admin:admins", "GET", "Pods", "ns2"),
                                       ("admin:admins", "GET", "Nodes", "")]:
        name, _, groups = user.partition(":")
        assert not authz.allows(_ns(_user(name, groups), verb, res, namespace)), (user, res)


async def test_non_resource_urls_by_user_and_group() -> None:
    """TestAuthorizer's non-resource URL case."""
    roles = [("non-resource-url-getter", ["get"], ["/apis"], "User:foo", "Group:bar"),
             ("non-resource-url", ["*"], ["/apis"], "User:admin", "Group:admin"),
             ("non-resource-url-prefix", ["get"], ["/apis/*"], "User:prefixed", "Group:prefixed")]
    objects: list[tuple[Any, dict[str, Any]]] = []
    for name, verbs, urls, *subjects in roles:
        objects.append((CLUSTER_ROLES, {"metadata": {"name": name},
                                        "rules": [{"verbs": verbs, "nonResourceURLs": urls}]}))
        objects.append((CLUSTER_ROLE_BINDINGS, {
            "metadata": {"name": name}, "subjects": _subjects(*subjects),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": name}}))
    authz = await _authorizer_with(*objects)

    def ask(user: UserInfo, verb: str, url: str) -> bool:
        return bool(authz.allows(Attributes(user=user, verb=verb, resource_request=False,
                                            path=url)))

    foo, bar, admin = _user("foo"), _user("", "bar"), _user("admin")
    admins, prefixed, prefixers = _user("", "admin"), _user("prefixed"), _user("", "prefixed")
    for user in (foo, bar, admin, admins):
        assert ask(user, "get", "/apis")
    assert ask(admin, "watch", "/apis") and ask(admins, "watch", "/apis")
    for user in (prefixed, prefixers):
        assert ask(user, "get", "/apis/v1") and ask(user, "get", "/apis/v1/foobar")
    assert not ask(foo, "watch", "/apis") and not ask(bar, "watch", "/apis")
    for user in (foo, bar, admin, admins, prefixed, prefixers):
        assert not ask(user, "get", "/api/v1")


async def test_a_role_grants_in_its_namespace_and_a_missing_role_is_the_reason() -> None:
    authz = await _authorizer_with(
        (ROLES, {"metadata": {"name": "reader", "namespace": "team"},
                 "rules": [{"verbs": ["get", "list"], "apiGroups": [""],
                            "resources": ["pods"]}]}),
        (ROLE_BINDINGS, {"metadata": {"name": "jane-reads", "namespace": "team"},
                         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                     "name": "reader"},
                         "subjects": _subjects("User:jane")}),
        (ROLE_BINDINGS, {"metadata": {"name": "dangling", "namespace": "team"},
                         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                     "name": "gone"},
                         "subjects": _subjects("User:jane")}),
    )
    jane = _user("jane", "system:authenticated")
    allowed = authz.authorize(_ns(jane, "list", "pods", "team"))
    assert allowed.allowed
    assert allowed.reason == ('RBAC: allowed by RoleBinding "jane-reads/team" of Role "reader" '
                              'to User "jane"')
    refused = authz.authorize(_ns(jane, "delete", "pods", "team"))
    assert not refused.allowed
    assert refused.reason == 'RBAC: role.rbac.authorization.k8s.io "gone" not found'
    assert not authz.allows(_ns(jane, "list", "pods", "default"))


FORBIDDEN_CASES = [
    (Attributes(user=UserInfo("jane"), verb="list", resource="pods", namespace="kube-system"),
     'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the '
     'namespace "kube-system"'),
    (Attributes(user=UserInfo("jane"), verb="get", api_group="resource.k8s.io",
                resource="resourceclaims", name="gpu", namespace="team"),
     'resourceclaims.resource.k8s.io "gpu" is forbidden: User "jane" cannot get resource '
     '"resourceclaims" in API group "resource.k8s.io" in the namespace "team"'),
    (Attributes(user=UserInfo("jane"), verb="update", api_group="resource.k8s.io",
                resource="resourceclaims", subresource="status", name="gpu", namespace="team"),
     'resourceclaims.resource.k8s.io "gpu" is forbidden: User "jane" cannot update resource '
     '"resourceclaims/status" in API group "resource.k8s.io" in the namespace "team"'),
    (Attributes(user=UserInfo("jane"), verb="list", resource="nodes"),
     'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the '
     "cluster scope"),
    (Attributes(user=UserInfo("system:anonymous"), verb="get", resource_request=False,
                path="/api"),
     'forbidden: User "system:anonymous" cannot get path "/api"'),
]


@pytest.mark.parametrize(("attrs", "message"), FORBIDDEN_CASES)
def test_forbidden_message_is_upstreams(attrs: Attributes, message: str) -> None:
    error = forbidden(attrs)
    assert error.code == 403 and error.reason == "Forbidden"
    assert error.message == message
