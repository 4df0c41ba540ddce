"""The apimachinery schemas every document carries, written out by hand.

Quantity, IntOrString, Time, ListMeta, Status, DeleteOptions, Patch and WatchEvent have no
pydantic model here (the server renders them itself), yet kubectl resolves ``$ref``s to them
from every group-version, so each document gets this fixed set, tagged with its own
group-version where upstream tags them. List kinds are generated from the same template.
"""

from __future__ import annotations

from fakeapi.server.openapi.refs import (
    DELETE_OPTIONS,
    INT_OR_STRING,
    LIST_META,
    META,
    MICRO_TIME,
    PATCH,
    QUANTITY,
    STATUS,
    TIME,
    Doc,
    group_version_kind,
    prop,
    ref,
    ref_prop,
)

__all__ = ["API_VERSION_DOC", "KIND_DOC", "fixed_schemas", "list_schema"]

API_VERSION_DOC = "The versioned schema of this representation of an object."
KIND_DOC = "The REST resource this object represents, in CamelCase."


def fixed_schemas(*, group: str, version: str) -> dict[str, Doc]:
    """The apimachinery types every document refers to, tagged with this group-version."""
    here = [group_version_kind(group, version, "")]
    if (group, version) != ("", "v1"):
        here.insert(0, group_version_kind("", "v1", ""))

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
        MICRO_TIME: {
            "description": "A timestamp in RFC 3339 form with microseconds, in UTC.",
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
                "continue": prop("string", "Token that fetches the next page, if any."),
                "remainingItemCount": prop(
                    "integer", "How many items follow this page, when known.", format="int64"
                ),
                "resourceVersion": prop("string", "The version of the list, for watching."),
                "selfLink": prop("string", "Deprecated and unset by the server."),
            },
        },
        f"{META}.StatusCause": {
            "description": "One cause of an error, usually tied to a field.",
            "type": "object",
            "properties": {
                "field": prop("string", "The field path of the cause (spec.items[0].name)."),
                "message": prop("string", "A human-readable description of the cause."),
                "reason": prop("string", "A machine-readable reason (FieldValueRequired, ...)."),
            },
        },
        f"{META}.StatusDetails": {
            "description": "Extra data about an error: the object concerned and the causes.",
            "type": "object",
            "properties": {
                "causes": {
                    "type": "array",
                    "items": {"allOf": [ref(f"{META}.StatusCause")], "default": {}},
                    "description": "The causes of the error, when known.",
                    "x-kubernetes-list-type": "atomic",
                },
                "group": prop("string", "The group of the resource concerned."),
                "kind": prop("string", "The kind (or plural resource) concerned."),
                "name": prop("string", "The name of the object concerned."),
                "retryAfterSeconds": prop(
                    "integer", "Seconds to wait before retrying.", format="int32"
                ),
                "uid": prop("string", "The UID of the object concerned."),
            },
        },
        STATUS: {
            "description": "The result of an operation that does not return an object.",
            "type": "object",
            "properties": {
                "apiVersion": prop("string", API_VERSION_DOC),
                "code": prop("integer", "The HTTP status code.", format="int32"),
                "details": ref_prop(f"{META}.StatusDetails", "Extra data about the error."),
                "kind": prop("string", KIND_DOC),
                "message": prop("string", "A human-readable description of the result."),
                "metadata": ref_prop(LIST_META, "Standard list metadata.", default={}),
                "reason": prop("string", "A machine-readable reason (NotFound, Conflict, ...)."),
                "status": prop("string", "Success or Failure."),
            },
            "x-kubernetes-group-version-kind": [group_version_kind("", "v1", "Status")],
        },
        f"{META}.Preconditions": {
            "description": "Conditions that must hold before a delete proceeds.",
            "type": "object",
            "properties": {
                "resourceVersion": prop("string", "The object must have this resourceVersion."),
                "uid": prop("string", "The object must have this UID."),
            },
        },
        DELETE_OPTIONS: {
            "description": "Options of a delete request.",
            "type": "object",
            "properties": {
                "apiVersion": prop("string", API_VERSION_DOC),
                "dryRun": {
                    "type": "array",
                    "items": {"type": "string", "default": ""},
                    "description": "All: process the request without persisting anything.",
                    "x-kubernetes-list-type": "atomic",
                },
                "gracePeriodSeconds": prop(
                    "integer", "Seconds before the object is deleted.", format="int64"
                ),
                "ignoreStoreReadErrorWithClusterBreakingPotential": prop(
                    "boolean", "Delete an object that cannot be read from storage."
                ),
                "kind": prop("string", KIND_DOC),
                "orphanDependents": prop("boolean", "Deprecated: use propagationPolicy."),
                "preconditions": ref_prop(
                    f"{META}.Preconditions", "Conditions that must hold for the delete."
                ),
                "propagationPolicy": prop(
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
                "object": ref_prop(
                    "io.k8s.apimachinery.pkg.runtime.RawExtension",
                    "The object the event is about (a Status for ERROR events).",
                ),
                "type": prop("string", "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."),
            },
            "required": ["type", "object"],
            "x-kubernetes-group-version-kind": tagged("WatchEvent"),
        },
    }


def list_schema(*, kind: str, item: str, gvk: Doc) -> Doc:
    return {
        "description": f"A list of {kind} objects.",
        "type": "object",
        "properties": {
            "apiVersion": prop("string", API_VERSION_DOC),
            "items": {
                "type": "array",
                "items": {"allOf": [ref(item)], "default": {}},
                "description": f"The {kind} objects.",
            },
            "kind": prop("string", KIND_DOC),
            "metadata": ref_prop(LIST_META, "Standard list metadata.", default={}),
        },
        "required": ["items"],
        "x-kubernetes-group-version-kind": [gvk],
    }
