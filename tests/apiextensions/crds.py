"""CustomResourceDefinitions the apiextensions tests share, and a registry that serves them.

:func:`establish` creates a definition and runs the API server's definition controllers to a
fixed point by calling their reconcile step directly, so the tests need no event loop, timing or
sleeps to see a definition served.
"""

from __future__ import annotations

import copy
from typing import Any

from fakeapi.apiextensions.controllers import ApiExtensionsControllers
from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.store import GenericStore

__all__ = [
    "CRONTAB_SCHEMA",
    "crd",
    "crds_of",
    "establish",
    "new_crd_registry",
    "reconcile_all",
    "row",
]

CRONTAB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "cronSpec": {
                    "type": "string", "pattern": r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$",
                },
                "image": {"type": "string"},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
            },
        },
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
    },
}


def crd(
    *,
    group: str = "stable.example.com",
    plural: str = "crontabs",
    kind: str = "CronTab",
    scope: str = "Namespaced",
    schema: dict[str, Any] | None = None,
    versions: list[dict[str, Any]] | None = None,
    **names: Any,
) -> dict[str, Any]:
    """A definition with one served storage version ``v1`` (or ``versions``)."""
    if versions is None:
        versions = [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": copy.deepcopy(schema or CRONTAB_SCHEMA)},
        }]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "kind": kind, **names},
            "versions": versions,
        },
    }


def new_crd_registry() -> GenericStore:
    registry = new_registry(clock=FakeClock())
    registry.create(_namespaces(registry), None, {"metadata": {"name": "ns"}}, WriteOptions())
    return registry


def _namespaces(registry: GenericStore) -> ResourceType:
    rt = registry.resources.lookup("", "v1", "namespaces")
    assert rt is not None
    return rt


def crds_of(registry: GenericStore) -> ResourceType:
    rt = registry.resources.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    assert rt is not None
    return rt


def reconcile_all(registry: GenericStore, *names: str) -> None:
    """Run the definition controllers over ``names`` (and whatever they requeue) until done."""
    controllers = ApiExtensionsControllers(registry)
    pending = set(names)
    for _ in range(100):
        if not pending:
            return
        name = min(pending)
        pending.discard(name)
        pending |= controllers.reconcile(name)
    raise AssertionError(f"the controllers did not settle: {pending}")


def establish(registry: GenericStore, definition: dict[str, Any]) -> dict[str, Any]:
    """Create ``definition`` and settle the controllers; the stored definition."""
    created = registry.create(crds_of(registry), None, definition, WriteOptions(
        field_manager="test"
    )).obj
    name = created["metadata"]["name"]
    reconcile_all(registry, name)
    return registry.get(crds_of(registry), None, name).obj


def row(registry: GenericStore, group: str, version: str, plural: str) -> ResourceType:
    rt = registry.resources.lookup(group, version, plural)
    assert rt is not None, f"{group}/{version} {plural} is not served"
    return rt
