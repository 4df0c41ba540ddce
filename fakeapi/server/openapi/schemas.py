"""Compiling the models' schema trees into named OpenAPI component schemas.

kubectl ``explain`` prints a field's type as the last dot-separated segment of its ``$ref``, so
component names follow upstream's (``io.k8s.api.resource.v1.ResourceClaimSpec``): each is
``<prefix>.<ClassName>`` (the kind's name for a served kind), the prefix being, in order, the
served kind's ``openapi_prefix`` (for its own model and the models of its module), a
module-level ``OPENAPI_PREFIX`` constant, a table by module, or one derived from the
group-version. Names that would clash are told apart by inserting the module name before the
class name, which keeps the segment kubectl prints unchanged.

One :class:`DocumentBuilder` per document names each model once and builds its schema on first
use, so the paths can ask for any model's name while the schemas fill in behind them.
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from fakeapi.apiextensions.definitions import model_name
from fakeapi.models.core import Binding
from fakeapi.models.meta import ObjectMeta, ObjectReference
from fakeapi.resources import ResourceType
from fakeapi.schema import SchemaNode, schema_for
from fakeapi.server.openapi.meta_schemas import fixed_schemas, list_schema
from fakeapi.server.openapi.refs import (
    CORE,
    INT_OR_STRING,
    META,
    MICRO_TIME,
    QUANTITY,
    SCHEMA_REF,
    TIME,
    Doc,
    group_version_kind,
)

__all__ = ["DocumentBuilder"]

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
_SCALAR_REFS = {
    "quantity": QUANTITY,
    "int-or-string": INT_OR_STRING,
    "date-time": TIME,
}


def _default_prefix(group: str, version: str) -> str:
    """The prefix of a group-version with no better source (``dev.fakeapi.example.v1``)."""
    if not group:
        return f"io.k8s.api.core.{version}"
    if group.endswith(".k8s.io"):
        return f"io.k8s.api.{group.removesuffix('.k8s.io').split('.')[0]}.{version}"
    return ".".join([*reversed(group.split(".")), version])


class DocumentBuilder:
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
        #: kinds whose schema their row publishes (custom resources): kind -> component name
        self._published: dict[str, str] = {}
        modelled = [rt for rt in served if rt.published_schema is None]
        for rt in modelled:
            prefix = rt.openapi_prefix or _default_prefix(rt.group, rt.version)
            self._module_prefixes.setdefault(rt.model.__module__, prefix)
            self._kinds.setdefault(rt.model, []).append(
                group_version_kind(rt.group, rt.version, rt.kind)
            )
        for name, schema in fixed_schemas(group=group, version=version).items():
            self.schemas[name] = schema
        self.name_of(ObjectMeta)
        for rt in served:
            published = rt.published_schema
            if published is not None:
                name = model_name(rt.group, rt.version, rt.kind)
                self.schemas[name] = published
                self._published[rt.kind] = name
        # the served kinds first, so that they keep the plain names when a nested type clashes
        for rt in modelled:
            if rt.model not in self._names:
                prefix = rt.openapi_prefix or _default_prefix(rt.group, rt.version)
                self._names[rt.model] = self._allocate(rt.model, prefix, type_name=rt.kind)
        for rt in served:
            if rt.kind not in self._published:
                self._build(rt.model)
            if not rt.strategy.create_only:  # a review has no list
                self.list_names[rt.kind] = self._add_list_schema(rt)
            if "binding" in rt.subresources and Binding not in self._names:
                self._kinds[Binding] = [group_version_kind("", "v1", "Binding")]
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

    def kind_name(self, rt: ResourceType) -> str:
        """The component name of a served kind's schema."""
        published = self._published.get(rt.kind)
        return published if published is not None else self.name_of(rt.model)

    def _add_list_schema(self, rt: ResourceType) -> str:
        item_name = self.kind_name(rt)
        name = f"{item_name.rsplit('.', 1)[0]}.{rt.list_kind}"
        self.schemas[name] = list_schema(
            kind=rt.kind, item=item_name, gvk=group_version_kind(rt.group, rt.version, rt.list_kind)
        )
        return name

    def schema_of(self, node: SchemaNode) -> Doc:
        """The schema of a property (or list item, or map value) with its description."""
        out: Doc
        if node.kind == "object" and node.model is not None:
            out = {"allOf": [{"$ref": SCHEMA_REF + self.name_of(node.model)}]}
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
        ref = MICRO_TIME if node.micro_time else _SCALAR_REFS.get(node.format)
        if ref is not None:
            return {"allOf": [{"$ref": SCHEMA_REF + ref}]}
        out: Doc = {"type": node.scalar_type or "string"}
        if node.format:
            out["format"] = node.format
        if node.enum:
            out["enum"] = [value for value in node.enum if value is not None]
        return out


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
