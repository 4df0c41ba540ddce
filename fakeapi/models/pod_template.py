"""core/v1 PodTemplateSpec: the pod a workload controller stamps out, metadata and spec.

Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and ReplicationControllers all carry
one; the controllers copy its labels, annotations and spec into every pod they create, so a
template carries everything a pod may (DRA claims, the KEP-5729 ``workloadRef`` and
``podGroupResourceClaim``, upstream's ``schedulingGroup``).
"""

from __future__ import annotations

from fakeapi.models.base import K8sModel
from fakeapi.models.meta import ObjectMeta
from fakeapi.models.pod import PodSpec

__all__ = ["PodTemplateSpec"]


class PodTemplateSpec(K8sModel):
    """A pod's metadata and spec, from which pods are made."""

    metadata: ObjectMeta | None = None
    """Labels and annotations given to every pod made from the template."""
    spec: PodSpec | None = None
    """The spec of every pod made from the template."""
