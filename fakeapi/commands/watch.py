"""``fakeapi sandbox -v``: what the control plane does, one line per step.

Two sources make the stream, both in upstream's words:

- the components' own log records (``fakeapi.scheduler``, ``fakeapi.controllers``,
  ``fakeapi.kubelet``, ...), which log their steps through :mod:`fakeapi.klog` as upstream's do:
  ``reserved`` (the scheduler allocated and reserved a claim), ``Done calling
  NodePrepareResources rpc``, ``Health info changed``, ``Created ResourceClaim``;
- the cluster's Events as they are recorded (:class:`EventFeed`), logged as client-go's event
  broadcaster logs them, ``Event occurred`` with the object, type, reason and message:
  ``Scheduled``, ``FailedScheduling``, ``NotReadyForScheduling`` (a gang waiting for the rest of
  its group), ``Started``, ``InvalidFaultAnnotation``...

Three renderings of one record: klog's text format (``I1128 10:41:46.034961 kube-scheduler]
"reserved" pod="default/gpu-pod" ...``; the component stands where klog puts the source file),
klog's JSON format (``--log-format json``: one object per line with ``ts``, ``v``, ``component``,
``msg`` and the pairs), and on a terminal a coloured table-like line drawn with ``rich``. The
records go to stderr, as klog's do, so that stdout keeps the banner.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from fakeapi.client import EVENTS, Client, StatusError
from fakeapi.klog import Message, format_kv

__all__ = [
    "EVENTS_LOGGER",
    "EventFeed",
    "JsonFormatter",
    "KlogTextFormatter",
    "TerminalHandler",
    "component_of",
    "configure_logging",
]

#: the logger the event feed writes to
EVENTS_LOGGER = "fakeapi.events"
#: the component a logger's records come from, by logger name prefix
_COMPONENTS = (
    ("fakeapi.scheduler", "kube-scheduler"),
    ("fakeapi.controllers", "kube-controller-manager"),
    ("fakeapi.kubelet", "kubelet"),
    ("fakeapi.server", "kube-apiserver"),
    ("fakeapi.registry", "kube-apiserver"),
)
_SEVERITY = {logging.DEBUG: "I", logging.INFO: "I", logging.WARNING: "W", logging.ERROR: "E",
             logging.CRITICAL: "F"}


def component_of(record: logging.LogRecord) -> str:
    """Who speaks: the event feed names the event's source; a component's logger its binary."""
    given = getattr(record, "component", None)
    if isinstance(given, str) and given:
        return given
    for prefix, component in _COMPONENTS:
        if record.name == prefix or record.name.startswith(prefix + "."):
            return component
    return record.name.removeprefix("fakeapi.") or "fakeapi"


def _fields(record: logging.LogRecord) -> tuple[str, dict[str, Any]]:
    """The fixed message and the pairs of a record (a plain record: its text, no pairs)."""
    if isinstance(record.msg, Message):
        return record.msg.text, dict(record.msg.kv)
    return record.getMessage(), {}


class KlogTextFormatter(logging.Formatter):
    """klog's text format, the component where klog writes ``file:line``."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%m%d %H:%M:%S", time.localtime(record.created))
        micros = int((record.created % 1) * 1_000_000)
        text, kv = _fields(record)
        component = component_of(record)
        if component == "kubelet" and kv.get("node"):  # as the event feed names a kubelet
            component = f"kubelet {kv.pop('node')}"
        head = f"{_SEVERITY.get(record.levelno, 'I')}{stamp}.{micros:06d} {component}]"
        line = f"{head} {json.dumps(text, ensure_ascii=False)}"
        if kv:
            line += " " + format_kv(kv)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """klog's JSON format: ``ts`` (seconds), ``v`` (0 for information), ``msg``, the pairs; a
    warning or error carries ``level`` and, with an exception, ``err``."""

    def format(self, record: logging.LogRecord) -> str:
        text, kv = _fields(record)
        entry: dict[str, Any] = {"ts": round(record.created, 6), "component": component_of(record)}
        if record.levelno >= logging.WARNING:
            entry["level"] = logging.getLevelName(record.levelno).lower()
        else:
            entry["v"] = 0 if record.levelno >= logging.INFO else 4
        entry["msg"] = text
        for key, value in kv.items():
            entry.setdefault(key, value)
        if record.exc_info:
            entry["err"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


_STYLES = {"kube-scheduler": "cyan", "kube-controller-manager": "magenta", "kubelet": "green",
           "kube-apiserver": "blue"}


class TerminalHandler(logging.Handler):
    """One coloured line per record on a terminal: time, component, what happened."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        from rich.console import Console  # only on a terminal: rich costs ~30 ms to import

        self.console = Console(file=stream, highlight=False, soft_wrap=True)

    def render(self, record: logging.LogRecord) -> Any:
        from rich.text import Text

        text, kv = _fields(record)
        component = component_of(record)
        if component == "kubelet" and kv.get("node"):
            component = f"kubelet {kv.pop('node')}"
        line = Text()
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line.append(f"{stamp}.{int(record.msecs):03d} ", style="dim")
        line.append(f"{component:<26} ", style=_STYLES.get(component.split()[0], "yellow"))
        if text == "Event occurred" and record.name == EVENTS_LOGGER:
            warning = kv.get("type") == "Warning"
            line.append(f"{kv.pop('reason', '')} ", style="bold red" if warning else "bold")
            line.append(f"{str(kv.pop('kind', '')).lower()}/{kv.pop('object', '')}: ")
            line.append(str(kv.pop("message", "")))
            kv.pop("type", None)
        else:
            style = "bold red" if record.levelno >= logging.WARNING else "bold"
            line.append(text, style=style)
        if kv:
            line.append(" " + format_kv(kv), style="dim")
        return line

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.console.print(self.render(record))
        except Exception:  # a log line must never take the sandbox down
            self.handleError(record)


def configure_logging(
    *, verbosity: int, log_format: str, stream: TextIO
) -> Callable[[], None]:
    """Send the ``fakeapi`` loggers' records to ``stream`` (-v: steps, -vv: debug too), as klog
    text, JSON, or (text on a terminal) with rich; returns what undoes it."""
    logger = logging.getLogger("fakeapi")
    handler: logging.Handler
    if log_format == "text" and stream.isatty():
        handler = TerminalHandler(stream)
    else:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(JsonFormatter() if log_format == "json" else KlogTextFormatter())
    before = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbosity <= 1 else logging.DEBUG)
    logger.propagate = False  # one line per record, not another from the root's handlers

    def undo() -> None:
        logger.removeHandler(handler)
        logger.setLevel(before[0])
        logger.propagate = before[1]

    return undo


class EventFeed:
    """Log every Event recorded from now on (and each later count of it) as ``Event occurred``.

    Lists once for a resourceVersion, then watches from it; a watch that ends or expires starts
    over from a new list (the events of that list are not logged again).
    """

    def __init__(self, client: Client, *, logger: logging.Logger | None = None) -> None:
        self.client = client
        self.logger = logger or logging.getLogger(EVENTS_LOGGER)
        #: set once the first list is done: every Event recorded from then on is logged
        self.listed = asyncio.Event()

    def log(self, event: Mapping[str, Any]) -> None:
        involved = event.get("involvedObject") or event.get("regarding") or {}
        namespace, name = involved.get("namespace"), involved.get("name")
        source = event.get("source") or {}
        component = str(
            event.get("reportingComponent") or event.get("reportingController")
            or source.get("component") or ""
        )
        host = str(source.get("host") or "")
        if host and host not in component:
            component = f"{component} {host}".strip()
        kv: dict[str, Any] = {
            "object": f"{namespace}/{name}" if namespace else str(name),
            "kind": involved.get("kind", ""),
            "type": event.get("type", ""),
            "reason": event.get("reason", ""),
            "message": str(event.get("message") or event.get("note") or "").strip(),
        }
        count = int(event.get("count") or (event.get("series") or {}).get("count") or 1)
        if count > 1:
            kv["count"] = count
        level = logging.WARNING if event.get("type") == "Warning" else logging.INFO
        self.logger.log(level, Message("Event occurred", kv), extra={"component": component})

    async def run(self) -> None:
        while True:
            rv = (await self.client.list(EVENTS)).resource_version
            self.listed.set()
            try:
                async with self.client.watch(EVENTS, resource_version=rv) as stream:
                    async for change in stream:
                        if change.type in ("ADDED", "MODIFIED") and change.object is not None:
                            self.log(change.object)
            except StatusError as exc:
                if exc.code != 410:
                    raise
            await asyncio.sleep(0)  # the watch ended: list again
