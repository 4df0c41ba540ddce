"""OpenAPI v3 documents, one per served group-version, compiled from the resource table.

kubectl reads them for two things. ``explain`` finds the kind's schema by its
``x-kubernetes-group-version-kind`` list and prints each field's type as the last dot-separated
segment of its ``$ref`` — hence upstream's schema names
(``io.k8s.api.resource.v1.ResourceClaimSpec``).
``create``/``apply``/``replace`` look for the kind's PATCH operation in ``paths`` and its
``fieldValidation`` parameter: when found, kubectl leaves unknown-field checks to the server
(``fieldValidation=Strict``); without it kubectl falls back to client-side validation against
``/openapi/v2``. So every document carries upstream-shaped ``paths`` as well as schemas.

Schema names are ``<prefix>.<ClassName>`` (the kind's name for a served kind), the prefix being,
in order: the served kind's ``openapi_prefix`` (for its own model and the models of its module),
a module-level ``OPENAPI_PREFIX`` constant, a table by module, or one derived from the
group-version. Names that would clash are told apart by inserting the module name before the
class name, which keeps the segment kubectl prints unchanged.

The index hashes each document's canonical bytes (:func:`document_bytes`), so kubectl's disk
cache, keyed by that hash, never serves a stale document after the table changes.

The package splits along those concerns: :mod:`.refs` (shared component names),
:mod:`.meta_schemas` (the fixed apimachinery schemas), :mod:`.schemas` (models to named
component schemas), :mod:`.paths` (operations per resource) and :mod:`.documents` (the index and
the per-group-version document built from them). ``/openapi/v2``, which kubectl still reads for
a ``kind: List``, is one Swagger 2.0 document converted from all of these (:mod:`.swagger`) and
encoded as gnostic protobuf for kubectl (:mod:`.swagger_protobuf`).
"""

from __future__ import annotations

from fakeapi.server.openapi.documents import (
    document_bytes,
    document_path,
    openapi_document,
    openapi_index,
)
from fakeapi.server.openapi.swagger import swagger_document
from fakeapi.server.openapi.swagger_protobuf import swagger_protobuf

__all__ = [
    "document_bytes",
    "document_path",
    "openapi_document",
    "openapi_index",
    "swagger_document",
    "swagger_protobuf",
]
