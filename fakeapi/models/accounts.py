"""core/v1 ServiceAccount and Secret: the identity and credential kinds manifests carry.

No tokens are minted and nothing mounts them: fakeapi authenticates nobody. The objects are
stored and validated as upstream, and the serviceaccounts controller gives every namespace its
``default`` ServiceAccount, which clients wait for before they create pods.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, atomic_list, merge_list
from fakeapi.models.meta import ObjectMeta, ObjectReference
from fakeapi.models.pod_container import LocalObjectReference

__all__ = ["Secret", "ServiceAccount"]


class ServiceAccount(K8sModel):
    """An identity for processes that run in pods."""

    api_version: str | None = None
    """The versioned schema of this object, v1."""
    kind: str | None = None
    """ServiceAccount."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    secrets: Annotated[list[ObjectReference] | None, merge_list("name")] = None
    """Secrets pods running as this account may use (legacy token secrets)."""
    image_pull_secrets: Annotated[list[LocalObjectReference] | None, atomic_list()] = None
    """Secrets used to pull the images of pods running as this account."""
    automount_service_account_token: bool | None = None
    """Whether pods running as this account get an API token mounted."""


class Secret(K8sModel):
    """Secret data: credentials, keys, tokens."""

    api_version: str | None = None
    """The versioned schema of this object, v1."""
    kind: str | None = None
    """Secret."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    immutable: bool | None = None
    """When true, data cannot be changed, only the object deleted."""
    data: dict[str, str] | None = None
    """The secret's data: base64-encoded values by key."""
    string_data: dict[str, str] | None = None
    """Write-only plain values, merged into data on write (they win over data)."""
    type: str | None = None
    """What the secret holds, e.g. Opaque or kubernetes.io/tls. Default Opaque."""
