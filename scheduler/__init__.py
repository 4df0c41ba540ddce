"""The fakeapi scheduler: kube-scheduler's framework with DRA, gangs and the seed reservations.

:class:`Scheduler` is the component the cluster assembler starts; ``framework`` holds the
extension points and runtime (and is the import path for writing a plugin), ``plugins`` the
in-tree plugins (``plugins.dynamic_resources`` also holds the structured allocator library),
``config`` reads a KubeSchedulerConfiguration into a profile (:func:`load_scheduler_config`).
See docs/scheduler.md.
"""

import os as _os

# The repository keeps this folder at its top and installs it as fakeapi.scheduler through a
# symlink; the real path puts tracebacks and __file__ where grep finds the code.
__path__[:] = [_os.path.realpath(entry) for entry in __path__]

from fakeapi.scheduler.config import (
    SchedulerConfigError,
    load_scheduler_config,
    profile_from_config,
)
from fakeapi.scheduler.plugins import default_profile
from fakeapi.scheduler.scheduler import Scheduler

__all__ = [
    "Scheduler",
    "SchedulerConfigError",
    "default_profile",
    "load_scheduler_config",
    "profile_from_config",
]
