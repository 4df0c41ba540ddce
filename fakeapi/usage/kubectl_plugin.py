"""``kubectl dra``: the KEP-5677 usage view as a kubectl plugin (console script ``kubectl-dra``).

kubectl runs any ``kubectl-<name>`` found on PATH for ``kubectl <name>``, passing the remaining
arguments and the environment through, so the plugin reads the kubeconfig exactly as kubectl
does (``--kubeconfig``, ``$KUBECONFIG``, ``--context``) and talks plain REST over
:class:`~fakeapi.client.HttpTransport`: it works against fakeapi and against any real cluster.

What it reads: every ResourceSlice, the ResourceClaims and Pods of all namespaces (or, when that
is forbidden, of the context's namespace only), and the ResourcePools and DeviceTaintRules if the
server serves them and the reader may list them. The join happens in
:func:`fakeapi.rules.pools.pool_usage`; per device, ``pool`` and ``node`` also show its health
as the pods using it report it (KEP-4680), the taints in force on it, and who holds the claims
it is allocated to (:mod:`fakeapi.usage.holders`: pods, a KEP-5194 workload, a PodGroup).
Tables follow kubectl's printer: upper-case headers, columns padded and separated by three
spaces, ``No resources found`` on stderr when there is nothing to show.

::

    kubectl dra pools                 # per pool: driver, node, total, allocated, available, ...
    kubectl dra pool gpu.example.com.node-1   # per device: state, health, taints, claim, holder
    kubectl dra node node-1 -o yaml
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import Any

import httpx
import orjson
import yaml

from fakeapi.client import (
    DEVICE_TAINT_RULES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
    Client,
    HttpTransport,
    Resource,
    StatusError,
)
from fakeapi.kubeconfig import KubeconfigError, load_kubeconfig
from fakeapi.objects import meta, text
from fakeapi.rules.pools import PoolUsage, pool_usage
from fakeapi.usage.holders import DeviceHealth, DeviceKey, claim_consumers, device_health

__all__ = ["ClusterView", "format_table", "main", "read_cluster"]

_FIELD_MANAGER = "kubectl-dra"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """kubectl's table printer: columns padded to their widest cell, three spaces apart."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    lines = [
        "   ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [list(header), *rows]
    ]
    return "\n".join(lines) + "\n"


class ClusterView:
    """Slices, readable claims and ResourcePools as read from one cluster."""

    def __init__(
        self,
        *,
        slices: list[dict[str, Any]],
        claims: list[dict[str, Any]],
        resource_pools: list[dict[str, Any]],
        claims_namespace: str | None,
        taint_rules: list[dict[str, Any]] | None = None,
        pods: list[dict[str, Any]] | None = None,
    ) -> None:
        self.slices = slices
        self.claims = claims
        self.resource_pools = resource_pools
        self.taint_rules = taint_rules or []
        #: the pods read (for device health), of the same namespaces as the claims
        self.pods = pods or []
        #: None when claims of all namespaces were read; the one namespace read otherwise
        self.claims_namespace = claims_namespace

    def pools(self) -> list[PoolUsage]:
        # Claims of every namespace are the truth; a ResourcePool's counts lag behind them (its
        # controller is rate-limited), so they only fill in what a partial claim list hides.
        partial = self.claims_namespace is not None
        return pool_usage(
            slices=self.slices,
            claims=self.claims,
            resource_pools=self.resource_pools if partial else (),
            taint_rules=self.taint_rules,
        )

    def health(self) -> dict[DeviceKey, DeviceHealth]:
        """Per device in use, the health its pods report."""
        return device_health(pods=self.pods, claims=self.claims)

    def holders(self) -> dict[str, list[str]]:
        """Claim ``namespace/name`` → who it is reserved for."""
        return {
            f"{text(meta(c).get('namespace'))}/{text(meta(c).get('name'))}": claim_consumers(c)
            for c in self.claims
        }


async def read_cluster(client: Client, *, namespace: str) -> ClusterView:
    """Read what the usage view needs; claims fall back to ``namespace`` on 403."""
    slices = (await client.list_all(RESOURCE_SLICES)).items
    claims_namespace: str | None = None
    try:
        claims = (await client.list_all(RESOURCE_CLAIMS)).items
    except StatusError as exc:
        if exc.code != 403:
            raise
        claims_namespace = namespace
        claims = (await client.list_all(RESOURCE_CLAIMS, namespace=namespace)).items
    try:
        pods = (await client.list_all(PODS, namespace=claims_namespace)).items
    except StatusError as exc:
        if exc.code != 403:
            raise
        pods = (await client.list_all(PODS, namespace=namespace)).items
    return ClusterView(
        slices=slices,
        claims=claims,
        resource_pools=await _list_if_readable(client, RESOURCE_POOLS),
        claims_namespace=claims_namespace,
        taint_rules=await _list_if_readable(client, DEVICE_TAINT_RULES),
        pods=pods,
    )


async def _list_if_readable(client: Client, resource: Resource) -> list[dict[str, Any]]:
    """Every object of ``resource``; none when the server does not serve it or forbids it."""
    try:
        return (await client.list_all(resource)).items
    except StatusError as exc:
        if exc.code not in (403, 404):
            raise
        return []


def _pools_table(pools: Sequence[PoolUsage]) -> str:
    header = ["NAME", "DRIVER", "POOL", "NODE", "TOTAL", "ALLOCATED", "AVAILABLE", "UNAVAILABLE"]
    rows = [
        [
            p.name,
            p.driver,
            p.pool,
            p.node or "<none>",
            str(p.total),
            str(p.allocated),
            str(p.available),
            str(p.unavailable),
        ]
        for p in pools
    ]
    return format_table(header, rows)


def _devices_table(pools: Sequence[PoolUsage], view: ClusterView) -> str:
    header = ["POOL", "DEVICE", "STATE", "HEALTH", "TAINTS", "ALLOCATED TO", "RESERVED FOR"]
    health, holders = view.health(), view.holders()
    rows: list[list[str]] = []
    for pool in pools:
        for device in pool.devices:
            if device.claims:
                holder = ",".join(device.claims)
            elif device.reason:
                holder = f"<{device.reason}>"
            else:
                holder = "<none>"
            reported = health.get((pool.driver, pool.pool, device.name))
            reserved = [who for claim in device.claims for who in holders.get(claim, ())]
            rows.append([
                pool.name,
                device.name,
                device.state,
                reported.health if reported else "<none>",
                ",".join(device.taints) or "<none>",
                holder,
                ",".join(dict.fromkeys(reserved)) or "<none>",
            ])
    return format_table(header, rows)


def _document(pools: Sequence[PoolUsage], view: ClusterView) -> dict[str, Any]:
    """``-o json|yaml``: the pools, each device with its health and its claims' holders."""
    health, holders = view.health(), view.holders()
    items = []
    for pool in pools:
        item = pool.to_dict()
        for device, entry in zip(pool.devices, item["devices"], strict=True):
            reported = health.get((pool.driver, pool.pool, device.name))
            if reported is not None:
                entry["health"] = reported.health
                if reported.message:
                    entry["healthMessage"] = reported.message
            reserved = [who for claim in device.claims for who in holders.get(claim, ())]
            if reserved:
                entry["reservedFor"] = list(dict.fromkeys(reserved))
        items.append(item)
    return {"kind": "PoolUsageList", "items": items}


def _emit(
    pools: Sequence[PoolUsage], view: ClusterView, *, output: str, per_device: bool
) -> None:
    if output in ("json", "yaml"):
        document = _document(pools, view)
        if output == "json":
            sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            sys.stdout.write(yaml.safe_dump(document, sort_keys=False))
        return
    if not pools:
        print("No resources found", file=sys.stderr)
        return
    sys.stdout.write(_devices_table(pools, view) if per_device else _pools_table(pools))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubectl dra",
        description="Show how the devices of DRA pools are used (KEP-5677), computed from "
        "ResourceSlices and the ResourceClaims you can read.",
    )
    parser.add_argument("--kubeconfig", help="path to the kubeconfig file to use")
    parser.add_argument("--context", help="the name of the kubeconfig context to use")
    parser.add_argument(
        "-n", "--namespace", help="namespace to read claims from when listing all is forbidden"
    )
    parser.add_argument(
        "-o", "--output", choices=["json", "yaml"], help="output format (default: a table)"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("pools", help="one line per pool: driver, node and device counts")
    pool = sub.add_parser(
        "pool", help="one line per device of a pool: state, health, taints, claim and holder"
    )
    pool.add_argument("name", help="a ResourcePool name (<driver>.<pool>) or a pool name")
    node = sub.add_parser("node", help="one line per device of the pools local to a node")
    node.add_argument("name", help="the node name")
    for command in (sub.choices["pools"], pool, node):
        # kubectl users put flags after the command as often as before it
        command.add_argument("-o", "--output", choices=["json", "yaml"], default=argparse.SUPPRESS)
        command.add_argument("--kubeconfig", default=argparse.SUPPRESS)
        command.add_argument("--context", default=argparse.SUPPRESS)
        command.add_argument("-n", "--namespace", default=argparse.SUPPRESS)
    return parser


def _select(args: argparse.Namespace, pools: list[PoolUsage]) -> list[PoolUsage]:
    if args.command == "pool":
        return [p for p in pools if args.name in (p.name, p.pool)]
    if args.command == "node":
        return [p for p in pools if p.node == args.name]
    return pools


async def _run(args: argparse.Namespace) -> int:
    access = load_kubeconfig(args.kubeconfig, context=args.context)
    transport = HttpTransport(access.server, token=access.token, verify=access.ssl_context())
    async with Client(transport, field_manager=_FIELD_MANAGER) as client:
        view = await read_cluster(client, namespace=args.namespace or access.namespace)
    pools = _select(args, view.pools())
    if args.command == "pool" and not pools:
        print(f'error: pool "{args.name}" not found', file=sys.stderr)
        return 1
    _emit(pools, view, output=args.output or "", per_device=args.command != "pools")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(_run(args))
    except KubeconfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except StatusError as exc:
        print(f"Error from server ({exc.reason}): {exc.message}", file=sys.stderr)
    except httpx.TransportError as exc:
        print(f"error: cannot reach the cluster: {exc or type(exc).__name__}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
