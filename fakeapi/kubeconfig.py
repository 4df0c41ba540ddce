"""Kubeconfig files: write one for a fakeapi server, merge into a user's, and read one like kubectl.

Three jobs, one file format:

- :func:`write_kubeconfig` writes a fresh file for one server (``fakeapi serve --kubeconfig``),
  with the user's bearer token when the server authenticates, and what to trust of its TLS
  certificate when it serves HTTPS (a CA's certificates, or nothing checked).
- :func:`merge_kubeconfig` / :func:`unmerge_kubeconfig` do what kind does with ``~/.kube/config``:
  add (or replace) one named cluster, user and context, make it current, and later take exactly
  those entries out again and restore the context that was current before. Other entries of the
  file are never touched, so a sandbox can share a kubeconfig with real clusters.
- :func:`load_kubeconfig` resolves a context the way kubectl does (``--kubeconfig``, else the
  ``KUBECONFIG`` list with the first file winning for each name, else ``~/.kube/config``) into a
  :class:`ClusterAccess`: server URL, credentials and namespace, ready to build an HTTP client.

Every write is atomic (a temporary file renamed over the target), so a reader never sees half a
file, and keeps mode 0600 as kubectl does.
"""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "ClusterAccess",
    "KubeconfigError",
    "default_kubeconfig_paths",
    "kubeconfig",
    "load_kubeconfig",
    "merge_kubeconfig",
    "unmerge_kubeconfig",
    "write_kubeconfig",
]


class KubeconfigError(ValueError):
    """The kubeconfig is missing, unreadable, or has no usable context."""


def kubeconfig(
    *,
    server: str,
    name: str = "fakeapi",
    namespace: str = "default",
    token: str | None = None,
    ca_data: bytes | None = None,
    insecure: bool = False,
) -> dict[str, object]:
    """A kubeconfig of one cluster, user and context named ``name``; the user has ``token`` as
    its credential (none: an empty user), the cluster trusts ``ca_data`` for its TLS
    certificate, or nothing with ``insecure``."""
    cluster: dict[str, object] = {"server": server}
    if ca_data:
        cluster["certificate-authority-data"] = base64.b64encode(ca_data).decode()
    elif insecure:
        cluster["insecure-skip-tls-verify"] = True
    user: dict[str, object] = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [
            {"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}
        ],
        "current-context": name,
        "preferences": {},
    }


def _write(target: Path, config: Mapping[str, Any]) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w") as out:
            yaml.safe_dump(dict(config), out, sort_keys=False)
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_kubeconfig(
    path: str | os.PathLike[str],
    *,
    server: str,
    name: str = "fakeapi",
    namespace: str = "default",
    token: str | None = None,
    ca_data: bytes | None = None,
    insecure: bool = False,
) -> Path:
    """Write a kubeconfig with only this server in it (replacing any file at ``path``); its
    context's namespace is ``namespace``; ``token``, ``ca_data`` and ``insecure`` as for
    :func:`kubeconfig`."""
    return _write(Path(path), kubeconfig(
        server=server, name=name, namespace=namespace, token=token, ca_data=ca_data,
        insecure=insecure,
    ))


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise KubeconfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise KubeconfigError(f"{path} is not valid YAML: {exc}") from None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise KubeconfigError(f"{path} is not a kubeconfig (expected a mapping)")
    return config


def _named(entries: Any) -> list[dict[str, Any]]:
    return [e for e in entries or [] if isinstance(e, dict)]


def _without(entries: Any, name: str) -> list[dict[str, Any]]:
    return [e for e in _named(entries) if e.get("name") != name]


def merge_kubeconfig(
    path: str | os.PathLike[str],
    *,
    server: str,
    name: str = "fakeapi",
    namespace: str = "default",
    token: str | None = None,
    ca_data: bytes | None = None,
    insecure: bool = False,
) -> str | None:
    """Add cluster, user and context ``name`` to the file at ``path`` and make it current
    (``token``, ``ca_data`` and ``insecure`` as for :func:`kubeconfig`).

    Entries of the same name are replaced; everything else is kept. Returns the context that was
    current before (None if none), for :func:`unmerge_kubeconfig` to restore.
    """
    target = Path(path)
    config = _read(target)
    previous = config.get("current-context") or None
    fresh = kubeconfig(server=server, name=name, namespace=namespace, token=token,
                       ca_data=ca_data, insecure=insecure)
    config.setdefault("apiVersion", "v1")
    config.setdefault("kind", "Config")
    for section in ("clusters", "users", "contexts"):
        added: list[Any] = fresh[section]  # type: ignore[assignment]
        config[section] = [*_without(config.get(section), name), *added]
    config["current-context"] = name
    config.setdefault("preferences", {})
    _write(target, config)
    return str(previous) if previous and previous != name else None


def unmerge_kubeconfig(
    path: str | os.PathLike[str], *, name: str = "fakeapi", restore_context: str | None = None
) -> None:
    """Remove cluster, user and context ``name``; if it was current, make ``restore_context``
    current again (or none). A file left with no entries at all is deleted."""
    target = Path(path)
    config = _read(target)
    if not config:
        return
    for section in ("clusters", "users", "contexts"):
        config[section] = _without(config.get(section), name)
    if config.get("current-context") == name:
        known = {c.get("name") for c in config["contexts"]}
        config["current-context"] = restore_context if restore_context in known else ""
    if not (config["clusters"] or config["users"] or config["contexts"]):
        target.unlink(missing_ok=True)
        return
    _write(target, config)


# --- reading, like kubectl -------------------------------------------------------------------
def default_kubeconfig_paths(
    explicit: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> list[Path]:
    """The files kubectl would read: ``explicit``, else ``$KUBECONFIG``, else ~/.kube/config."""
    if explicit:
        return [Path(explicit)]
    env = os.environ if environ is None else environ
    listed = [p for p in env.get("KUBECONFIG", "").split(os.pathsep) if p]
    if listed:
        return [Path(p) for p in listed]
    return [Path.home() / ".kube" / "config"]


@dataclass(frozen=True, slots=True)
class ClusterAccess:
    """What one kubeconfig context says about reaching its cluster."""

    context: str
    server: str
    namespace: str = "default"
    token: str | None = None
    insecure: bool = False
    ca_data: bytes | None = None
    client_cert_data: bytes | None = None
    client_key_data: bytes | None = None

    def ssl_context(self) -> ssl.SSLContext | bool:
        """What httpx's ``verify=`` needs for this cluster (True for plain http or defaults)."""
        if not self.server.startswith("https"):
            return True
        if self.insecure:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif self.ca_data:
            context = ssl.create_default_context(cadata=self.ca_data.decode())
        else:
            context = ssl.create_default_context()
        if self.client_cert_data and self.client_key_data:
            with tempfile.TemporaryDirectory() as tmp:
                cert, key = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
                cert.write_bytes(self.client_cert_data)
                key.write_bytes(self.client_key_data)
                context.load_cert_chain(cert, key)
        return context


def _data(entry: Mapping[str, Any], key: str, base: Path) -> bytes | None:
    """``<key>-data`` (base64) or ``<key>`` (a file, relative to the kubeconfig's folder)."""
    inline = entry.get(f"{key}-data")
    if inline:
        return base64.b64decode(str(inline))
    file = entry.get(key)
    if file:
        return (base / str(file)).read_bytes()
    return None


def load_kubeconfig(
    path: str | os.PathLike[str] | None = None,
    *,
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ClusterAccess:
    """The :class:`ClusterAccess` of ``context`` (default: the current one), as kubectl finds it."""
    clusters: dict[str, tuple[dict[str, Any], Path]] = {}
    users: dict[str, tuple[dict[str, Any], Path]] = {}
    contexts: dict[str, dict[str, Any]] = {}
    current = ""
    files = default_kubeconfig_paths(path, environ=environ)
    for file in files:
        config = _read(file)
        current = current or str(config.get("current-context") or "")
        for entry in _named(config.get("clusters")):
            clusters.setdefault(str(entry.get("name")), (entry.get("cluster") or {}, file.parent))
        for entry in _named(config.get("users")):
            users.setdefault(str(entry.get("name")), (entry.get("user") or {}, file.parent))
        for entry in _named(config.get("contexts")):
            contexts.setdefault(str(entry.get("name")), entry.get("context") or {})
    chosen = context or current
    if not chosen:
        where = ", ".join(str(f) for f in files)
        raise KubeconfigError(f"no current context is set in {where}")
    if chosen not in contexts:
        raise KubeconfigError(f'context "{chosen}" does not exist')
    ctx = contexts[chosen]
    cluster_name = str(ctx.get("cluster") or "")
    if cluster_name not in clusters:
        raise KubeconfigError(f'cluster "{cluster_name}" of context "{chosen}" does not exist')
    cluster, cluster_base = clusters[cluster_name]
    server = str(cluster.get("server") or "")
    if not server:
        raise KubeconfigError(f'cluster "{cluster_name}" has no server')
    user, user_base = users.get(str(ctx.get("user") or ""), ({}, cluster_base))
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = (user_base / str(user["tokenFile"])).read_text().strip()
    try:
        return ClusterAccess(
            context=chosen,
            server=server,
            namespace=str(ctx.get("namespace") or "default"),
            token=str(token) if token else None,
            insecure=bool(cluster.get("insecure-skip-tls-verify")),
            ca_data=_data(cluster, "certificate-authority", cluster_base),
            client_cert_data=_data(user, "client-certificate", user_base),
            client_key_data=_data(user, "client-key", user_base),
        )
    except OSError as exc:
        raise KubeconfigError(f"cannot read a file the kubeconfig names: {exc}") from None
