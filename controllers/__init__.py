"""In-process controllers: claims from templates and for PodGroups, garbage collection,
namespaces, ResourcePools, device-taint eviction and node lifecycle.

Each controller is a level-based reconciler on the shared reconcile runtime
(:mod:`fakeapi.controllers.runtime`); :class:`ControllerManager` builds, starts and stops them
over one informer factory. They reach the API server only through :mod:`fakeapi.client`. See
docs/controllers.md.
"""

from fakeapi.controllers.manager import CONTROLLER_NAMES, ControllerManager, select_controllers
from fakeapi.controllers.runtime import Controller, Reconciler, Result

__all__ = [
    "CONTROLLER_NAMES",
    "Controller",
    "ControllerManager",
    "Reconciler",
    "Result",
    "select_controllers",
]
