"""JSON paths into a schema: a rule's ``fieldPath`` and a selectable field's ``jsonPath``.

Upstream's ``ValidFieldPath``: a path of ``.name`` steps and ``['quoted name']`` steps (the
latter also reaching into maps) that must name a declared field; the result is the field path
errors are reported at (``spec.replicas``, ``spec.labels[app]``) and the schema it reaches.
"""

from __future__ import annotations

import re

from fakeapi.apiextensions.structural import Structural
from fakeapi.validation import field as fe

__all__ = ["valid_field_path"]

_TOKENS = re.compile(r"'(?:[^'\\]|\\.)*'|[.\[\]]|[^.\[\]']+")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "'": "'", "\\": "\\"}


def _unquote(token: str) -> str:
    body = token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            char = _ESCAPES.get(body[i + 1])
            if char is None:
                raise ValueError(f"invalid string literal: invalid escape char \\{body[i + 1]}")
            out.append(char)
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def valid_field_path(
    json_path: str, schema: Structural, *, allow_array_notation: bool = True
) -> tuple[str, Structural | None]:
    """Upstream's ``ValidFieldPath``: a rule's ``fieldPath`` (or a selectable field's
    ``jsonPath``) as a field path and the schema it reaches; raises ValueError with upstream's
    reason when the path does not name a declared field."""
    path = fe.Path()
    node: Structural | None = schema
    tokens = _TOKENS.findall(json_path)
    if "".join(tokens) != json_path:
        raise ValueError("expected [ or . but got: " + json_path)
    i = 0

    def step(name: str, named: bool) -> None:
        nonlocal path, node
        assert node is not None
        if not named:
            path = path.key(name)
            node = node.additional_schema
        else:
            path = path.child(name)
            found = (node.properties or {}).get(name)
            if found is None:
                raise ValueError("does not refer to a valid field")
            node = found

    def named_here() -> bool:
        if node is not None and node.properties is not None:
            return True
        if node is not None and node.additional_properties is not None:
            return False
        raise ValueError("does not refer to a valid field")

    while i < len(tokens):
        token = tokens[i]
        if token == "[":
            if not allow_array_notation:
                raise ValueError("array notation is not allowed")
            if i + 1 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            quoted = tokens[i + 1]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                raise ValueError(f"expected single quoted string but got {quoted}")
            step(_unquote(quoted), named_here())
            if i + 2 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            if tokens[i + 2] != "]":
                raise ValueError(f"expected ] but got {tokens[i + 2]}")
            i += 3
        elif token == ".":
            if i + 1 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            step(tokens[i + 1], named_here())
            i += 2
        else:
            raise ValueError(f"expected [ or . but got: {token}")
    return path.text, node
