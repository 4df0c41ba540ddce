"""In-process controllers: claims from templates and for PodGroups, garbage collection,
namespaces, ResourcePools, device-taint eviction and node lifecycle.

Each controller is a level-based reconciler on the shared reconcile runtime
(:mod:`fakeapi.controllers.runtime`); :class:`ControllerManager` builds, starts and stops them
over one informer factory. They reach the API server only through :mod:`fakeapi.client`. See
docs/controllers.md.
"""

import os as _os

# The repository keeps this folder at its top and installs it as fakeapi.controllers through a
# symlink; the real path puts tracebacks and __file__ where grep finds the code.
__path__[:] = [_os.path.realpath(entry) for entry in __path__]

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
