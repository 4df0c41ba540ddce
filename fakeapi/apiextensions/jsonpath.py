"""The JSONPath subset custom resource printer columns and selectable fields are written in.

A CRD's ``additionalPrinterColumns[].jsonPath`` is evaluated as client-go's ``jsonpath`` does
with ``{<path>}``: ``.a.b`` fields, ``['a.b']`` quoted fields, list indexes (negative too), the
``[*]`` wildcard and filters such as ``[?(@.type=="Ready")]`` (``==``/``!=`` against a quoted
string or a bare word or number). A missing key yields nothing (``AllowMissingKeys``). Paths
are compiled once per text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["JsonPathError", "compile_path", "render"]

_SEGMENT = re.compile(
    r"""\.(?P<field>[^.\[\]]+)
      | \[(?P<quoted>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]
      | \[(?P<index>-?\d+|\*)\]
      | \[\?\(@\.(?P<key>[A-Za-z0-9_.\-/]+)\s*(?:(?P<op>==|!=)\s*
           (?P<value>"[^"]*"|'[^']*'|[^)\s]+))?\s*\)\]
    """,
    re.VERBOSE,
)

Step = Callable[[list[Any]], list[Any]]


class JsonPathError(ValueError):
    """The expression is outside the supported subset."""


def _field(name: str) -> Step:
    def step(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            if name == "*":
                if isinstance(value, dict):
                    out.extend(value.values())
                elif isinstance(value, list):
                    out.extend(value)
            elif isinstance(value, dict) and name in value:
                out.append(value[name])
        return out

    return step


def _index(text: str) -> Step:
    def step(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                continue
            if text == "*":
                out.extend(value)
                continue
            i = int(text)
            if -len(value) <= i < len(value):
                out.append(value[i])
        return out

    return step


def _literal(text: str) -> Any:
    if text[:1] in ("'", '"'):
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _filter(key: str, op: str | None, expected_text: str | None) -> Step:
    path = key.split(".")
    expected = _literal(expected_text) if expected_text is not None else None

    def pick(item: Any) -> tuple[bool, Any]:
        for part in path:
            if not isinstance(item, dict) or part not in item:
                return False, None
            item = item[part]
        return True, item

    def step(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            for item in value if isinstance(value, list) else [value]:
                found, got = pick(item)
                if not found:
                    continue
                if op is None or (got == expected) == (op == "=="):
                    out.append(item)
        return out

    return step


@functools.lru_cache(maxsize=1024)
def compile_path(text: str) -> Callable[[Any], list[Any]]:
    """A function giving every value ``text`` selects in an object (an empty list if none)."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    steps: list[Step] = []
    pos = 0
    while pos < len(body):
        match = _SEGMENT.match(body, pos)
        if match is None:
            raise JsonPathError(f"unrecognized JSONPath {text!r} at {body[pos:]!r}")
        if match.group("field") is not None:
            steps.append(_field(match.group("field")))
        elif match.group("quoted") is not None:
            steps.append(_field(match.group("quoted")[1:-1]))
        elif match.group("index") is not None:
            steps.append(_index(match.group("index")))
        else:
            steps.append(_filter(match.group("key"), match.group("op"), match.group("value")))
        pos = match.end()

    def evaluate(obj: Any) -> list[Any]:
        values = [obj]
        for step in steps:
            values = step(values)
            if not values:
                break
        return values

    return evaluate


def render(value: Any) -> str:
    """A value as jsonpath prints it: strings bare, other values as JSON."""
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()
