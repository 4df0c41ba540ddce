"""autoscaling/v1 Scale: what the ``/scale`` subresource of a scalable kind reads and writes.

Deployments, ReplicaSets, StatefulSets and ReplicationControllers answer ``GET .../scale`` with a
Scale built from their ``spec.replicas``, ``status.replicas`` and selector; ``kubectl scale`` and
autoscalers write ``spec.replicas`` through it (:mod:`fakeapi.registry.scale`).
"""

from __future__ import annotations

from fakeapi.models.base import Int32, K8sModel
from fakeapi.models.meta import ObjectMeta

__all__ = ["Scale", "ScaleSpec", "ScaleStatus"]


class ScaleSpec(K8sModel):
    """The desired size."""

    replicas: Int32 | None = None
    """Desired number of instances for the scaled object."""


class ScaleStatus(K8sModel):
    """The observed size."""

    replicas: Int32 | None = None
    """Actual number of observed instances of the scaled object."""
    selector: str | None = None
    """Label query over the pods counted in replicas, in label selector syntax."""


class Scale(K8sModel):
    """A scaling request for a resource."""

    api_version: str | None = None
    """The versioned schema of this object, autoscaling/v1."""
    kind: str | None = None
    """Scale."""
    metadata: ObjectMeta | None = None
    """Standard object metadata (the scaled object's)."""
    spec: ScaleSpec | None = None
    """Desired state of the scaled object."""
    status: ScaleStatus | None = None
    """Current state of the scaled object; read-only."""
