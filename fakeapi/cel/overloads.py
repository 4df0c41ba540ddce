"""What every library function shares: its calling shape and how it rejects arguments.

Library functions take their arguments positionally (a member function's target first) and
raise cel-go's "no such overload" error for argument types they do not accept. The helpers
here are used by the standard, string and list libraries alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fakeapi.cel.values import no_overload

__all__ = ["Function", "arity", "strict"]

Function = Callable[..., object]


def arity(name: str, args: Sequence[object], *counts: int) -> None:
    """Reject a call of ``name`` whose argument count is none of ``counts``."""
    if len(args) not in counts:
        raise no_overload(name, *args)


def strict(name: str, impl: Callable[..., object]) -> Function:
    """Wrap ``impl`` so that Python type errors surface as CEL's "no such overload"."""

    def call(*args: object) -> object:
        try:
            return impl(*args)
        except (TypeError, AttributeError):
            raise no_overload(name, *args) from None

    return call
