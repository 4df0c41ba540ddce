"""The HTTP filters of a server with authentication or authorization on, as kube-apiserver's chain.

One filter per request (:func:`request_filter`), run by the server's one wrapper of every
handler (:class:`fakeapi.server.front.Serving`) before the in-flight limits, and only when it is
configured for it — without, requests take exactly the path they always did. For each request,
in upstream's filter order:

1. **authentication** (:class:`~fakeapi.auth.authentication.Authenticator`): the verified client
   certificate, the bearer token, or anonymous; 401 ``Unauthorized`` otherwise;
2. **impersonation** (:mod:`fakeapi.auth.impersonation`): ``Impersonate-*`` headers, each one
   authorized for the requester;
3. **authorization**: the request's attributes (:mod:`fakeapi.auth.request_info`) asked of the
   authorizer chain; 403 with upstream's message and the authorizers' reasons otherwise.

The user and the verb are left on the request (:data:`REQUEST_USER`, :data:`REQUEST_VERB`), where
the handlers pick them up for the registry (admission, the reviews, the granular claim status
rules).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from fakeapi.auth.attributes import Attributes, forbidden
from fakeapi.auth.authentication import Authenticator
from fakeapi.auth.authorizer import AuthorizerChain
from fakeapi.auth.impersonation import impersonated
from fakeapi.auth.request_info import request_attributes
from fakeapi.auth.user import UserInfo

__all__ = ["REQUEST_USER", "REQUEST_VERB", "RequestFilter", "request_filter", "request_user"]


def _request_key(name: str, kind: type) -> Any:
    """A typed request key where aiohttp has them (``web.RequestKey``), else the plain name."""
    request_key = getattr(web, "RequestKey", None)
    return request_key(name, kind) if request_key is not None else name


#: the request's user and its verb as authorized (keys of the aiohttp request)
REQUEST_USER: Any = _request_key("fakeapi.user", UserInfo)
REQUEST_VERB: Any = _request_key("fakeapi.verb", str)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def request_user(request: web.Request) -> tuple[UserInfo | None, str]:
    """(user, verb) the filters found (None: the server does not authenticate)."""
    return request.get(REQUEST_USER), request.get(REQUEST_VERB, "")


#: authenticates and authorizes one request (raises its 401 or 403 StatusError), leaving the
#: user and the verb on it
RequestFilter = Callable[[web.Request], None]


def request_filter(*, authenticator: Authenticator, authorizer: AuthorizerChain) -> RequestFilter:
    """The filters for a server with these authenticators and authorizers."""

    def allowed(attrs: Attributes) -> tuple[bool, str]:
        answer = authorizer.authorize(attrs)
        return answer.allowed, answer.reason

    def filters(request: web.Request) -> None:
        transport = request.transport
        peer = transport.get_extra_info("peercert") if transport is not None else None
        user = authenticator.authenticate(
            authorization=request.headers.get("Authorization"), peer_certificate=peer
        )
        acting = impersonated(user, request.headers.items(), allowed=allowed)
        if acting is not None:
            user = acting
        attrs = request_attributes(
            user, method=request.method, path=request.path, query=request.query
        )
        answer = authorizer.authorize(attrs)
        if not answer.allowed:
            raise forbidden(attrs, answer.reason)
        request[REQUEST_USER] = user
        request[REQUEST_VERB] = attrs.verb

    return filters
