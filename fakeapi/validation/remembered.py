"""Remembering what passed validation, for rules that read nothing but the value they check.

Objects made from one template (pods of a Job, allocations and slices of one node) repeat the
same parts; such a part once found valid is recognised by its JSON (same values and types) and
not walked again. A failing value is validated every time, so its errors are always the rules'
own, with the caller's paths. Rules that also read settings (feature gates) name them as the
``context`` of a verdict.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import orjson

from fakeapi.validation.field import FieldError

__all__ = ["ValidByContent"]


class ValidByContent:
    """The last ``size`` values (by JSON) a validator found valid."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._valid: OrderedDict[tuple[Hashable, bytes], None] = OrderedDict()

    def errors(
        self, value: Any, validate: Callable[[Any], list[FieldError]], context: Hashable = None
    ) -> list[FieldError]:
        """``validate(value)``, or no errors at once when an equal value passed before in the
        same ``context``."""
        try:
            key = (context, orjson.dumps(value))
        except TypeError:  # not JSON (an integer beyond 64 bits): validated, not remembered
            return validate(value)
        if key in self._valid:
            self._valid.move_to_end(key)
            return []
        errs = validate(value)
        if not errs:
            self._valid[key] = None
            if len(self._valid) > self.size:
                self._valid.popitem(last=False)
        return errs
