"""A fuzz campaign over HTTP: hostile requests to every route, each checked as it is answered.

Hypothesis draws a request: a route (every served resource's collection, object, subresource
and watch paths, and broken ones), a verb, a content type (JSON, YAML, protobuf, the patch types,
garbage), a body (a valid sample, random JSON or YAML, random bytes, truncated JSON, deep nesting,
an alias bomb, protobuf junk, an oversized body), hostile query parameters and headers, and how
the body is sent (at once, cut short, or slowly). :func:`check` sends it to a live server and
asserts what must hold whatever was sent:

- no 5xx, and an error answered by fakeapi is a ``kind: Status``;
- an answer (its status line; a watch's or a followed log's stream is not read further) within
  :data:`ANSWER_WITHIN` seconds;
- a refused request changes nothing: the cluster's resourceVersion is where it was;
- the server is still serving afterwards: ``/readyz`` answers ``ok``.

The server runs in its own thread and event loop (:class:`FuzzServer`) so that hypothesis drives
it from plain synchronous code. ``tests/server/test_http_fuzz.py`` runs a short seeded campaign;
``bench/bench_http_fuzz.py`` a long one that prints its counts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import yaml
from hypothesis import strategies as st

from fakeapi.bootstrap import new_registry
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType, default_resources
from fakeapi.server.encoding import MAX_BODY_BYTES
from fakeapi.server.runner import ApiServer

from .samples import SAMPLE_FIELD_MANAGERS, SAMPLE_KINDS, sample

__all__ = ["ANSWER_WITHIN", "FuzzRequest", "FuzzServer", "check", "fuzz_requests"]

#: how long any request may take to be answered (generous: CI machines are shared)
ANSWER_WITHIN = 10.0
KINDS = [rt for rt in default_resources() if not rt.stored_in]
NAMESPACE = "default"
NAMES = ("sample", "missing", "UPPER", "a" * 300, "..", "%2e%2e", "a/b", "-x-", "ok.name")

CONTENT_TYPES = (
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/apply-patch+yaml",
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "text/plain",
    "*/*",
    "",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
)
ACCEPTS = (
    "application/json",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v9;g=nope",
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
    "text/html",
    "*/*",
    "",
    ";;;",
)
QUERY_KEYS = (
    "labelSelector",
    "fieldSelector",
    "resourceVersion",
    "resourceVersionMatch",
    "limit",
    "continue",
    "timeoutSeconds",
    "watch",
    "allowWatchBookmarks",
    "sendInitialEvents",
    "dryRun",
    "fieldManager",
    "fieldValidation",
    "force",
    "propagationPolicy",
    "gracePeriodSeconds",
    "orphanDependents",
    "pretty",
    "includeObject",
    "follow",
    "container",
    "tailLines",
    "sinceSeconds",
    "limitBytes",
    "x-unknown",
)
HOSTILE_VALUES = (
    "",
    "0",
    "1",
    "-1",
    "5",
    "true",
    "t",
    "false",
    "All",
    "Strict",
    "Ignore",
    "Foreground",
    "Exact",
    "NotOlderThan",
    "18446744073709551616",
    "1e309",
    "NaN",
    "a=b,c!=d",
    "a in (x,y),!b",
    "metadata.name=sample",
    "spec.nodeName=",
    "status.phase!=Running,metadata.namespace==default",
    "a in (" + ",".join(f"v{i}" for i in range(400)) + ")",
    "!!!",
    "é\u2028",
    "x" * 2000,
    "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0",
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _json(value: Any) -> bytes:
    """JSON that may hold integers past 64 bits (orjson refuses to write them)."""
    return json.dumps(value).encode()


def _laughs() -> bytes:
    lines = ["x0: &x0 lol"]
    for level in range(1, 10):
        lines.append(f"x{level}: &x{level} [" + ", ".join([f"*x{level - 1}"] * 9) + "]")
    lines.append("kind: ConfigMap\nmetadata: {name: lol}\ndata: {boom: *x9}")
    return "\n".join(lines).encode()


def _paths(rt: ResourceType) -> list[str]:
    base = f"/api/{rt.version}" if not rt.group else f"/apis/{rt.group}/{rt.version}"
    scope = f"{base}/namespaces/{NAMESPACE}" if rt.namespaced else base
    paths = [f"{scope}/{rt.plural}", f"{base}/{rt.plural}", f"{base}/watch/{rt.plural}"]
    if rt.namespaced:
        paths.append(f"{base}/watch/namespaces/{NAMESPACE}/{rt.plural}")
        paths.append(f"{base}/namespaces/missing-ns/{rt.plural}")
    for name in NAMES:
        paths.append(f"{scope}/{rt.plural}/{name}")
    for sub in (*rt.subresources, "scale", "exec", "bogus"):
        paths.append(f"{scope}/{rt.plural}/sample/{sub}")
    paths.append(f"{scope}/{rt.plural}/sample/status/extra")
    return paths


COLLECTIONS = sorted(
    (f"/api/{rt.version}" if not rt.group else f"/apis/{rt.group}/{rt.version}")
    + (f"/namespaces/{NAMESPACE}" if rt.namespaced else "")
    + f"/{rt.plural}"
    for rt in KINDS
)
SAMPLES = sorted(f"{path}/sample" for path in COLLECTIONS)
ROUTES = [
    *sorted({path for rt in KINDS for path in _paths(rt)}),
    "/api/v1/namespaces",
    "/api/v9/pods",
    "/apis/nope.example.com/v1/things",
    "/api/v1/namespaces/default/pods/sample/proxy/x",
    "/apis/resource.k8s.io",
    "/openapi/v3/apis/resource.k8s.io/v1",
    "/version",
]


@dataclass(frozen=True)
class FuzzRequest:
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    content_type: str
    accept: str
    user_agent: str
    body: bytes
    #: "whole", "truncated" (Content-Length promises more than is sent) or "slow" (in pieces)
    delivery: str

    def url_path(self) -> str:
        return self.path + ("?" + urlencode(self.query) if self.query else "")

    def streams(self) -> bool:
        """Whether a 200 answer is a stream that stays open (a watch, a followed log)."""
        keys: dict[str, str] = {}
        for key, value in self.query:  # the first of repeated parameters counts, as in Go
            keys.setdefault(key, value)
        on = ("1", "t", "T", "true", "TRUE", "True")  # Go's ParseBool
        return "/watch/" in self.path or keys.get("watch") in on or keys.get("follow") in on


@st.composite
def _bodies(draw: st.DrawFn, path: str) -> bytes:
    kind = draw(
        st.sampled_from(
            (
                "sample",
                "sample",
                "json",
                "yaml",
                "bytes",
                "truncated",
                "deep",
                "laughs",
                "protobuf",
                "patch",
                "empty",
                "oversized",
            )
        )
    )
    rt = next((r for r in KINDS if f"/{r.plural}" in path), None)
    if kind == "sample" and rt is not None and (rt.api_version, rt.kind) in SAMPLE_KINDS:
        body: Any = sample(rt.api_version, rt.kind)
        body["metadata"]["name"] = draw(st.sampled_from(("sample", "fuzz", "")))
        if draw(st.booleans()):
            body[draw(st.sampled_from(("spec", "status", "metadata", "extra")))] = draw(JSON_VALUES)
        return _json(body)
    if kind == "yaml":
        return yaml.safe_dump(draw(JSON_VALUES)).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "truncated":
        raw = _json({"metadata": {"name": "cut"}, "spec": draw(JSON_VALUES)})
        return raw[: draw(st.integers(min_value=0, max_value=len(raw) - 1))]
    if kind == "deep":
        depth = draw(st.sampled_from((100, 1100, 50_000)))
        return draw(st.sampled_from((b"[" * depth, b"- " * depth, b'{"a":' * depth)))
    if kind == "laughs":
        return _laughs()
    if kind == "protobuf":
        return b"k8s\x00" + draw(st.binary(max_size=100))
    if kind == "patch":
        ops = st.fixed_dictionaries(
            {
                "op": st.sampled_from(("add", "remove", "replace", "move", "copy", "test", "x")),
                "path": st.sampled_from(("/metadata/labels/a", "/spec", "", "/a/-", "~1")),
            },
            optional={"value": JSON_VALUES, "from": st.sampled_from(("/spec", "/x"))},
        )
        return _json(draw(st.lists(ops, max_size=3)))
    if kind == "oversized":
        return b'{"a":"' + b"x" * MAX_BODY_BYTES + b'"}'
    if kind == "empty":
        return b""
    return _json(draw(JSON_VALUES))


#: writes that make sense for their route (a sample created, replaced or patched, perhaps with
#: one field made hostile), so that the campaign also goes down the paths that succeed
_COHERENT = (
    ("POST", COLLECTIONS, ("application/json", "application/yaml")),
    ("PUT", SAMPLES, ("application/json",)),
    ("PATCH", SAMPLES, ("application/merge-patch+json", "application/apply-patch+yaml")),
)


@st.composite
def _coherent_writes(draw: st.DrawFn) -> FuzzRequest:
    method, paths, types = draw(st.sampled_from(_COHERENT))
    path = draw(st.sampled_from(paths))
    rt = next(r for r in KINDS if f"/{r.plural}" in path)
    if (rt.api_version, rt.kind) in SAMPLE_KINDS:
        body: Any = sample(rt.api_version, rt.kind)
    else:
        body = {"apiVersion": rt.api_version, "kind": rt.kind, "metadata": {}}
    body["metadata"]["name"] = "sample" if method != "POST" else draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        field_name = draw(st.sampled_from(("spec", "status", "metadata", "data", "extra")))
        body[field_name] = draw(JSON_VALUES)
    content_type = draw(st.sampled_from(types))
    raw = yaml.safe_dump(body).encode() if "yaml" in content_type else _json(body)
    manager = SAMPLE_FIELD_MANAGERS.get((rt.api_version, rt.kind), "fuzz")
    query = [("fieldManager", manager)]
    query += draw(
        st.lists(
            st.tuples(st.sampled_from(QUERY_KEYS), st.sampled_from(HOSTILE_VALUES)), max_size=2
        )
    )
    return FuzzRequest(
        method=method,
        path=path,
        query=tuple(query),
        content_type=content_type,
        accept="application/json",
        user_agent="fuzz",
        body=raw,
        delivery=draw(st.sampled_from(("whole", "whole", "whole", "slow"))),
    )


def fuzz_requests() -> st.SearchStrategy[FuzzRequest]:
    """One hostile request: anything at all, or a write that makes sense for its route."""
    return _any_requests() | _coherent_writes()


@st.composite
def _any_requests(draw: st.DrawFn) -> FuzzRequest:
    path = draw(
        st.sampled_from(ROUTES) | st.sampled_from(COLLECTIONS) | st.sampled_from(SAMPLES)
    )
    method = draw(st.sampled_from(("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")))
    query = draw(
        st.lists(
            st.tuples(st.sampled_from(QUERY_KEYS), st.sampled_from(HOSTILE_VALUES)), max_size=4
        )
    )
    has_body = method in ("POST", "PUT", "PATCH") or (method == "DELETE" and draw(st.booleans()))
    body = draw(_bodies(path)) if has_body else b""
    oversized = len(body) > MAX_BODY_BYTES
    deliveries = ("whole", "whole", "truncated", "slow")
    delivery = "whole" if oversized else draw(st.sampled_from(deliveries))
    return FuzzRequest(
        method=method,
        path=path,
        query=tuple(query),
        content_type=draw(st.sampled_from(CONTENT_TYPES)),
        accept=draw(st.sampled_from(ACCEPTS)),
        user_agent=draw(
            st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
        ).strip(),
        body=body,
        delivery=delivery if body else "whole",
    )


class _ErrorRecords(logging.Handler):
    """What the server logged at ERROR or above (an internal error, an unhandled exception)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


class FuzzServer:
    """An API server in a thread of its own, seeded with one sample object of each kind."""

    def __init__(self) -> None:
        self.registry: GenericStore = new_registry()
        for rt in KINDS:
            if (rt.api_version, rt.kind) not in SAMPLE_KINDS or rt.strategy.create_only:
                continue
            manager = SAMPLE_FIELD_MANAGERS.get((rt.api_version, rt.kind), "fuzz")
            try:
                self.registry.create(
                    rt,
                    NAMESPACE if rt.namespaced else None,
                    sample(rt.api_version, rt.kind),
                    WriteOptions(field_manager=manager),
                )
            except Exception:  # a sample another one needs first: the fuzz goes on without it
                continue
        self.loop = asyncio.new_event_loop()
        self.server = ApiServer(registry=self.registry)
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(ANSWER_WITHIN)
        self.host, self.port = "127.0.0.1", self.server.port
        self.url = self.server.url
        self.client = httpx.Client(base_url=self.url, timeout=ANSWER_WITHIN)
        self.counts: Counter[str] = Counter()
        self.errors = _ErrorRecords()
        for name in ("fakeapi", "aiohttp"):
            logging.getLogger(name).addHandler(self.errors)

    def resource_version(self) -> int:
        async def read() -> int:
            return self.registry.resource_version

        return asyncio.run_coroutine_threadsafe(read(), self.loop).result(ANSWER_WITHIN)

    def close(self) -> None:
        for name in ("fakeapi", "aiohttp"):
            logging.getLogger(name).removeHandler(self.errors)
        self.client.close()
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(ANSWER_WITHIN)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(ANSWER_WITHIN)
        self.loop.close()


def _raw_request(request: FuzzRequest) -> bytes:
    headers = [
        f"{request.method} {request.url_path()} HTTP/1.1",
        "Host: fuzz",
        "Connection: close",
        f"Accept: {request.accept}",
        f"User-Agent: {request.user_agent}",
    ]
    if request.content_type:
        headers.append(f"Content-Type: {request.content_type}")
    promised = len(request.body) + (100 if request.delivery == "truncated" else 0)
    headers.append(f"Content-Length: {promised}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode()


def _send_raw(server: FuzzServer, request: FuzzRequest) -> int | None:
    """Send over a socket of our own: cut short (then the write side closed) or in slow pieces.
    The status code, or None when the server closed without answering (a cut-short body)."""
    with socket.create_connection((server.host, server.port), timeout=ANSWER_WITHIN) as sock:
        try:
            sock.sendall(_raw_request(request))
            if request.delivery == "slow":
                third = max(1, len(request.body) // 3)
                for start in range(0, len(request.body), third):
                    sock.sendall(request.body[start : start + third])
                    time.sleep(0.01)  # a slow client, not a wait for the server
            else:
                sock.sendall(request.body)
                sock.shutdown(socket.SHUT_WR)
        except OSError:  # the server answered early (a refused request line) and hung up
            pass
        head = b""
        while b"\r\n" not in head:
            try:
                chunk = sock.recv(4096)
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            head += chunk
    return int(head.split(b" ", 2)[1])


@dataclass
class Outcome:
    status: int | None
    body: bytes = b""
    content_type: str = ""
    notes: list[str] = field(default_factory=list)


def _send(server: FuzzServer, request: FuzzRequest) -> Outcome:
    if request.delivery != "whole":
        return Outcome(_send_raw(server, request))
    headers = {"Accept": request.accept, "User-Agent": request.user_agent}
    if request.content_type:
        headers["Content-Type"] = request.content_type
    with server.client.stream(
        request.method, request.url_path(), content=request.body or None, headers=headers
    ) as response:
        if response.status_code == 200 and request.streams():
            return Outcome(200)  # a watch or a followed log: answered; not read further
        body = response.read()
        return Outcome(response.status_code, body, response.headers.get("content-type", ""))


def check(server: FuzzServer, request: FuzzRequest) -> int | None:
    """Send ``request`` and assert the campaign's properties; returns the status code."""
    before = server.resource_version()
    logged = len(server.errors.records)
    started = time.monotonic()
    outcome = _send(server, request)
    elapsed = time.monotonic() - started
    assert elapsed < ANSWER_WITHIN, f"answered after {elapsed:.1f}s"
    status = outcome.status
    # the one 5xx upstream answers to a client: a read at a resourceVersion the server has not
    # reached yet is a retryable 504 Timeout
    too_new = status == 504 and b"Too large resource version" in outcome.body
    assert status is None or status < 500 or too_new, (status, outcome.body[:300])
    answered = status is not None and request.method != "HEAD"  # HEAD answers have no body
    if answered and status >= 400 and outcome.content_type == "application/json":
        reply = orjson.loads(outcome.body)
        assert reply["kind"] == "Status" and reply["code"] == status, reply
    # a collection delete deletes item by item and reports the first item it could not delete,
    # as upstream's DeleteCollection: what it deleted before stays deleted
    partial = request.method == "DELETE" and request.path in COLLECTIONS
    if (status is None or status >= 400) and not partial:
        assert server.resource_version() == before, "a refused request changed the cluster"
    ready = server.client.get("/readyz")
    assert (ready.status_code, ready.text) == (200, "ok")
    assert server.errors.records[logged:] == [], "the server logged an error"
    server.counts[f"{request.method} {status}"] += 1
    return status
