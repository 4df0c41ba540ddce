"""A ready registry: every served kind, admission, and the objects a fresh cluster always has.

As kube-apiserver hands its admission chain to the generic registry it builds, the chain is made
here (upstream's default plugins, reading the registry's own storage) and passed to the store,
which looks nothing up itself.

Custom resources are rows of the same resource table, derived from the stored
CustomResourceDefinitions (:class:`fakeapi.apiextensions.serving.CustomResourceRows`), and the
controllers kube-apiserver runs for definitions are the registry's post-start hooks
(:class:`fakeapi.apiextensions.controllers.ApiExtensionsControllers`), started by whoever serves
the registry. Deriving the rows from storage means a storage that already holds definitions (a
restored one) serves their resources from the start.

kube-apiserver creates ``default``, ``kube-system``, ``kube-public`` and ``kube-node-lease``, the
priority classes ``system-cluster-critical`` and ``system-node-critical`` and the ``kubernetes``
Service in ``default`` at start-up; clients (kubectl's default namespace, node leases, critical
pods) rely on them existing.

With ``authorization`` (kube-apiserver's ``--authorization-mode``, e.g. ``("Node", "RBAC")``) the
registry gets the authorizer chain (:mod:`fakeapi.auth`) that the servers and the reviews ask,
NodeRestriction admission with the Node mode, and with RBAC the bootstrap policy's ClusterRoles
and ClusterRoleBindings (:mod:`fakeapi.auth.policy`). Without, nothing of it is built or loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fakeapi.apiextensions.controllers import ApiExtensionsControllers
from fakeapi.apiextensions.serving import CustomResourceRows
from fakeapi.auth.authorizer import (
    ALWAYS_ALLOW,
    NODE,
    RBAC,
    AlwaysAllow,
    Authorizer,
    AuthorizerChain,
    parse_modes,
)
from fakeapi.clock import Clock
from fakeapi.features import EMULATED_VERSION, KubernetesVersion, default_gates
from fakeapi.registry.admission import default_admission
from fakeapi.registry.kinds.priorityclass import SYSTEM_PRIORITY_CLASSES
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import default_resources
from fakeapi.storage.interface import ResourceStore, Storage
from fakeapi.storage.memory import MemoryStorage

__all__ = ["KUBERNETES_SERVICE", "SYSTEM_NAMESPACES", "new_registry"]

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
#: the Service kube-apiserver keeps in ``default`` for itself: the first IP of the service range,
#: port 443 onto the API server's secure port (6443 on a real control plane; fakeapi routes
#: nothing, so the number is only what clients read)
KUBERNETES_SERVICE = {
    "metadata": {"name": "kubernetes",
                 "labels": {"component": "apiserver", "provider": "kubernetes"}},
    "spec": {"clusterIP": "10.96.0.1", "sessionAffinity": "None", "type": "ClusterIP",
             "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]},
}


def new_registry(
    *,
    feature_gates: Mapping[str, bool] | None = None,
    clock: Clock | None = None,
    storage: Storage | None = None,
    emulated_version: KubernetesVersion = EMULATED_VERSION,
    runtime_config: Mapping[str, bool] | None = None,
    authorization: Sequence[str] = (),
) -> GenericStore:
    """A registry serving every kind through upstream's default admission, with the system
    namespaces, priority classes and the ``kubernetes`` Service created (those a restored
    storage already holds are left as they are). ``emulated_version``
    picks the API versions served and the gate defaults; ``runtime_config`` switches
    group-versions off (or on) as kube-apiserver's ``--runtime-config``; ``authorization``
    names the authorization modes, in order (none: authorization is off)."""
    modes = parse_modes(authorization) if authorization else ()
    resources = default_resources(
        emulated_version=emulated_version, runtime_config=runtime_config
    )
    feature_gates = default_gates(emulated_version) | dict(feature_gates or {})
    storage = storage if storage is not None else MemoryStorage()
    registry = GenericStore(
        resources=resources,
        storage=storage,
        clock=clock,
        feature_gates=feature_gates,
        admission=default_admission(
            resources=resources, storage=storage, node_restriction=NODE in modes
        ),
    )
    resources.add_source(CustomResourceRows(storage))
    registry.post_start_hooks.append(ApiExtensionsControllers(registry))
    namespaces = registry.resources.lookup("", "v1", "namespaces")
    assert namespaces is not None
    options = WriteOptions(field_manager="fakeapi-bootstrap")
    for name in SYSTEM_NAMESPACES:
        if registry.find(namespaces, None, name) is None:
            registry.create(namespaces, None, {"metadata": {"name": name}}, options)
    priority_classes = registry.resources.lookup("scheduling.k8s.io", "v1", "priorityclasses")
    if priority_classes is not None:
        for name, value in SYSTEM_PRIORITY_CLASSES.items():
            if registry.find(priority_classes, None, name) is not None:
                continue
            body = {
                "metadata": {"name": name},
                "value": value,
                "description": "Used for system critical pods that must run in the cluster.",
            }
            registry.create(priority_classes, None, body, options)
    services = registry.resources.lookup("", "v1", "services")
    if services is not None and registry.find(services, "default", "kubernetes") is None:
        registry.create(services, "default", KUBERNETES_SERVICE, options)
    if modes:
        if RBAC in modes:
            _create_bootstrap_policy(registry, options)
        registry.authorizer = AuthorizerChain([(mode, _mode(registry, mode)) for mode in modes])
    return registry


def _store(registry: GenericStore, group: str, version: str, plural: str) -> ResourceStore:
    rt = registry.resources.lookup(group, version, plural)
    if rt is None:
        raise ValueError(f"{plural}.{group}/{version} is not served; authorization needs it")
    return rt.store(registry.storage)


def _mode(registry: GenericStore, mode: str) -> Authorizer:
    """The authorizer of one ``--authorization-mode``, reading the registry's storage."""
    # late for start-up time: a cluster without authorization loads none of it
    from fakeapi.auth.node import NodeAuthorizer
    from fakeapi.auth.policy import node_rules
    from fakeapi.auth.rbac import RBACAuthorizer

    if mode == ALWAYS_ALLOW:
        return AlwaysAllow()
    rbac = "rbac.authorization.k8s.io"
    if mode == RBAC:
        return RBACAuthorizer(
            roles=_store(registry, rbac, "v1", "roles"),
            cluster_roles=_store(registry, rbac, "v1", "clusterroles"),
            role_bindings=_store(registry, rbac, "v1", "rolebindings"),
            cluster_role_bindings=_store(registry, rbac, "v1", "clusterrolebindings"),
        )
    return NodeAuthorizer(
        pods=_store(registry, "", "v1", "pods"),
        resource_slices=_store(registry, "resource.k8s.io", "v1", "resourceslices"),
        node_rules=node_rules(),
    )


def _create_bootstrap_policy(registry: GenericStore, options: WriteOptions) -> None:
    """The bootstrap ClusterRoles and ClusterRoleBindings, as kube-apiserver's RBAC post-start
    hook creates them (those a restored storage already holds are left as they are)."""
    from fakeapi.auth.policy import (  # late for start-up time, as above
        bootstrap_cluster_role_bindings,
        bootstrap_cluster_roles,
    )

    rbac = "rbac.authorization.k8s.io"
    for plural, objects in (
        ("clusterroles", bootstrap_cluster_roles()),
        ("clusterrolebindings", bootstrap_cluster_role_bindings()),
    ):
        rt = registry.resources.lookup(rbac, "v1", plural)
        assert rt is not None
        for obj in objects:
            if registry.find(rt, None, obj["metadata"]["name"]) is None:
                registry.create(rt, None, obj, options)
