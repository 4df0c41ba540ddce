"""Structured log lines in klog's shape: a fixed message and key/value pairs.

Upstream's components log a step as ``klog.InfoS("Successfully bound pod to node", "pod", pod,
"node", node)``: the message never varies, the details are pairs. The components here log their
steps the same way, with upstream's messages, so ``fakeapi sandbox -v`` reads like the logs of a
real control plane and a handler can render one record as klog text, as JSON or for a terminal.

A record's ``msg`` is a :class:`Message`; ``str()`` of it is klog's text form
(``"Successfully bound pod to node" pod="default/web" node="node-1"``), so any handler or
formatter (pytest's ``caplog`` included) shows the pairs too, while a handler that knows the type
reads :attr:`Message.text` and :attr:`Message.kv`. Nothing is formatted unless the logger is
enabled for the level: the components log on their hot paths.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Message", "format_kv", "info", "kobj", "warning"]


def _value(value: Any) -> str:
    """One value as klog's text format writes it: strings quoted, numbers and booleans bare,
    anything else as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def format_kv(kv: Mapping[str, Any]) -> str:
    """``key="value" other=3``, in the order given."""
    return " ".join(f"{key}={_value(value)}" for key, value in kv.items())


@dataclass(frozen=True, slots=True)
class Message:
    """A log message with its key/value pairs; ``str()`` is klog's text form."""

    text: str
    kv: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        quoted = json.dumps(self.text, ensure_ascii=False)
        return f"{quoted} {format_kv(self.kv)}" if self.kv else quoted


def kobj(obj: Mapping[str, Any]) -> str:
    """klog.KObj: ``namespace/name``, or ``name`` for a cluster-scoped object."""
    meta = obj.get("metadata") or {}
    namespace, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{namespace}/{name}" if namespace else str(name)


def info(logger: logging.Logger, text: str, /, **kv: Any) -> None:
    """Log a step at INFO (klog's ``InfoS``)."""
    if logger.isEnabledFor(logging.INFO):
        logger.info(Message(text, kv), stacklevel=2)


def warning(logger: logging.Logger, text: str, /, **kv: Any) -> None:
    """Log something a user should look at, at WARNING."""
    if logger.isEnabledFor(logging.WARNING):
        logger.warning(Message(text, kv), stacklevel=2)
