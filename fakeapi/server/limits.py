"""Request limits: how much of the server one client may hold at once.

kube-apiserver bounds the requests it works on at once (``--max-requests-inflight`` 400 and
``--max-mutating-requests-inflight`` 200); a request past the limit is answered at once with
``429 TooManyRequests`` and ``Retry-After: 1`` instead of queueing behind the others. Long-running
requests (watches, followed logs) are not counted there, and health checks are never refused, so
``/readyz`` stays fast whatever else is going on.

Watches hold a queue of events and cost every write an offer, so each client may hold at most
:attr:`RequestLimits.max_watches_per_client` of them (a client is its address and User-Agent:
every local client comes from 127.0.0.1). Upstream has no such number (API Priority and Fairness
shares its seats among flows); fakeapi keeps the plainer cap and answers past it the same 429.

The in-process transport is not limited: its callers are the cluster's own components.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from fakeapi import errors
from fakeapi.server.params import parse_bool

__all__ = ["RequestLimits", "too_many_requests"]

_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_EXEMPT_PREFIXES = ("/healthz", "/livez", "/readyz", "/metrics", "/version")


def too_many_requests(retry_after: int = 1) -> errors.StatusError:
    """Upstream's answer past an in-flight limit: 429 with ``details.retryAfterSeconds`` (the
    server adds the ``Retry-After`` header)."""
    return errors.StatusError(
        429,
        "TooManyRequests",
        "Too many requests, please try again later.",
        {"retryAfterSeconds": retry_after},
    )


def _true(value: str | None) -> bool:
    try:
        return value is not None and parse_bool(value)
    except ValueError:
        return False


def _long_running_get(request: web.Request, path: str) -> bool:
    """Whether a GET of ``path`` is a watch or a followed subresource, as upstream's
    long-running request check."""
    if "/watch/" in path:
        return True
    query = request.query
    return bool(query) and (_true(query.get("watch")) or _true(query.get("follow")))


@dataclass
class RequestLimits:
    """Server-wide limits (upstream's defaults); tests lower them."""

    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    max_watches_per_client: int = 1000
    _reading: int = field(default=0, init=False)
    _mutating: int = field(default=0, init=False)
    _watches: dict[tuple[str, str], int] = field(default_factory=dict, init=False)

    def admit(self, request: web.Request) -> bool | None:
        """Count a request in (429 past its limit): True when it counts as mutating, False as
        reading, None when it is not counted (long-running, health checks); hand the answer to
        :meth:`release` when the request is done. Synchronous, so the server's one wrapper of
        every handler holds the slot without another coroutine per request."""
        # the decoded path; the router's (and the front's) ``path_safe`` is it, already
        # computed, unless it kept a ``%2F`` or ``%25`` encoded
        path = request.rel_url.path_safe
        if "%" in path:
            path = request.path
        method = request.method
        if path.startswith(_EXEMPT_PREFIXES):
            return None
        if method == "GET":
            if _long_running_get(request, path):
                return None
        elif method in _MUTATING:
            if self._mutating >= self.max_mutating_requests_inflight:
                raise too_many_requests()
            self._mutating += 1
            return True
        if self._reading >= self.max_requests_inflight:
            raise too_many_requests()
        self._reading += 1
        return False

    def release(self, held: bool | None) -> None:
        """Give back what :meth:`admit` counted."""
        if held is None:
            return
        if held:
            self._mutating -= 1
        else:
            self._reading -= 1

    def watches_held(self) -> int:
        """How many watch slots are held, over all clients."""
        return sum(self._watches.values())

    @contextmanager
    def watch_slot(self, request: web.Request) -> Iterator[None]:
        """Hold one of the client's watch slots for the life of a watch (429 when none is
        left)."""
        client = (request.remote or "", request.headers.get("User-Agent", ""))
        held = self._watches.get(client, 0)
        if held >= self.max_watches_per_client:
            raise too_many_requests()
        self._watches[client] = held + 1
        try:
            yield
        finally:
            left = self._watches[client] - 1
            if left:
                self._watches[client] = left
            else:
                del self._watches[client]
