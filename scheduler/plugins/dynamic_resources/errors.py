"""Allocator errors.

Upstream ``Allocate`` returns ``nil, nil`` when claims do not fit on a node and an error for
conditions that make allocation impossible or unsafe (bad requests, CEL errors, ...). Here "does
not fit" is ``None`` and the error cases raise :class:`AllocationError` with upstream's message.
:class:`FailedAllocationOnNodeError` marks the node-local failure caused by invalid pools, which the
scheduler treats like "unschedulable on this node" rather than as a pod-wide error.
"""

from __future__ import annotations

__all__ = ["AllocationError", "AllocationTimeoutError", "FailedAllocationOnNodeError"]


class AllocationError(Exception):
    """Allocation cannot proceed; ``str(error)`` is upstream's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FailedAllocationOnNodeError(AllocationError):
    """No solution on this node and at least one pool visible from it was invalid."""


class AllocationTimeoutError(AllocationError):
    """The search ran past its deadline (the scheduler's Filter timeout, upstream
    ``filterTimeout``)."""

    def __init__(self) -> None:
        super().__init__("timed out trying to allocate devices")
