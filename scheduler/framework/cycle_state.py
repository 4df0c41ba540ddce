"""Per-cycle state: where plugins keep what one scheduling attempt of one pod has learned.

Each plugin writes under its own key (its name, by convention) in PreFilter or Reserve and reads
it back in later phases of the same attempt, including the binding cycle. The framework adds the
sets of plugins whose PreFilter/PreScore returned Skip, so their Filter/Score are not called.
A fresh :class:`CycleState` is made for every attempt; nothing carries over between attempts.
The scheduler also puts there the pod's :class:`~fakeapi.scheduler.framework.types.PodInfo` it
already has (``pod_info``), so that plugins need not parse the pod's requests again
(:func:`pod_info_of`).
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.types import PodInfo

__all__ = ["CycleState", "pod_info_of"]


class CycleState:
    __slots__ = ("_data", "pod_info", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        #: the scheduled pod's PodInfo, when the scheduler has one (see :func:`pod_info_of`)
        self.pod_info: PodInfo | None = None
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


def pod_info_of(state: CycleState, pod: Obj) -> PodInfo:
    """The PodInfo of ``pod``: the scheduler's when it is of this very pod object, else a new
    one (plugins called on their own, or on another version of the pod)."""
    info = state.pod_info
    if info is not None and info.pod is pod:
        return info
    return PodInfo(pod)
