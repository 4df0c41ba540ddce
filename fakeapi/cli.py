"""``fakeapi`` command line: ``fakeapi serve`` runs the API server (like kube-apiserver)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence

from fakeapi.kubeconfig import write_kubeconfig

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fakeapi", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the API server only")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=6443, help="port (0 picks a free one)")
    serve.add_argument("--kubeconfig", help="write a kubeconfig for this server here")
    serve.add_argument(
        "--feature-gates", default="", help="comma-separated Gate=true|false pairs, as upstream"
    )
    return parser


async def _serve(args: argparse.Namespace) -> int:
    from fakeapi.bootstrap import new_registry
    from fakeapi.features import parse_feature_gates
    from fakeapi.server.runner import ApiServer

    try:
        gates = parse_feature_gates(args.feature_gates)
    except ValueError as exc:
        print(f"fakeapi: --feature-gates: {exc}", file=sys.stderr)
        return 2
    registry = new_registry(feature_gates=gates)
    server = ApiServer(registry=registry, host=args.host, port=args.port)
    await server.start()
    if args.kubeconfig:
        write_kubeconfig(args.kubeconfig, server=server.url)
    print(f"fakeapi serving at {server.url}", flush=True)
    if args.kubeconfig:
        print(f"kubeconfig written to {args.kubeconfig}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return asyncio.run(_serve(args))
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
