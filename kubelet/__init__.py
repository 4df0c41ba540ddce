"""Simulated kubelets and DRA drivers: nodes, pod lifecycle stages, device health.

One :class:`Kubelet` per node, a real actor against the API through ``fakeapi.client``; its
drivers come from :class:`DriverProfile` data, and cluster-scoped (network-attached) pools are
published by a :class:`ClusterDriver`. docs/kubelet.md describes stages, profiles, health and
fault injection.
"""

from fakeapi.kubelet.cluster_driver import ClusterDriver
from fakeapi.kubelet.default_stages import DEFAULT_STAGES_YAML
from fakeapi.kubelet.dra.profiles import DriverProfile, ProfileError
from fakeapi.kubelet.kubelet import Kubelet
from fakeapi.kubelet.stages import Stage, StageError, parse_stages

__all__ = [
    "DEFAULT_STAGES_YAML",
    "ClusterDriver",
    "DriverProfile",
    "Kubelet",
    "ProfileError",
    "Stage",
    "StageError",
    "parse_stages",
]
