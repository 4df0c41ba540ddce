"""The aiohttp application: routes, error rendering, discovery/OpenAPI caches.

Discovery and OpenAPI documents depend only on the resource table, so they are encoded once per
generation of its rows (custom resources come and go with their definitions) and served as
bytes. Any :class:`StatusError` raised below a handler becomes its
``kind: Status`` response; anything else is a bug, logged and answered 500 as upstream would.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cached_property

import orjson
from aiohttp import web
from prometheus_client import CollectorRegistry

from fakeapi.auth.authentication import Authenticator
from fakeapi.auth.authorizer import ALWAYS_ALLOW, AlwaysAllow, AuthorizerChain
from fakeapi.features import EMULATED_VERSION, KubernetesVersion
from fakeapi.registry.store import GenericStore
from fakeapi.server import discovery, openapi
from fakeapi.server.authfilter import request_filter
from fakeapi.server.encoding import json_bytes_response
from fakeapi.server.front import Handler, Serving, front_handler
from fakeapi.server.handlers import ResourceHandlers, WatchSettings
from fakeapi.server.limits import RequestLimits
from fakeapi.server.metrics import add_metrics_route
from fakeapi.server.openapi_v2 import SwaggerEndpoint
from fakeapi.server.streams import StreamConfig, core_with_streams

__all__ = ["create_app", "FRONT", "REGISTRY", "VERSION_INFO", "AGGREGATED", "version_info"]

REGISTRY = web.AppKey("registry", GenericStore)
#: the app's front (:mod:`fakeapi.server.front`) made from the app's own request handler: what
#: the HTTP server must call instead of it (:class:`fakeapi.server.runner.ApiServer` does)
FRONT: web.AppKey[Callable[[Handler], Handler]] = web.AppKey("front")
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
VERSION_INFO = {
    "major": str(EMULATED_VERSION.major),
    "minor": str(EMULATED_VERSION.minor),
    "emulationMajor": str(EMULATED_VERSION.major),
    "emulationMinor": str(EMULATED_VERSION.minor),
    "minCompatibilityMajor": str(EMULATED_VERSION.major),
    "minCompatibilityMinor": str(EMULATED_VERSION.minor - 1),
    "gitVersion": f"{EMULATED_VERSION.git_version}-fake",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.25.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}



def version_info(emulated: KubernetesVersion) -> dict[str, str]:
    """``/version``: the binary's release, and the one emulated (``--emulated-version``) with
    its minimum compatibility version, as kube-apiserver reports them."""
    return {
        **VERSION_INFO,
        "emulationMajor": str(emulated.major),
        "emulationMinor": str(emulated.minor),
        "minCompatibilityMajor": str(emulated.major),
        "minCompatibilityMinor": str(emulated.minor - 1),
    }


def _unmatched(router: web.UrlDispatcher) -> Handler:
    """The handler of the last route, ``/{path}`` for every method: 405 when another route has
    the path for other methods, 404 otherwise, as aiohttp's router would decide."""

    async def unmatched(request: web.Request) -> web.StreamResponse:
        for resource in router.resources():
            if resource is not request.match_info.route.resource:
                _, allowed = await resource.resolve(request)
                if allowed:
                    raise web.HTTPMethodNotAllowed(request.method, allowed)
        raise web.HTTPNotFound()

    return unmatched


class _Documents:
    """Discovery and OpenAPI bytes of one generation of the resource table, computed on first
    use (:func:`_documents` makes a new set when the table's rows change)."""

    def __init__(self, registry: GenericStore) -> None:
        self.resources = registry.resources
        self.generation = self.resources.generation
        self._openapi: dict[str, bytes | None] = {}
        self.swagger = SwaggerEndpoint(self.resources)

    @cached_property
    def aggregated_core(self) -> bytes:
        return orjson.dumps(discovery.aggregated_discovery(self.resources, core=True))

    @cached_property
    def aggregated_groups(self) -> bytes:
        return orjson.dumps(discovery.aggregated_discovery(self.resources, core=False))

    @cached_property
    def group_list(self) -> bytes:
        return orjson.dumps(discovery.legacy_group_list(self.resources))

    @cached_property
    def openapi_index(self) -> bytes:
        return orjson.dumps(openapi.openapi_index(self.resources))

    def openapi_document(self, group: str, version: str) -> bytes | None:
        key = f"{group}/{version}"
        if key not in self._openapi:
            doc = openapi.openapi_document(self.resources, group, version)
            self._openapi[key] = None if doc is None else openapi.document_bytes(doc)
        return self._openapi[key]


#: the checks each health endpoint reports, by upstream's names (the in-memory store stands in
#: for etcd); all pass while the server answers
_HEALTH_CHECKS = {
    "healthz": ("ping", "log", "etcd"),
    "livez": ("ping", "log", "etcd"),
    "readyz": ("ping", "log", "etcd", "etcd-readiness", "informer-sync", "shutdown"),
}


def _health(endpoint: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    """``/<endpoint>`` as kube-apiserver's healthz handler: ``ok``, or with ``?verbose`` one
    ``[+]<check> ok`` line per check and ``<endpoint> check passed``; ``?exclude=`` skips a
    check; ``/<endpoint>/<check>`` answers one check, 404 for a name it does not know."""
    checks = _HEALTH_CHECKS[endpoint]

    async def handler(request: web.Request) -> web.Response:
        check = request.match_info.get("check")
        if check is not None:
            if check not in checks:
                raise web.HTTPNotFound()
            return web.Response(text="ok", content_type="text/plain")
        if "verbose" not in request.query:
            return web.Response(text="ok", content_type="text/plain")
        excluded = set(request.query.getall("exclude", []))
        lines = [
            f"[+]{name} excluded: ok" if name in excluded else f"[+]{name} ok" for name in checks
        ]
        unknown = sorted(excluded - set(checks))
        if unknown:
            quoted = ",".join(f'"{name}"' for name in unknown)
            lines.append(f"warn: some health checks cannot be excluded: no matches for {quoted}")
        lines.append(f"{endpoint} check passed")
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")

    return handler


def create_app(
    *,
    registry: GenericStore,
    watch: WatchSettings | None = None,
    metrics: CollectorRegistry | None = None,
    authenticator: Authenticator | None = None,
    limits: RequestLimits | None = None,
    streams: StreamConfig | None = None,
) -> web.Application:
    """The app; ``metrics`` is served at ``/metrics`` (a fresh, empty registry when None);
    ``limits`` bounds what clients may hold at once (upstream's defaults when None); ``streams``
    says where pods' logs, exec, attach and port-forward go (None: nowhere). With an
    ``authenticator`` every request is authenticated and authorized by the registry's
    authorizers (:mod:`fakeapi.server.authfilter`; ``AlwaysAllow`` when it has none) before the
    in-flight limits see it."""
    limits = limits or RequestLimits()
    filters = None
    if authenticator is not None:
        if registry.authorizer is None:  # authentication alone: kube-apiserver's default mode
            registry.authorizer = AuthorizerChain([(ALWAYS_ALLOW, AlwaysAllow())])
        filters = request_filter(authenticator=authenticator, authorizer=registry.authorizer)
    app = web.Application(client_max_size=4 * 1024 * 1024)
    app[REGISTRY] = registry
    serving = Serving(limits, filters)
    add_metrics_route(
        app, metrics if metrics is not None else CollectorRegistry(), served=serving.route
    )
    current = [_Documents(registry)]

    def documents() -> _Documents:
        if current[0].generation != registry.resources.generation:
            current[0] = _Documents(registry)
        return current[0]

    handlers = ResourceHandlers(registry=registry, watch=watch, limits=limits)
    version_bytes = orjson.dumps(version_info(registry.resources.emulated_version))

    async def version(_: web.Request) -> web.Response:
        return json_bytes_response(version_bytes)

    async def api_root(request: web.Request) -> web.Response:
        if "as=APIGroupDiscoveryList" in request.headers.get("Accept", ""):
            return json_bytes_response(documents().aggregated_core, content_type=AGGREGATED)
        address = request.host or "127.0.0.1"
        return json_bytes_response(orjson.dumps(discovery.legacy_api_versions(address)))

    async def apis_root(request: web.Request) -> web.Response:
        if "as=APIGroupDiscoveryList" in request.headers.get("Accept", ""):
            return json_bytes_response(documents().aggregated_groups, content_type=AGGREGATED)
        return json_bytes_response(documents().group_list)

    async def core_resources(_: web.Request) -> web.Response:
        doc = discovery.legacy_resource_list(registry.resources, "", "v1")
        if doc is None:
            raise web.HTTPNotFound()
        return json_bytes_response(orjson.dumps(doc))

    async def group(request: web.Request) -> web.Response:
        doc = discovery.legacy_group(registry.resources, request.match_info["group"])
        if doc is None:
            raise web.HTTPNotFound()
        return json_bytes_response(orjson.dumps(doc))

    async def group_version(request: web.Request) -> web.Response:
        info = request.match_info
        doc = discovery.legacy_resource_list(registry.resources, info["group"], info["version"])
        if doc is None:
            raise web.HTTPNotFound()
        return json_bytes_response(orjson.dumps(doc))

    async def openapi_v3_index(_: web.Request) -> web.Response:
        return json_bytes_response(documents().openapi_index)

    async def openapi_v3_doc(request: web.Request) -> web.Response:
        path = request.match_info["path"].strip("/")
        parts = path.split("/")
        if parts == ["api", "v1"]:
            body = documents().openapi_document("", "v1")
        elif len(parts) == 3 and parts[0] == "apis":
            body = documents().openapi_document(parts[1], parts[2])
        else:
            body = None
        if body is None:
            raise web.HTTPNotFound()
        return json_bytes_response(body)

    router = app.router

    def add(method: str, path: str, handler: Handler) -> None:
        router.add_route(method, path, serving.route(handler))

    for endpoint in _HEALTH_CHECKS:
        add("GET", f"/{endpoint}", _health(endpoint))
        add("GET", f"/{endpoint}/{{check:.+}}", _health(endpoint))
    add("GET", "/version", version)
    add("GET", "/version/", version)
    add("GET", "/api", api_root)
    add("GET", "/api/", api_root)

    core = core_with_streams(registry=registry, config=streams, fallback=handlers.dispatch)

    def core_route(request: web.Request) -> Awaitable[web.StreamResponse]:
        return core(request, request.match_info["tail"])

    def grouped_route(request: web.Request) -> Awaitable[web.StreamResponse]:
        info = request.match_info
        return handlers.dispatch(request, info["group"], info["version"], info["tail"])

    # The front (:mod:`fakeapi.server.front`) serves what these two catch-alls would take
    # without asking the router; they stay for what it leaves to the app. aiohttp tries the
    # routes under one prefix (/api/v1, /apis) in the order they were added: the catch-alls,
    # which every resource request matches, first; a discovery path has no tail, so it falls
    # through to its own route. The pod stream paths are the core catch-all's.
    add("*", "/api/v1/{tail:.+}", core_route)
    add("*", "/apis/{group}/{version}/{tail:.+}", grouped_route)
    add("GET", "/api/v1", core_resources)
    add("GET", "/api/v1/", core_resources)
    add("GET", "/apis", apis_root)
    add("GET", "/apis/", apis_root)
    add("GET", "/apis/{group}", group)
    add("GET", "/apis/{group}/", group)
    add("GET", "/apis/{group}/{version}", group_version)
    add("GET", "/apis/{group}/{version}/", group_version)
    add("GET", "/openapi/v3", openapi_v3_index)
    add("GET", "/openapi/v3/", openapi_v3_index)
    add("GET", "/openapi/v3/{path:.+}", openapi_v3_doc)

    async def openapi_v2(request: web.Request) -> web.Response:
        return await documents().swagger.handle(request)

    add("GET", "/openapi/v2", openapi_v2)
    # last: the router indexes it under "/", which it looks at after every longer prefix
    add("*", "/{path:.*}", _unmatched(router))
    app[FRONT] = lambda app_handler: front_handler(
        app_handler=app_handler, serving=serving, core=core, grouped=handlers.dispatch
    )
    return app
