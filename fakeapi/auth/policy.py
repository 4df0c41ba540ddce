"""The bootstrap policy: the ClusterRoles and ClusterRoleBindings an RBAC cluster starts with.

kube-apiserver creates upstream's default roles at start-up (``cluster-admin``, ``admin``,
``edit``, ``view``, ``system:basic-user``, ``system:discovery``, ``system:public-info-viewer``,
``system:node``, ``system:kube-scheduler``, ``system:kube-controller-manager``, the
``system:controller:*`` roles of the controllers...) and binds them (``cluster-admin`` to
``system:masters``, ``system:basic-user`` and ``system:discovery`` to ``system:authenticated``,
each controller role to its service account). The roles are data: ``data/cluster-roles.yaml``
and ``data/cluster-role-bindings.yaml`` follow upstream's bootstrap policy testdata, and
``data/fakeapi-roles.yaml`` holds what fakeapi adds, as separate roles named ``fakeapi:*`` bound
to the same subjects (so upstream's roles stay as upstream writes them, and every grant fakeapi
adds can be listed with ``kubectl get clusterroles | grep fakeapi:``): roles for fakeapi's own
controllers, and for requests fakeapi's components make where upstream's read an informer.

The aggregated roles (``admin``, ``edit``, ``view``) are written with their rules already
aggregated from the bootstrap roles that carry their labels, as the clusterrole-aggregation
controller would fill them, so a server without controllers (``fakeapi serve``) has them too; the
controller keeps them current when more roles are labelled.

The YAML is parsed once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from fakeapi.auth.rules import Rule, compile_rules
from fakeapi.objects import Obj, deep_copy

__all__ = [
    "AUTOUPDATE_ANNOTATION",
    "BOOTSTRAP_LABEL",
    "bootstrap_cluster_role_bindings",
    "bootstrap_cluster_roles",
    "node_rules",
]

RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
BOOTSTRAP_LABEL = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AUTOUPDATE_ANNOTATION = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
_DATA = ("cluster-roles.yaml", "cluster-role-bindings.yaml", "fakeapi-roles.yaml")


@functools.cache
def _data() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(role entries, binding entries) of every data file, in file order."""
    import yaml  # late for start-up time: only an RBAC cluster reads the policy

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    roles: list[dict[str, Any]] = []
    bindings: list[dict[str, Any]] = []
    for name in _DATA:
        text = files("fakeapi.auth").joinpath("data").joinpath(name).read_text(encoding="utf-8")
        doc = yaml.load(text, Loader=loader)
        roles += doc.get("clusterRoles") or []
        roles += doc.get("controllerRoles") or []
        bindings += doc.get("clusterRoleBindings") or []
    return roles, bindings


def _metadata(name: str, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "labels": {**BOOTSTRAP_LABEL, **(labels or {})},
        "annotations": dict(AUTOUPDATE_ANNOTATION),
    }


@functools.cache
def _cluster_roles() -> tuple[Obj, ...]:
    entries, _ = _data()
    roles = []
    for entry in entries:
        role: Obj = {
            "apiVersion": RBAC_API_VERSION,
            "kind": "ClusterRole",
            "metadata": _metadata(entry["name"], entry.get("labels")),
            "rules": list(entry.get("rules") or []),
        }
        if entry.get("aggregateFrom"):
            role["aggregationRule"] = {"clusterRoleSelectors": [
                {"matchLabels": {entry["aggregateFrom"]: "true"}}
            ]}
        roles.append(role)
    _aggregate(roles)
    return tuple(roles)


def _aggregate(roles: list[Obj]) -> None:
    """Fill each aggregated role's rules from the roles its selector picks, as the
    clusterrole-aggregation controller does (aggregated roles may feed others: ``view`` feeds
    ``edit``, which feeds ``admin``, so repeat until nothing changes)."""
    changed = True
    while changed:
        changed = False
        for role in roles:
            selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or []
            if not selectors:
                continue
            wanted = selectors[0]["matchLabels"]
            rules: list[Any] = []
            for other in sorted(roles, key=lambda r: r["metadata"]["name"]):
                labels = other["metadata"]["labels"]
                if other is not role and all(labels.get(k) == v for k, v in wanted.items()):
                    rules += [r for r in other["rules"] if r not in rules]
            if rules != role["rules"]:
                role["rules"] = rules
                changed = True


def bootstrap_cluster_roles() -> list[Obj]:
    """The bootstrap ClusterRoles (fresh copies, ready to create)."""
    return [deep_copy(role) for role in _cluster_roles()]


def bootstrap_cluster_role_bindings() -> list[Obj]:
    """The bootstrap ClusterRoleBindings (fresh copies, ready to create)."""
    _, entries = _data()
    bindings = []
    for entry in entries:
        subjects = []
        for subject in entry.get("subjects") or []:
            kind, _, rest = subject.partition("/")
            if kind == "ServiceAccount":
                namespace, _, name = rest.partition("/")
                subjects.append({"kind": kind, "name": name, "namespace": namespace})
            else:
                subjects.append(
                    {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": rest}
                )
        binding: Obj = {
            "apiVersion": RBAC_API_VERSION,
            "kind": "ClusterRoleBinding",
            "metadata": _metadata(entry["name"]),
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": entry.get("roleRef") or entry["name"],
            },
        }
        if subjects:
            binding["subjects"] = subjects
        bindings.append(binding)
    return bindings


@functools.cache
def node_rules() -> tuple[Rule, ...]:
    """Upstream's ``NodeRules``: what the node authorizer grants every node beyond the resources
    it decides itself (the rules of the ``system:node`` ClusterRole)."""
    for role in _cluster_roles():
        if role["metadata"]["name"] == "system:node":
            return compile_rules(role["rules"])
    raise LookupError("the bootstrap policy has no system:node ClusterRole")
