"""The upstream-shaped ``paths`` of one resource: its operations, parameters and bodies.

kubectl ``create``/``apply``/``replace`` look for the kind's PATCH operation and its
``fieldValidation`` parameter; when found they leave unknown-field checks to the server,
otherwise they fall back to client-side validation against ``/openapi/v2``. So
every resource gets upstream's collection, item, subresource and all-namespaces paths, with
upstream's operation ids, tags and parameter sets, built from the shared tables below.
"""

from __future__ import annotations

from fakeapi.models.core import Binding
from fakeapi.resources import ResourceType
from fakeapi.server.openapi.refs import DELETE_OPTIONS, PATCH, STATUS, Doc, group_version_kind, ref
from fakeapi.server.openapi.schemas import DocumentBuilder

__all__ = ["resource_paths"]

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
            "content": {mt: {"schema": ref(schema)} for mt in media},
        }
        for code in codes
    }
    out["401"] = {"description": "Unauthorized"}
    return out


def _body(schema: str, media: tuple[str, ...] = ("*/*",), *, required: bool = True) -> Doc:
    body: Doc = {"content": {mt: {"schema": ref(schema)} for mt in media}}
    if required:
        body["required"] = True
    return body


def _operation_group(group: str, version: str) -> tuple[str, str]:
    """(operationId infix, tag): ``("ResourceV1", "resource_v1")``, ``("CoreV1", "core_v1")``."""
    words = group.removesuffix(".k8s.io").split(".") if group else ["core"]
    camel = words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    return camel[:1].upper() + camel[1:] + version[:1].upper() + version[1:], f"{camel}_{version}"


def resource_paths(rt: ResourceType, builder: DocumentBuilder) -> Doc:
    """Upstream's paths of one resource: collection, item, subresources, all namespaces."""
    root = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    infix, tag = _operation_group(rt.group, rt.version)
    scoped = "Namespaced" if rt.namespaced else ""
    gvk = group_version_kind(rt.group, rt.version, rt.kind)
    kind = builder.kind_name(rt)
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
    patch_media = _PATCH_MEDIA if rt.accepts_strategic_merge_patch else tuple(
        m for m in _PATCH_MEDIA if m != "application/strategic-merge-patch+json"
    )
    patch_body = _body(PATCH, patch_media)
    create = op(
        "post",
        "create",
        target,
        f"create a {rt.kind}",
        _WRITE,
        _responses(kind, ("200", "201", "202")),
        _body(kind),
    )
    if rt.strategy.create_only:  # a review: one POST, answered with the same kind
        return {collection: {"post": create, "parameters": [*scope_params, _P["pretty"]]}}
    kind_list = builder.list_names[rt.kind]
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
            "post": create,
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
                op_gvk=group_version_kind("", "v1", "Binding"),
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
