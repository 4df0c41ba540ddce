"""Every scenario of the allocator case table, run through the sandbox end to end.

The same scenarios ``test_allocator_cases.py`` feeds to the allocator library are built here as
API objects (classes, slices, claims in namespace ``default``, the case's node) in the cluster
the assembler builds for ``fakeapi sandbox --nodes 0``: the API server, the controllers and the
scheduler, with nodes and slices made by hand. A pod uses all of the case's claims. Devices the
case lists as already allocated become claims allocated through the API. What is checked:

* ``results`` — the pod is bound to the case's node and each claim's ``status.allocation`` holds
  the expected devices and node selector;
* ``unschedulable`` — the pod stays Pending with ``FailedScheduling`` ``cannot allocate all
  claims``;
* ``error`` — the pod stays Pending and the ``FailedScheduling`` message carries the allocator's
  error (claim names qualified by namespace, as the scheduler's claims have one; a missing
  DeviceClass reported by PreFilter in the scheduler's words).

* scenarios the API refuses (upstream's test data is not all valid API input) — the refusal.

The API server runs with every allocator-related gate on, so it keeps every field of the
scenario; the scheduler and the controllers run with the case's gates (each component has its
own, as ``--feature-gates`` of a real cluster's binaries), as the allocator suite does. Time is a
fake clock: nothing here waits for time to pass. A few scenarios are also made over HTTP.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import pytest

from fakeapi.client import (
    DEVICE_CLASSES,
    EVENTS_K8S_IO,
    NAMESPACES,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    HttpTransport,
    Informer,
    Resource,
    StatusError,
    is_invalid,
)
from fakeapi.cluster.assembler import Cluster

from ..support.allocator_cases import (
    device_class,
    load_allocator_cases,
    resource_claim,
    resource_slice,
)
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
Obj = dict[str, Any]


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


@asynccontextmanager
async def sandbox(case: Mapping[str, Any], *, http: bool = False) -> AsyncIterator[Cluster]:
    """``fakeapi sandbox --nodes 0`` on a fake clock: API server (every allocator gate on),
    controllers and scheduler (the case's gates); no simulated nodes, no default classes."""
    gates = scheduler_gates(case)
    async with Cluster(
        nodes=0,
        feature_gates=ALL_GATES,
        component_feature_gates={"scheduler": gates, "controllers": gates},
        clock="fake",
        http=http,
    ) as cluster:
        yield cluster


async def allocate_devices(client: Client, name: str, results: list[Obj]) -> Obj:
    """A claim that already holds ``results`` (another workload's devices)."""
    claim = await client.create(
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
    return await client.update_status(RESOURCE_CLAIMS, body=claim)


async def report_binding_conditions(client: Client, name: str) -> None:
    """Act as the driver of devices with binding conditions: report them all true."""
    claim = await client.get(RESOURCE_CLAIMS, name=name, namespace="default")
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
    await client.update_status(RESOURCE_CLAIMS, body=claim)


def held(device_id: str, **extra: Any) -> Obj:
    driver, pool, device = device_id.split("/")
    return {"request": "held", "driver": driver, "pool": pool, "device": device, **extra}


async def failed_scheduling(client: Client, pod: str) -> list[Obj]:
    listed = await client.list(EVENTS_K8S_IO, namespace="default")
    return [
        e
        for e in listed.items
        if e.get("regarding", {}).get("name") == pod and e.get("reason") == "FailedScheduling"
    ]


async def components_have_seen(
    cluster: Cluster, written: list[tuple[Resource, Obj]], eventually: Eventually
) -> None:
    """Wait until the components' shared informers hold every object the test wrote, as
    written, so the scheduler's first attempt sees the whole scenario (a pod seen before its
    claims would fail once and wait out its back-off, which a fake clock never ends)."""
    informers: dict[Resource, Informer] = {}
    for resource, _ in written:
        informers.setdefault(resource, cluster.informers.informer(resource))

    def seen() -> bool:
        for resource, obj in written:
            meta = obj["metadata"]
            cached = informers[resource].get_by_name(
                name=meta["name"], namespace=meta.get("namespace")
            )
            if cached is None or cached["metadata"]["resourceVersion"] != meta["resourceVersion"]:
                return False
        return True

    await eventually(seen)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
async def test_allocator_case_through_the_sandbox(
    case: Mapping[str, Any], eventually: Eventually
) -> None:
    async with sandbox(case) as cluster:
        await run_case(cluster, cluster.client, case, eventually)


#: a few scenarios of each outcome, with the test's objects made over HTTP
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
async def test_allocator_case_through_the_sandbox_over_http(
    case: Mapping[str, Any], eventually: Eventually
) -> None:
    async with sandbox(case, http=True) as cluster:
        client = Client(HttpTransport(cluster.url), field_manager="fakeapi-test")
        try:
            await run_case(cluster, client, case, eventually)
        finally:
            await client.close()


async def create_objects(
    client: Client, case: Mapping[str, Any], written: list[tuple[Resource, Obj]]
) -> list[Obj]:
    for spec in case.get("classes") or []:
        created = await client.create(DEVICE_CLASSES, body=device_class(spec))
        written.append((DEVICE_CLASSES, created))
    seen: set[str] = set()
    for spec in case.get("slices") or []:
        body = resource_slice(spec)
        name = body["metadata"]["name"]
        if name in seen:  # the allocator suite keys slices by position, the API by name
            body["metadata"]["name"] = f"{name}-{body['spec']['driver']}"
        seen.add(body["metadata"]["name"])
        written.append((RESOURCE_SLICES, await client.create(RESOURCE_SLICES, body=body)))
    claims = [resource_claim(spec, namespace="default") for spec in case["claims"]]
    for claim in claims:
        written.append((RESOURCE_CLAIMS, await client.create(RESOURCE_CLAIMS, body=claim)))
    return claims


async def run_case(
    cluster: Cluster, client: Client, case: Mapping[str, Any], eventually: Eventually
) -> None:
    node = CASE_NODES[case["node"]]
    await client.patch(
        NAMESPACES,
        name="default",
        patch={"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}},
    )
    written: list[tuple[Resource, Obj]] = []
    if case["name"] in API_REJECTS:
        with pytest.raises(StatusError) as refused:
            await create_objects(client, case, written)
        assert is_invalid(refused.value)
        return
    node_body = {
        "metadata": {"name": node.name, "labels": dict(node.labels)},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    written.append((NODES, await client.create(NODES, body=node_body)))
    for i, device_id in enumerate(case.get("allocated") or []):
        claim = await allocate_devices(client, f"held-{i}", [held(device_id)])
        written.append((RESOURCE_CLAIMS, claim))
    for i, (device_id, capacity) in enumerate((case.get("allocatedCapacity") or {}).items()):
        consumed = {name: str(value) for name, value in capacity.items()}
        claim = await allocate_devices(
            client,
            f"held-capacity-{i}",
            [held(device_id, shareID=str(uuid.uuid4()), consumedCapacity=consumed)],
        )
        written.append((RESOURCE_CLAIMS, claim))
    claims = await create_objects(client, case, written)
    await components_have_seen(cluster, written, eventually)
    await client.create(
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

    async def node_of_app() -> str | None:
        pod = await client.get(PODS, name="app", namespace="default")
        bound: str | None = pod["spec"].get("nodeName")
        return bound

    async def outcome() -> str | None:
        if await node_of_app():
            return "bound"
        if await failed_scheduling(client, "app"):
            return "failed"
        for claim in claims:
            await report_binding_conditions(client, claim["metadata"]["name"])
        return None

    result = await eventually(outcome)
    expect = case["expect"]
    if "results" not in expect:
        assert result == "failed"
        note = (await failed_scheduling(client, "app"))[0]["note"]
        if expect.get("unschedulable"):
            assert "cannot allocate all claims" in note, note
        else:
            assert scheduler_message(expect["error"]) in note, note
        return
    assert result == "bound"
    assert await node_of_app() == node.name
    for claim, want in zip(claims, expect["results"], strict=True):
        name = claim["metadata"]["name"]
        stored = await client.get(RESOURCE_CLAIMS, name=name, namespace="default")
        allocation = stored["status"]["allocation"]
        assert allocation.get("nodeSelector") == expected_node_selector(want.get("nodeSelector"))
        got = sorted(allocation["devices"]["results"], key=sort_key)
        wanted = sorted(want["devices"], key=sort_key)
        assert len(got) == len(wanted), got
        for expected_device, actual in zip(wanted, got, strict=True):
            check_device(expected_device, actual)
        if "config" in want:
            check_config(want["config"], allocation["devices"].get("config") or [])
