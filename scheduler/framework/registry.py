"""Plugins by name: kube-scheduler's ``runtime.Registry``.

A registry maps a plugin name to a factory that builds the plugin from the framework
:class:`Handle`. The in-tree registry lives with the plugins
(``fakeapi.scheduler.plugins.in_tree_registry``); out-of-tree plugins are registered beside
them under names of their own (:class:`~fakeapi.scheduler.Scheduler`'s ``plugins``), as
kube-scheduler's ``app.WithPlugin`` does. Which registered plugins run, where and with what
weight is the :class:`~fakeapi.scheduler.framework.profile.Profile`'s to say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakeapi.scheduler.framework.interface import Handle

__all__ = ["PluginFactory", "Registry", "merge_registries"]

#: builds one plugin instance for a profile
PluginFactory = Callable[[Handle], Any]
Registry = Mapping[str, PluginFactory]


def merge_registries(in_tree: Registry, out_of_tree: Registry) -> dict[str, PluginFactory]:
    """Both registries in one; an out-of-tree plugin may not take an in-tree name (upstream
    ``Registry.Merge``)."""
    merged = dict(in_tree)
    for name, factory in out_of_tree.items():
        if name in merged:
            raise ValueError(f"a plugin named {name} already exists")
        merged[name] = factory
    return merged
