"""Bodies in and out: JSON/YAML/protobuf request decoding and exact response Content-Types.

Responses are built from bytes (the stored encodings, concatenated for lists) and labelled
``application/json`` with no charset: several clients compare the header exactly, and aiohttp's
``json_response`` would append one.

Every decode has a bounded cost, as kube-apiserver's: a body over 3 MiB is refused with 413
before it is read whole, a YAML document over go-yaml's alias and depth limits with 400
(:mod:`fakeapi.server.yaml_bounded`), and JSON nested past orjson's 1024 levels with 400 (Go's
decoders stop at 10000; no object of any kind comes near either). A body larger than
:data:`THREAD_DECODE_BYTES` is decoded in a worker thread, so the event loop keeps answering
other clients (``/readyz`` among them) while it is parsed.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import orjson
import yaml
from aiohttp import web

from fakeapi import errors
from fakeapi.server.media import media_type
from fakeapi.server.protobuf import decode_kubernetes_protobuf
from fakeapi.server.protobuf_reader import ProtobufDecodeError
from fakeapi.server.yaml_bounded import bounded_loader

__all__ = [
    "JSON",
    "json_bytes_response",
    "json_response",
    "status_response",
    "warning_header",
    "read_body",
    "media_type",
    "MAX_BODY_BYTES",
    "THREAD_DECODE_BYTES",
    "decode_body",
]

JSON = "application/json"
#: upstream's limit on request bodies (3 MiB)
MAX_BODY_BYTES = 3 * 1024 * 1024
#: bodies above this size are decoded off the event loop
THREAD_DECODE_BYTES = 64 * 1024


def json_bytes_response(
    body: bytes,
    *,
    status: int = 200,
    warnings: list[str] | None = None,
    content_type: str = JSON,
) -> web.Response:
    response = web.Response(body=body, status=status, content_type=content_type)
    if warnings:
        headers = response.headers
        for text in warnings:
            headers.add("Warning", warning_header(text))
    return response


def json_response(
    obj: Any, *, status: int = 200, warnings: list[str] | None = None
) -> web.Response:
    return json_bytes_response(orjson.dumps(obj), status=status, warnings=warnings)


def status_response(error: errors.StatusError) -> web.Response:
    response = json_bytes_response(orjson.dumps(error.status()), status=error.code)
    retry_after = (error.details or {}).get("retryAfterSeconds")
    if retry_after:
        response.headers["Retry-After"] = str(retry_after)
    return response


#: control characters no header value may carry (tab may)
_HEADER_CONTROLS = str.maketrans({c: " " for c in (*range(0x09), *range(0x0A, 0x20), 0x7F)})


def warning_header(text: str) -> str:
    """A ``Warning: 299 - "<text>"`` value. A control character in the text (an unknown field's
    name can hold any) becomes a space, as Go's HTTP server turns a line break in a header value
    into one; a header may carry neither."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped.translate(_HEADER_CONTROLS)}"'


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


_SafeLoader = bounded_loader()


class _DuplicateKeysLoader(bounded_loader()):  # type: ignore[misc,valid-type]
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


def find_duplicate_fields(raw: bytes, *, parsed: Any = None) -> list[str]:
    """Paths of keys that appear twice in one JSON object (Strict and Warn report them).

    ``parsed``: ``raw`` as orjson decoded it, which keeps one value per key. When encoding it
    again gives ``raw`` byte for byte, no key was repeated and the walk that keeps every pair
    (the standard library's parser with a hook, in Python) is skipped: compact JSON, as the
    components and most clients send it, takes that path.
    """
    if parsed is not None and orjson.dumps(parsed) == raw:
        return []
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


_JSON_POSITION = re.compile(r"\(char (\d+)\)")


def _json_error(raw: bytes, exc: orjson.JSONDecodeError) -> errors.StatusError:
    text = str(exc)
    if text.startswith("depth limit exceeded"):  # Go's scanner words it by the character
        found = _JSON_POSITION.search(text)
        at = int(found.group(1)) if found else 0
        char = raw[at : at + 1].decode("latin-1") or "["
        text = f"invalid character '{char}' exceeded max depth"
    return errors.bad_request(f"couldn't get version/kind; json parse error: {text}")


async def read_body(request: web.Request, *, want_duplicates: bool) -> tuple[Any, tuple[str, ...]]:
    """Decode the request body by its Content-Type; returns (value, duplicate field paths)."""
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise errors.request_entity_too_large(
            f"Request entity too large: limit is {MAX_BODY_BYTES}"
        )
    raw = await _read_limited(request)
    kind = media_type(request.headers.get("Content-Type", JSON)) or JSON
    if len(raw) > THREAD_DECODE_BYTES:
        return await asyncio.to_thread(decode_body, raw, kind, want_duplicates=want_duplicates)
    return decode_body(raw, kind, want_duplicates=want_duplicates)


def decode_body(raw: bytes, kind: str, *, want_duplicates: bool) -> tuple[Any, tuple[str, ...]]:
    """Decode ``raw`` sent as media type ``kind``; (value, duplicate field paths)."""
    if kind == "application/vnd.kubernetes.protobuf":
        try:
            return decode_kubernetes_protobuf(raw), ()
        except ProtobufDecodeError as exc:
            raise errors.unsupported_media_type(
                kind, f"{exc}; this server reads few kinds in protobuf, send application/json"
            ) from None
    if kind in ("application/yaml", "application/apply-patch+yaml"):
        try:
            value = orjson.loads(raw)
            return value, tuple(find_duplicate_fields(raw, parsed=value) if want_duplicates else ())
        except orjson.JSONDecodeError:
            pass
        try:
            # safe loaders, whatever yaml.load's name suggests
            loader = _DuplicateKeysLoader if want_duplicates else _SafeLoader
            value = yaml.load(raw.decode("utf-8"), Loader=loader)
        except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
            raise errors.bad_request(f"error converting YAML to JSON: {exc}") from None
        found: list[str] = []
        if want_duplicates:
            _duplicate_paths(value, "", found)
        return _plain(value), tuple(found)
    if kind == JSON or kind.endswith("+json") or kind == "*/*":
        if not raw.strip():
            raise errors.bad_request("the body of the request was empty")
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise _json_error(raw, exc) from None
        dups = tuple(find_duplicate_fields(raw, parsed=value)) if want_duplicates else ()
        return value, dups
    raise errors.unsupported_media_type(kind)
