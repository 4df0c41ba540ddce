"""What went wrong with a request, asked the way client-go's ``apierrors.IsX`` ask it.

Components decide what to do with a failure by its *reason* (with the HTTP code as a fallback
for servers that send a bare code), never by parsing messages: a conflict means "re-read and try
again", not-found during a delete means "already done", and so on. Each predicate accepts any
exception and answers False for anything that is not a :class:`~fakeapi.errors.StatusError`, so
``except Exception as exc: if is_not_found(exc): ...`` reads naturally.

:func:`retry_on_conflict` is client-go's ``retry.RetryOnConflict`` with ``retry.DefaultRetry``:
the function is called again (it must re-read what it writes) while it fails with a conflict, up
to five attempts 10 ms apart with 10 % jitter, on the injected clock.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from fakeapi.clock import Clock, RealClock
from fakeapi.errors import StatusError

__all__ = [
    "is_already_exists",
    "is_bad_request",
    "is_conflict",
    "is_forbidden",
    "is_gone",
    "is_invalid",
    "is_not_found",
    "is_server_timeout",
    "is_timeout",
    "is_too_many_requests",
    "reason_of",
    "retry_on_conflict",
]

T = TypeVar("T")

#: HTTP codes client-go falls back to when a Status carries no reason it knows
_CODE_FOR_REASON = {
    "NotFound": 404,
    "AlreadyExists": 409,
    "Conflict": 409,
    "Gone": 410,
    "Expired": 410,
    "Invalid": 422,
    "Forbidden": 403,
    "BadRequest": 400,
    "TooManyRequests": 429,
    "Timeout": 504,
}


def reason_of(exc: BaseException) -> str:
    """The Status reason of ``exc`` ("" when it is not an API error)."""
    return exc.reason if isinstance(exc, StatusError) else ""


def _is(exc: BaseException, reason: str) -> bool:
    if not isinstance(exc, StatusError):
        return False
    if exc.reason == reason:
        return True
    # a Status without a reason client-go knows: judge by code (AlreadyExists and Conflict
    # share 409, so an unknown reason with 409 counts as neither)
    if exc.reason in _CODE_FOR_REASON or exc.reason in ("ServerTimeout", "MethodNotAllowed"):
        return False
    return exc.code == _CODE_FOR_REASON.get(reason) and exc.code != 409


def is_not_found(exc: BaseException) -> bool:
    return _is(exc, "NotFound")


def is_already_exists(exc: BaseException) -> bool:
    return _is(exc, "AlreadyExists")


def is_conflict(exc: BaseException) -> bool:
    return _is(exc, "Conflict")


def is_gone(exc: BaseException) -> bool:
    """410: a watch or continue token from a resourceVersion the server no longer has."""
    return _is(exc, "Gone") or _is(exc, "Expired")


def is_invalid(exc: BaseException) -> bool:
    return _is(exc, "Invalid")


def is_bad_request(exc: BaseException) -> bool:
    return _is(exc, "BadRequest")


def is_forbidden(exc: BaseException) -> bool:
    return _is(exc, "Forbidden")


def is_too_many_requests(exc: BaseException) -> bool:
    return _is(exc, "TooManyRequests")


def is_server_timeout(exc: BaseException) -> bool:
    """The server could not finish in time (reason ServerTimeout); the request may be retried."""
    return isinstance(exc, StatusError) and exc.reason == "ServerTimeout"


def is_timeout(exc: BaseException) -> bool:
    """The request timed out (reason Timeout, 504)."""
    return _is(exc, "Timeout")


async def retry_on_conflict(
    fn: Callable[[], Awaitable[T]],
    *,
    clock: Clock | None = None,
    steps: int = 5,
    delay: float = 0.010,
    jitter: float = 0.1,
    rng: random.Random | None = None,
) -> T:
    """``await fn()``, again after a short pause while it raises a conflict; at most ``steps``.

    The last conflict propagates when every attempt failed; any other error at once.
    """
    clock = clock or RealClock()
    for attempt in range(1, steps + 1):
        try:
            return await fn()
        except StatusError as exc:
            if not is_conflict(exc) or attempt == steps:
                raise
        # made at the first conflict only: seeding a Random from the OS costs more than the
        # write it would wrap
        rng = rng or random.Random()
        await clock.sleep(delay * (1 + jitter * rng.random()))
    raise AssertionError("unreachable: the loop returns or raises")
