"""A compiled, walkable view of the API types: what each field is and how its lists merge.

Pydantic models are convenient to declare but slow to introspect on a hot path. Each kind's model
is compiled once into a tree of :class:`SchemaNode` that the rest of the server reads: pruning of
unknown fields (``fieldValidation``), strategic merge patch (merge keys, list types), server-side
apply (field sets) and the OpenAPI documents.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import sys
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from pydantic import BaseModel

from fakeapi.models.base import GoType, ListMeta_, MapMeta

__all__ = ["SchemaNode", "schema_for", "prune_unknown_fields", "DIRECTIVE_PREFIXES"]

NodeKind = Literal["object", "array", "map", "scalar", "any"]

#: Strategic-merge-patch directive keys, which are never unknown fields.
DIRECTIVE_PREFIXES = ("$setElementOrder/", "$deleteFromPrimitiveList/")
_DIRECTIVE_KEYS = frozenset({"$patch", "$retainKeys"})


@dataclass(eq=False, slots=True)
class SchemaNode:
    """One position in an API type: an object, a list, a map, a scalar or free-form JSON."""

    kind: NodeKind
    description: str = ""
    #: object: wire name -> node, in declaration order
    properties: dict[str, SchemaNode] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    #: array items or map values
    item: SchemaNode | None = None
    list_meta: ListMeta_ | None = None
    map_type: str | None = None
    #: scalar: OpenAPI type (string, integer, number, boolean) and format
    scalar_type: str = ""
    format: str = ""
    #: scalar date-time: a ``MicroTime`` (six fractional digits) rather than a ``Time``
    micro_time: bool = False
    #: scalar: the named Go type upstream declares (``DeviceAllocationMode``), for decoder errors
    go_type: str = ""
    enum: tuple[Any, ...] = ()
    #: object: the model it was compiled from (names the OpenAPI schema)
    model: type[BaseModel] | None = None
    #: scalar: the value the API assumes when the field is absent (None: no default). Server-side
    #: apply fills a map-list key field from it when building an item's key.
    default: Any = None

    def child(self, name: str) -> SchemaNode | None:
        """The node of property ``name`` (objects) or of any value (maps); None if unknown."""
        if self.kind == "object":
            return self.properties.get(name)
        if self.kind == "map":
            return self.item
        if self.kind == "any":
            return self
        return None

    @property
    def merge_key(self) -> str | None:
        """The strategic-merge-patch merge key of a list of objects, if it merges."""
        return self.list_meta.patch_merge_key if self.list_meta else None

    @property
    def patch_strategy(self) -> str | None:
        return self.list_meta.patch_strategy if self.list_meta else None


_ANY = SchemaNode("any")
_cache: dict[type[BaseModel], SchemaNode] = {}


def schema_for(model: type[BaseModel]) -> SchemaNode:
    """The compiled tree of ``model`` (cached; recursive types share nodes)."""
    node = _cache.get(model)
    if node is not None:
        return node
    node = SchemaNode("object", description=_doc(model), model=model)
    _cache[model] = node  # before the fields, so recursion finds it
    required: list[str] = []
    docs = _attribute_docs(model)
    for name, info in model.model_fields.items():
        wire = info.alias or name
        child = _node_for(info.annotation, list(info.metadata))
        description = info.description or docs.get(name, "")
        if description:
            child = _with_description(child, description)
        if child.kind == "scalar" and _is_plain_scalar(info.default):
            child.default = info.default  # scalar nodes are built per field, never shared
        node.properties[wire] = child
        if info.is_required():
            required.append(wire)
    node.required = tuple(required)
    return node


def _attribute_docs(model: type[BaseModel]) -> dict[str, str]:
    """Field docstrings of ``model`` and its bases (the string literal after each field)."""
    docs: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if issubclass(klass, BaseModel) and klass is not BaseModel:
            module = sys.modules.get(klass.__module__)
            source_file = getattr(module, "__file__", None)
            if source_file:
                docs.update(_module_docs(source_file).get(klass.__qualname__, {}))
    return docs


@functools.cache
def _module_docs(path: str) -> dict[str, dict[str, str]]:
    """Class name -> {field: docstring} for every class of one source file (parsed once)."""
    try:
        with open(path, encoding="utf-8") as source:
            tree = ast.parse(source.read())
    except (OSError, SyntaxError):
        return {}
    out: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        fields: dict[str, str] = {}
        body = node.body
        for stmt, following in itertools.pairwise(body):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                fields[stmt.target.id] = _paragraphs(following.value.value)
        out[node.name] = fields
    return out


def _paragraphs(docstring: str) -> str:
    """A docstring as description text: wrapped lines joined, blank-line paragraphs kept."""
    paragraphs = inspect.cleandoc(docstring).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _doc(model: type[BaseModel]) -> str:
    doc = model.__doc__ or ""
    return "" if doc.startswith("!!!") or "BaseModel" in doc else " ".join(doc.split())


def _is_plain_scalar(value: Any) -> bool:
    """Whether a field default is a JSON scalar worth publishing (not None, not a sentinel)."""
    return isinstance(value, str | int | float | bool)


def _with_description(node: SchemaNode, description: str) -> SchemaNode:
    if node.kind == "object" and node.model is not None:
        # object nodes are shared per model; a field's description belongs to a copy
        copy = SchemaNode(
            "object",
            description=description,
            properties=node.properties,
            required=node.required,
            model=node.model,
            map_type=node.map_type,
        )
        return copy
    node.description = description
    return node


def _node_for(tp: Any, metadata: list[Any]) -> SchemaNode:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(tp)
        return _node_for(inner, metadata + list(extra))
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _node_for(args[0], metadata)
        return _scalar_union(args, metadata)
    list_meta = next((m for m in metadata if isinstance(m, ListMeta_)), None)
    map_meta = next((m for m in metadata if isinstance(m, MapMeta)), None)
    tag = next((m for m in metadata if isinstance(m, str)), "")
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        base = schema_for(tp)
        if map_meta is None:
            return base
        return SchemaNode(
            "object",
            description=base.description,
            properties=base.properties,
            required=base.required,
            model=tp,
            map_type=map_meta.map_type,
        )
    if origin is list:
        (item_tp,) = typing.get_args(tp)
        return SchemaNode("array", item=_node_for(item_tp, []), list_meta=list_meta or ListMeta_())
    if origin is dict:
        _, value_tp = typing.get_args(tp)
        return SchemaNode(
            "map", item=_node_for(value_tp, []), map_type=map_meta.map_type if map_meta else None
        )
    if origin is Literal:
        return SchemaNode("scalar", scalar_type="string", enum=typing.get_args(tp))
    if tag == "raw" or tp is Any:
        return SchemaNode("any")
    if tp is bool:
        return SchemaNode("scalar", scalar_type="boolean")
    if tp is int:
        return SchemaNode("scalar", scalar_type="integer", format=tag or "int64")
    if tp is float:
        return SchemaNode("scalar", scalar_type="number", format="double")
    if tp is str:
        if tag == "micro-time":
            return SchemaNode("scalar", scalar_type="string", format="date-time", micro_time=True)
        go_type = next((m.name for m in metadata if isinstance(m, GoType)), "")
        return SchemaNode("scalar", scalar_type="string", format=tag, go_type=go_type)
    return SchemaNode("any")


def _scalar_union(args: list[Any], metadata: list[Any]) -> SchemaNode:
    tag = next((m for m in metadata if isinstance(m, str)), "")
    if tag in ("quantity", "int-or-string"):
        return SchemaNode("scalar", scalar_type="string", format=tag)
    return SchemaNode("any")


def prune_unknown_fields(
    node: SchemaNode, value: Any, *, path: str = "", patch: bool = False
) -> tuple[Any, list[str]]:
    """``value`` without the fields ``node`` does not declare, and the paths of those fields.

    The input is not modified; unchanged sub-trees are shared with the result. With ``patch``,
    strategic-merge-patch directive keys are kept and never reported.
    """
    unknown: list[str] = []
    return _prune(node, value, path, patch, unknown), unknown


def _prune(node: SchemaNode, value: Any, path: str, patch: bool, unknown: list[str]) -> Any:
    kind = node.kind
    if kind == "any" or value is None:
        return value
    if kind == "object":
        if not isinstance(value, dict):
            return value
        out: dict[str, Any] | None = None
        props = node.properties
        for key, sub in value.items():
            child = props.get(key)
            if child is None:
                if patch and (key in _DIRECTIVE_KEYS or key.startswith(DIRECTIVE_PREFIXES)):
                    continue
                unknown.append(f"{path}.{key}" if path else key)
                if out is None:
                    out = dict(value)
                del out[key]
                continue
            if child.kind in ("object", "array", "map") and sub is not None:
                new = _prune(child, sub, f"{path}.{key}" if path else key, patch, unknown)
                if new is not sub:
                    if out is None:
                        out = dict(value)
                    out[key] = new
        return value if out is None else out
    if kind == "array":
        item = node.item
        if not isinstance(value, list) or item is None or item.kind in ("scalar", "any"):
            return value
        new_list: list[Any] | None = None
        for i, sub in enumerate(value):
            new = _prune(item, sub, f"{path}[{i}]", patch, unknown)
            if new is not sub:
                if new_list is None:
                    new_list = list(value)
                new_list[i] = new
        return value if new_list is None else new_list
    if kind == "map":
        item = node.item
        if not isinstance(value, dict) or item is None or item.kind in ("scalar", "any"):
            return value
        new_map: dict[str, Any] | None = None
        for key, sub in value.items():
            new = _prune(item, sub, f"{path}.{key}" if path else key, patch, unknown)
            if new is not sub:
                if new_map is None:
                    new_map = dict(value)
                new_map[key] = new
        return value if new_map is None else new_map
    return value
