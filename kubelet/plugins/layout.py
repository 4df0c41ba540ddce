"""The kubelet directory of a simulated node, laid out as ``/var/lib/kubelet`` is.

A node whose kubelet has a root directory (``--kubelet-root-dir DIR`` gives node ``node-i`` the
directory ``DIR/node-i``) has, inside it:

``plugins_registry/``
    where kubelet plugins put their *registration* socket; the kubelet's plugin watcher finds
    them there. A DRA driver's is ``<driver>-reg.sock`` by the convention of upstream's
    ``kubeletplugin`` helper (the kubelet accepts any name; dot-files are ignored).
``plugins/<driver>/``
    the plugin's own directory; a DRA driver serves its DRA and health services on
    ``plugins/<driver>/dra.sock`` and names that socket as its endpoint in ``GetInfo``.

Nothing here imports gRPC: the assembler and the command line compute paths with it for nodes
whose kubelet has not started yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DRA_SOCKET", "PLUGINS", "PLUGINS_REGISTRY", "KubeletDirectory"]

PLUGINS_REGISTRY = "plugins_registry"
PLUGINS = "plugins"
DRA_SOCKET = "dra.sock"


@dataclass(frozen=True, slots=True)
class KubeletDirectory:
    """The paths under one node's kubelet root directory."""

    root: Path

    @property
    def registry_dir(self) -> Path:
        return self.root / PLUGINS_REGISTRY

    @property
    def plugins_dir(self) -> Path:
        return self.root / PLUGINS

    def plugin_dir(self, driver: str) -> Path:
        return self.plugins_dir / driver

    def registration_socket(self, driver: str) -> Path:
        return self.registry_dir / f"{driver}-reg.sock"

    def dra_socket(self, driver: str) -> Path:
        return self.plugin_dir(driver) / DRA_SOCKET

    def create(self) -> None:
        """Make the directories (a kubelet does on start)."""
        self.registry_dir.mkdir(parents=True, exist_ok=True)
        self.plugins_dir.mkdir(parents=True, exist_ok=True)
