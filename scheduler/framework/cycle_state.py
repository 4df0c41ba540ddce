"""Per-cycle state: where plugins keep what one scheduling attempt of one pod has learned.

Each plugin writes under its own key (its name, by convention) in PreFilter or Reserve and reads
it back in later phases of the same attempt, including the binding cycle. The framework adds the
sets of plugins whose PreFilter/PreScore returned Skip, so their Filter/Score are not called.
A fresh :class:`CycleState` is made for every attempt; nothing carries over between attempts.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CycleState"]


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The value under ``key``; KeyError when nothing was written (upstream ErrNotFound)."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def delete(self, key: str) -> None:
        self._data.pop(key, None)
