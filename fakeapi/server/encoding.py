"""Bodies in and out: JSON/YAML/protobuf request decoding and exact response Content-Types.

Responses are built from bytes (the stored encodings, concatenated for lists) and labelled
``application/json`` with no charset: several clients compare the header exactly, and aiohttp's
``json_response`` would append one.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import yaml
from aiohttp import web

from fakeapi import errors
from fakeapi.server.media import media_type
from fakeapi.server.protobuf import decode_kubernetes_protobuf
from fakeapi.server.protobuf_reader import ProtobufDecodeError

__all__ = [
    "JSON",
    "json_bytes_response",
    "json_response",
    "status_response",
    "warning_header",
    "read_body",
    "media_type",
    "MAX_BODY_BYTES",
]

JSON = "application/json"
#: upstream's limit on request bodies (3 MiB)
MAX_BODY_BYTES = 3 * 1024 * 1024


def json_bytes_response(
    body: bytes,
    *,
    status: int = 200,
    warnings: list[str] | None = None,
    content_type: str = JSON,
) -> web.Response:
    response = web.Response(body=body, status=status)
    response.headers["Content-Type"] = content_type
    for text in warnings or ():
        response.headers.add("Warning", warning_header(text))
    return response


def json_response(
    obj: Any, *, status: int = 200, warnings: list[str] | None = None
) -> web.Response:
    return json_bytes_response(orjson.dumps(obj), status=status, warnings=warnings)


def status_response(error: errors.StatusError) -> web.Response:
    return json_bytes_response(orjson.dumps(error.status()), status=error.code)


def warning_header(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'


class _DupDict(dict[str, Any]):
    __slots__ = ("dups",)
    dups: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> _DupDict:
    out = _DupDict()
    dups: list[str] = []
    for key, value in pairs:
        if key in out:
            dups.append(key)
        out[key] = value
    out.dups = dups
    return out


class _DuplicateKeysLoader(yaml.SafeLoader):
    """The safe loader, keeping the keys a mapping repeats (as Strict and Warn report them for
    JSON bodies; PyYAML alone keeps the last value silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        self.flatten_mapping(node)
        pairs = []
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (dict, list)):  # as the safe loader refuses them
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    "found unhashable key", key_node.start_mark,
                )
            pairs.append((key, self.construct_object(value_node, deep=True)))
        return _pairs(pairs)


_DuplicateKeysLoader.add_constructor(
    "tag:yaml.org,2002:map", _DuplicateKeysLoader.construct_mapping
)


def _plain(value: Any) -> Any:
    """``value`` with its mappings as plain dicts."""
    if isinstance(value, dict):
        return {key: _plain(sub) for key, sub in value.items()}
    if isinstance(value, list):
        return [_plain(sub) for sub in value]
    return value


def _duplicate_paths(value: Any, path: str, found: list[str]) -> None:
    if isinstance(value, _DupDict):
        for key in value.dups:
            found.append(f"{path}.{key}" if path else key)
        for key, sub in value.items():
            _duplicate_paths(sub, f"{path}.{key}" if path else key, found)
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            _duplicate_paths(sub, f"{path}[{i}]", found)


def find_duplicate_fields(raw: bytes) -> list[str]:
    """Paths of keys that appear twice in one JSON object (Strict and Warn report them)."""
    try:
        parsed = json.loads(raw, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return []
    found: list[str] = []
    _duplicate_paths(parsed, "", found)
    return found


async def _read_limited(request: web.Request) -> bytes:
    """The whole body, or 413 once it passes the limit.

    ``StreamReader.read(n)`` returns whatever is buffered (up to ``n`` bytes), not ``n`` bytes,
    so a chunked body without Content-Length must be read in a loop until EOF.
    """
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(MAX_BODY_BYTES + 1 - size)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise errors.request_entity_too_large(
                f"Request entity too large: limit is {MAX_BODY_BYTES}"
            )


async def read_body(request: web.Request, *, want_duplicates: bool) -> tuple[Any, tuple[str, ...]]:
    """Decode the request body by its Content-Type; returns (value, duplicate field paths)."""
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise errors.request_entity_too_large(
            f"Request entity too large: limit is {MAX_BODY_BYTES}"
        )
    raw = await _read_limited(request)
    kind = media_type(request.headers.get("Content-Type", JSON)) or JSON
    if kind == "application/vnd.kubernetes.protobuf":
        try:
            return decode_kubernetes_protobuf(raw), ()
        except ProtobufDecodeError as exc:
            raise errors.unsupported_media_type(
                kind, f"{exc}; this server reads few kinds in protobuf, send application/json"
            ) from None
    if kind in ("application/yaml", "application/apply-patch+yaml"):
        try:
            return orjson.loads(raw), tuple(find_duplicate_fields(raw) if want_duplicates else ())
        except orjson.JSONDecodeError:
            pass
        try:
            if not want_duplicates:
                return yaml.safe_load(raw.decode("utf-8")), ()
            # a SafeLoader subclass: safe, whatever yaml.load's name suggests
            value = yaml.load(raw.decode("utf-8"), Loader=_DuplicateKeysLoader)
        except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
            raise errors.bad_request(f"error converting YAML to JSON: {exc}") from None
        found: list[str] = []
        _duplicate_paths(value, "", found)
        return _plain(value), tuple(found)
    if kind == JSON or kind.endswith("+json") or kind == "*/*":
        if not raw.strip():
            raise errors.bad_request("the body of the request was empty")
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise errors.bad_request(
                f"couldn't get version/kind; json parse error: {exc}"
            ) from None
        dups = tuple(find_duplicate_fields(raw)) if want_duplicates else ()
        return value, dups
    raise errors.unsupported_media_type(kind)
