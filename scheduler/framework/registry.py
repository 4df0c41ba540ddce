"""Plugins by name, and the profile that says which run and with what score weight.

Like kube-scheduler's ``runtime.Registry`` and ``KubeSchedulerProfile``: a registry maps a plugin
name to a factory that builds the plugin from the framework :class:`Handle`; a profile lists the
enabled plugins in order (the order plugins run at each point) and the score weights. The
in-tree registry and the default profile live with the plugins
(``fakeapi.scheduler.plugins.in_tree_registry`` / ``DEFAULT_PROFILE``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.scheduler.framework.interface import Handle

__all__ = ["PluginFactory", "Profile", "Registry"]

#: builds one plugin instance for a profile
PluginFactory = Callable[[Handle], Any]
Registry = Mapping[str, PluginFactory]


@dataclass(frozen=True, slots=True)
class Profile:
    """Enabled plugins in run order, with Score weights (unlisted weights are 1)."""

    scheduler_name: str = "default-scheduler"
    plugins: tuple[str, ...] = ()
    score_weights: Mapping[str, int] = field(default_factory=dict)
    #: None = adaptive (upstream default 0): 50% − nodes/125, at least 5%
    percentage_of_nodes_to_score: int | None = None

    def weight(self, plugin: str) -> int:
        return self.score_weights.get(plugin, 1)
