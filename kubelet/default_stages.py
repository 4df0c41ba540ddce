"""The default pod lifecycle: the stage files shipped as package data of ``fakeapi.kubelet``.

The stages live in ``kubelet/data/stages/*.yaml`` (installed as ``fakeapi/kubelet/data/stages``),
one file per part of the lifecycle — start and finish, sidecars, restarts, deletion — read in
file-name order by :func:`~fakeapi.kubelet.stages.load_stages`, the same call that reads stages
from any file or directory. They are data all the same: the golden files in tests/kubelet pin
what each stage does, and the files' comments name the annotations a pod may carry to steer it
(``fakeapi.dev/finish``, ``fakeapi.dev/run-seconds``). Pass other stages to
:class:`~fakeapi.kubelet.Kubelet` (``stages=``) to change timings or behaviour.
"""

from __future__ import annotations

import functools
from importlib import resources
from importlib.resources.abc import Traversable

from fakeapi.kubelet.stages import Stage, load_stages

__all__ = ["default_stages", "default_stages_path"]


def default_stages_path() -> Traversable:
    """The directory of the shipped stage files (a package resource)."""
    return resources.files("fakeapi.kubelet") / "data" / "stages"


@functools.cache
def default_stages() -> tuple[Stage, ...]:
    """The default lifecycle stages, read once per process (stages are immutable)."""
    return load_stages(default_stages_path())
