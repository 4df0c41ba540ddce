"""A DRA driver in Python, run as its own process against a fakeapi node — the tests' stand-in for
a vendor's driver binary.

It does what a driver built on upstream's ``kubeletplugin`` helper does, with nothing of
fakeapi's kubelet in it (only the service definitions, to speak the same protobuf):

- serves ``pluginregistration.Registration`` on ``<registry>/<driver>-reg.sock`` (type
  ``DRAPlugin``, endpoint ``<plugins>/<driver>/dra.sock``, the v1 and v1beta1 DRA services and
  the v1 health service), and the DRA and health services on the endpoint;
- publishes one ResourceSlice for its node over HTTP with the kubeconfig it is given, owned by
  the Node, and publishes it again whenever it is gone (a restarted kubelet wipes the node's);
- prepares a claim by reading it over HTTP and answering with its devices and a CDI device ID
  ``example.com/gpu=<device>`` each; unprepare forgets it; both are idempotent;
- streams every device's health each ``--health-interval`` seconds.

Tests steer it through ``<plugins>/<driver>/control.json`` (read at every call and health tick):
``{"unhealthy": {"gpu-0": "ECC error"}, "fail_prepare": "message"}``; every call it receives is
appended to ``calls.jsonl`` beside it. ``--broken`` makes it misbehave the way driver-check must
catch: prepare is not idempotent, unprepare of an unknown claim fails, it has no health service
and it publishes a pool whose slice count is wrong.

Run: ``python example_driver.py --driver gpu.example.com --node node-1 --registry-dir DIR
--plugins-dir DIR --kubeconfig PATH``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import grpc
import httpx
import yaml

from fakeapi.kubelet.plugins.services import (
    DRA_PLUGIN_TYPE,
    DRA_V1,
    DRA_V1BETA1,
    HEALTH_V1,
    REGISTRATION,
    generic_handler,
)

SLICES = "/apis/resource.k8s.io/v1/resourceslices"
CLAIMS = "/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/{name}"


class Driver:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.name: str = args.driver
        self.node: str = args.node
        self.plugin_dir = Path(args.plugins_dir) / self.name
        self.registration = Path(args.registry_dir) / f"{self.name}-reg.sock"
        self.endpoint = self.plugin_dir / "dra.sock"
        self.devices = [f"gpu-{i}" for i in range(args.devices)]
        self.prepared: dict[str, list[str]] = {}
        self.registered = asyncio.Event()
        config = yaml.safe_load(Path(args.kubeconfig).read_text())
        server = config["clusters"][0]["cluster"]["server"]
        self.http = httpx.AsyncClient(base_url=server, timeout=10)

    # --- control and records -------------------------------------------------------------------
    def control(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.plugin_dir / "control.json").read_text()))
        except (FileNotFoundError, ValueError):
            return {}

    def record(self, call: str, **fields: Any) -> None:
        with open(self.plugin_dir / "calls.jsonl", "a") as out:
            out.write(json.dumps({"call": call, **fields}) + "\n")

    # --- registration ----------------------------------------------------------------------------
    async def get_info(self, request: Any, context: Any) -> Any:
        versions = [DRA_V1.name, DRA_V1BETA1.name]
        if not self.args.broken:
            versions.append(HEALTH_V1.name)
        return REGISTRATION.messages.PluginInfo(
            type=DRA_PLUGIN_TYPE, name=self.name, endpoint=str(self.endpoint),
            supported_versions=versions,
        )

    async def notify(self, request: Any, context: Any) -> Any:
        self.record("NotifyRegistrationStatus", registered=request.plugin_registered,
                    error=request.error)
        if request.plugin_registered:
            self.registered.set()
        return REGISTRATION.messages.RegistrationStatusResponse()

    # --- DRA ------------------------------------------------------------------------------------
    async def _claim(self, namespace: str, name: str) -> dict[str, Any]:
        response = await self.http.get(CLAIMS.format(namespace=namespace, name=name))
        response.raise_for_status()
        return dict(response.json())

    def _prepare(self, service: Any) -> Any:
        pb = service.messages

        async def prepare(request: Any, context: Any) -> Any:
            uids = [c.uid for c in request.claims]
            self.record("NodePrepareResources", claims=uids, service=service.name)
            failure = self.control().get("fail_prepare")
            response = pb.NodePrepareResourcesResponse()
            for ref in request.claims:
                entry = response.claims[ref.uid]
                if failure:
                    entry.error = str(failure)
                    continue
                if self.args.broken and ref.uid in self.prepared:
                    entry.error = "claim is already prepared"
                    continue
                try:
                    claim = await self._claim(ref.namespace, ref.name)
                except httpx.HTTPError as exc:
                    entry.error = f"fetch claim: {exc}"
                    continue
                if claim["metadata"].get("uid") != ref.uid:
                    entry.error = f"claim {ref.name} has another UID"
                    continue
                results = ((claim.get("status") or {}).get("allocation") or {}).get(
                    "devices", {}).get("results") or []
                mine = [r for r in results if r.get("driver") == self.name]
                for result in mine:
                    entry.devices.add(
                        request_names=[result["request"]], pool_name=result["pool"],
                        device_name=result["device"],
                        cdi_device_ids=[f"example.com/gpu={result['device']}"],
                    )
                self.prepared[ref.uid] = [r["device"] for r in mine]
            return response

        return prepare

    def _unprepare(self, service: Any) -> Any:
        pb = service.messages

        async def unprepare(request: Any, context: Any) -> Any:
            self.record("NodeUnprepareResources", claims=[c.uid for c in request.claims],
                        service=service.name)
            response = pb.NodeUnprepareResourcesResponse()
            for ref in request.claims:
                entry = response.claims[ref.uid]
                if ref.uid not in self.prepared and self.args.broken:
                    entry.error = f"claim {ref.uid} is unknown"
                    continue
                self.prepared.pop(ref.uid, None)
            return response

        return unprepare

    async def watch_health(self, request: Any, context: Any) -> Any:
        pb = HEALTH_V1.messages
        while True:
            unhealthy = self.control().get("unhealthy") or {}
            message = pb.NodeWatchResourcesResponse()
            for device in self.devices:
                message.devices.add(
                    device=pb.DeviceIdentifier(pool_name=self.node, device_name=device),
                    health=pb.UNHEALTHY if device in unhealthy else pb.HEALTHY,
                    last_updated_time=int(time.time()),
                    message=str(unhealthy.get(device, "")),
                )
            yield message
            await asyncio.sleep(self.args.health_interval)

    # --- publishing -------------------------------------------------------------------------------
    def _slice(self, owner_uid: str) -> dict[str, Any]:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {
                "name": f"{self.node}-{self.name}",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": self.node,
                                     "uid": owner_uid, "controller": True}],
            },
            "spec": {
                "driver": self.name,
                "nodeName": self.node,
                "pool": {"name": self.node, "generation": 1,
                         # broken: the pool claims two slices but has one
                         "resourceSliceCount": 2 if self.args.broken else 1},
                "devices": [{"name": d, "attributes": {"index": {"int": i}}}
                            for i, d in enumerate(self.devices)],
            },
        }

    async def publish_forever(self) -> None:
        name = f"{self.node}-{self.name}"
        while True:
            try:
                response = await self.http.get(f"{SLICES}/{name}")
                if response.status_code == 404:
                    node = await self.http.get(f"/api/v1/nodes/{self.node}")
                    node.raise_for_status()
                    created = await self.http.post(
                        SLICES, json=self._slice(node.json()["metadata"]["uid"]))
                    if created.status_code not in (201, 409):
                        print("publishing failed:", created.status_code, created.text,
                              flush=True)
            except httpx.HTTPError as exc:
                print("publishing failed:", exc, flush=True)
            await asyncio.sleep(0.2)

    # --- serving ----------------------------------------------------------------------------------
    async def run(self) -> None:
        self.plugin_dir.mkdir(parents=True, exist_ok=True)
        for path in (self.registration, self.endpoint):
            if path.exists():
                path.unlink()
        dra = grpc.aio.server()
        for service in (DRA_V1, DRA_V1BETA1):
            dra.add_generic_rpc_handlers((generic_handler(service.name, {
                service.node_prepare_resources: self._prepare(service),
                service.node_unprepare_resources: self._unprepare(service),
            }),))
        if not self.args.broken:
            dra.add_generic_rpc_handlers((generic_handler(
                HEALTH_V1.name, {HEALTH_V1.node_watch_resources: self.watch_health}),))
        dra.add_insecure_port(f"unix:{self.endpoint}")
        await dra.start()
        registration = grpc.aio.server()
        registration.add_generic_rpc_handlers((generic_handler(REGISTRATION.name, {
            REGISTRATION.get_info: self.get_info,
            REGISTRATION.notify_registration_status: self.notify,
        }),))
        registration.add_insecure_port(f"unix:{self.registration}")
        await registration.start()
        print(f"{self.name} on {self.node}: serving", flush=True)
        publisher = asyncio.get_running_loop().create_task(self.publish_forever())
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        publisher.cancel()
        # as the kubeletplugin helper: the registration socket goes first
        await registration.stop(None)
        await dra.stop(None)
        for path in (self.registration, self.endpoint):
            if path.exists():
                path.unlink()
        await self.http.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", default="gpu.example.com")
    parser.add_argument("--node", default=os.environ.get("NODE_NAME", ""))
    parser.add_argument("--registry-dir", default=os.environ.get("KUBELET_REGISTRATION_DIR"))
    parser.add_argument("--plugins-dir", default=os.environ.get("KUBELET_PLUGINS_DIR"))
    parser.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"))
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--health-interval", type=float, default=0.2)
    parser.add_argument("--broken", action="store_true")
    asyncio.run(Driver(parser.parse_args()).run())


if __name__ == "__main__":
    main()
