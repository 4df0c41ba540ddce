"""A ready registry: every served kind, and the namespaces a fresh cluster always has.

kube-apiserver creates ``default``, ``kube-system``, ``kube-public`` and ``kube-node-lease`` at
start-up; clients (kubectl's default namespace, node leases) rely on them existing.
"""

from __future__ import annotations

from collections.abc import Mapping

from fakeapi.clock import Clock
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import Registry
from fakeapi.resources import default_resources
from fakeapi.storage.memory import Storage

__all__ = ["SYSTEM_NAMESPACES", "new_registry"]

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def new_registry(
    *,
    feature_gates: Mapping[str, bool] | None = None,
    clock: Clock | None = None,
    storage: Storage | None = None,
) -> Registry:
    """A registry serving every kind, with the system namespaces created."""
    registry = Registry(
        resources=default_resources(), storage=storage, clock=clock, feature_gates=feature_gates
    )
    namespaces = registry.resources.lookup("", "v1", "namespaces")
    assert namespaces is not None
    for name in SYSTEM_NAMESPACES:
        registry.create(
            namespaces,
            None,
            {"metadata": {"name": name}},
            WriteOptions(field_manager="fakeapi-bootstrap"),
        )
    return registry
