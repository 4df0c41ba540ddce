"""The OpenAPI schema a custom resource kind publishes, built from its definition's schema.

As upstream's CRD OpenAPI builder: the version's ``openAPIV3Schema`` as written (descriptions,
value validations and Kubernetes extensions kept, so ``kubectl explain`` and kubectl's own
checks read them), ``x-kubernetes-int-or-string`` unfolded into its ``anyOf`` of integer and
string, ``apiVersion``/``kind`` described as every object's and ``metadata`` pointing at
``ObjectMeta`` (at the root and in every embedded resource, which also requires ``apiVersion``
and ``kind``), and the kind tagged with its ``x-kubernetes-group-version-kind``. The component is
named as upstream names it: the group reversed, the version and the kind
(``com.example.stable.v1.CronTab``).
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.apiextensions.versions import ServedVersion

__all__ = ["resource_schema"]

#: the component kube-apiserver's documents describe object metadata with
OBJECT_META = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_METADATA_DOC = (
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_API_VERSION_DOC = (
    "APIVersion defines the versioned schema of this representation of an object. Servers "
    "should convert recognized schemas to the latest internal value, and may reject "
    "unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
)
_KIND_DOC = (
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In "
    "CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)


def _metadata() -> dict[str, Any]:
    return {"allOf": [{"$ref": OBJECT_META}], "description": _METADATA_DOC}


def _unfold(node: Any) -> Any:
    """A copy with int-or-string unfolded and embedded resources' metadata added."""
    if isinstance(node, list):
        return [_unfold(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: (_unfold(value) if key in _SCHEMA_KEYS else value) for key, value in node.items()}
    properties = out.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {name: _unfold(sub) for name, sub in properties.items()}
    if out.get("x-kubernetes-int-or-string") is True and "anyOf" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.get("x-kubernetes-embedded-resource") is True:
        props = dict(out.get("properties") or {})
        props["apiVersion"] = {"type": "string", "description": _API_VERSION_DOC}
        props["kind"] = {"type": "string", "description": _KIND_DOC}
        props["metadata"] = _metadata()
        out["properties"] = props
        required = list(out.get("required") or [])
        for name in ("kind", "apiVersion"):
            if name not in required:
                required.append(name)
        out["required"] = required
    return out


_SCHEMA_KEYS = frozenset({"items", "additionalProperties", "allOf", "anyOf", "oneOf", "not"})


def resource_schema(served: ServedVersion) -> dict[str, Any]:
    """The component schema of the kind ``served`` serves."""
    schema: dict[str, Any] = _unfold(orjson.loads(orjson.dumps(served.schema)))
    properties = dict(schema.get("properties") or {})
    properties["apiVersion"] = {"type": "string", "description": _API_VERSION_DOC}
    properties["kind"] = {"type": "string", "description": _KIND_DOC}
    properties["metadata"] = _metadata()
    schema["properties"] = properties
    schema.setdefault("type", "object")
    schema["x-kubernetes-group-version-kind"] = [
        {"group": served.group, "kind": served.kind, "version": served.name}
    ]
    return schema
