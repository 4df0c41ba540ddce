"""Faults the kubelet injects into its own calls to DRA drivers: a delayed or failed
NodePrepareResources / NodeUnprepareResources for a claim.

They sit on the kubelet's side of the wire, so they work the same for a simulated driver and for
a real driver in another process, which never sees the failed call. A fault names the claim
(``<namespace>/<name>``) and the call:

- **delay** the call by some seconds of the kubelet's clock; a delay of at least the kubelet's
  call timeout (upstream's 45 s) ends the call as upstream's gRPC client does, with
  ``DeadlineExceeded``, without reaching the driver;
- **fail** the call: it returns the claim's error as the driver would
  (``NodePrepareResources failed for ResourceClaim <name>: <message>``) without reaching it.

From Python (:meth:`CallFaults.add`) a fault applies to the next calls for the claim (``times``,
one by default); from a Node annotation (:mod:`fakeapi.kubelet.faults`) it stands while the
annotation says so, as the other annotations do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["CALLS", "Call", "CallFault", "CallFaults", "parse_call_fault"]

Call = Literal["prepare", "unprepare"]
CALLS: tuple[Call, ...] = ("prepare", "unprepare")


@dataclass(frozen=True, slots=True)
class CallFault:
    """What happens to one call: first ``delay`` seconds, then ``error`` (when not empty)."""

    delay: float = 0.0
    error: str = ""


def parse_call_fault(text: str) -> CallFault:
    """``fail``, ``fail:<message>``, ``delay:<seconds>[s]`` (ValueError otherwise)."""
    kind, _, arg = text.strip().partition(":")
    if kind == "fail":
        return CallFault(error=arg.strip() or "injected failure")
    if kind == "delay":
        seconds = float(arg.strip().removesuffix("s"))
        if seconds < 0:
            raise ValueError(f"delay must not be negative: {text!r}")
        return CallFault(delay=seconds)
    raise ValueError(f"unknown call fault {text!r} (fail[:message] or delay:<seconds>)")


class CallFaults:
    """The call faults in force on one kubelet."""

    def __init__(self) -> None:
        self._once: dict[tuple[Call, str], list[CallFault]] = {}
        self._standing: dict[tuple[Call, str], CallFault] = {}

    def add(self, call: Call, claim: str, fault: CallFault, *, times: int = 1) -> None:
        """The next ``times`` calls of ``call`` for ``claim`` (``namespace/name``) get ``fault``."""
        if call not in CALLS:
            raise ValueError(f"call must be one of {', '.join(CALLS)}, not {call!r}")
        self._once.setdefault((call, claim), []).extend([fault] * times)

    def set_standing(self, call: Call, faults: Mapping[str, CallFault]) -> None:
        """Replace the standing faults of ``call`` (by claim) with ``faults``."""
        self._standing = {k: v for k, v in self._standing.items() if k[0] != call}
        self._standing.update({(call, claim): fault for claim, fault in faults.items()})

    def take(self, call: Call, claims: Iterable[str]) -> tuple[float, dict[str, str]]:
        """The faults for one call covering ``claims``: the longest delay among them and the
        error of each failing claim. Faults added with :meth:`add` are used up."""
        delay = 0.0
        errors: dict[str, str] = {}
        for claim in claims:
            faults = []
            queued = self._once.get((call, claim))
            if queued:
                faults.append(queued.pop(0))
                if not queued:
                    del self._once[(call, claim)]
            standing = self._standing.get((call, claim))
            if standing is not None:
                faults.append(standing)
            for fault in faults:
                delay = max(delay, fault.delay)
                if fault.error and claim not in errors:
                    errors[claim] = fault.error
        return delay, errors
