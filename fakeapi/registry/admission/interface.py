"""The admission contract: what a plugin sees of a write, and what it may do to it.

kube-apiserver runs mutating admission on a decoded, defaulted object before the kind's strategy
prepares and validates it; a plugin may change the object or refuse the write (usually 403
Forbidden). This package keeps that shape: a plugin is a small class with :meth:`handles` (does it
care about this write at all?) and :meth:`admit` (change ``attrs.obj`` in place, or raise a
``StatusError``). Plugins run in the order upstream's default plugin list gives them, each sees
what the previous one wrote, and the first refusal ends the write with nothing stored.

Plugins read other objects (PriorityClasses, ...) through an :class:`ObjectReader`, never through
the storage, so they see exactly what a client would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from fakeapi.auth.user import UserInfo
from fakeapi.objects import Obj

__all__ = ["AdmissionPlugin", "Attributes", "ObjectReader", "Operation"]

Operation = Literal["CREATE", "UPDATE", "DELETE"]


@dataclass(frozen=True, slots=True)
class Attributes:
    """One write as admission sees it (upstream ``admission.Attributes``)."""

    group: str
    #: the plural resource name (``pods``)
    resource: str
    kind: str
    operation: Operation
    #: the object to be written; plugins change it in place
    obj: Obj
    #: the stored object (updates only)
    old: Obj | None = None
    subresource: str = ""
    namespace: str | None = None
    dry_run: bool = False
    #: the name errors show: upstream admits before a name is generated, so a pod created with
    #: ``generateName`` is named by that prefix
    name: str = "Unknown"
    #: who writes, when the server authenticates (None: nobody is, or a trusted client)
    user: UserInfo | None = None


class ObjectReader(Protocol):
    """Read access to stored objects of other kinds."""

    def list_objects(self, *, group: str, version: str, resource: str) -> list[Obj]:
        """Every object of a cluster-scoped resource (empty if the resource is not served)."""
        ...


class AdmissionPlugin(Protocol):
    """A mutating admission plugin. It sees creates and updates of a resource itself; one whose
    ``every_write`` is true sees status writes and deletes (``DELETE``, ``obj`` the stored
    object) too, as upstream runs every plugin on them. One that names its ``resources`` (a
    frozenset of ``(group, plural)``) is not asked about writes of any other resource."""

    #: upstream's plugin name (``Priority``, ``DefaultTolerationSeconds``)
    name: str

    def handles(self, attrs: Attributes) -> bool:
        """Whether this plugin looks at the write at all."""
        ...

    def admit(self, attrs: Attributes) -> None:
        """Change ``attrs.obj`` in place, or raise a ``StatusError`` to refuse the write."""
        ...
