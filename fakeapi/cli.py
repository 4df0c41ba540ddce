"""``fakeapi`` command line.

- ``fakeapi serve`` runs the API server alone (like kube-apiserver with in-memory storage).
- ``fakeapi sandbox`` runs a whole cluster: API server, controllers, scheduler and simulated nodes
  with DRA drivers, merged into a kubeconfig the way kind does, until Ctrl-C. With
  ``--kubelet-root-dir`` / ``--driver-command`` the nodes take real DRA drivers over the kubelet's
  plugin gRPC APIs (docs/kubelet.md). Your own code runs inside it: ``--component
  module:factory`` (a controller, an operator), ``--scheduler-plugin module:Plugin`` and
  ``--scheduler-config FILE`` (a KubeSchedulerConfiguration), ``--profile FILE`` (a driver
  profile, which may name a Python behaviour class) and ``--stages PATH``.
- ``fakeapi driver-check CMD`` runs a driver binary through a conformance check and prints a
  pass/fail table (:mod:`fakeapi.cluster.driver_check`).
- ``fakeapi profiles`` lists the shipped driver profiles; ``fakeapi profiles show NAME`` prints
  one (:mod:`fakeapi.commands.profiles`).

Start-up failures (a taken port, a bad manifest under ``--load``) are one line on stderr and exit
status 1; bad flags exit 2, as argparse does. The sandbox assembles its cluster through
``fakeapi.cluster``, imported only when the command runs: the core package never depends on the
components.

Both commands hold the cyclic garbage collector off until the server is ready: start-up allocates
several hundred thousand objects that all stay alive, and the collections they would trigger
cost tens of milliseconds while freeing nothing. Once ready, what exists is frozen (left out of
every later collection, including those of interpreter shutdown, which makes Ctrl-C about 0.13 s
faster) and collection resumes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from fakeapi.kubeconfig import (
    default_kubeconfig_paths,
    merge_kubeconfig,
    unmerge_kubeconfig,
    write_kubeconfig,
)

__all__ = ["main", "tune_collector"]

SANDBOX_CONTEXT = "fakeapi"
_STREAM_CONFIG_HELP = (
    "kwok-style ClusterLogs/ClusterExec/ClusterAttach/ClusterPortForward YAML saying where pods' "
    "logs, exec, attach and port-forward go (local files, commands and ports; repeatable; off "
    "without it: docs/sandbox.md)"
)
_FEATURE_GATES_HELP = "comma-separated Gate=true|false pairs, as upstream (DRAAdminAccess=false)"
_EMULATED_VERSION_HELP = (
    "the Kubernetes release to behave as: 1.36 or 1.37 (default): its API versions and its "
    "feature-gate defaults"
)
_RUNTIME_CONFIG_HELP = (
    "switch API group-versions off or on, as kube-apiserver: resource.k8s.io/v1beta1=false "
    "(also api/all, api/alpha, api/beta, api/ga)"
)


def _add_version_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--emulated-version", default="", help=_EMULATED_VERSION_HELP)
    parser.add_argument("--runtime-config", default="", help=_RUNTIME_CONFIG_HELP)


_DATA_DIR_HELP = (
    "keep the cluster's objects in this directory: every acknowledged write survives a restart "
    "(or a kill -9) and is restored on the next start with the same directory"
)


def _add_security_flags(parser: argparse.ArgumentParser) -> None:
    """kube-apiserver's authentication, authorization and TLS flags, all off by default (read by
    :mod:`fakeapi.commands.security`; docs/sandbox.md, "A secure setup")."""
    group = parser.add_argument_group("authentication and authorization (off by default)")
    group.add_argument(
        "--authorization-mode", default="", metavar="MODES",
        help="authorize requests with these modes, in order: AlwaysAllow, RBAC, Node "
        "(e.g. RBAC,Node); the written kubeconfig then carries an admin identity",
    )
    group.add_argument("--token-auth-file", metavar="FILE",
                       help="CSV of bearer tokens: token,user,uid,\"group1,group2\"")
    group.add_argument("--tls-cert-file", metavar="FILE",
                       help="serve HTTPS with this certificate (PEM, with its chain)")
    group.add_argument("--tls-private-key-file", metavar="FILE",
                       help="the private key of --tls-cert-file")
    group.add_argument("--client-ca-file", metavar="FILE",
                       help="CA whose client certificates authenticate users (CN user, O groups)")
    group.add_argument("--anonymous-auth", default="true", metavar="true|false",
                       help="whether requests without credentials are system:anonymous "
                       "(default true) or refused with 401")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fakeapi", description="A hermetic Kubernetes control plane for DRA."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = sub.add_parser("serve", help="run the API server only", description="Run the API "
                           "server only: no controllers, scheduler or nodes.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=6443, help="port (0 picks a free one)")
    serve.add_argument("--kubeconfig", help="write a kubeconfig for this server here")
    serve.add_argument("--feature-gates", default="", help=_FEATURE_GATES_HELP)
    _add_version_flags(serve)
    serve.add_argument("--data-dir", help=_DATA_DIR_HELP)
    serve.add_argument("--stream-config", action="append", default=[], metavar="PATH",
                       help=_STREAM_CONFIG_HELP)
    _add_security_flags(serve)

    sandbox = sub.add_parser(
        "sandbox",
        help="run a whole cluster: API server, controllers, scheduler, simulated nodes",
        description="Run a whole DRA cluster in this process: the API server, the controllers, "
        "the scheduler and simulated nodes whose DRA drivers publish ResourceSlices. A "
        f'"{SANDBOX_CONTEXT}" cluster, user and context are merged into the kubeconfig (other '
        "entries are kept) and made current; on exit they are removed again and the previous "
        "context is restored. Ctrl-C (or SIGTERM) stops the sandbox.",
        epilog="example: fakeapi sandbox --nodes 2 --profile gpu --profile partitionable "
        "--load ./manifests --component my_operator:new_operator",
    )
    sandbox.add_argument(
        "--nodes", type=int, default=4, metavar="N",
        help="simulated nodes to start (default 4); 0 runs only the API server, controllers "
        "and scheduler, so that nodes and ResourceSlices you create by hand are used",
    )
    sandbox.add_argument(
        "--profile", action="append", dest="profiles", metavar="NAME|FILE",
        help="driver profile of every node: a shipped one's name or a profile YAML file "
        "(repeatable; default gpu). fakeapi profiles lists the shipped ones; fakeapi profiles "
        "show gpu prints one to start your own from",
    )
    sandbox.add_argument("--feature-gates", default="", help=_FEATURE_GATES_HELP)
    _add_version_flags(sandbox)
    sandbox.add_argument("--data-dir", help=_DATA_DIR_HELP)
    sandbox.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    sandbox.add_argument("--port", type=int, default=6443,
                         help="port to listen on (default 6443; 0 picks a free one)")
    sandbox.add_argument(
        "--kubeconfig", metavar="PATH",
        help="kubeconfig to merge the sandbox context into (default: the first file of "
        "$KUBECONFIG, else ~/.kube/config)",
    )
    sandbox.add_argument(
        "--load", action="append", default=[], metavar="PATH",
        help="a manifest file or a directory of manifests to apply once the cluster is ready "
        "(repeatable; applied in order). Objects of a kind the sandbox does not serve are "
        "listed with their file and line and left out; the rest is applied",
    )
    sandbox.add_argument(
        "--strict", action="store_true",
        help="with --load: refuse the whole load (exit status 1) when an object's kind is not "
        "served, before anything is applied",
    )
    sandbox.add_argument("--stream-config", action="append", default=[], metavar="PATH",
                         help=_STREAM_CONFIG_HELP)
    sandbox.add_argument(
        "--kubelet-root-dir", metavar="DIR",
        help="give node-i the kubelet directory DIR/node-i (plugins_registry/, plugins/) where "
        "real DRA drivers register over the kubelet's plugin gRPC APIs",
    )
    sandbox.add_argument(
        "--driver-command", action="append", default=[], dest="driver_commands", metavar="CMD",
        help="run CMD once per node as a DaemonSet would, restarted when it exits; placeholders "
        "{node}, {root_dir}, {registry_dir}, {plugins_dir}, {kubeconfig} (also in the "
        "environment: NODE_NAME, KUBELET_REGISTRATION_DIR, KUBELET_PLUGINS_DIR, KUBECONFIG); "
        "repeatable. Without --kubelet-root-dir the directories are temporary",
    )
    sandbox.add_argument("--seed", type=int, default=0,
                         help="seed of the simulated components' randomness (default 0)")
    sandbox.add_argument(
        "-v", "--verbose", action="count", default=0,
        help="stream what the components do, one line per step, on stderr: pods scheduled, "
        "claims allocated, devices prepared or turned unhealthy, gangs waiting, every Event "
        "(-vv: debug lines too)",
    )
    sandbox.add_argument(
        "--log-format", choices=("text", "json"), default=None,
        help="how -v lines look: klog's text format (coloured on a terminal) or its JSON "
        "format, one object per line (implies -v)",
    )
    sandbox.add_argument(
        "--controllers", metavar="LIST",
        help="controllers to run, as kube-controller-manager's flag: '*' is all, 'name' adds "
        "one, '-name' leaves one out (default '*'; with --nodes 0 "
        f"'*,-{_NODE_LIFECYCLE}', since no kubelet renews a hand-made node's lease)",
    )
    sandbox.add_argument(
        "--stages", metavar="PATH",
        help="the simulated kubelets' pod lifecycle stages: a stage YAML file or a directory of "
        "them (default: the shipped stages, with their delays)",
    )
    sandbox.add_argument(
        "--component", action="append", dest="components", default=[], metavar="MODULE:FACTORY",
        help="a component of your own, started after the built-in ones: factory(ctx) returns an "
        "object with async start() and stop() (repeatable; the module must be importable)",
    )
    sandbox.add_argument(
        "--scheduler-plugin", action="append", dest="scheduler_plugins", default=[],
        metavar="MODULE:PLUGIN",
        help="an out-of-tree scheduler plugin: a factory(handle) whose name attribute names the "
        "plugin, enabled after the default plugins unless --scheduler-config places it "
        "(repeatable)",
    )
    sandbox.add_argument(
        "--scheduler-config", metavar="FILE",
        help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) whose profile the "
        "scheduler runs: plugins enabled or disabled per extension point, score weights, "
        "pluginConfig",
    )
    sandbox.add_argument(
        "--split", action="store_true",
        help="run the components (controllers, scheduler, simulated nodes, yours) in a second "
        "process that talks HTTP to this one's API server, as a real cluster's binaries do: "
        "each gets a core of its own",
    )
    _add_security_flags(sandbox)
    profiles = sub.add_parser(
        "profiles",
        help="list the shipped driver profiles, or show one",
        description="List the driver profiles shipped with fakeapi (the simulated DRA drivers' "
        "device models), or print one's YAML to copy it as the start of your own.",
        epilog="example: fakeapi profiles show gpu > my-device.yaml; "
        "fakeapi sandbox --profile ./my-device.yaml",
    )
    profiles_sub = profiles.add_subparsers(dest="profiles_command", metavar="COMMAND")
    show = profiles_sub.add_parser("show", help="print a shipped profile's YAML")
    show.add_argument("name", help="the profile's name (fakeapi profiles lists them)")
    check = profiles_sub.add_parser(
        "check", help="read a profile file as the sandbox would: what it holds, or what is wrong"
    )
    check.add_argument("path", help="the profile's YAML file")
    check = sub.add_parser(
        "driver-check",
        help="check a DRA driver binary against the kubelet's expectations (a pass/fail table)",
        description="Run a DRA driver binary on a one-node fakeapi cluster, as the sandbox's "
        "--driver-command does, and check registration, slice publication and pool "
        "consistency, prepare/unprepare (idempotency, concurrency, unknown claims), the health "
        "stream, a pod end to end and restart survival. Exit status 1 when a check fails.",
        epilog="example: fakeapi driver-check 'my-driver --node-name {node} "
        "--kubelet-registrar-directory-path {registry_dir} --kubelet-plugins-directory-path "
        "{plugins_dir} --kubeconfig {kubeconfig}'",
    )
    check.add_argument("driver_command", nargs="+", metavar="CMD",
                       help="the driver's command line (one quoted string, or its words)")
    check.add_argument("--driver", metavar="NAME",
                       help="the driver name it must register as (default: whatever it says)")
    check.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                       help="how long each check waits for the driver (default 30)")
    return parser


_NODE_LIFECYCLE = "node-lifecycle-controller"


def _controllers(spec: str | None, *, nodes: int) -> tuple[str, ...]:
    """The controllers the sandbox runs (raises ValueError for an unknown name)."""
    # this module's imports are late, for start-up time: `fakeapi --help` loads almost nothing
    from fakeapi.controllers import select_controllers

    if spec is None:
        spec = "*" if nodes else f"*,-{_NODE_LIFECYCLE}"
    return select_controllers(spec)


def _versions(args: argparse.Namespace, command: str) -> tuple[Any, dict[str, bool], Any] | None:
    """(emulated version, runtime config, gates) from the flags, or None after printing why."""
    # late for start-up time, as above
    from fakeapi.features import (
        EMULATED_VERSION,
        EmulatedVersionError,
        FeatureGateError,
        parse_emulated_version,
        parse_feature_gates,
    )
    from fakeapi.resources import RuntimeConfigError, parse_runtime_config

    try:
        version = (
            parse_emulated_version(args.emulated_version)
            if args.emulated_version
            else EMULATED_VERSION
        )
    except EmulatedVersionError as exc:
        print(f"fakeapi {command}: --emulated-version: {exc}", file=sys.stderr)
        return None
    try:
        runtime_config = parse_runtime_config(args.runtime_config)
    except RuntimeConfigError as exc:
        print(f"fakeapi {command}: --runtime-config: {exc}", file=sys.stderr)
        return None
    try:
        gates = parse_feature_gates(args.feature_gates, version=version)
    except FeatureGateError as exc:
        print(f"fakeapi: --feature-gates: {exc}", file=sys.stderr)
        return None
    return version, runtime_config, gates


def _stream_config(paths: Sequence[str]) -> Any:
    """The stream configuration of ``paths`` (None without any); StreamConfigError (a
    ValueError) names the file and field."""
    if not paths:
        return None
    from fakeapi.server.streams import load_stream_config  # late for start-up time

    return load_stream_config(paths)


@contextlib.contextmanager
def _stop_on_signal() -> Iterator[asyncio.Event]:
    """An event set by SIGINT or SIGTERM. Entered before the ready line is printed, so that a
    signal sent as soon as that line is read stops the command cleanly (exit status 0)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        yield stop
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


#: a young collection (which only freezes, see :func:`tune_collector`) every 50 000 net
#: allocations rather than 700: each is a callback and a pass over the generations' lists
GC_THRESHOLDS = (50_000, 20, 100)


#: how often the frozen objects are looked at once more by a full collection
SWEEP_SECONDS = 600.0
_last_sweep = [time.monotonic()]


def _sweep() -> None:
    """A full collection over everything, frozen objects included, then freeze again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _freeze_young(phase: str, info: dict[str, int]) -> None:
    """At the start of an automatic collection of the young generations, move their objects to
    the permanent generation unscanned, so that the collection has nothing left to look at; at
    its end, see whether the periodic sweep is due. An explicit ``gc.collect()`` (the oldest
    generation) is left alone."""
    if info["generation"] > 1:
        return
    if phase == "start":
        gc.freeze()
        return
    now = time.monotonic()
    if now - _last_sweep[0] < SWEEP_SECONDS:
        return
    _last_sweep[0] = now
    try:  # not from inside the collector's callback: once the loop is back in control
        asyncio.get_running_loop().call_soon(_sweep)
    except RuntimeError:  # no loop in this thread: the next young collection on one does it
        _last_sweep[0] = 0.0


def tune_collector() -> None:
    """The collector of ``fakeapi sandbox`` and ``serve`` (and of the benches, which call this):
    :data:`GC_THRESHOLDS`, and the young generations are frozen instead of scanned.

    A control plane's young objects nearly all live on (stored objects, informer caches, queued
    events): the young collections of a whole black-box run (5000 template pods) found no
    garbage at all in 26 collections that took 0.87 s of the sandbox's 18.5 s of CPU, and each
    older generation's collection scans everything that reached it again (a full one over a
    second per million objects). So each automatic young collection first moves the young
    objects to the permanent generation (``gc.freeze()``, which costs nothing per object) and
    then finds nothing to scan. Reference counting still frees every object that is not in a
    cycle, frozen or not; cyclic garbage waits for the sweep: every :data:`SWEEP_SECONDS` a full
    collection looks at every object (about a second per million objects), so a sandbox that
    runs for days does not keep such garbage for good."""
    gc.set_threshold(*GC_THRESHOLDS)
    if _freeze_young not in gc.callbacks:
        gc.callbacks.append(_freeze_young)


@contextlib.contextmanager
def _collect_garbage_once_ready() -> Iterator[Callable[[], None]]:
    """Hold the collector off; the callable yielded freezes what exists, tunes the collector
    (:func:`tune_collector`) and turns it back on."""
    was_enabled = gc.isenabled()
    gc.disable()

    def ready() -> None:
        gc.freeze()
        tune_collector()
        if was_enabled:
            gc.enable()

    try:
        yield ready
    finally:  # frozen objects stay frozen: they live until exit, which then skips them too
        if was_enabled:
            gc.enable()


def _listen_error(exc: OSError, host: str, port: int) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"cannot listen on {host}:{port}: the address is already in use (try --port 0)"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


async def _serve(args: argparse.Namespace, *, ready: Callable[[], None]) -> int:
    # late for start-up time: only the command that runs loads its part
    from fakeapi.bootstrap import new_registry
    from fakeapi.server.runner import ApiServer

    versions = _versions(args, "serve")
    if versions is None:
        return 2
    try:
        streams = _stream_config(args.stream_config)
    except ValueError as exc:
        print(f"fakeapi serve: --stream-config: {exc}", file=sys.stderr)
        return 2
    from fakeapi.commands.security import (
        exposure_warning,
        security_settings,
        serve_security,
        with_serving_certificate,
    )

    security = security_settings(args, command="serve")
    if security is None:
        return 2
    try:
        security = with_serving_certificate(security, host=args.host)
        secured = serve_security(security)
    except (ValueError, OSError) as exc:
        print(f"fakeapi serve: {exc}", file=sys.stderr)
        return 1
    storage = None
    if args.data_dir:
        from fakeapi.storage.durable import DurableStorage
        from fakeapi.storage.interface import StorageError

        try:
            storage = DurableStorage(args.data_dir)
        except (StorageError, OSError) as exc:
            print(f"fakeapi serve: --data-dir: {exc}", file=sys.stderr)
            return 1
    version, runtime_config, gates = versions
    registry = new_registry(
        feature_gates=gates, emulated_version=version, runtime_config=runtime_config,
        storage=storage, authorization=security.modes,
    )
    server = ApiServer(registry=registry, host=args.host, port=args.port, streams=streams,
                       authenticator=secured.authenticator, tls=secured.tls)
    try:
        await server.start()
    except OSError as exc:
        print(f"fakeapi serve: {_listen_error(exc, args.host, args.port)}", file=sys.stderr)
        if storage is not None:
            storage.close()
        return 1
    if args.kubeconfig:
        write_kubeconfig(args.kubeconfig, server=server.url, token=secured.admin_token,
                         ca_data=secured.ca_data)
    warning = exposure_warning(args.host, security, command="serve")
    if warning:
        print(warning, file=sys.stderr, flush=True)
    ready()
    with _stop_on_signal() as stop:
        print(f"fakeapi serving at {server.url}", flush=True)
        if args.kubeconfig:
            print(f"kubeconfig written to {args.kubeconfig}", flush=True)
        await stop.wait()
    await server.stop()
    if storage is not None:
        await storage.aclose()
    return 0


def _access_line(cluster: Any) -> str:
    """What the banner says of authentication and authorization: nothing when both are off."""
    security = cluster.security
    if not security.authenticates:
        return ""
    anonymous = "anonymous requests allowed" if security.anonymous_auth else "no anonymous requests"
    return (f"access: authorization {','.join(security.modes)}, {anonymous}; "
            "the kubeconfig's user is the cluster admin (system:masters)\n")


def _banner(cluster: Any, *, url: str, kubeconfig: Path, default_config: bool,
            seconds: float) -> str:
    nodes = f"{cluster.nodes} node{'s' if cluster.nodes != 1 else ''}"
    if cluster.nodes:
        drivers = [*cluster.profile_names, *(f"`{c}`" for c in cluster.driver_commands)]
        nodes += f" ({', '.join(drivers) or 'no DRA driver'})"
    if cluster.kubelet_root_dir is not None:
        nodes += f", kubelet directories in {cluster.kubelet_root_dir}"
    # kubectl takes no flag before a plugin's name (kubectl dra), so point KUBECONFIG at the file
    export = "" if default_config else f"  export KUBECONFIG={kubeconfig}\n"
    # late for start-up time, like the other imports of this module
    from fakeapi.cluster import EXAMPLES
    from fakeapi.controllers import CONTROLLER_NAMES

    components = ", ".join(cluster.components) or "API server only"
    left_out = [c for c in CONTROLLER_NAMES if c not in (cluster.controllers or CONTROLLER_NAMES)]
    if "controllers" in cluster.components and left_out:
        components += f" (controllers without {', '.join(left_out)})"
    if cluster.extra_components:
        components += f"; yours: {', '.join(cluster.extra_components)}"
    if cluster.api_url is not None:
        components += " (in a second process)"
    # the shipped examples ask for the gpu profile's devices
    example = (
        f"  kubectl apply -f {EXAMPLES / 'template-claim-pod.yaml'}\n"
        if "gpu" in cluster.profile_names
        else ""
    )
    return (
        f"fakeapi sandbox ready at {url} in {seconds:.2f}s: {nodes}, "
        f"components: {components}\n"
        f'kubeconfig: {kubeconfig} (context "{SANDBOX_CONTEXT}", now current)\n'
        f"{_access_line(cluster)}"
        f"example manifests: {EXAMPLES}\n"
        "\n"
        "Try:\n"
        f"{export}"
        "  kubectl get nodes\n"
        "  kubectl get deviceclasses,resourceslices\n"
        f"{example}"
        "  kubectl get pods,resourceclaims -o wide\n"
        "  kubectl dra pools\n"
        "\n"
        "Ctrl-C stops the sandbox and removes its context from the kubeconfig.\n"
    )


async def _sandbox(args: argparse.Namespace, *, ready: Callable[[], None]) -> int:
    versions = _versions(args, "sandbox")
    if versions is None:
        return 2
    if args.nodes < 0:
        print("fakeapi sandbox: --nodes must be 0 or more", file=sys.stderr)
        return 2
    started = time.perf_counter()
    if args.components or args.scheduler_plugins or args.profiles:
        # user code named module:attribute is imported from the current directory too, as
        # uvicorn and kopf do
        sys.path.insert(0, os.getcwd())
    verbosity = args.verbose or (1 if args.log_format else 0)
    if verbosity:
        from fakeapi.commands.watch import configure_logging

        stop_logging = configure_logging(
            verbosity=verbosity, log_format=args.log_format or "text", stream=sys.stderr
        )
    try:
        return await _run_sandbox(args, versions, ready=ready, started=started,
                                  verbosity=verbosity)
    finally:
        if verbosity:
            stop_logging()


async def _run_sandbox(
    args: argparse.Namespace,
    versions: Any,
    *,
    ready: Callable[[], None],
    started: float,
    verbosity: int,
) -> int:
    version, runtime_config, gates = versions
    # late for start-up time: only the command that runs loads its part
    from fakeapi.cluster.assembler import Cluster
    from fakeapi.cluster.manifests import ManifestError
    from fakeapi.cluster.unserved import (
        UnservedKindsError,
        UnservedKindWarning,
        describe_unserved,
    )
    from fakeapi.commands.security import (
        exposure_warning,
        security_settings,
        with_serving_certificate,
    )
    from fakeapi.storage.interface import StorageError

    security = security_settings(args, command="sandbox")
    if security is None:
        return 2
    if args.split and (security.authenticates or security.tls_cert_file):
        # the components' process would need the identities' tokens and the server's CA
        print("fakeapi sandbox: --split does not run with authentication or TLS yet; drop "
              "--split or the security flags", file=sys.stderr)
        return 2
    try:
        security = with_serving_certificate(security, host=args.host)
    except (OSError, ValueError) as exc:
        print(f"fakeapi sandbox: {exc}", file=sys.stderr)
        return 1
    try:
        # what the components' process is given with --split (strings: it travels as JSON)
        component_options: dict[str, Any] = {
            "nodes": args.nodes,
            "profiles": args.profiles or ["gpu"],
            "controllers": _controllers(args.controllers, nodes=args.nodes),
            "feature_gates": gates,
            "emulated_version": str(version),
            "runtime_config": runtime_config,
            "seed": args.seed,
            "load": args.load,
            "stages": args.stages or "realistic",
            "extra_components": args.components,
            "scheduler_plugins": args.scheduler_plugins,
            "scheduler_config": args.scheduler_config,
            "kubelet_root_dir": args.kubelet_root_dir,
            "driver_commands": args.driver_commands,
            "load_strict": args.strict,
        }
        cluster = Cluster(
            **component_options
            | {
                "emulated_version": version,
                "load": [Path(p) for p in args.load],
                "stages": Path(args.stages) if args.stages else "realistic",
                "scheduler_config": Path(args.scheduler_config) if args.scheduler_config
                else None,
            },
            http=True,
            host=args.host,
            port=args.port,
            data_dir=args.data_dir,
            streams=args.stream_config or None,
            security=security,
        )
        described = cluster  # the whole cluster, for the banner
        if args.split:  # this process serves the API alone; the components run in a child
            cluster = Cluster(
                components=(), profiles=(), feature_gates=gates, emulated_version=version,
                runtime_config=runtime_config, http=True, host=args.host, port=args.port,
                data_dir=args.data_dir, streams=args.stream_config or None,
            )
    except ValueError as exc:
        print(f"fakeapi sandbox: {exc}", file=sys.stderr)
        return 2
    components = None
    try:
        with warnings.catch_warnings():  # told below, as the sandbox's own lines
            warnings.simplefilter("ignore", UnservedKindWarning)
            await cluster.start()
        if args.split:
            from fakeapi.cluster.split import ComponentProcess

            components = ComponentProcess(
                component_options | {"api_url": cluster.url, "kubeconfig": str(cluster.kubeconfig)},
                verbosity=verbosity, log_format=args.log_format or "text",
            )
            try:
                await components.start()
            except RuntimeError:
                await cluster.stop()
                return 1  # the components' process has said why
            described.api_url = cluster.url
    except OSError as exc:
        message = (_listen_error(exc, args.host, args.port) if exc.errno is not None
                   else str(exc))
        print(f"fakeapi sandbox: {message}", file=sys.stderr)
        return 1
    except (ManifestError, ValueError, TimeoutError) as exc:
        prefix = "--load: " if isinstance(exc, UnservedKindsError) else ""
        print(f"fakeapi sandbox: {prefix}{exc}", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"fakeapi sandbox: --data-dir: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        from fakeapi.errors import StatusError  # late for start-up time, as above

        if not isinstance(exc, StatusError):
            raise
        print(f"fakeapi sandbox: --load: {exc.message}", file=sys.stderr)
        return 1
    if cluster.load_unserved:
        print(f"fakeapi sandbox: --load: "
              f"{describe_unserved(cluster.load_unserved, applied=True)}", file=sys.stderr)
    default_config = not args.kubeconfig
    # absolute, so that the banner's export line works from any directory
    kubeconfig = Path(args.kubeconfig or default_kubeconfig_paths()[0]).absolute()
    try:
        previous = merge_kubeconfig(kubeconfig, server=cluster.url, name=SANDBOX_CONTEXT,
                                    **cluster.kubeconfig_access())
    except (OSError, ValueError) as exc:
        await cluster.stop()
        print(f"fakeapi sandbox: cannot update the kubeconfig {kubeconfig}: {exc}",
              file=sys.stderr)
        return 1
    feed: asyncio.Task[None] | None = None
    code = 0
    try:
        seconds = time.perf_counter() - started
        ready()
        with _stop_on_signal() as stop:
            print(_banner(described, url=cluster.url,
                          kubeconfig=kubeconfig, default_config=default_config,
                          seconds=seconds), flush=True)
            warning = exposure_warning(args.host, security, command="sandbox")
            if warning:
                print(warning, file=sys.stderr, flush=True)
            if verbosity:
                from fakeapi.commands.watch import EventFeed  # late for start-up time

                feed = asyncio.get_running_loop().create_task(
                    EventFeed(cluster.client_for("fakeapi-sandbox")).run(), name="event feed"
                )
            code = await _wait_for_stop(stop, components)
        print("fakeapi sandbox: stopping", flush=True)
    finally:
        if components is not None:
            await components.stop()
        if feed is not None:
            feed.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await feed
        unmerge_kubeconfig(kubeconfig, name=SANDBOX_CONTEXT, restore_context=previous)
        await cluster.stop()
    return code


async def _wait_for_stop(stop: asyncio.Event, components: Any) -> int:
    """Until a stop signal (0), or until the components' process of ``--split`` exits on its own
    (1, after saying so)."""
    if components is None:
        await stop.wait()
        return 0
    loop = asyncio.get_running_loop()
    stopped, exited = loop.create_task(stop.wait()), loop.create_task(components.wait())
    await asyncio.wait({stopped, exited}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if not exited.done():
        exited.cancel()
        return 0
    print(f"fakeapi sandbox: the components' process exited with status {exited.result()}",
          file=sys.stderr, flush=True)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        with _collect_garbage_once_ready() as ready:
            return asyncio.run(_serve(args, ready=ready))
    if args.command == "profiles":
        # late for start-up time, as the other commands' imports
        from fakeapi.commands.profiles import check_profile_file, list_profiles, show_profile

        if args.profiles_command == "show":
            return show_profile(args.name)
        if args.profiles_command == "check":
            return check_profile_file(args.path)
        return list_profiles()
    if args.command == "driver-check":
        # late for start-up time: only the command that runs loads its part
        import shlex

        from fakeapi.cluster import driver_check

        words = args.driver_command
        command = words[0] if len(words) == 1 else shlex.join(words)
        try:
            return driver_check.main(command, driver=args.driver, timeout=args.timeout)
        except KeyboardInterrupt:
            return 130
    if args.command == "sandbox":
        try:
            with _collect_garbage_once_ready() as ready:
                return asyncio.run(_sandbox(args, ready=ready))
        except KeyboardInterrupt:  # Ctrl-C before the sandbox was up: nothing to clean
            return 130
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
