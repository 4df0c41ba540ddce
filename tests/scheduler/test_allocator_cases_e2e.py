"""Every scenario of the allocator case table, run through the scheduler end to end.

The same scenarios ``test_allocator_cases.py`` feeds to the allocator library are built here as
API objects (classes, slices, claims in namespace ``default``, the case's node), a pod uses all
of the case's claims, and the scheduler runs against the in-process API server. Devices the case
lists as already allocated become claims allocated through the API. What is checked:

* ``results`` — the pod is bound to the case's node and each claim's ``status.allocation`` holds
  the expected devices and node selector;
* ``unschedulable`` — the pod stays Pending with ``FailedScheduling`` ``cannot allocate all
  claims``;
* ``error`` — the pod stays Pending and the ``FailedScheduling`` message carries the allocator's
  error (claim names qualified by namespace, as the scheduler's claims have one; a missing
  DeviceClass reported by PreFilter in the scheduler's words).

The API server runs with every allocator-related gate on, so it keeps every field of the
scenario; the scheduler runs with the case's gates, as the allocator suite does.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from fakeapi.client import (
    DEVICE_CLASSES,
    NAMESPACES,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    StatusError,
    is_invalid,
)
from fakeapi.fixtures.allocator_cases import (
    device_class,
    load_allocator_cases,
    resource_claim,
    resource_slice,
)

from .conftest import Cluster
from .test_allocator_cases import (
    FEATURE_GATES,
    check_config,
    check_device,
    expected_node_selector,
    sort_key,
)
from .test_allocator_cases import (
    NODES as CASE_NODES,
)

#: scenarios whose objects the API refuses (upstream's test data is not all valid API input);
#: for these the test checks the refusal instead of scheduling
API_REJECTS = {
    "empty-device-class-name",
    "selector-without-cel",
    "unknown-allocation-mode",
    "empty-constraint",
    "cel-undeclared-variable-in-class",
    "unknown-counter-set-invalid-pool",
    "pools-with-binding-conditions-searched-last",
    "distinct-attribute-one-shared-device",
    "full-shared-device-skipped",
}
_QUIRKS = (
    (re.compile(r"subReq-(\d+)"), r"subreq-\1"),
    (re.compile(r"capacity-(\d+)"), r"capacity_\1"),
)


def api_names(value: Any) -> Any:
    """Rename upstream test names the API does not accept (``subReq-0`` is no DNS label,
    ``capacity-0`` no C identifier) everywhere in a scenario, expectations included."""
    if isinstance(value, str):
        for pattern, replacement in _QUIRKS:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [api_names(v) for v in value]
    if isinstance(value, dict):
        return {api_names(k): api_names(v) for k, v in value.items()}
    return value


CASES = [api_names(case) for case in load_allocator_cases()]
ALL_GATES = {gate: True for gates in FEATURE_GATES.values() for gate in gates}
Eventually = Callable[..., Any]


def scheduler_gates(case: Mapping[str, Any]) -> dict[str, bool]:
    gates = {gate: False for gate in ALL_GATES}
    for name in case.get("features") or []:
        for gate in FEATURE_GATES[name]:
            gates[gate] = True
    return gates


def scheduler_message(message: str) -> str:
    """The allocator's error as the scheduler reports it: claims are namespaced, and a missing
    class is caught by PreFilter before the allocator runs (upstream's wording)."""
    missing = re.search(r"could not retrieve device class (\S+)", message)
    if missing:
        return f"device class {missing.group(1)} does not exist"
    return re.sub(r"\bclaim (claim-\d+)", r"claim default/\1", message)


async def allocate_devices(cluster: Cluster, name: str, results: list[dict[str, Any]]) -> None:
    """A claim that already holds ``results`` (another workload's devices)."""
    claim = await cluster.client.create(
        RESOURCE_CLAIMS,
        body={
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "held",
                            "exactly": {"deviceClassName": "held", "allocationMode": "All"},
                        }
                    ]
                }
            },
        },
    )
    claim["status"] = {"allocation": {"devices": {"results": results}}}
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)


async def report_binding_conditions(cluster: Cluster, name: str) -> None:
    """Act as the driver of devices with binding conditions: report them all true."""
    claim = await cluster.get_claim(name)
    status = claim.get("status") or {}
    results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or []
    pending = [r for r in results if r.get("bindingConditions")]
    if not pending or status.get("devices"):
        return
    status["devices"] = [
        {
            "driver": r["driver"],
            "pool": r["pool"],
            "device": r["device"],
            "conditions": [
                {
                    "type": c,
                    "status": "True",
                    "reason": "Attached",
                    "message": "",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
                for c in r["bindingConditions"]
            ],
        }
        for r in pending
    ]
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)


def held(device_id: str, **extra: Any) -> dict[str, Any]:
    driver, pool, device = device_id.split("/")
    return {"request": "held", "driver": driver, "pool": pool, "device": device, **extra}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
async def test_allocator_case_through_the_scheduler(
    case: Mapping[str, Any], make_cluster: Callable[..., Cluster], eventually: Eventually
) -> None:
    cluster = make_cluster(feature_gates=ALL_GATES)
    cluster.feature_gates = scheduler_gates(case)
    try:
        await run_case(cluster, case, eventually)
    finally:
        await cluster.stop()


#: a few scenarios of each outcome, with the scheduler talking HTTP to a real server
HTTP_CASES = [
    c
    for c in CASES
    if c["name"]
    in {
        "only-slices-of-this-node",
        "backtrack-across-requests",
        "already-allocated",
        "binding-conditions-copied",
        "missing-device-class",
    }
]


@pytest.mark.parametrize("case", HTTP_CASES, ids=[c["name"] for c in HTTP_CASES])
async def test_allocator_case_through_the_scheduler_over_http(
    case: Mapping[str, Any], make_cluster: Callable[..., Cluster], eventually: Eventually
) -> None:
    cluster = make_cluster(feature_gates=ALL_GATES)
    cluster.feature_gates = scheduler_gates(case)
    try:
        await run_case(cluster, case, eventually, http=True)
    finally:
        await cluster.stop()


async def create_objects(cluster: Cluster, case: Mapping[str, Any]) -> list[dict[str, Any]]:
    for spec in case.get("classes") or []:
        await cluster.client.create(DEVICE_CLASSES, body=device_class(spec))
    seen: set[str] = set()
    for spec in case.get("slices") or []:
        body = resource_slice(spec)
        name = body["metadata"]["name"]
        if name in seen:  # the allocator suite keys slices by position, the API by name
            body["metadata"]["name"] = f"{name}-{body['spec']['driver']}"
        seen.add(body["metadata"]["name"])
        await cluster.client.create(RESOURCE_SLICES, body=body)
    claims = [resource_claim(spec, namespace="default") for spec in case["claims"]]
    for claim in claims:
        await cluster.client.create(RESOURCE_CLAIMS, body=claim)
    return claims


async def run_case(
    cluster: Cluster, case: Mapping[str, Any], eventually: Eventually, *, http: bool = False
) -> None:
    node = CASE_NODES[case["node"]]
    await cluster.client.patch(
        NAMESPACES,
        name="default",
        patch={"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}},
    )
    if case["name"] in API_REJECTS:
        with pytest.raises(StatusError) as refused:
            await create_objects(cluster, case)
        assert is_invalid(refused.value)
        return
    await cluster.client.create(
        NODES,
        body={
            "metadata": {"name": node.name, "labels": dict(node.labels)},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        },
    )
    for i, device_id in enumerate(case.get("allocated") or []):
        await allocate_devices(cluster, f"held-{i}", [held(device_id)])
    for i, (device_id, capacity) in enumerate((case.get("allocatedCapacity") or {}).items()):
        consumed = {name: str(value) for name, value in capacity.items()}
        await allocate_devices(
            cluster,
            f"held-capacity-{i}",
            [held(device_id, shareID=str(uuid.uuid4()), consumedCapacity=consumed)],
        )
    claims = await create_objects(cluster, case)
    await cluster.client.create(
        PODS,
        body={
            "metadata": {"name": "app", "namespace": "default"},
            "spec": {
                "containers": [{"name": "app", "image": "registry.example/app:1"}],
                "resourceClaims": [
                    {"name": f"c{i}", "resourceClaimName": c["metadata"]["name"]}
                    for i, c in enumerate(claims)
                ],
            },
        },
    )
    await cluster.start_scheduler(http=http)

    async def outcome() -> str | None:
        if await cluster.node_of("app"):
            return "bound"
        if await cluster.events_about("app", reason="FailedScheduling"):
            return "failed"
        for claim in claims:
            await report_binding_conditions(cluster, claim["metadata"]["name"])
        return None

    result = await eventually(outcome)
    expect = case["expect"]
    if "results" not in expect:
        assert result == "failed"
        note = (await cluster.events_about("app", reason="FailedScheduling"))[0]["note"]
        if expect.get("unschedulable"):
            assert "cannot allocate all claims" in note, note
        else:
            assert scheduler_message(expect["error"]) in note, note
        return
    assert result == "bound"
    assert await cluster.node_of("app") == node.name
    for claim, want in zip(claims, expect["results"], strict=True):
        stored = await cluster.get_claim(claim["metadata"]["name"])
        allocation = stored["status"]["allocation"]
        assert allocation.get("nodeSelector") == expected_node_selector(want.get("nodeSelector"))
        got = sorted(allocation["devices"]["results"], key=sort_key)
        wanted = sorted(want["devices"], key=sort_key)
        assert len(got) == len(wanted), got
        for expected_device, actual in zip(wanted, got, strict=True):
            check_device(expected_device, actual)
        if "config" in want:
            check_config(want["config"], allocation["devices"].get("config") or [])
