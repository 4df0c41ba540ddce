"""Simulated kubelets and DRA drivers: nodes, pod lifecycle stages, device health.

One :class:`Kubelet` per node, a real actor against the API through ``fakeapi.client``; its
drivers come from :class:`DriverProfile` data, and cluster-scoped (network-attached) pools are
published by a :class:`ClusterDriver`. docs/kubelet.md describes stages, profiles, health and
fault injection.
"""

import os as _os

# The repository keeps this folder at its top and installs it as fakeapi.kubelet through a
# symlink; the real path puts tracebacks and __file__ where grep finds the code.
__path__[:] = [_os.path.realpath(entry) for entry in __path__]

from fakeapi.kubelet.cluster_driver import ClusterDriver
from fakeapi.kubelet.default_stages import default_stages
from fakeapi.kubelet.dra.driver import (
    DeviceHealthReport,
    DriverBehavior,
    PreparedClaim,
    PrepareError,
    UnprepareError,
)
from fakeapi.kubelet.dra.profiles import DriverProfile, ProfileError
from fakeapi.kubelet.kubelet import Kubelet
from fakeapi.kubelet.stages import Stage, StageError, load_stages, parse_stages

__all__ = [
    "ClusterDriver",
    "DeviceHealthReport",
    "DriverBehavior",
    "DriverProfile",
    "Kubelet",
    "PrepareError",
    "PreparedClaim",
    "ProfileError",
    "Stage",
    "StageError",
    "UnprepareError",
    "default_stages",
    "load_stages",
    "parse_stages",
]
