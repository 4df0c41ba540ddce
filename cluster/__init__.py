"""A whole fakeapi cluster in your process: the assembler, its handles and its ready-made data.

This is one of fakeapi's public package roots (with :mod:`fakeapi.client`); what is listed in
``__all__`` keeps its name across releases, everything in the submodules may move.

- :class:`Cluster` — the assembler, the only place where the API server and the components
  (controllers, scheduler, simulated kubelets) are built and connected; ``fakeapi sandbox`` and
  the pytest plugin start one. ``async with Cluster(nodes=2) as cluster: ...``
- :class:`SyncCluster` — the same cluster driven from synchronous code (a private loop thread);
  :class:`RemoteCluster` — the same handle over any cluster's kubeconfig.
- :func:`eventually` — wait in a test until a condition holds, letting the loop run (and moving a
  fake clock, if asked); a bounded guard that says what it waited for, never a sleep.
- :data:`EXAMPLES` — the example manifests; :func:`load_profile` and :data:`PROFILE_NAMES` — the
  shipped driver profiles.
- :mod:`fakeapi.cluster.pytest_plugin` — the pytest plugin (entry point ``pytest11``), which
  gives every test a cluster of its own.
- Your own components inside a cluster (``Cluster(extra_components=[factory])``):
  :class:`ComponentContext` — what a component's ``factory(ctx)`` is given; :class:`Component`
  — what it returns; :data:`ComponentFactory`; :class:`ComponentError` — a failure recorded for
  the report; :func:`kopf_operator` — a kopf operator as such a component.

The pytest plugin loads in every pytest run of an environment where fakeapi is installed, so this
``__init__`` imports nothing of fakeapi's: the names below load on first use.
"""

from __future__ import annotations

import os as _os

# The repository keeps this folder at its top and installs it as fakeapi.cluster through a
# symlink; the real path puts tracebacks and __file__ where grep finds the code.
__path__[:] = [_os.path.realpath(entry) for entry in __path__]

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi.cluster.assembler import Cluster
    from fakeapi.cluster.components import Component, ComponentContext
    from fakeapi.cluster.extensions import ComponentFactory
    from fakeapi.cluster.handle import ClusterHandle
    from fakeapi.cluster.manifests import ManifestError
    from fakeapi.cluster.operators import KopfOperator, kopf_operator
    from fakeapi.cluster.profiles import PROFILE_NAMES, load_profile
    from fakeapi.cluster.remote import RemoteCluster
    from fakeapi.cluster.supervision import ComponentError
    from fakeapi.cluster.sync import SyncCluster
    from fakeapi.cluster.unserved import UnservedKindsError, UnservedKindWarning
    from fakeapi.cluster.waiting import eventually

__all__ = [
    "EXAMPLES",
    "PROFILE_NAMES",
    "Cluster",
    "ClusterHandle",
    "Component",
    "ComponentContext",
    "ComponentError",
    "ComponentFactory",
    "KopfOperator",
    "ManifestError",
    "RemoteCluster",
    "SyncCluster",
    "UnservedKindWarning",
    "UnservedKindsError",
    "eventually",
    "kopf_operator",
    "load_profile",
]

#: the example manifests (``cluster.apply_yaml(EXAMPLES / "template-claim-pod.yaml")``)
EXAMPLES = Path(__file__).parent / "data" / "examples"

# loaded on first use, for start-up time: the pytest plugin imports this package in every run
_LAZY = {
    "Cluster": "fakeapi.cluster.assembler",
    "ClusterHandle": "fakeapi.cluster.handle",
    "Component": "fakeapi.cluster.components",
    "ComponentContext": "fakeapi.cluster.components",
    "ComponentError": "fakeapi.cluster.supervision",
    "ComponentFactory": "fakeapi.cluster.extensions",
    "KopfOperator": "fakeapi.cluster.operators",
    "kopf_operator": "fakeapi.cluster.operators",
    "ManifestError": "fakeapi.cluster.manifests",
    "PROFILE_NAMES": "fakeapi.cluster.profiles",
    "RemoteCluster": "fakeapi.cluster.remote",
    "SyncCluster": "fakeapi.cluster.sync",
    "UnservedKindWarning": "fakeapi.cluster.unserved",
    "UnservedKindsError": "fakeapi.cluster.unserved",
    "eventually": "fakeapi.cluster.waiting",
    "load_profile": "fakeapi.cluster.profiles",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
