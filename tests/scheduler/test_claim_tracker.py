"""The claim tracker keeps the device inventory in step with claims: an allocation is counted once
when chosen at Reserve, and writing it (with the timestamp and reservation the API adds) only
recounts when the devices differ."""

from __future__ import annotations

from typing import Any

from fakeapi.scheduler.plugins.dynamic_resources.claims import ClaimTracker


class Claims:
    """The informer's cache, as the tracker reads it."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        return self.objects.get(key)


class Inventory:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def mark_allocated(self, *, claim_key: str, allocation: dict[str, Any]) -> None:
        devices = [r["device"] for r in allocation["devices"]["results"]]
        self.calls.append(("allocated", f"{claim_key}:{','.join(devices)}"))

    def mark_freed(self, *, claim_key: str) -> None:
        self.calls.append(("freed", claim_key))


def allocation(device: str, **extra: Any) -> dict[str, Any]:
    return {
        "devices": {"results": [{"driver": "d", "pool": "p", "device": device, "request": "r"}]},
        **extra,
    }


def claim(rv: str, alloc: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "metadata": {"name": "c", "namespace": "ns", "uid": "c1", "resourceVersion": rv}
    }
    if alloc is not None:
        body["status"] = {"allocation": alloc}
    return body


def tracker() -> tuple[ClaimTracker, Claims, Inventory, list[tuple[str, str]]]:
    claims, inventory, pools = Claims(), Inventory(), []
    found = ClaimTracker(
        informer=claims,  # type: ignore[arg-type]
        inventory=inventory,  # type: ignore[arg-type]
        on_pool_change=pools.append,
    )
    return found, claims, inventory, pools


def test_writing_the_pending_allocation_does_not_count_it_again() -> None:
    found, claims, inventory, pools = tracker()
    claims.objects["ns/c"] = claim("1", None)
    found.on_claim(claims.objects["ns/c"])
    found.signal_pending(uid="c1", allocation=allocation("dev-0"), holder="pod")
    assert inventory.calls == [("allocated", "c1:dev-0")]
    assert pools == [("d", "p")]
    written = claim("3", allocation("dev-0", allocationTimestamp="2026-01-01T00:00:00Z"))
    found.assume(written)
    claims.objects["ns/c"] = written
    found.on_claim(written)
    assert inventory.calls == [("allocated", "c1:dev-0")]
    assert pools == [("d", "p")]


def test_an_allocation_of_other_devices_is_counted_again() -> None:
    found, claims, inventory, pools = tracker()
    claims.objects["ns/c"] = claim("1", None)
    found.signal_pending(uid="c1", allocation=allocation("dev-0"), holder="pod")
    written = claim("3", allocation("dev-1"))
    claims.objects["ns/c"] = written
    found.on_claim(written)
    assert inventory.calls[-1] == ("allocated", "c1:dev-1")
    assert pools[-1] == ("d", "p")


def test_a_deallocated_claim_frees_its_devices() -> None:
    found, claims, inventory, _ = tracker()
    claims.objects["ns/c"] = claim("2", allocation("dev-0"))
    found.on_claim(claims.objects["ns/c"])
    claims.objects["ns/c"] = claim("3", None)
    found.on_claim(claims.objects["ns/c"])
    assert inventory.calls == [("allocated", "c1:dev-0"), ("freed", "c1")]
