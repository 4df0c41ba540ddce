"""OpenAPI v3 documents, one per served group-version, compiled from the resource table.

kubectl reads them for two things. ``explain`` finds the kind's schema by its
``x-kubernetes-group-version-kind`` list and prints each field's type as the last dot-separated
segment of its ``$ref`` — hence upstream's schema names
(``io.k8s.api.resource.v1.ResourceClaimSpec``).
``create``/``apply``/``replace`` look for the kind's PATCH operation in ``paths`` and its
``fieldValidation`` parameter: when found, kubectl leaves unknown-field checks to the server
(``fieldValidation=Strict``); without it kubectl falls back to client-side validation, which needs
``/openapi/v2`` and fails. So every document carries upstream-shaped ``paths`` as well as schemas.

Schema names are ``<prefix>.<ClassName>`` (the kind's name for a served kind), the prefix being,
in order: the served kind's ``openapi_prefix`` (for its own model and the models of its module),
a module-level ``OPENAPI_PREFIX`` constant, a table by module, or one derived from the
group-version. Names that would clash are told apart by inserting the module name before the
class name, which keeps the segment kubectl prints unchanged.

The index hashes each document's canonical bytes (:func:`document_bytes`), so kubectl's disk
cache, keyed by that hash, never serves a stale document after the table changes.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import orjson
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from fakeapi.models.core import Binding
from fakeapi.models.meta import ObjectMeta, ObjectReference
from fakeapi.resources import ResourceTable, ResourceType
from fakeapi.schema import SchemaNode, schema_for

__all__ = ["document_bytes", "document_path", "openapi_document", "openapi_index"]

Doc = dict[str, Any]

META = "io.k8s.apimachinery.pkg.apis.meta.v1"
CORE = "io.k8s.api.core.v1"
_MODULE_PREFIXES = {
    "fakeapi.models.meta": META,
    "fakeapi.models.core": CORE,
    "fakeapi.models.nodeselector": CORE,
    "fakeapi.models.events": "io.k8s.api.events.v1",
    "fakeapi.models.coordination": "io.k8s.api.coordination.v1",
    "fakeapi.models.scheduling": "io.k8s.api.scheduling.v1alpha1",
}
#: models whose upstream home differs from their module's
_CLASS_PREFIXES = {ObjectReference: CORE}
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
TIME = f"{META}.Time"
STATUS = f"{META}.Status"
DELETE_OPTIONS = f"{META}.DeleteOptions"
PATCH = f"{META}.Patch"
LIST_META = f"{META}.ListMeta"
_SCALAR_REFS = {
    "quantity": QUANTITY,
    "int-or-string": INT_OR_STRING,
    "date-time": TIME,
}
_SCHEMA_REF = "#/components/schemas/"


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
    builder = _DocumentBuilder(group=group, version=version, served=served)
    paths: Doc = {}
    for rt in served:
        paths.update(_resource_paths(rt, builder))
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.37.0"},
        "paths": paths,
        "components": {"schemas": builder.schemas},
    }


def _default_prefix(group: str, version: str) -> str:
    """The prefix of a group-version with no better source (``dev.fakeapi.example.v1``)."""
    if not group:
        return f"io.k8s.api.core.{version}"
    if group.endswith(".k8s.io"):
        return f"io.k8s.api.{group.removesuffix('.k8s.io').split('.')[0]}.{version}"
    return ".".join([*reversed(group.split(".")), version])


class _DocumentBuilder:
    """Collects the component schemas one document needs, naming each model once."""

    def __init__(self, *, group: str, version: str, served: list[ResourceType]) -> None:
        self.group = group
        self.version = version
        self.schemas: dict[str, Doc] = {}
        self._names: dict[type[BaseModel], str] = {}
        self._module_prefixes: dict[str, str] = {}
        self._kinds: dict[type[BaseModel], list[Doc]] = {}
        #: kind -> component name of its list kind
        self.list_names: dict[str, str] = {}
        for rt in served:
            prefix = rt.openapi_prefix or _default_prefix(rt.group, rt.version)
            self._module_prefixes.setdefault(rt.model.__module__, prefix)
            self._kinds.setdefault(rt.model, []).append(_gvk(rt.group, rt.version, rt.kind))
        for name, schema in _fixed_schemas(group=group, version=version).items():
            self.schemas[name] = schema
        self.name_of(ObjectMeta)
        # the served kinds first, so that they keep the plain names when a nested type clashes
        for rt in served:
            if rt.model not in self._names:
                prefix = rt.openapi_prefix or _default_prefix(rt.group, rt.version)
                self._names[rt.model] = self._allocate(rt.model, prefix, type_name=rt.kind)
        for rt in served:
            self._build(rt.model)
            self.list_names[rt.kind] = self._add_list_schema(rt)
            if "binding" in rt.subresources and Binding not in self._names:
                self._kinds[Binding] = [_gvk("", "v1", "Binding")]
                self._names[Binding] = self._allocate(Binding, CORE)
                self._build(Binding)

    # --- naming --------------------------------------------------------------------------------
    def _prefix(self, model: type[BaseModel]) -> str:
        if model in _CLASS_PREFIXES:
            return _CLASS_PREFIXES[model]
        module = model.__module__
        if module in self._module_prefixes:
            return self._module_prefixes[module]
        declared = getattr(sys.modules.get(module), "OPENAPI_PREFIX", None)
        if isinstance(declared, str):
            return declared
        if module in _MODULE_PREFIXES:
            return _MODULE_PREFIXES[module]
        if module.startswith("fakeapi.models.pod"):
            return CORE
        if module.startswith("fakeapi.models.resource") or module.startswith(
            "fakeapi.models.device_"
        ):
            version = self.version if self.group == "resource.k8s.io" else "v1"
            return f"io.k8s.api.resource.{version}"
        return _default_prefix(self.group, self.version)

    def _allocate(self, model: type[BaseModel], prefix: str, *, type_name: str = "") -> str:
        type_name = type_name or model.__name__
        name = f"{prefix}.{type_name}"
        module_tail = model.__module__.rsplit(".", 1)[-1]
        counter = 1
        while name in self.schemas:
            suffix = module_tail if counter == 1 else f"{module_tail}{counter}"
            name = f"{prefix}.{suffix}.{type_name}"
            counter += 1
        self.schemas[name] = {}  # reserved; filled by _build
        return name

    def name_of(self, model: type[BaseModel]) -> str:
        """The component name of ``model``, building its schema on first use."""
        name = self._names.get(model)
        if name is None:
            name = self._names[model] = self._allocate(model, self._prefix(model))
            self._build(model)
        return name

    # --- schemas -------------------------------------------------------------------------------
    def _build(self, model: type[BaseModel]) -> None:
        name = self._names[model]
        if self.schemas.get(name):
            return
        node = schema_for(model)
        schema: Doc = {"type": "object"}
        self.schemas[name] = schema  # before the properties, so recursion finds it
        if node.description:
            schema["description"] = node.description
        properties: Doc = {}
        defaults = _scalar_defaults(model)
        for wire, child in node.properties.items():
            prop = self.schema_of(child)
            if wire in defaults and "type" in prop:
                prop["default"] = defaults[wire]
            properties[wire] = prop
        schema["properties"] = properties
        if node.required:
            schema["required"] = list(node.required)
        if model in self._kinds:
            schema["x-kubernetes-group-version-kind"] = self._kinds[model]

    def _add_list_schema(self, rt: ResourceType) -> str:
        item_name = self._names[rt.model]
        name = f"{item_name.rsplit('.', 1)[0]}.{rt.list_kind}"
        self.schemas[name] = _list_schema(
            kind=rt.kind, item=item_name, gvk=_gvk(rt.group, rt.version, rt.list_kind)
        )
        return name

    def schema_of(self, node: SchemaNode) -> Doc:
        """The schema of a property (or list item, or map value) with its description."""
        out: Doc
        if node.kind == "object" and node.model is not None:
            out = {"allOf": [{"$ref": _SCHEMA_REF + self.name_of(node.model)}]}
        elif node.kind == "array":
            out = {"type": "array", "items": self._item(node.item)}
            out.update(_list_extensions(node))
        elif node.kind == "map":
            out = {"type": "object", "additionalProperties": self._item(node.item)}
        elif node.kind == "scalar":
            out = self._scalar(node)
        else:
            out = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        if node.map_type:
            out["x-kubernetes-map-type"] = node.map_type
        if node.description:
            out["description"] = node.description
        return out

    def _item(self, node: SchemaNode | None) -> Doc:
        if node is None:
            return {}
        item = self.schema_of(node)
        item.pop("description", None)
        if "allOf" in item and node.kind == "object":
            item["default"] = {}
        return item

    def _scalar(self, node: SchemaNode) -> Doc:
        ref = _SCALAR_REFS.get(node.format)
        if ref is not None:
            return {"allOf": [{"$ref": _SCHEMA_REF + ref}]}
        out: Doc = {"type": node.scalar_type or "string"}
        if node.format:
            out["format"] = node.format
        if node.enum:
            out["enum"] = [value for value in node.enum if value is not None]
        return out


def _gvk(group: str, version: str, kind: str) -> Doc:
    return {"group": group, "kind": kind, "version": version}


def _list_extensions(node: SchemaNode) -> Doc:
    meta = node.list_meta
    if meta is None:
        return {}
    out: Doc = {"x-kubernetes-list-type": meta.list_type}
    if meta.list_type == "map" and meta.map_keys:
        out["x-kubernetes-list-map-keys"] = list(meta.map_keys)
    if meta.patch_merge_key:
        out["x-kubernetes-patch-merge-key"] = meta.patch_merge_key
    if meta.patch_strategy:
        out["x-kubernetes-patch-strategy"] = meta.patch_strategy
    return out


def _scalar_defaults(model: type[BaseModel]) -> dict[str, Any]:
    """Wire name -> declared default, for fields whose default is a plain non-null scalar."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        default = info.default
        if default is PydanticUndefined or default is None:
            continue
        if isinstance(default, (str, int, float, bool)):
            out[info.alias or name] = default
    return out


# --- fixed meta/v1 schemas ---------------------------------------------------------------------


def _ref(name: str) -> Doc:
    return {"$ref": _SCHEMA_REF + name}


def _prop(type_: str, description: str, **extra: Any) -> Doc:
    return {"type": type_, "description": description, **extra}


def _ref_prop(name: str, description: str, **extra: Any) -> Doc:
    return {"allOf": [_ref(name)], "description": description, **extra}


_API_VERSION_DOC = "The versioned schema of this representation of an object."
_KIND_DOC = "The REST resource this object represents, in CamelCase."


def _fixed_schemas(*, group: str, version: str) -> dict[str, Doc]:
    """The apimachinery types every document refers to, tagged with this group-version."""
    here = [_gvk(group, version, "")]
    if (group, version) != ("", "v1"):
        here.insert(0, _gvk("", "v1", ""))

    def tagged(kind: str) -> list[Doc]:
        return [{**gvk, "kind": kind} for gvk in here]

    string = {"type": "string"}
    return {
        QUANTITY: {
            "description": "A fixed-point number with an optional suffix (1Gi, 500m, 4), "
            "written as a string or a number.",
            "oneOf": [string, {"type": "number"}],
        },
        INT_OR_STRING: {
            "description": "A value that holds either an integer or a string.",
            "format": "int-or-string",
            "oneOf": [{"type": "integer"}, string],
            "x-kubernetes-int-or-string": True,
        },
        TIME: {
            "description": "A timestamp in RFC 3339 form, to the second, in UTC.",
            "type": "string",
            "format": "date-time",
        },
        "io.k8s.apimachinery.pkg.runtime.RawExtension": {
            "description": "An embedded object of any kind, kept as sent.",
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
        },
        LIST_META: {
            "description": "Metadata of a list: its resourceVersion and paging state.",
            "type": "object",
            "properties": {
                "continue": _prop("string", "Token that fetches the next page, if any."),
                "remainingItemCount": _prop(
                    "integer", "How many items follow this page, when known.", format="int64"
                ),
                "resourceVersion": _prop("string", "The version of the list, for watching."),
                "selfLink": _prop("string", "Deprecated and unset by the server."),
            },
        },
        f"{META}.StatusCause": {
            "description": "One cause of an error, usually tied to a field.",
            "type": "object",
            "properties": {
                "field": _prop("string", "The field path of the cause (spec.items[0].name)."),
                "message": _prop("string", "A human-readable description of the cause."),
                "reason": _prop("string", "A machine-readable reason (FieldValueRequired, ...)."),
            },
        },
        f"{META}.StatusDetails": {
            "description": "Extra data about an error: the object concerned and the causes.",
            "type": "object",
            "properties": {
                "causes": {
                    "type": "array",
                    "items": {"allOf": [_ref(f"{META}.StatusCause")], "default": {}},
                    "description": "The causes of the error, when known.",
                    "x-kubernetes-list-type": "atomic",
                },
                "group": _prop("string", "The group of the resource concerned."),
                "kind": _prop("string", "The kind (or plural resource) concerned."),
                "name": _prop("string", "The name of the object concerned."),
                "retryAfterSeconds": _prop(
                    "integer", "Seconds to wait before retrying.", format="int32"
                ),
                "uid": _prop("string", "The UID of the object concerned."),
            },
        },
        STATUS: {
            "description": "The result of an operation that does not return an object.",
            "type": "object",
            "properties": {
                "apiVersion": _prop("string", _API_VERSION_DOC),
                "code": _prop("integer", "The HTTP status code.", format="int32"),
                "details": _ref_prop(f"{META}.StatusDetails", "Extra data about the error."),
                "kind": _prop("string", _KIND_DOC),
                "message": _prop("string", "A human-readable description of the result."),
                "metadata": _ref_prop(LIST_META, "Standard list metadata.", default={}),
                "reason": _prop("string", "A machine-readable reason (NotFound, Conflict, ...)."),
                "status": _prop("string", "Success or Failure."),
            },
            "x-kubernetes-group-version-kind": [_gvk("", "v1", "Status")],
        },
        f"{META}.Preconditions": {
            "description": "Conditions that must hold before a delete proceeds.",
            "type": "object",
            "properties": {
                "resourceVersion": _prop("string", "The object must have this resourceVersion."),
                "uid": _prop("string", "The object must have this UID."),
            },
        },
        DELETE_OPTIONS: {
            "description": "Options of a delete request.",
            "type": "object",
            "properties": {
                "apiVersion": _prop("string", _API_VERSION_DOC),
                "dryRun": {
                    "type": "array",
                    "items": {"type": "string", "default": ""},
                    "description": "All: process the request without persisting anything.",
                    "x-kubernetes-list-type": "atomic",
                },
                "gracePeriodSeconds": _prop(
                    "integer", "Seconds before the object is deleted.", format="int64"
                ),
                "ignoreStoreReadErrorWithClusterBreakingPotential": _prop(
                    "boolean", "Delete an object that cannot be read from storage."
                ),
                "kind": _prop("string", _KIND_DOC),
                "orphanDependents": _prop("boolean", "Deprecated: use propagationPolicy."),
                "preconditions": _ref_prop(
                    f"{META}.Preconditions", "Conditions that must hold for the delete."
                ),
                "propagationPolicy": _prop(
                    "string",
                    "Whether and how dependents are garbage collected: "
                    "Orphan, Background or Foreground.",
                ),
            },
            "x-kubernetes-group-version-kind": tagged("DeleteOptions"),
        },
        PATCH: {
            "description": "The body of a PATCH request, in the format its Content-Type names.",
            "type": "object",
        },
        f"{META}.WatchEvent": {
            "description": "One event of a watch stream.",
            "type": "object",
            "properties": {
                "object": _ref_prop(
                    "io.k8s.apimachinery.pkg.runtime.RawExtension",
                    "The object the event is about (a Status for ERROR events).",
                ),
                "type": _prop("string", "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."),
            },
            "required": ["type", "object"],
            "x-kubernetes-group-version-kind": tagged("WatchEvent"),
        },
    }


def _list_schema(*, kind: str, item: str, gvk: Doc) -> Doc:
    return {
        "description": f"A list of {kind} objects.",
        "type": "object",
        "properties": {
            "apiVersion": _prop("string", _API_VERSION_DOC),
            "items": {
                "type": "array",
                "items": {"allOf": [_ref(item)], "default": {}},
                "description": f"The {kind} objects.",
            },
            "kind": _prop("string", _KIND_DOC),
            "metadata": _ref_prop(LIST_META, "Standard list metadata.", default={}),
        },
        "required": ["items"],
        "x-kubernetes-group-version-kind": [gvk],
    }


# --- paths -------------------------------------------------------------------------------------

_MEDIA = ("application/json", "application/yaml")
_LIST_MEDIA = (*_MEDIA, "application/json;stream=watch")
_PATCH_MEDIA = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)
_CODE_TEXT = {"200": "OK", "201": "Created", "202": "Accepted"}


def _param(name: str, where: str, type_: str, description: str) -> Doc:
    param: Doc = {
        "name": name,
        "in": where,
        "description": description,
        "schema": {"type": type_, "uniqueItems": True},
    }
    if where == "path":
        param["required"] = True
    return param


_P = {
    "name": _param("name", "path", "string", "The name of the object."),
    "namespace": _param("namespace", "path", "string", "The namespace of the objects."),
    "pretty": _param("pretty", "query", "string", "Pretty-print the output when 'true'."),
    "allowWatchBookmarks": _param(
        "allowWatchBookmarks", "query", "boolean", "Ask for BOOKMARK events in a watch."
    ),
    "continue": _param("continue", "query", "string", "The token of the next page of a list."),
    "fieldSelector": _param(
        "fieldSelector", "query", "string", "Restrict the objects by their fields."
    ),
    "labelSelector": _param(
        "labelSelector", "query", "string", "Restrict the objects by their labels."
    ),
    "limit": _param("limit", "query", "integer", "The most objects to return in one page."),
    "resourceVersion": _param(
        "resourceVersion", "query", "string", "The resourceVersion a read or watch starts from."
    ),
    "resourceVersionMatch": _param(
        "resourceVersionMatch", "query", "string", "How resourceVersion applies to a list."
    ),
    "sendInitialEvents": _param(
        "sendInitialEvents", "query", "boolean", "Start a watch with the current objects."
    ),
    "timeoutSeconds": _param("timeoutSeconds", "query", "integer", "Timeout of a list or watch."),
    "watch": _param("watch", "query", "boolean", "Watch for changes instead of listing."),
    "dryRun": _param("dryRun", "query", "string", "All: process the request but persist nothing."),
    "fieldManager": _param(
        "fieldManager", "query", "string", "The name of the actor making the change."
    ),
    "fieldValidation": _param(
        "fieldValidation",
        "query",
        "string",
        "What to do with unknown or duplicate fields: Ignore, Warn or Strict.",
    ),
    "force": _param("force", "query", "boolean", "Apply: take over fields owned by others."),
    "gracePeriodSeconds": _param(
        "gracePeriodSeconds", "query", "integer", "Seconds before the object is deleted."
    ),
    "ignoreStoreReadErrorWithClusterBreakingPotential": _param(
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "query",
        "boolean",
        "Delete an object that cannot be read from storage.",
    ),
    "orphanDependents": _param(
        "orphanDependents", "query", "boolean", "Deprecated: use propagationPolicy."
    ),
    "propagationPolicy": _param(
        "propagationPolicy", "query", "string", "Orphan, Background or Foreground."
    ),
}
_READ_LIST = (
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
)
_LIST = ("allowWatchBookmarks", *_READ_LIST, "watch")
_WRITE = ("dryRun", "fieldManager", "fieldValidation")
_PATCH_PARAMS = (*_WRITE, "force")
_DELETE = (
    "dryRun",
    "gracePeriodSeconds",
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "orphanDependents",
    "propagationPolicy",
)
_DELETE_COLLECTION = (*_DELETE, *_READ_LIST)


def _params(names: tuple[str, ...]) -> list[Doc]:
    return [_P[name] for name in names]


def _responses(schema: str, codes: tuple[str, ...], media: tuple[str, ...] = _MEDIA) -> Doc:
    out: Doc = {
        code: {
            "description": _CODE_TEXT[code],
            "content": {mt: {"schema": _ref(schema)} for mt in media},
        }
        for code in codes
    }
    out["401"] = {"description": "Unauthorized"}
    return out


def _body(schema: str, media: tuple[str, ...] = ("*/*",), *, required: bool = True) -> Doc:
    body: Doc = {"content": {mt: {"schema": _ref(schema)} for mt in media}}
    if required:
        body["required"] = True
    return body


def _operation_group(group: str, version: str) -> tuple[str, str]:
    """(operationId infix, tag): ``("ResourceV1", "resource_v1")``, ``("CoreV1", "core_v1")``."""
    words = group.removesuffix(".k8s.io").split(".") if group else ["core"]
    camel = words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    return camel[:1].upper() + camel[1:] + version[:1].upper() + version[1:], f"{camel}_{version}"


def _resource_paths(rt: ResourceType, builder: _DocumentBuilder) -> Doc:
    """Upstream's paths of one resource: collection, item, subresources, all namespaces."""
    root = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    infix, tag = _operation_group(rt.group, rt.version)
    scoped = "Namespaced" if rt.namespaced else ""
    gvk = _gvk(rt.group, rt.version, rt.kind)
    kind = builder.name_of(rt.model)
    kind_list = builder.list_names[rt.kind]
    deleted = kind if rt.delete_returns_object else STATUS

    def op(
        action: str,
        verb: str,
        what: str,
        description: str,
        params: tuple[str, ...],
        responses: Doc,
        body: Doc | None = None,
        op_gvk: Doc = gvk,
    ) -> Doc:
        operation: Doc = {
            "description": description,
            "operationId": f"{verb}{infix}{what}",
            "parameters": _params(params),
            "responses": responses,
            "tags": [tag],
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": op_gvk,
        }
        if body is not None:
            operation["requestBody"] = body
        return operation

    scope_params = [_P["namespace"]] if rt.namespaced else []
    collection = (
        f"{root}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{root}/{rt.plural}"
    )
    item = f"{collection}/{{name}}"
    target = f"{scoped}{rt.kind}"
    patch_body = _body(PATCH, _PATCH_MEDIA)
    paths: Doc = {
        collection: {
            "get": op(
                "list",
                "list",
                target,
                f"list or watch objects of kind {rt.kind}",
                _LIST,
                _responses(kind_list, ("200",), _LIST_MEDIA),
            ),
            "post": op(
                "post",
                "create",
                target,
                f"create a {rt.kind}",
                _WRITE,
                _responses(kind, ("200", "201", "202")),
                _body(kind),
            ),
            "delete": op(
                "deletecollection",
                "deleteCollection",
                target,
                f"delete collection of {rt.kind}",
                _DELETE_COLLECTION,
                _responses(STATUS, ("200",)),
                _body(DELETE_OPTIONS, required=False),
            ),
            "parameters": [*scope_params, _P["pretty"]],
        },
        item: {
            "get": op(
                "get",
                "read",
                target,
                f"read the specified {rt.kind}",
                (),
                _responses(kind, ("200",)),
            ),
            "put": op(
                "put",
                "replace",
                target,
                f"replace the specified {rt.kind}",
                _WRITE,
                _responses(kind, ("200", "201")),
                _body(kind),
            ),
            "patch": op(
                "patch",
                "patch",
                target,
                f"partially update the specified {rt.kind}",
                _PATCH_PARAMS,
                _responses(kind, ("200", "201")),
                patch_body,
            ),
            "delete": op(
                "delete",
                "delete",
                target,
                f"delete a {rt.kind}",
                _DELETE,
                _responses(deleted, ("200", "202")),
                _body(DELETE_OPTIONS, required=False),
            ),
            "parameters": [_P["name"], *scope_params, _P["pretty"]],
        },
    }
    if "status" in rt.subresources:
        paths[f"{item}/status"] = {
            "get": op(
                "get",
                "read",
                f"{target}Status",
                f"read status of the specified {rt.kind}",
                (),
                _responses(kind, ("200",)),
            ),
            "put": op(
                "put",
                "replace",
                f"{target}Status",
                f"replace status of the specified {rt.kind}",
                _WRITE,
                _responses(kind, ("200", "201")),
                _body(kind),
            ),
            "patch": op(
                "patch",
                "patch",
                f"{target}Status",
                f"partially update status of the specified {rt.kind}",
                _PATCH_PARAMS,
                _responses(kind, ("200", "201")),
                patch_body,
            ),
            "parameters": [_P["name"], *scope_params, _P["pretty"]],
        }
    if "binding" in rt.subresources:
        binding = builder.name_of(Binding)
        paths[f"{item}/binding"] = {
            "post": op(
                "post",
                "create",
                f"{target}Binding",
                f"create binding of a {rt.kind}",
                _WRITE,
                _responses(binding, ("200", "201", "202")),
                _body(binding),
                op_gvk=_gvk("", "v1", "Binding"),
            ),
            "parameters": [_P["name"], *scope_params, _P["pretty"]],
        }
    if rt.namespaced:
        paths[f"{root}/{rt.plural}"] = {
            "get": op(
                "list",
                "list",
                f"{rt.kind}ForAllNamespaces",
                f"list or watch objects of kind {rt.kind}",
                _LIST,
                _responses(kind_list, ("200",), _LIST_MEDIA),
            ),
            "parameters": [_P["pretty"]],
        }
    return paths
