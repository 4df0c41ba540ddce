"""The stream configuration: which pods' logs, exec, attach and port-forward go where (kwok's).

Simulated containers run nothing, so what ``kubectl logs``, ``exec``, ``attach`` and
``port-forward`` reach must be configured, as kwok configures its fake nodes: YAML documents of
kwok's kinds (``apiVersion: kwok.x-k8s.io/v1alpha1``), each with a selector of pods:

- ``ClusterLogs`` — ``spec.logs[]``: ``containers`` (none: all), ``logsFile`` (what the
  container prints), ``follow`` (``kubectl logs -f`` reads on as the file grows),
  ``previousLogsFile`` (``kubectl logs -p``);
- ``ClusterExec`` — ``spec.execs[]``: ``containers``, ``local`` (``workDir``, ``envs`` as
  ``[{name, value}]``): ``kubectl exec`` runs the command it is given as a local process there;
- ``ClusterAttach`` — ``spec.attaches[]``: ``containers``, and ``logsFile`` (``kubectl attach``
  shows the file and what is appended to it) or ``command`` (a local process, stdin attached);
- ``ClusterPortForward`` — ``spec.forwards[]``: ``ports`` (none: any), and ``target``
  (``{port, address}``: a local TCP port; the pod port and ``127.0.0.1`` by default) or
  ``command`` (a local process whose stdin and stdout are the connection).

``spec.selector`` has ``matchNamespaces`` and ``matchNames`` (either empty: any); the namespaced
kinds ``Logs``, ``Exec``, ``Attach`` and ``PortForward`` apply to the one pod their
``metadata.namespace``/``metadata.name`` name. The first rule that selects the pod and the
container (or port) wins, in file order. No configuration, or no rule for a pod: nothing is
reached, and the API says so. Running local commands on request is why this is off by default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "API_VERSION",
    "AttachRule",
    "ExecRule",
    "ForwardRule",
    "LogsRule",
    "PodSelector",
    "StreamConfig",
    "StreamConfigError",
    "load_stream_config",
]

API_VERSION = "kwok.x-k8s.io/v1alpha1"


class StreamConfigError(ValueError):
    """A stream configuration that cannot be used; says which file, document and field."""


@dataclass(frozen=True, slots=True)
class PodSelector:
    """Pods by namespace and name; an empty list matches any."""

    namespaces: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def matches(self, namespace: str, name: str) -> bool:
        return (not self.namespaces or namespace in self.namespaces) and (
            not self.names or name in self.names
        )


@dataclass(frozen=True, slots=True)
class _Rule:
    selector: PodSelector
    #: the containers the rule is for (empty: all)
    containers: tuple[str, ...]

    def selects(self, namespace: str, pod: str, container: str) -> bool:
        return self.selector.matches(namespace, pod) and (
            not self.containers or container in self.containers
        )


@dataclass(frozen=True, slots=True)
class LogsRule(_Rule):
    logs_file: Path
    follow: bool = False
    previous_logs_file: Path | None = None


@dataclass(frozen=True, slots=True)
class ExecRule(_Rule):
    work_dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AttachRule(_Rule):
    logs_file: Path | None = None
    command: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ForwardRule:
    selector: PodSelector
    #: the pod ports forwarded (empty: any)
    ports: tuple[int, ...]
    address: str = "127.0.0.1"
    #: the local port (None: the pod port)
    port: int | None = None
    command: tuple[str, ...] = ()

    def selects(self, namespace: str, pod: str, port: int) -> bool:
        return self.selector.matches(namespace, pod) and (not self.ports or port in self.ports)


@dataclass(frozen=True, slots=True)
class StreamConfig:
    logs: tuple[LogsRule, ...] = ()
    execs: tuple[ExecRule, ...] = ()
    attaches: tuple[AttachRule, ...] = ()
    forwards: tuple[ForwardRule, ...] = ()

    def logs_for(self, namespace: str, pod: str, container: str) -> LogsRule | None:
        return next((r for r in self.logs if r.selects(namespace, pod, container)), None)

    def exec_for(self, namespace: str, pod: str, container: str) -> ExecRule | None:
        return next((r for r in self.execs if r.selects(namespace, pod, container)), None)

    def attach_for(self, namespace: str, pod: str, container: str) -> AttachRule | None:
        return next((r for r in self.attaches if r.selects(namespace, pod, container)), None)

    def forward_for(self, namespace: str, pod: str, port: int) -> ForwardRule | None:
        return next((r for r in self.forwards if r.selects(namespace, pod, port)), None)

    def __add__(self, other: StreamConfig) -> StreamConfig:
        return StreamConfig(
            logs=self.logs + other.logs,
            execs=self.execs + other.execs,
            attaches=self.attaches + other.attaches,
            forwards=self.forwards + other.forwards,
        )


class _Reader:
    """Typed access to one document's fields; errors name the field's path."""

    def __init__(self, where: str, base: Path) -> None:
        self.where = where
        self.base = base

    def fail(self, path: str, expected: str, value: Any) -> StreamConfigError:
        return StreamConfigError(f"{self.where}: {path}: expected {expected}, got {value!r}")

    def mapping(self, value: Any, path: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(path, "a mapping", value)
        return value

    def items(self, value: Any, path: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, "a list", value)
        return value

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        items = self.items(value, path)
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item:
                raise self.fail(f"{path}[{i}]", "a non-empty string", item)
        return tuple(items)

    def path(self, value: Any, path: str, *, required: bool) -> Path | None:
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(path, "a file path", value)
        given = Path(os.path.expanduser(value))
        return given if given.is_absolute() else self.base / given

    def port(self, value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            raise self.fail(path, "a port number (1-65535)", value)
        return value


def _selector(kind: str, doc: Mapping[str, Any], spec: Mapping[str, Any], r: _Reader) -> (
        PodSelector):
    if not kind.startswith("Cluster"):  # the namespaced kinds name their pod
        meta = r.mapping(doc.get("metadata"), "metadata")
        name, namespace = meta.get("name"), meta.get("namespace") or "default"
        if not isinstance(name, str) or not name:
            raise r.fail("metadata.name", "the name of the pod", name)
        return PodSelector((str(namespace),), (name,))
    selector = r.mapping(spec.get("selector"), "spec.selector")
    return PodSelector(
        r.strings(selector.get("matchNamespaces"), "spec.selector.matchNamespaces"),
        r.strings(selector.get("matchNames"), "spec.selector.matchNames"),
    )


def _parse(doc: Mapping[str, Any], r: _Reader) -> StreamConfig:
    kind = str(doc.get("kind"))
    spec = r.mapping(doc.get("spec"), "spec")
    selector = _selector(kind, doc, spec, r)
    base = kind.removeprefix("Cluster")
    if base == "Logs":
        logs = []
        for i, item in enumerate(r.items(spec.get("logs"), "spec.logs")):
            where = f"spec.logs[{i}]"
            item = r.mapping(item, where)
            logs_file = r.path(item.get("logsFile"), f"{where}.logsFile", required=True)
            assert logs_file is not None
            follow = item.get("follow", False)
            if not isinstance(follow, bool):
                raise r.fail(f"{where}.follow", "true or false", follow)
            logs.append(LogsRule(
                selector, r.strings(item.get("containers"), f"{where}.containers"), logs_file,
                follow, r.path(item.get("previousLogsFile"), f"{where}.previousLogsFile",
                               required=False)))
        return StreamConfig(logs=tuple(logs))
    if base == "Exec":
        execs = []
        for i, item in enumerate(r.items(spec.get("execs"), "spec.execs")):
            where = f"spec.execs[{i}]"
            item = r.mapping(item, where)
            local = r.mapping(item.get("local"), f"{where}.local")
            env: dict[str, str] = {}
            for j, var in enumerate(r.items(local.get("envs"), f"{where}.local.envs")):
                var = r.mapping(var, f"{where}.local.envs[{j}]")
                if not isinstance(var.get("name"), str) or not var["name"]:
                    raise r.fail(f"{where}.local.envs[{j}].name", "a variable name",
                                 var.get("name"))
                env[var["name"]] = str(var.get("value", ""))
            execs.append(ExecRule(
                selector, r.strings(item.get("containers"), f"{where}.containers"),
                r.path(local.get("workDir"), f"{where}.local.workDir", required=False), env))
        return StreamConfig(execs=tuple(execs))
    if base == "Attach":
        attaches = []
        for i, item in enumerate(r.items(spec.get("attaches"), "spec.attaches")):
            where = f"spec.attaches[{i}]"
            item = r.mapping(item, where)
            logs_file = r.path(item.get("logsFile"), f"{where}.logsFile", required=False)
            command = r.strings(item.get("command"), f"{where}.command")
            if (logs_file is None) == (not command):
                raise r.fail(where, "exactly one of logsFile and command", dict(item))
            attaches.append(AttachRule(
                selector, r.strings(item.get("containers"), f"{where}.containers"), logs_file,
                command))
        return StreamConfig(attaches=tuple(attaches))
    if base == "PortForward":
        forwards = []
        for i, item in enumerate(r.items(spec.get("forwards"), "spec.forwards")):
            where = f"spec.forwards[{i}]"
            item = r.mapping(item, where)
            ports = tuple(r.port(p, f"{where}.ports[{j}]")
                          for j, p in enumerate(r.items(item.get("ports"), f"{where}.ports")))
            target = r.mapping(item.get("target"), f"{where}.target")
            command = r.strings(item.get("command"), f"{where}.command")
            if target and command:
                raise r.fail(where, "at most one of target and command", dict(item))
            port = (r.port(target["port"], f"{where}.target.port")
                    if target.get("port") is not None else None)
            address = target.get("address", "127.0.0.1")
            if not isinstance(address, str) or not address:
                raise r.fail(f"{where}.target.address", "a host name or address", address)
            forwards.append(ForwardRule(selector, ports, address, port, command))
        return StreamConfig(forwards=tuple(forwards))
    raise StreamConfigError(
        f"{r.where}: kind {kind!r} is not a stream configuration kind (ClusterLogs, Logs, "
        "ClusterExec, Exec, ClusterAttach, Attach, ClusterPortForward, PortForward)"
    )


def load_stream_config(paths: Sequence[str | os.PathLike[str]]) -> StreamConfig:
    """The rules of every document of every file, in order; relative file paths in a document
    are taken from its file's directory."""
    config = StreamConfig()
    for path in map(Path, paths):
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except OSError as exc:
            raise StreamConfigError(f"{path}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise StreamConfigError(f"{path}: {exc}") from None
        for number, doc in enumerate(docs, 1):
            if doc is None:
                continue
            where = f"{path}: document {number}"
            if not isinstance(doc, Mapping):
                raise StreamConfigError(f"{where}: expected a mapping, got {doc!r}")
            if doc.get("apiVersion") != API_VERSION:
                raise StreamConfigError(
                    f"{where}: apiVersion: expected {API_VERSION!r}, got {doc.get('apiVersion')!r}"
                )
            name = (doc.get("metadata") or {}).get("name") if isinstance(
                doc.get("metadata"), Mapping) else None
            label = f"{where} ({doc.get('kind')} {name!r})" if name else where
            config = config + _parse(doc, _Reader(label, path.parent.absolute()))
    return config
