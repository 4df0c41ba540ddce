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
"""

from __future__ import annotations

from collections.abc import Mapping

from fakeapi.apiextensions.controllers import ApiExtensionsControllers
from fakeapi.apiextensions.serving import CustomResourceRows
from fakeapi.clock import Clock
from fakeapi.features import EMULATED_VERSION, KubernetesVersion, default_gates
from fakeapi.registry.admission import default_admission
from fakeapi.registry.kinds.priorityclass import SYSTEM_PRIORITY_CLASSES
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import default_resources
from fakeapi.storage.interface import Storage
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
) -> GenericStore:
    """A registry serving every kind through upstream's default admission, with the system
    namespaces, priority classes and the ``kubernetes`` Service created (those a restored
    storage already holds are left as they are). ``emulated_version``
    picks the API versions served and the gate defaults; ``runtime_config`` switches
    group-versions off (or on) as kube-apiserver's ``--runtime-config``."""
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
        admission=default_admission(resources=resources, storage=storage),
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
    return registry
