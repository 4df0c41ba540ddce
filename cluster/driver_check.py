"""``fakeapi driver-check CMD``: a conformance run for a DRA driver binary, in the spirit of
csi-sanity.

The check starts a one-node cluster whose kubelet has a kubelet directory, runs the driver
command there as the sandbox's ``--driver-command`` does (placeholders ``{node}``,
``{registry_dir}``, ``{plugins_dir}``, ``{kubeconfig}``, ``{root_dir}``), and then checks what
upstream's kubelet and scheduler rely on, each against the expectation written in the table:

registration, slice publication, pool consistency, prepare, prepare idempotency, prepare
concurrency, unprepare (twice), unprepare of an unknown claim, health stream, a pod end to end,
restart survival.

Prepare and unprepare are called directly over the driver's DRA socket, as the kubelet calls
them, on claims the check writes and allocates itself; the pod check goes through the scheduler
and the kubelet. A check that cannot run because an earlier one failed is reported ``SKIP``;
the health stream is optional for a driver (``SKIP`` when it implements none).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakeapi.client import (
    DEVICE_CLASSES,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
)
from fakeapi.rules.pools import gather_pool

__all__ = ["CheckResult", "format_table", "main", "run_driver_check"]

Obj = dict[str, Any]
PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
_NODE = "node-1"
_NAMESPACE = "default"


@dataclass
class CheckResult:
    name: str
    result: str
    expectation: str
    detail: str = ""


class _CheckFailedError(Exception):
    """A check failed; the message is its detail."""


class _CheckSkippedError(Exception):
    """The check does not apply to this driver."""


@dataclass
class _State:
    driver: str = ""
    endpoint: str = ""
    service: Any = None
    devices: list[tuple[str, str]] = field(default_factory=list)
    channel: Any = None
    #: the claim prepared first, and those prepared concurrently
    claim: Obj = field(default_factory=dict)
    more_claims: list[Obj] = field(default_factory=list)


EXPECTATIONS = {
    "registration": "a socket in plugins_registry/ answers GetInfo with type DRAPlugin, the "
    "driver name and a DRA service the kubelet speaks (v1 or v1beta1) and accepts "
    "NotifyRegistrationStatus",
    "slice publication": "ResourceSlices with spec.driver = the registered name and "
    "spec.nodeName = the node appear in the API",
    "pool consistency": "every pool: all slices at one pool.generation, as many slices as "
    "resourceSliceCount, device names unique in the pool",
    "prepare": "NodePrepareResources answers the claim (by UID) with its allocated devices and "
    "no error",
    "prepare idempotency": "NodePrepareResources for a claim already prepared succeeds again with "
    "the same devices (the kubelet retries)",
    "prepare concurrency": "concurrent NodePrepareResources calls for different claims all "
    "succeed",
    "unprepare": "NodeUnprepareResources answers every claim without error, twice in a row",
    "unprepare unknown claim": "NodeUnprepareResources for a claim never prepared succeeds (the "
    "kubelet unprepares after failed prepares and restarts)",
    "health stream": "DRAResourceHealth/NodeWatchResources (v1, else v1alpha1) sends the "
    "health of the driver's devices (optional service)",
    "pod end to end": "a pod using the driver's device runs: prepared before it starts, "
    "unprepared once it is gone",
    "restart survival": "killed, the driver is restarted, registers again, its slices are "
    "published and a claim prepared before can be unprepared",
}


def format_table(results: list[CheckResult]) -> str:
    """The results as a plain-text table."""
    rows = [("CHECK", "RESULT", "DETAIL")] + [(r.name, r.result, r.detail) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() for a, b, c in rows]
    lines.append("")
    lines.append("Expectations (upstream's kubelet, scheduler and KEP-4381):")
    lines += [f"  {r.name}: {r.expectation}" for r in results]
    failed = sum(r.result == FAIL for r in results)
    passed = sum(r.result == PASS for r in results)
    skipped = sum(r.result == SKIP for r in results)
    lines.append("")
    lines.append(f"{passed} passed, {failed} failed, {skipped} skipped")
    return "\n".join(lines) + "\n"


async def _until(check: Callable[[], Awaitable[Any]], timeout: float, what: str) -> Any:
    """Poll ``check`` (real time) until it returns something true."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise _CheckFailedError(f"{what}: not within {timeout:g}s")
        await asyncio.sleep(0.05)


class _Checker:
    def __init__(self, cluster: Any, *, driver: str | None, timeout: float) -> None:
        self.cluster = cluster
        self.wanted = driver
        self.timeout = timeout
        self.state = _State()
        self.results: list[CheckResult] = []

    @property
    def kubelet(self) -> Any:
        return self.cluster.kubelets[_NODE]

    async def run(self, name: str, check: Callable[[], Awaitable[str]], *,
                  needs: tuple[str, ...] = ()) -> None:
        failed = [n for n in needs if not any(r.name == n and r.result == PASS
                                             for r in self.results)]
        if failed:
            self.results.append(CheckResult(name, SKIP, EXPECTATIONS[name],
                                            f"needs {', '.join(failed)}"))
            return
        try:
            detail = await check()
        except _CheckFailedError as exc:
            self.results.append(CheckResult(name, FAIL, EXPECTATIONS[name], str(exc)))
        except _CheckSkippedError as exc:
            self.results.append(CheckResult(name, SKIP, EXPECTATIONS[name], str(exc)))
        except Exception as exc:
            self.results.append(CheckResult(name, FAIL, EXPECTATIONS[name],
                                            f"{type(exc).__name__}: {exc}"))
        else:
            self.results.append(CheckResult(name, PASS, EXPECTATIONS[name], detail))

    # --- checks -----------------------------------------------------------------------------
    async def registration(self) -> str:
        watcher = self.kubelet.plugins.watcher

        async def outcome() -> Any:
            return watcher.history[-1] if watcher.history else None

        last = await _until(outcome, self.timeout, "no registration socket answered")
        if not last.registered:
            raise _CheckFailedError(last.error)
        if self.wanted and last.name != self.wanted:
            raise _CheckFailedError(f"registered as {last.name!r}, expected {self.wanted!r}")
        driver = self.kubelet.drivers[last.name]
        self.state.driver = last.name
        self.state.endpoint = driver.endpoints[-1]
        self.state.service = driver.service
        import grpc  # loaded with the kubelet's plugin side already

        self.state.channel = grpc.aio.insecure_channel(f"unix:{self.state.endpoint}")
        return f"{last.name} at {self.state.endpoint}, {driver.service.name}"

    async def _own_slices(self) -> list[Obj]:
        listed = await self.cluster.client.list(
            RESOURCE_SLICES, field_selector=f"spec.driver={self.state.driver}"
        )
        return [s for s in listed.items if (s.get("spec") or {}).get("nodeName") == _NODE]

    async def slice_publication(self) -> str:
        slices = await _until(self._own_slices, self.timeout, "no ResourceSlice for the node")
        self.state.devices = [
            (s["spec"]["pool"]["name"], d["name"])
            for s in slices for d in s["spec"].get("devices") or []
        ]
        if not self.state.devices:
            raise _CheckFailedError("the slices list no devices")
        return f"{len(slices)} slice(s), {len(self.state.devices)} device(s)"

    async def pool_consistency(self) -> str:
        pools: dict[str, list[Obj]] = {}
        for obj in await self._own_slices():
            pools.setdefault(obj["spec"]["pool"]["name"], []).append(obj)
        problems = []
        for pool, slices in sorted(pools.items()):
            contents = gather_pool(driver=self.state.driver, pool=pool, slices=slices)
            if contents.mixed_generations:
                generations = sorted({s["spec"]["pool"].get("generation", 0) for s in slices})
                problems.append(f"pool {pool}: generations {generations}")
            counts = {s["spec"]["pool"].get("resourceSliceCount") for s in contents.slices}
            if counts != {len(contents.slices)}:
                problems.append(f"pool {pool}: resourceSliceCount {sorted(map(str, counts))} "
                                f"but {len(contents.slices)} slice(s)")
            problems += [f"pool {pool}: {d}" for d in contents.duplicates]
        if problems:
            raise _CheckFailedError("; ".join(problems))
        return f"{len(pools)} pool(s)"

    async def _claim(self, device: tuple[str, str]) -> Obj:
        """A claim the check allocates itself to ``device`` (as the scheduler would)."""
        name = f"driver-check-{uuid.uuid4().hex[:8]}"
        body = {"metadata": {"name": name}, "spec": {"devices": {"requests": [
            {"name": "req", "exactly": {"deviceClassName": self.state.driver}}]}}}
        claim = await self.cluster.client.create(RESOURCE_CLAIMS, namespace=_NAMESPACE, body=body)
        claim["status"] = {
            "allocation": {"devices": {"results": [{
                "request": "req", "driver": self.state.driver, "pool": device[0],
                "device": device[1]}]}},
            "reservedFor": [{"resource": "pods", "name": "driver-check",
                             "uid": str(uuid.uuid4())}],
        }
        stored: Obj = await self.cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
        return stored

    def _ids(self, claims: list[Obj]) -> list[Any]:
        pb = self.state.service.messages
        return [pb.Claim(namespace=c["metadata"]["namespace"], uid=c["metadata"]["uid"],
                         name=c["metadata"]["name"]) for c in claims]

    async def _prepare(self, claims: list[Obj]) -> dict[str, list[tuple[str, str]]]:
        service = self.state.service
        call = service.node_prepare_resources.client(self.state.channel)
        response = await call(service.messages.NodePrepareResourcesRequest(
            claims=self._ids(claims)), timeout=45)
        out = {}
        for claim in claims:
            uid = claim["metadata"]["uid"]
            if uid not in response.claims:
                raise _CheckFailedError(f"no result for claim {claim['metadata']['name']}")
            entry = response.claims[uid]
            if entry.error:
                raise _CheckFailedError(f"claim {claim['metadata']['name']}: {entry.error}")
            out[uid] = sorted((d.pool_name, d.device_name) for d in entry.devices)
        return out

    async def _unprepare(self, refs: list[Any]) -> None:
        service = self.state.service
        call = service.node_unprepare_resources.client(self.state.channel)
        response = await call(service.messages.NodeUnprepareResourcesRequest(claims=refs),
                              timeout=45)
        for ref in refs:
            if ref.uid not in response.claims:
                raise _CheckFailedError(f"no result for claim {ref.name}")
            if response.claims[ref.uid].error:
                raise _CheckFailedError(f"claim {ref.name}: {response.claims[ref.uid].error}")

    async def _ensure_class(self) -> None:
        body = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": self.state.driver},
                "spec": {"selectors": [{"cel": {
                    "expression": f'device.driver == "{self.state.driver}"'}}]}}
        await self.cluster.client.apply(DEVICE_CLASSES, body=body, force=True)

    async def prepare(self) -> str:
        await self._ensure_class()
        self.state.claim = await self._claim(self.state.devices[0])
        got = await self._prepare([self.state.claim])
        devices = got[self.state.claim["metadata"]["uid"]]
        if devices != [self.state.devices[0]]:
            raise _CheckFailedError(f"devices {devices}, allocated {[self.state.devices[0]]}")
        return f"{devices[0][0]}/{devices[0][1]}"

    async def prepare_idempotency(self) -> str:
        first = await self._prepare([self.state.claim])
        second = await self._prepare([self.state.claim])
        if first != second:
            raise _CheckFailedError(f"first {first}, then {second}")
        return "same devices"

    async def prepare_concurrency(self) -> str:
        devices = self.state.devices[1:5] or self.state.devices[:1]
        self.state.more_claims = [await self._claim(d) for d in devices]
        await asyncio.gather(*(self._prepare([c]) for c in self.state.more_claims))
        return f"{len(self.state.more_claims)} concurrent call(s)"

    async def unprepare(self) -> str:
        claims = [self.state.claim, *self.state.more_claims]
        refs = self._ids(claims)
        await self._unprepare(refs)
        await self._unprepare(refs)
        for claim in claims:  # their devices are free for the pod check
            await self.cluster.client.delete(
                RESOURCE_CLAIMS, namespace=_NAMESPACE, name=claim["metadata"]["name"])
        return f"{len(refs)} claim(s)"

    async def unprepare_unknown(self) -> str:
        pb = self.state.service.messages
        await self._unprepare([pb.Claim(namespace=_NAMESPACE, uid=str(uuid.uuid4()),
                                        name="never-prepared")])
        return ""

    async def health_stream(self) -> str:
        import grpc

        from fakeapi.kubelet.plugins.services import HEALTH_SERVICES

        for service in HEALTH_SERVICES:
            stream = service.node_watch_resources.client(self.state.channel)(
                service.messages.NodeWatchResourcesRequest(), timeout=self.timeout)
            try:
                async for message in stream:
                    listed = {(d.device.pool_name, d.device.device_name) for d in message.devices}
                    unknown = listed - set(self.state.devices)
                    stream.cancel()
                    if unknown:
                        raise _CheckFailedError(f"{service.name}: devices not in the slices: "
                                      f"{sorted(unknown)[:3]}")
                    return f"{service.name}: {len(listed)} device(s)"
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                    continue
                detail = f"{service.name}: {exc.code().name}: {exc.details()}"
                raise _CheckFailedError(detail) from None
            raise _CheckFailedError(f"{service.name}: the stream ended without a message")
        raise _CheckSkippedError("the driver implements no health service")

    async def pod_end_to_end(self) -> str:
        client = self.cluster.client
        name = f"driver-check-{uuid.uuid4().hex[:6]}"
        request = {"name": "req", "exactly": {"deviceClassName": self.state.driver}}
        await client.create(
            RESOURCE_CLAIM_TEMPLATES, namespace=_NAMESPACE,
            body={"metadata": {"name": name},
                  "spec": {"spec": {"devices": {"requests": [request]}}}},
        )
        await client.create(PODS, namespace=_NAMESPACE, body={
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "busybox",
                                     "resources": {"claims": [{"name": "dev"}]}}],
                     "resourceClaims": [{"name": "dev", "resourceClaimTemplateName": name}]}})

        async def running() -> bool:
            pod = await client.get(PODS, namespace=_NAMESPACE, name=name)
            return (pod.get("status") or {}).get("phase") == "Running"

        await _until(running, self.timeout, f"pod {name} Running")
        prepared = dict(self.kubelet.prepared_claims())
        if not prepared:
            raise _CheckFailedError("the pod runs but the kubelet has no prepared claim")
        await client.delete(PODS, namespace=_NAMESPACE, name=name)

        async def unprepared() -> bool:
            return not set(prepared) & set(self.kubelet.prepared_claims())

        await _until(unprepared, self.timeout, "the pod's claim unprepared")
        return f"CDI {', '.join(i for ids in prepared.values() for i in ids) or '(none)'}"

    async def restart_survival(self) -> str:
        claim = await self._claim(self.state.devices[0])
        await self._prepare([claim])
        watcher = self.kubelet.plugins.watcher
        before = sum(o.registered for o in watcher.history)
        (process,) = self.cluster.driver_processes[_NODE]
        starts = process.starts
        process.kill()

        async def restarted() -> bool:
            registered = sum(bool(o.registered) for o in watcher.history)
            return bool(process.starts > starts and registered > before)

        await _until(restarted, self.timeout, "the driver registered again after a restart")
        await _until(self._own_slices, self.timeout, "slices after the restart")
        await self._unprepare(self._ids([claim]))
        return f"restarted (exit codes {process.exits})"


async def run_driver_check(
    command: str, *, driver: str | None = None, timeout: float = 30.0
) -> list[CheckResult]:
    """Run the checks on ``command`` (see the module docstring); the results in order."""
    from fakeapi.cluster.assembler import Cluster  # late for start-up time

    root = tempfile.mkdtemp(prefix="fakeapi-check-")
    cluster = Cluster(
        nodes=1, profiles=(), kubelet_root_dir=Path(root) / "kubelet", driver_commands=[command],
        stages="fast",
        component_options={"kubelets": {"plugin_poll_interval": 0.1, "slice_wiping_delay": 5.0}},
    )
    checker = _Checker(cluster, driver=driver, timeout=timeout)
    try:
        await cluster.start()
        await checker.run("registration", checker.registration)
        await checker.run("slice publication", checker.slice_publication, needs=("registration",))
        await checker.run("pool consistency", checker.pool_consistency,
                          needs=("slice publication",))
        await checker.run("prepare", checker.prepare, needs=("slice publication",))
        await checker.run("prepare idempotency", checker.prepare_idempotency, needs=("prepare",))
        await checker.run("prepare concurrency", checker.prepare_concurrency, needs=("prepare",))
        await checker.run("unprepare", checker.unprepare, needs=("prepare",))
        await checker.run("unprepare unknown claim", checker.unprepare_unknown,
                          needs=("registration",))
        await checker.run("health stream", checker.health_stream, needs=("slice publication",))
        await checker.run("pod end to end", checker.pod_end_to_end, needs=("prepare",))
        await checker.run("restart survival", checker.restart_survival, needs=("prepare",))
    finally:
        if checker.state.channel is not None:
            await checker.state.channel.close()
        with contextlib.suppress(Exception):
            await cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
    return checker.results


def main(command: str, *, driver: str | None, timeout: float) -> int:
    """The command's body: run, print the table, exit 1 when a check failed."""
    results = asyncio.run(run_driver_check(command, driver=driver, timeout=timeout))
    sys.stdout.write(format_table(results))
    return 1 if any(r.result == FAIL for r in results) else 0
