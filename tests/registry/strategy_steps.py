"""Strategy hooks called the way the store calls them, for tests of one kind's strategy."""

from __future__ import annotations

from typing import Any

from fakeapi.registry.strategy import Strategy, WriteContext


def prepare_new(strategy: Strategy, obj: dict[str, Any], ctx: WriteContext) -> None:
    """What the store does to a new object before validating it: defaults, then the strategy's
    own preparation (admission, which runs between them, is left out)."""
    strategy.apply_defaults(obj, ctx)
    strategy.prepare_for_create(obj, ctx)
