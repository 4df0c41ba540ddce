"""What the registry may ask of storage: the stated interface every storage implementation offers.

The registry depends on these protocols only, never on the in-memory classes behind them, so a
storage can be replaced (or wrapped, as :mod:`fakeapi.storage.view` wraps one resource to serve it
in another shape) without the registry noticing. Two levels:

- :class:`Storage`: one cluster's storage. It hands out the :class:`ResourceStore` of each resource
  and owns the global resourceVersion, strictly increasing across all resources.
- :class:`ResourceStore`: the objects of one resource in key order (``namespace/name`` or ``name``,
  see :func:`fakeapi.objects.object_key`), their event history and their watchers. Reads return
  shared :class:`~fakeapi.storage.events.Stored` versions that nobody may mutate; writes take
  ownership of the dict they are given and stamp its resourceVersion.

Errors are storage-level (no HTTP codes): the registry turns them into ``kind: Status`` replies.
:meth:`ResourceStore.check_version` (and the writes that call it) is the only place in fakeapi
that compares resourceVersions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from fakeapi.storage.events import Event, Stored
from fakeapi.storage.watch import Predicate, Watcher, WatchIndex

__all__ = [
    "ConflictError",
    "Converter",
    "KeyExistsError",
    "KeyNotFoundError",
    "ResourceStore",
    "Storage",
    "StorageError",
    "TooOldError",
    "key_range",
]


class StorageError(Exception):
    pass


class KeyExistsError(StorageError):
    pass


class KeyNotFoundError(StorageError):
    pass


class ConflictError(StorageError):
    pass


class TooOldError(StorageError):
    """The requested resourceVersion is older than the retained history."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


def key_range(namespace: str | None) -> tuple[str, str | None]:
    """(prefix, upper bound) of the keys of ``namespace``; all keys when None."""
    if not namespace:
        return "", None
    # '/' sorts right before '0', so [ns + '/', ns + '0') holds exactly the keys of ns
    return namespace + "/", namespace + "0"


class Converter(Protocol):
    """Maps objects between the stored shape and a served shape (each returns a new dict)."""

    def to_storage(self, obj: dict[str, Any]) -> dict[str, Any]: ...

    def from_storage(self, obj: dict[str, Any]) -> dict[str, Any]: ...


class ResourceStore(Protocol):
    """The objects, history and watchers of one resource.

    Ranges are given as ``prefix`` (inclusive lower bound), ``upper`` (exclusive, None for no
    bound) and ``after`` (exclusive lower bound from a continue token, None for none), as
    :func:`key_range` builds them. The ``*_at`` reads see the state as of resourceVersion ``rv``
    and raise :class:`TooOldError` once the history no longer reaches back that far.
    """

    # --- reads ---------------------------------------------------------------------------------
    def get(self, key: str) -> Stored | None: ...

    def scan(self, prefix: str, upper: str | None, after: str | None) -> Iterator[Stored]: ...

    def scan_at(
        self, rv: int, prefix: str, upper: str | None, after: str | None
    ) -> Iterator[Stored]: ...

    def count_after(self, prefix: str, upper: str | None, after: str) -> int: ...

    def count_at(self, rv: int, prefix: str, upper: str | None, after: str) -> int: ...

    def events_since(self, rv: int) -> list[Event]:
        """Retained events after ``rv``, oldest first (TooOldError when compacted away)."""
        ...

    # --- writes --------------------------------------------------------------------------------
    def check_version(self, key: str, expected_rv: int | None) -> Stored:
        """The current version; KeyNotFoundError, or ConflictError unless it is ``expected_rv``."""
        ...

    def create(self, key: str, obj: dict[str, Any]) -> Stored:
        """Store a new object (KeyExistsError if ``key`` is taken)."""
        ...

    def update(self, key: str, obj: dict[str, Any], *, expected_rv: int | None) -> Stored: ...

    def delete(self, key: str, *, expected_rv: int | None) -> Stored:
        """Remove an object; the DELETED event carries its last state with a new version."""
        ...

    # --- watch ---------------------------------------------------------------------------------
    def watch(
        self,
        *,
        prefix: str,
        predicate: Predicate | None,
        convert: Callable[[Event], Event] | None = None,
        index: WatchIndex | None = None,
    ) -> Watcher:
        """A watcher of changes from now on, under ``prefix`` and matching ``predicate``;
        ``convert`` reshapes each event before the predicate sees it; ``index`` (a hint the
        store may ignore) lets it offer events only to watchers of the right field value."""
        ...


class Storage(Protocol):
    """One cluster's storage: a :class:`ResourceStore` per resource, one resourceVersion."""

    @property
    def resource_version(self) -> int:
        """The newest resourceVersion handed out (by any resource)."""
        ...

    async def durable(self) -> None:
        """Return once every write made so far is on disk; a server awaits this before it
        acknowledges a write (storage kept in memory only returns at once)."""
        ...

    def resource(self, name: str) -> ResourceStore:
        """The store of ``name`` (a group-qualified plural), created empty on first use."""
        ...

    def converted(self, name: str, *, stored_in: str, converter: Converter) -> ResourceStore:
        """``name`` served from the store of ``stored_in``, each object passed through
        ``converter``; both share one history, one resourceVersion sequence and one set of
        watchers."""
        ...
