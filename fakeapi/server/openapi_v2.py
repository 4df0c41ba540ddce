"""``GET /openapi/v2``: the Swagger 2.0 document, as JSON or as gnostic protobuf.

kubectl reads v2 for client-side validation of a ``kind: List`` and for ``explain
--output=plaintext-openapiv2``, and only ever as protobuf; other tools read the JSON. The
endpoint answers as kube-apiserver's (kube-openapi's handler) does:

- the ``Accept`` clauses are tried best first (by ``q``, then the more specific); JSON answers
  ``application/json`` (and wildcards, JSON being first on offer), protobuf answers both
  spellings of gnostic's media type, labelled with the current one
  (``application/com.github.proto-openapi.spec.v2.v1.0+protobuf``); nothing acceptable is a 406;
- both encodings carry one ETag, the SHA-512 of the JSON, and ``Vary: Accept`` tells caches
  the two apart; a request whose ``If-None-Match`` names it gets a bodiless 304.

The document depends only on the resource table, so it is built on the first request and each
encoding made once, on the first request that wants it: a server that never meets kubectl's
List validation never pays for either.
"""

from __future__ import annotations

import hashlib
from functools import cached_property

import orjson
from aiohttp import web

from fakeapi import errors
from fakeapi.resources import ResourceTable
from fakeapi.server import openapi
from fakeapi.server.encoding import JSON

__all__ = ["PROTOBUF", "SwaggerEndpoint"]

#: the media type kube-apiserver labels the protobuf document with, whichever spelling was asked
PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
#: (type, subtype, encoding) in kube-openapi's order of preference
_OFFERS = (
    ("application", "json", JSON),
    ("application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", PROTOBUF),
    ("application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", PROTOBUF),
)


class SwaggerEndpoint:
    """The ``/openapi/v2`` handler of one application, with its lazily built encodings."""

    def __init__(self, resources: ResourceTable) -> None:
        self._resources = resources

    @cached_property
    def _json(self) -> bytes:
        return openapi.document_bytes(openapi.swagger_document(self._resources))

    @cached_property
    def _protobuf(self) -> bytes:
        # from the JSON the server sends, so the two encodings cannot tell different stories
        return openapi.swagger_protobuf(orjson.loads(self._json))

    @cached_property
    def etag(self) -> str:
        """The quoted ETag both encodings carry (upstream's: the JSON's SHA-512 in hex)."""
        return f'"{hashlib.sha512(self._json).hexdigest().upper()}"'

    def body(self, content_type: str) -> bytes:
        """The document in ``content_type`` (:data:`~fakeapi.server.encoding.JSON` or
        :data:`PROTOBUF`)."""
        return self._protobuf if content_type == PROTOBUF else self._json

    async def handle(self, request: web.Request) -> web.Response:
        content_type = negotiate(request.headers.get("Accept", ""))
        if content_type is None:
            raise errors.not_acceptable(
                "only the following media types are accepted: "
                + ", ".join(f"{kind}/{subtype}" for kind, subtype, _ in _OFFERS)
            )
        headers = {"Vary": "Accept", "ETag": self.etag}
        if _matches(request.headers.get("If-None-Match"), self.etag):
            return web.Response(status=304, headers=headers)
        response = web.Response(body=self.body(content_type), headers=headers)
        response.headers["Content-Type"] = content_type
        return response


def negotiate(accept: str) -> str | None:
    """The encoding to answer ``accept`` with, or None when none is acceptable.

    Clauses are ranked as goautoneg (which kube-openapi uses) ranks them: higher ``q`` first,
    then a concrete type before ``*``, then a concrete subtype before ``*``, otherwise in the
    order given. The first clause any offer matches decides. An empty header accepts anything.
    """
    clauses: list[tuple[float, bool, bool, int, str, str]] = []
    for index, part in enumerate((accept or "*/*").split(",")):
        media, *parameters = part.split(";")
        kind, _, subtype = media.strip().lower().partition("/")
        if not kind:
            continue
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        if quality > 0:
            clauses.append((-quality, kind == "*", subtype == "*", index, kind, subtype or "*"))
    for *_, kind, subtype in sorted(clauses):
        for offer_kind, offer_subtype, content_type in _OFFERS:
            if kind in ("*", offer_kind) and subtype in ("*", offer_subtype):
                return content_type
    return None


def _matches(if_none_match: str | None, etag: str) -> bool:
    """``If-None-Match`` names ``etag`` (weak comparison, as Go's ``http.ServeContent``)."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == etag:
            return True
    return False
