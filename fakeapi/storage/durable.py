"""Storage kept in a data directory: the in-memory storage, restored on start, journaled on write.

The objects live in memory exactly as without a data directory (:class:`MemoryStorage`), so
reads, lists and watches cost the same; every write is also appended to the directory's log
(:mod:`fakeapi.storage.journal`) and the server answers a write only after
:meth:`MemoryStorage.durable` says its batch is fsynced. A kill -9 therefore loses no write that
a client was told about; what it may lose is a write made in the last instants that nobody was
answered for yet (an in-process component's, say), and the state read back is always the state
as of some write, never a mixture.

On start the snapshot and then the log are read back: objects, and the resourceVersion counter
at the newest write, so versions keep increasing across restarts. The event history is not kept:
a watch or a paged list from a resourceVersion older than the restart gets ``410 Expired``, the
answer kube-apiserver gives past its history, and informers re-list. A torn tail (a crash in
the middle of an append) is cut back to the last whole record with a warning; the storage never
refuses to start over one. A lock file keeps a second process off the same directory.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path
from typing import IO

from fakeapi.storage.events import Stored
from fakeapi.storage.interface import StorageError
from fakeapi.storage.journal import LOG, SNAPSHOT, Journal, Record, read_records
from fakeapi.storage.memory import (
    DEFAULT_HISTORY,
    DEFAULT_WATCH_QUEUE,
    MemoryResourceStore,
    MemoryStorage,
)

__all__ = ["DEFAULT_SNAPSHOT_AFTER", "DurableStorage"]

log = logging.getLogger("fakeapi.storage")

#: the log is compacted into a snapshot once it passes this many bytes
DEFAULT_SNAPSHOT_AFTER = 64 * 1024 * 1024


class DurableStorage(MemoryStorage):
    """A :class:`MemoryStorage` restored from and journaled to ``directory``."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        history_size: int = DEFAULT_HISTORY,
        watch_queue: int = DEFAULT_WATCH_QUEUE,
        snapshot_after: int = DEFAULT_SNAPSHOT_AFTER,
    ) -> None:
        super().__init__(history_size=history_size, watch_queue=watch_queue)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = self._take_lock()
        #: the resourceVersion the state was restored at: older versions have no history
        self.restored_rv = 0
        log_size = self._restore()
        self.journal = Journal(
            self.directory,
            log_size=log_size,
            snapshot_after=snapshot_after,
            collect=self._collect,
        )
        self.journal.appended_rv = self.journal.flushed_rv = self.rv

    def _take_lock(self) -> IO[str]:
        lock = open(self.directory / "lock", "a")  # noqa: SIM115 - held for the storage's life
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise StorageError(
                f"data directory {self.directory} is in use by another fakeapi process"
            ) from None
        return lock

    def resource(self, name: str) -> MemoryResourceStore:
        store = self._resources.get(name)
        if store is None:
            store = super().resource(name)
            store.compacted_rv = self.restored_rv
        return store

    def _apply(self, record: Record) -> None:
        objects = self.resource(record.resource).objects
        if record.op == "D":
            objects.pop(record.key, None)
        else:
            objects[record.key] = Stored.encoded(record.raw, record.rv)
        if record.rv > self.rv:
            self.rv = record.rv

    def _restore(self) -> int:
        """Read the snapshot and the log back; returns the log's size after any torn tail is
        cut off."""
        snapshot_rv = 0
        snapshot = self.directory / SNAPSHOT
        if snapshot.exists():
            data = snapshot.read_bytes()
            records, end = read_records(data)
            if end < len(data):
                log.warning("data directory %s: the snapshot ends in a torn record", self.directory)
            if records and records[0].op == "S":
                snapshot_rv = records[0].rv
                for record in records[1:]:
                    self._apply(record)
                self.rv = max(self.rv, snapshot_rv)
        journal = self.directory / LOG
        data = journal.read_bytes() if journal.exists() else b""
        records, end = read_records(data)
        if end < len(data):
            log.warning(
                "data directory %s: dropped a torn tail of %d bytes from the log (a write that "
                "was never acknowledged)",
                self.directory,
                len(data) - end,
            )
            os.truncate(journal, end)
        for record in records:
            if record.rv > snapshot_rv:
                self._apply(record)
        self.restored_rv = self.rv
        for store in self._resources.values():
            store.compacted_rv = self.rv
        return end

    def _collect(self) -> tuple[int, list[tuple[str, str, bytes, int]]]:
        objects = [
            (name, key, stored.raw, stored.rv)
            for name, store in self._resources.items()
            for key, stored in store.objects.items()
        ]
        return self.rv, objects

    def close(self) -> None:
        super().close()
        if not self._lock.closed:
            self._lock.close()
