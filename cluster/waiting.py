"""Waiting in tests without sleeping: let the event loop run until a condition holds.

An in-process cluster does its work in tasks on the test's own event loop, so a test that has
written something waits for the outcome by yielding to that loop — never by sleeping a guessed
amount of time. :func:`eventually` is the one helper for this:

- it checks the condition, and between checks lets the loop run (a few bare turns first: most
  in-process work is done within them; then a millisecond at a time, which also gives HTTP
  requests to a served cluster room to travel);
- on a :class:`~fakeapi.clock.FakeClock` it can also move time: with ``step``, every round moves
  the clock by ``step`` seconds and lets the woken tasks run, so "the pod is Running after its
  delays" needs no sleep and no real time;
- its bound is a guard against a hang, never an assertion about how long things take: wall-clock
  seconds, or — when it moves a fake clock — seconds of that clock. When the bound is reached it
  raises ``TimeoutError`` saying what it waited for and what the condition last returned.

:func:`settle` (let ready tasks run for some turns of the loop, for checks that something did
*not* happen) and :func:`advance` (move a fake clock in steps, letting the loop run after each)
are the building blocks, for tests that drive time themselves.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

from fakeapi.clock import Clock, FakeClock

__all__ = ["advance", "eventually", "settle"]

T = TypeVar("T")

#: bare loop turns before polling at POLL_INTERVAL
_EAGER_ROUNDS = 10
POLL_INTERVAL = 0.001
#: loop turns after each move of a fake clock, for the tasks it woke
SETTLE_ROUNDS = 30


async def settle(rounds: int = SETTLE_ROUNDS, *, interval: float = 0.0) -> None:
    """Let ready tasks run for ``rounds`` turns of the loop (``interval`` real seconds each;
    0: a bare turn, enough for in-process requests; give HTTP a millisecond or so)."""
    for _ in range(rounds):
        await asyncio.sleep(interval)


def _fake(clock: Clock | None) -> FakeClock:
    if not isinstance(clock, FakeClock):
        raise TypeError(f"only a FakeClock can be moved, not {type(clock).__name__}")
    return clock


async def advance(
    clock: Clock,
    seconds: float,
    *,
    step: float | None = None,
    rounds: int = SETTLE_ROUNDS,
    interval: float = 0.0,
) -> None:
    """Move the fake ``clock`` forward ``seconds``, in steps of ``step`` (None: in one), and
    after each step let the woken tasks run (:func:`settle` with ``rounds`` and ``interval``).

    Before each step the loop turns once, so a task about to sleep on the clock does so first.
    """
    fake = _fake(clock)
    if step is not None and step <= 0:
        raise ValueError(f"step must be positive, not {step}")
    moved = 0.0
    while moved < seconds:
        delta = seconds - moved if step is None else min(step, seconds - moved)
        await asyncio.sleep(0)
        fake.advance(delta)
        moved += delta
        await settle(rounds, interval=interval)


async def eventually(
    check: Callable[[], T | Awaitable[T]],
    *,
    what: str | None = None,
    timeout: float = 10.0,
    clock: Clock | None = None,
    step: float | None = None,
) -> T:
    """Wait until ``check()`` (a function or a coroutine function) returns a truthy value, and
    return that value.

    Without ``step`` the loop runs between checks and ``timeout`` is a guard in wall-clock
    seconds. With ``step``, ``clock`` (a :class:`~fakeapi.clock.FakeClock`) moves ``step``
    seconds between checks (see :func:`advance`) and ``timeout`` counts seconds of that clock.
    Either way the bound only keeps a broken test from hanging: on reaching it, ``TimeoutError``
    says what was awaited (``what``, or the check's name or source) and its last value.
    """
    fake = _fake(clock) if step is not None else None
    if step is not None and step <= 0:
        raise ValueError(f"step must be positive, not {step}")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    moved = 0.0
    rounds = 0
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]  # awaited: a T now
        if fake is not None:
            if moved >= timeout:
                break
            delta = min(step or 0.0, timeout - moved)
            await advance(fake, delta)
            moved += delta
            continue
        if loop.time() >= deadline:
            break
        rounds += 1
        await asyncio.sleep(0 if rounds <= _EAGER_ROUNDS else POLL_INTERVAL)
    bound = f"{timeout:g}s of clock time" if fake is not None else f"{timeout:g}s"
    raise TimeoutError(
        f"timed out after {bound} waiting for {what or _describe_check(check)}; "
        f"the check last returned {_short(value)}"
    )


def _describe_check(check: Callable[..., object]) -> str:
    """What a check waits for, for a failure message: its name, or a lambda's source text."""
    name: str | None = getattr(check, "__name__", None)
    if name is None:  # a partial, a callable object
        return repr(check)
    if name != "<lambda>":
        return name
    try:
        source = " ".join(inspect.getsource(check).split())
    except (OSError, TypeError):  # no source file (an interactive session)
        return "a condition"
    return _lambda_text(source)


def _lambda_text(source: str) -> str:
    """The lambda expression in a line of source: from ``lambda`` to the end of its body (a
    comma or closing bracket of the call it is passed to)."""
    start = source.find("lambda")
    if start < 0:
        return source
    depth = 0
    quote = ""
    in_body = False
    for i in range(start, len(source)):
        char = source[i]
        if quote:
            if char == quote and source[i - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return source[start:i].rstrip()
            depth -= 1
        elif depth == 0 and char == ":":
            in_body = True
        elif depth == 0 and in_body and char == ",":
            return source[start:i].rstrip()
    return source[start:].rstrip()


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
