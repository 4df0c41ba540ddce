"""The two entry points of ``/openapi/v3``: the index and the document of one group-version.

The index hashes each document's canonical bytes (:func:`document_bytes`), so kubectl's disk
cache, keyed by that hash, never serves a stale document after the table changes.
"""

from __future__ import annotations

import hashlib

import orjson

from fakeapi.features import EMULATED_VERSION
from fakeapi.resources import ResourceTable
from fakeapi.server.openapi.paths import resource_paths
from fakeapi.server.openapi.refs import Doc
from fakeapi.server.openapi.schemas import DocumentBuilder

__all__ = ["document_bytes", "document_path", "openapi_document", "openapi_index"]


def document_bytes(document: Doc) -> bytes:
    """The canonical encoding of a document (sorted keys): what the server sends and hashes."""
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)


def document_path(group: str, version: str) -> str:
    """The index key of a group-version: ``api/v1`` or ``apis/<group>/<version>``."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


def openapi_index(resources: ResourceTable) -> Doc:
    """``/openapi/v3``: one entry per group-version, its URL carrying the document's hash."""
    paths: Doc = {}
    for group, version in resources.group_versions():
        document = openapi_document(resources, group, version)
        assert document is not None
        digest = hashlib.sha512(document_bytes(document)).hexdigest().upper()
        path = document_path(group, version)
        paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest}"}
    return {"paths": paths}


def openapi_document(resources: ResourceTable, group: str, version: str) -> Doc | None:
    """The v3 document of one group-version, or None when it is not served."""
    served = [rt for rt in resources if rt.group == group and rt.version == version]
    if not served:
        return None
    builder = DocumentBuilder(group=group, version=version, served=served)
    paths: Doc = {}
    for rt in served:
        paths.update(resource_paths(rt, builder))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": EMULATED_VERSION.git_version},
        "paths": paths,
        "components": {"schemas": builder.schemas},
    }
