"""Write a kubeconfig that points kubectl and client libraries at a fakeapi server."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

__all__ = ["kubeconfig", "write_kubeconfig"]


def kubeconfig(
    *, server: str, name: str = "fakeapi", namespace: str = "default"
) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server}}],
        "users": [{"name": name, "user": {}}],
        "contexts": [
            {"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}
        ],
        "current-context": name,
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike[str], *, server: str, name: str = "fakeapi") -> Path:
    """Write the kubeconfig atomically (readers never see half a file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(yaml.safe_dump(kubeconfig(server=server, name=name), sort_keys=False))
    tmp.chmod(0o600)
    tmp.replace(target)
    return target
