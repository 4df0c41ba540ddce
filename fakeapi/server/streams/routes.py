"""The routes of ``pods/{log,exec,attach,portforward}``: a pod's checks, then its stream rule.

A real API server checks the pod and proxies these to its node's kubelet; fakeapi's kubelets run
nothing, so the API server answers from the pod and the stream configuration
(:mod:`.config`):

- ``log`` — a pod whose container a Logs rule selects gets the rule's file, after the same
  checks as every log read (the container's name, that it started: the registry's
  ``read_subresource``), with ``tailLines``, ``limitBytes`` and, for ``follow``, what is appended
  to the file while the container runs (its file is looked at every
  :data:`~.channels.FILE_POLL_INTERVAL` s). Any other pod's log is the registry's (empty);
- ``exec``, ``attach`` — a running container an Exec (Attach) rule selects: a WebSocket channel
  session (:mod:`.channels`) to the local process or file;
- ``portforward`` — a running pod: a WebSocket session (:mod:`.portforward`) whose ports go where
  the PortForward rules say.

What cannot be served is a 400 naming why, as before the rules existed: no configuration (the
simulated kubelets run nothing), no rule for this pod, a pod on no node, a pod that is done.

These paths are not routes of their own: every core request would try their four patterns
before the ``/api/v1/{tail}`` catch-all (aiohttp indexes them under ``/api/v1/namespaces``), so
the catch-all's handler (:func:`core_with_streams`) picks them out, by the path's ending first and
then by the same pattern aiohttp matched; ``log`` is theirs for GET and HEAD only, as its
``add_get`` route was.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from fakeapi import errors
from fakeapi.objects import Obj, as_dict, as_list, dig, text
from fakeapi.registry.options import ReadOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType
from fakeapi.server import query as q
from fakeapi.server.streams import channels, portforward
from fakeapi.server.streams.channels import FILE_POLL_INTERVAL, ChannelSession
from fakeapi.server.streams.config import ForwardRule, StreamConfig

__all__ = ["core_with_streams"]

#: serves a core API request by its path's tail
CoreHandler = Callable[[web.Request, str], Awaitable[web.StreamResponse]]
#: serves an API request by (request, group, version, tail)
Dispatch = Callable[[web.Request, str, str, str], Awaitable[web.StreamResponse]]
_ENDINGS = ("/log", "/exec", "/attach", "/portforward")
# aiohttp's pattern of /api/v1/namespaces/{namespace}/pods/{name}/{sub}, matched as it matches
# (against the still-quoted ``path_safe``, groups unquoted after)
_STREAM_PATH = re.compile(
    r"/api/v1/namespaces/(?P<namespace>[^{}/]+)/pods/(?P<name>[^{}/]+)"
    r"/(?P<sub>log|exec|attach|portforward)"
)
_KINDS = {"exec": "Exec", "attach": "Attach", "portforward": "PortForward", "log": "Logs"}


def _not_served(sub: str, namespace: str, name: str, why: str) -> errors.StatusError:
    return errors.bad_request(f"pods/{sub} of {namespace}/{name} is not served: {why}")


def _containers(pod: Obj) -> list[str]:
    return [text(as_dict(c).get("name")) for c in as_list(dig(pod, "spec", "containers"))]


def _container(pod: Obj, wanted: str) -> str:
    """The container a request names, or the pod's only one (upstream's messages)."""
    name = text(dig(pod, "metadata", "name"))
    names = _containers(pod)
    if not wanted:
        if len(names) != 1:
            raise errors.bad_request(
                f"a container name must be specified for pod {name}, choose one of: "
                f"[{' '.join(names)}]"
            )
        return names[0]
    if wanted not in names:
        raise errors.bad_request(f"container {wanted} is not valid for pod {name}")
    return wanted


def _check_running(pod: Obj, sub: str) -> None:
    """Upstream's checks before a stream reaches a kubelet."""
    name = text(dig(pod, "metadata", "name"))
    if not text(dig(pod, "spec", "nodeName")):
        raise errors.bad_request(f"pod {name} does not have a host assigned")
    phase = text(dig(pod, "status", "phase"))
    if phase in ("Succeeded", "Failed"):
        verb = {"exec": "exec into", "attach": "attach to"}.get(sub, "port forward to")
        raise errors.bad_request(
            f"cannot {verb} a container in a completed pod; current phase is {phase}"
        )


def _tail(data: bytes, lines: int | None, limit: int | None) -> bytes:
    if lines is not None:
        kept = data.splitlines(keepends=True)
        data = b"".join(kept[-lines:]) if lines else b""
    if limit is not None:
        data = data[:limit]
    return data


def _unquote(value: str) -> str:
    """What aiohttp does to a matched segment of ``path_safe``."""
    if "%" not in value:
        return value
    return value.replace("%2F", "/").replace("%25", "%")


def core_with_streams(
    *,
    registry: GenericStore,
    config: StreamConfig | None,
    fallback: Dispatch,
) -> CoreHandler:
    """The handler of the core API's catch-all ``/api/v1/{tail}``: the pod stream paths are
    served here, everything else (and a log read no rule is for) by
    ``fallback(request, "", "v1", tail)``, as any core API request."""
    pods = registry.resources.lookup("", "v1", "pods")

    def core(request: web.Request, tail: str) -> Awaitable[web.StreamResponse]:
        # a plain function returning the coroutine that serves: one coroutine less per request
        if pods is not None and tail.endswith(_ENDINGS):
            match = _STREAM_PATH.fullmatch(request.rel_url.path_safe)
            if match is not None:
                namespace, name = _unquote(match["namespace"]), _unquote(match["name"])
                sub = match["sub"]
                if sub != "log":
                    return session(request, namespace, name, sub)
                if request.method in ("GET", "HEAD"):
                    return log(request, namespace, name)
        return fallback(request, "", "v1", tail)

    def pod_of(namespace: str, name: str) -> Obj:
        assert pods is not None
        return registry.get(pods, namespace, name).obj

    async def log(request: web.Request, namespace: str, name: str) -> web.StreamResponse:
        assert pods is not None
        tail = f"namespaces/{namespace}/pods/{name}/log"
        if config is None:
            return await fallback(request, "", "v1", tail)
        pod = pod_of(namespace, name)
        options = q.read_options(request.query)
        container = _container(pod, options.container)
        rule = config.logs_for(namespace, name, container)
        if rule is None:
            return await fallback(request, "", "v1", tail)
        # the checks every log read makes (container started, valid options)
        registry.read_subresource(pods, namespace, name, "log", options)
        path = rule.previous_logs_file if options.previous else rule.logs_file
        if path is None:
            raise errors.bad_request(
                f'previous terminated container "{container}" in pod "{name}" not found'
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise errors.bad_request(f"cannot read the log file {path}: "
                                     f"{exc.strerror or exc}") from None
        first = _tail(data, options.tail_lines, options.limit_bytes)
        follow = options.follow and rule.follow and not options.previous
        if not follow:
            return web.Response(body=first, content_type="text/plain")
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        await response.write(first)
        await _follow(registry, pods, namespace, name, options, path, len(data), response)
        await response.write_eof()
        return response

    def session_checks(request: web.Request, namespace: str, name: str, sub: str) -> (
            tuple[Obj, str]):
        pod = pod_of(namespace, name)
        if config is None:
            raise _not_served(sub, namespace, name, "fakeapi's simulated kubelets run no "
                              "containers to connect to (a stream configuration, "
                              "--stream-config, can connect them to local commands and ports)")
        _check_running(pod, sub)
        if sub == "portforward":
            return pod, ""
        return pod, _container(pod, request.query.get("container", ""))

    async def websocket(request: web.Request, protocols: tuple[str, ...]) -> (
            web.WebSocketResponse):
        ws = web.WebSocketResponse(protocols=protocols, autoping=True)
        ready = ws.can_prepare(request)
        if not ready.ok:
            raise errors.bad_request("Upgrade request required")
        if not ready.protocol:
            offered = request.headers.get("Sec-WebSocket-Protocol", "")
            raise errors.bad_request(
                f"none of the offered protocols ({offered or 'none'}) is served; "
                f"supported: {', '.join(protocols)}"
            )
        await ws.prepare(request)
        return ws

    async def session(request: web.Request, namespace: str, name: str, sub: str) -> (
            web.StreamResponse):
        pod, container = session_checks(request, namespace, name, sub)
        assert config is not None
        flags = {key: q.flag(request.query, key) for key in ("stdin", "tty")}
        if sub == "exec":
            exec_rule = config.exec_for(namespace, name, container)
            if exec_rule is None:
                raise _not_served(sub, namespace, name, f"no ClusterExec or Exec rule of the "
                                  f"stream configuration selects container {container}")
            command = request.query.getall("command", [])
            if not command:
                raise errors.bad_request("you must specify at least one command for the "
                                         "container")
            ws = await websocket(request, channels.CHANNEL_PROTOCOLS)
            await channels.run_process(ChannelSession(ws), command, stdin=flags["stdin"],
                                       tty=flags["tty"], cwd=exec_rule.work_dir,
                                       env=exec_rule.env)
            return ws
        if sub == "attach":
            attach_rule = config.attach_for(namespace, name, container)
            if attach_rule is None:
                raise _not_served(sub, namespace, name, f"no ClusterAttach or Attach rule of "
                                  f"the stream configuration selects container {container}")
            ws = await websocket(request, channels.CHANNEL_PROTOCOLS)
            if attach_rule.logs_file is not None:
                await channels.stream_file(ChannelSession(ws), attach_rule.logs_file)
            else:
                await channels.run_process(ChannelSession(ws), attach_rule.command,
                                           stdin=flags["stdin"], tty=flags["tty"], cwd=None,
                                           env={})
            return ws
        uid = text(dig(pod, "metadata", "uid"))

        def rule_for(port: int) -> ForwardRule | None:
            return config.forward_for(namespace, name, port)

        protocols = (portforward.SPDY_TUNNEL_PROTOCOL, *portforward.CHANNEL_PROTOCOLS)
        ports = _ports(request)
        ws = await websocket(request, protocols)
        if ws.ws_protocol == portforward.SPDY_TUNNEL_PROTOCOL:
            await portforward.serve_spdy(ws, pod=uid, rule_for=rule_for)
        else:
            await portforward.serve_channels(ws, pod=uid, ports=ports, rule_for=rule_for)
        return ws

    return core


def _ports(request: web.Request) -> list[int]:
    """``ports=80&ports=8080`` or ``ports=80,8080`` (only the channel protocol needs them)."""
    out: list[int] = []
    for value in request.query.getall("ports", []):
        for part in value.split(","):
            try:
                port = int(part)
            except ValueError:
                raise errors.bad_request(f'invalid port "{part}"') from None
            if not 0 < port < 65536:
                raise errors.bad_request(f"port {port} must be between 1 and 65535")
            out.append(port)
    return out


async def _follow(
    registry: GenericStore,
    pods: ResourceType,
    namespace: str,
    name: str,
    options: ReadOptions,
    path: Path,
    offset: int,
    response: web.StreamResponse,
) -> None:
    """Write what is appended to ``path`` while the container runs (the registry says when a
    followed log read of the pod ends, as for every log)."""
    watcher = registry.follow_subresource(pods, namespace, name, "log", options)
    if watcher is None:
        return
    ended = asyncio.Event()

    async def watch() -> None:
        try:
            while await watcher.wait() and not watcher.closed:
                for etype, obj, _ in watcher.drain():
                    if etype == "DELETED" or not registry.still_following(
                        pods, "log", obj, options
                    ):
                        ended.set()
                        return
        finally:
            ended.set()

    task = asyncio.get_running_loop().create_task(watch())
    try:
        with path.open("rb") as file:
            file.seek(offset)
            while True:
                chunk = file.read(32 * 1024)
                if chunk:
                    await response.write(chunk)
                    continue
                if ended.is_set():
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ended.wait(), FILE_POLL_INTERVAL)
    except OSError:
        return
    finally:
        task.cancel()
        watcher.close()
