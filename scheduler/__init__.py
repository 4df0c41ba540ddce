"""The fakeapi scheduler: kube-scheduler's framework with DRA, gangs and the seed reservations.

:class:`Scheduler` is the component the cluster assembler starts; ``framework`` holds the
extension points and runtime, ``plugins`` the in-tree plugins (``plugins.dynamic_resources`` also
holds the structured allocator library). See docs/scheduler.md.
"""

from .scheduler import Scheduler

__all__ = ["Scheduler"]
