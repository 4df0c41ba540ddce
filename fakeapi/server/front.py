"""The server's front: resource URLs dispatched by prefix, all else by aiohttp's router.

Almost every request names a resource (``/api/v1/<tail>``, ``/apis/<group>/<version>/<tail>``),
and on an idle server the cost of a small GET is mostly the HTTP machinery around the handler.
aiohttp's application answers each request through its router (a walk over the path's prefixes,
a regular expression per candidate route, a match-info object) and two more coroutines; the
front replaces that, for resource URLs, by two ``str.startswith`` and the split the route's
pattern would have made, and calls the resource handler at once. Every other path (discovery,
OpenAPI, health, metrics, the 404 and 405 of paths that name nothing) goes through the
:class:`aiohttp.web.Application` as before, so its routes stay the one place that says what they
are.

The front takes exactly the requests the app's two catch-all routes would have taken, with the
same segments: they are matched against the still-quoted ``path_safe``, a ``{group}`` or
``{version}`` holds no ``{``, ``}`` or ``/``, a ``{tail:.+}`` no line break, and each segment is
unquoted as aiohttp unquotes it. A request with an ``Expect`` header also goes the app's way,
whose handler answers ``100 Continue``. The catch-alls stay registered on the router, so those
requests, and the router's own view of which paths exist (the 405 answer), are unchanged.

:class:`Serving` is what every handler runs in, whichever way it was reached: authentication and
authorization (when the server has them), the request limits, and a :class:`StatusError` rendered
as ``kind: Status``. A wrapper rather than an aiohttp middleware: an app with a middleware awaits
two more coroutines per request and builds the chain per route and request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from fakeapi import errors
from fakeapi.server.authfilter import RequestFilter
from fakeapi.server.encoding import status_response
from fakeapi.server.limits import RequestLimits

__all__ = ["Handler", "Serving", "CoreHandler", "GroupedHandler", "front_handler", "unquote"]

log = logging.getLogger("fakeapi.server")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: serves ``/api/v1/<tail>`` (request, tail)
CoreHandler = Callable[[web.Request, str], Awaitable[web.StreamResponse]]
#: serves ``/apis/<group>/<version>/<tail>`` (request, group, version, tail)
GroupedHandler = Callable[[web.Request, str, str, str], Awaitable[web.StreamResponse]]

_CORE = "/api/v1/"
_GROUPS = "/apis/"


def unquote(value: str) -> str:
    """What aiohttp's router does to a matched segment of ``path_safe``."""
    if "%" not in value:
        return value
    return value.replace("%2F", "/").replace("%25", "%")


class Serving:
    """Runs a handler inside the server's filters, limits and error rendering."""

    def __init__(self, limits: RequestLimits, filters: RequestFilter | None = None) -> None:
        self.limits = limits
        self.filters = filters

    async def __call__(
        self, request: web.Request, handler: Callable[..., Awaitable[web.StreamResponse]],
        *args: Any,
    ) -> web.StreamResponse:
        """``handler(request, *args)`` served. The handler may be a plain function returning
        the awaitable that serves (the resource handlers are), so a request passes through one
        coroutine here and the handler's own."""
        try:
            if self.filters is not None:
                self.filters(request)
            limits = self.limits
            held = limits.admit(request)
            try:
                return await handler(request, *args)
            finally:
                limits.release(held)
        except errors.StatusError as exc:
            return status_response(exc)
        except web.HTTPNotFound:
            return status_response(
                errors.StatusError(
                    404, "NotFound", "the server could not find the requested resource", {}
                )
            )
        except web.HTTPMethodNotAllowed as exc:
            return status_response(
                errors.method_not_allowed(
                    "the server does not allow this method on the requested resource "
                    f"({exc.method})"
                )
            )
        except web.HTTPRequestEntityTooLarge:
            return status_response(
                errors.request_entity_too_large("Request entity too large: limit is 3145728")
            )
        except web.HTTPException:
            raise
        except Exception as exc:  # a bug: never crash the server, say so like upstream
            log.exception("internal error serving %s %s", request.method, request.path)
            return status_response(errors.internal_error(repr(exc)))

    def route(self, handler: Handler) -> Handler:
        """``handler`` as a route of the app: served on every request."""

        async def served(request: web.Request) -> web.StreamResponse:
            return await self(request, handler)

        return served


def front_handler(
    *, app_handler: Handler, serving: Serving, core: CoreHandler, grouped: GroupedHandler
) -> Handler:
    """The request handler of the HTTP server: ``core`` and ``grouped`` for the URLs of the
    app's catch-all routes (``/api/v1/{tail:.+}``, ``/apis/{group}/{version}/{tail:.+}``),
    ``app_handler`` (the app's own) for the rest."""

    def front(request: web.Request) -> Awaitable[web.StreamResponse]:
        # a plain function returning the coroutine that serves: one coroutine less per request
        path = request.rel_url.path_safe
        if path.startswith(_CORE):
            tail = path[8:]
            if tail and "\n" not in tail and "Expect" not in request.headers:
                return serving(request, core, unquote(tail))
        elif path.startswith(_GROUPS):
            group, _, rest = path[6:].partition("/")
            version, _, tail = rest.partition("/")
            if (
                group
                and version
                and tail
                and "{" not in group
                and "}" not in group
                and "{" not in version
                and "}" not in version
                and "\n" not in tail
                and "Expect" not in request.headers
            ):
                return serving(
                    request, grouped, unquote(group), unquote(version), unquote(tail)
                )
        return app_handler(request)

    return front
