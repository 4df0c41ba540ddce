"""Expectations: what a controller has asked for and not yet seen, so it does not ask twice.

A controller that creates five pods must not create five more when it reconciles again before
its informer shows them. Upstream's ``ControllerExpectations`` (``pkg/controller/
controller_utils.go``) records, per controller key, how many creations and deletions are still
to be observed; a reconcile acts (creates or deletes) only while the key's expectations are
*satisfied*: nothing recorded, everything observed, or the record older than five minutes (a
watch event lost for good must not stall the controller forever). Deletions are tracked by the
key of each pod asked to go (upstream's ``UIDTrackingControllerExpectations``), so a pod that
disappears for another reason is not mistaken for one of ours.

Informer handlers call :meth:`creation_observed` and :meth:`deletion_observed`; a failed
create or delete lowers the expectation itself (:meth:`lower`), since no event will come.
fakeapi's informers already show a component its own writes at once (read-your-writes), so a
reconcile rarely waits on an expectation; the bookkeeping still guards a client whose informer
is not fed its writes, and keeps the controllers shaped as upstream's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.clock import Clock

__all__ = ["EXPECTATIONS_TTL", "ControllerExpectations"]

#: upstream's ExpectationsTimeout
EXPECTATIONS_TTL = 300.0


@dataclass(slots=True)
class _Expectation:
    adds: int
    deletes: set[str] = field(default_factory=set)
    since: float = 0.0

    def fulfilled(self) -> bool:
        return self.adds <= 0 and not self.deletes


class ControllerExpectations:
    """Pending creations (counted) and deletions (by object key) per controller key."""

    def __init__(self, *, clock: Clock) -> None:
        self.clock = clock
        self._records: dict[str, _Expectation] = {}

    def satisfied(self, key: str) -> bool:
        """May the controller act on ``key``: nothing pending, or the record expired."""
        record = self._records.get(key)
        if record is None or record.fulfilled():
            return True
        return self.clock.monotonic() - record.since > EXPECTATIONS_TTL

    def expect(self, key: str, *, creations: int = 0, deletions: set[str] | None = None) -> None:
        """Record what the next actions on ``key`` will be (replacing any earlier record)."""
        self._records[key] = _Expectation(
            adds=creations, deletes=set(deletions or ()), since=self.clock.monotonic()
        )

    def creation_observed(self, key: str) -> None:
        record = self._records.get(key)
        if record is not None:
            record.adds -= 1

    def deletion_observed(self, key: str, obj_key: str) -> None:
        record = self._records.get(key)
        if record is not None:
            record.deletes.discard(obj_key)

    def lower(self, key: str, *, creations: int = 0, deletion: str | None = None) -> None:
        """A create (or the delete of ``deletion``) failed: no event will count it down."""
        record = self._records.get(key)
        if record is None:
            return
        record.adds -= creations
        if deletion is not None:
            record.deletes.discard(deletion)

    def forget(self, key: str) -> None:
        """The controller object is gone: drop its record."""
        self._records.pop(key, None)
