"""What makes a kind different from another: the strategy the generic store calls.

The store (``fakeapi.registry.store``) does everything that is the same for every kind: metadata,
resourceVersion, finalizers, graceful deletion, the main/status split and watch events. A kind adds
a :class:`Strategy` subclass that overrides only the hooks it needs. Hooks receive JSON-shaped
dicts that the store owns for the duration of the call: ``prepare_*`` hooks may change the new
object in place, ``validate*`` and ``warnings*`` hooks must not change anything.

Hooks run in this order:

- create: ``apply_defaults`` → (managedFields, admission) → ``prepare_for_create`` →
  ``validate`` → ``warnings_on_create``
- update of the main resource (``MainResourceUpdate`` in ``fakeapi.registry.updates``, which keeps
  the old status): ``apply_defaults`` → (admission) → ``prepare_for_update`` →
  ``validate_update`` → ``warnings_on_update``
- update of the status subresource (``StatusUpdate``, which keeps everything but status):
  ``prepare_for_status_update`` → ``validate_status_update``
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from fakeapi.auth.user import UserInfo
from fakeapi.objects import Obj
from fakeapi.registry.options import ReadOptions
from fakeapi.validation.field import FieldError

if TYPE_CHECKING:
    from fakeapi.auth.authorizer import AuthorizerChain
    from fakeapi.registry.scale import ScaleSubresource

__all__ = [
    "Strategy", "Column", "WriteContext", "Obj", "SubresourceRead", "SubresourceFollow",
    "NAME_COLUMN", "AGE_COLUMN",
    "age_cell",
]

#: how a custom subresource read with GET answers: ``read(obj, options) -> (content type, body)``
SubresourceRead = Callable[[Obj, ReadOptions], tuple[str, bytes]]
#: whether a read with ``follow`` stays open for this version of the object
SubresourceFollow = Callable[[Obj, ReadOptions], bool]


@dataclass(slots=True)
class WriteContext:
    """What a hook may know about the request it runs for (read only: hooks never assign to it).

    Not a frozen dataclass: every write builds one, and a frozen dataclass sets each field
    through ``object.__setattr__``, which made the context three times as costly to build.
    """

    now: datetime
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    subresource: str = ""
    dry_run: bool = False
    #: the request's ``fieldManager`` (``kubectl-create``, ``resourcepool-controller``, ...)
    field_manager: str = ""
    #: the labels of a namespace (None when it does not exist), for rules that depend on them
    namespace_labels: Callable[[str], Mapping[str, str] | None] | None = None
    #: the server's authorizers (None: authorization is off) and who makes the request (None:
    #: no authentication, or a trusted in-process client) with its verb, for the rules that
    #: authorize parts of a write (a claim's status fields) and for the access reviews
    authorizer: AuthorizerChain | None = None
    user: UserInfo | None = None
    verb: str = ""

    def gate(self, name: str) -> bool:
        """Whether feature gate ``name`` is on (a gate not in the map has its default)."""
        from fakeapi.features import enabled

        return enabled(self.feature_gates, name)


@dataclass(frozen=True, slots=True)
class Column:
    """A server-side printing column (``meta/v1 TableColumnDefinition``) and how to fill it."""

    name: str
    cell: Callable[[Obj, datetime], Any]
    type: str = "string"
    format: str = ""
    description: str = ""
    priority: int = 0

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


def age_cell(obj: Obj, now: datetime) -> str:
    """The Age cell: ``HumanDuration`` of now − creationTimestamp."""
    from fakeapi.timefmt import human_duration, parse_time

    created = obj.get("metadata", {}).get("creationTimestamp")
    if not created:
        return "<unknown>"
    return human_duration(now - parse_time(created))


NAME_COLUMN = Column(
    "Name",
    lambda obj, _now: obj.get("metadata", {}).get("name", ""),
    format="name",
    description="Name must be unique within a namespace. Is required when creating resources, "
    "although some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated.",
)
AGE_COLUMN = Column(
    "Age",
    age_cell,
    description="CreationTimestamp is a timestamp representing the server time when this object "
    "was created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.",
)


class Strategy:
    """Default behaviour of a kind; subclasses override the hooks that differ."""

    #: The kind has a ``status`` subresource: main writes keep the old status and status writes
    #: keep everything else.
    status_subresource: ClassVar[bool] = False
    #: Metadata a status write may change besides status (upstream's ResetObjectMetaForStatus
    #: takes every other part of metadata back; pods keep these from the request).
    status_writes_metadata: ClassVar[tuple[str, ...]] = ()
    #: ``metadata.generation`` is set to 1 on create and bumped when the spec changes.
    tracks_generation: ClassVar[bool] = False
    #: Top-level fields that are not "spec" for the generation bump (besides metadata/status).
    non_spec_fields: ClassVar[frozenset[str]] = frozenset(
        {"apiVersion", "kind", "metadata", "status"}
    )
    #: Field selector labels this kind supports beyond ``metadata.name``/``metadata.namespace``.
    field_labels: ClassVar[tuple[str, ...]] = ()
    #: Field labels convert as a custom resource's do (upstream's crConverter): ``metadata.name``,
    #: ``metadata.namespace`` when namespaced and ``field_labels``; anything else is refused as
    #: ``field label not supported: <label>``, whether or not the kind has labels of its own.
    custom_field_labels: ClassVar[bool] = False
    #: Server-side printing columns.
    columns: ClassVar[tuple[Column, ...]] = (NAME_COLUMN, AGE_COLUMN)
    #: PUT of a missing object creates it.
    allow_create_on_update: ClassVar[bool] = False
    #: Unconditional updates (no resourceVersion in the body) are allowed.
    allow_unconditional_update: ClassVar[bool] = True
    #: How names are validated: ``subdomain`` (RFC 1123 subdomain), ``label`` (RFC 1123 label) or
    #: ``path-segment`` (any name usable as one URL path segment: RBAC roles and bindings).
    name_rule: ClassVar[str] = "subdomain"
    #: Where the ``scale`` subresource finds desired and observed replicas and the selector
    #: (:mod:`fakeapi.registry.scale`); None: the kind does not scale.
    scale: ClassVar[ScaleSubresource | None] = None
    #: A question, not an object (access reviews): a create validates the body and answers it
    #: (:meth:`answer`); nothing is stored, and no other verb is served.
    create_only: ClassVar[bool] = False

    # --- defaults -----------------------------------------------------------------------------
    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        """Upstream's defaulting of a create or update body, which runs as the body is decoded:
        before managedFields bookkeeping, so the writer owns the defaulted fields, and before
        admission. What ``prepare_*`` hooks and admission set is owned by no one (as upstream)."""

    # --- create -------------------------------------------------------------------------------
    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        """Before validation of a new object: clear status, apply defaults. May change ``obj``."""
        if self.status_subresource:
            obj.pop("status", None)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        """Errors of a new object (metadata is validated by the store)."""
        return []

    def warnings_on_create(self, obj: Obj, ctx: WriteContext) -> list[str]:
        """Warning headers for a new object."""
        return []

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        """What a create of a ``create_only`` kind answers, for a valid ``obj`` (the caller's)."""
        raise NotImplementedError

    # --- update of the main resource ----------------------------------------------------------
    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        """Before validation of an update; the store has already restored the old status."""

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        """Errors of an update: the new object's own errors plus immutability rules."""
        return self.validate(new, ctx)

    def warnings_on_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return []

    # --- update of the status subresource -----------------------------------------------------
    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        """Before validation of a status write; the store has restored everything but status."""

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return []

    # --- deletion ------------------------------------------------------------------------------
    def check_delete(self, obj: Obj) -> None:
        """Refuse to delete ``obj`` by raising (upstream's admission or REST storage checks on
        DELETE: the immortal namespaces, the system priority classes)."""

    def grace_period_seconds(self, obj: Obj, requested: int | None) -> int:
        """Seconds the object lingers with a deletionTimestamp before removal (0: none)."""
        return 0

    def prepare_for_delete(self, obj: Obj, ctx: WriteContext) -> None:
        """When deletion starts but the object lingers (finalizers, grace): may change ``obj``."""

    def deletion_blocked(self, obj: Obj) -> bool:
        """The object must stay despite an empty finalizer list (e.g. namespace spec finalizers)."""
        return False

    def apply_subresource(self, name: str, current: Obj, body: Obj, ctx: WriteContext) -> Obj:
        """A POST to a custom subresource (``pods/binding``): the new object. Raise to refuse."""
        raise NotImplementedError(name)

    #: custom subresources whose POST acts through the store instead of producing a new object
    #: (``pods/eviction`` deletes): name -> ``action(registry, rt, namespace, name, body,
    #: options) -> WriteResult``
    subresource_actions: ClassVar[Mapping[str, Callable[..., Any]]] = {}
    #: custom subresources read with GET, answered from the object (``pods/log``): name ->
    #: ``read(obj, options) -> (content type, body)``; raise to refuse
    subresource_reads: ClassVar[Mapping[str, SubresourceRead]] = {}
    #: of those, the ones a read with ``follow`` keeps open while the object says the
    #: subresource may still grow (``pods/log``: while the container runs): name ->
    #: ``still_open(obj, options) -> bool``
    subresource_follows: ClassVar[Mapping[str, SubresourceFollow]] = {}

    # --- reads ---------------------------------------------------------------------------------
    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        """Values of ``field_labels`` for ``obj`` (the store adds metadata.name/namespace)."""
        return {}
