"""Everything one served version of a definition needs, compiled once.

A :class:`ServedVersion` is what upstream's ``crdHandler`` builds per version in its
``crdInfo``: the structural schema, the value validators of the object and of its status, the
CEL rules, the printer columns, the selectable fields, the scale subresource's paths and the
deprecation warning, plus what fakeapi's generic machinery reads (the schema tree server-side
apply merges by, :class:`fakeapi.schema.SchemaNode`). :func:`served_version` compiles one from
the stored definition and caches it by content, so a status write on a definition (its
conditions) or a restart reuses the compiled version, and compiling happens once per schema.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from fakeapi.apiextensions.celtypes import declare
from fakeapi.apiextensions.defaulting import has_defaults
from fakeapi.apiextensions.jsonpath import JsonPathError, compile_path, render
from fakeapi.apiextensions.openapi_validation import SchemaValidator
from fakeapi.apiextensions.rules import RuleValidator
from fakeapi.apiextensions.structural import NO_DEFAULT, Structural, StructuralError, structural_for
from fakeapi.models.base import ListMeta_
from fakeapi.objects import as_dict, as_list
from fakeapi.registry.strategy import NAME_COLUMN, Column
from fakeapi.schema import SchemaNode

__all__ = [
    "ScaleSpec", "ServedVersion", "deprecation_warning", "served_version", "version_priority_key",
]

#: the schema of a version that has none (only possible for definitions stored before schemas
#: were required): everything is kept
_OPEN_SCHEMA = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_CREATION_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC."
)


@dataclass(frozen=True)
class ScaleSpec:
    """The scale subresource's paths (``.spec.replicas``, ``.status.replicas``...)."""

    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None


@dataclass(eq=False)
class ServedVersion:
    """One version of a definition, compiled."""

    group: str
    name: str
    kind: str
    list_kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    storage_version: str
    schema: Mapping[str, Any]
    structural: Structural
    status_subresource: bool
    scale: ScaleSpec | None
    deprecated: bool
    warning: str | None
    columns: tuple[Column, ...]
    selectable: tuple[tuple[str, Callable[[Any], list[Any]]], ...]
    validator: SchemaValidator = field(init=False)
    status_validator: SchemaValidator | None = field(init=False)
    rules: RuleValidator | None = field(init=False)
    has_defaults: bool = field(init=False)
    schema_node: SchemaNode = field(init=False)

    def __post_init__(self) -> None:
        self.validator = SchemaValidator(self.schema)
        status = as_dict(self.schema.get("properties")).get("status")
        self.status_validator = SchemaValidator(status) if isinstance(status, dict) else None
        self.rules = (
            RuleValidator(self.structural, declare(self.structural, root=True),
                          resource_root=True)
            if _has_rules(self.structural) else None
        )
        self.has_defaults = has_defaults(self.structural)
        self.schema_node = resource_node(self.structural)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.name}"


def _has_rules(s: Structural | None) -> bool:
    if s is None:
        return False
    if s.validations:
        return True
    if any(_has_rules(sub) for sub in (s.properties or {}).values()):
        return True
    return _has_rules(s.items) or _has_rules(s.additional_schema)


# --- the schema tree server-side apply reads ------------------------------------------------

def _meta_nodes() -> dict[str, SchemaNode]:
    from fakeapi.models.meta import ObjectMeta
    from fakeapi.schema import schema_for

    string = SchemaNode("scalar", scalar_type="string")
    return {"apiVersion": string, "kind": string, "metadata": schema_for(ObjectMeta)}


def resource_node(s: Structural) -> SchemaNode:
    """The :class:`SchemaNode` of a resource root: the schema's fields plus the type and
    object metadata every resource has."""
    node = _node(s)
    if node.kind != "object":
        node = SchemaNode("object")
    node.properties = {**node.properties, **_meta_nodes()}
    return node


def _node(s: Structural) -> SchemaNode:
    if s.int_or_string:
        return SchemaNode("scalar", scalar_type="string", format="int-or-string")
    kind = s.type
    if kind == "object":
        extra = s.additional_schema
        if extra is not None and not s.properties:
            return SchemaNode("map", item=_node(extra), map_type=s.map_type)
        if not s.properties and not s.embedded_resource and s.preserve_unknown_fields:
            return SchemaNode("map", item=SchemaNode("any"), map_type=s.map_type)
        properties = {name: _node(sub) for name, sub in (s.properties or {}).items()}
        if s.embedded_resource:
            properties = {**properties, **_meta_nodes()}
        return SchemaNode("object", properties=properties, map_type=s.map_type)
    if kind == "array":
        list_type = s.list_type if s.list_type in ("atomic", "set", "map") else "atomic"
        meta = ListMeta_(list_type, s.list_map_keys if list_type == "map" else ())  # type: ignore[arg-type]
        item = _node(s.items) if s.items is not None else SchemaNode("any")
        return SchemaNode("array", item=item, list_meta=meta)
    if kind in ("string", "integer", "number", "boolean"):
        node = SchemaNode("scalar", scalar_type=kind, format=s.format)
        if s.default is not NO_DEFAULT and isinstance(s.default, str | int | float | bool):
            node.default = s.default
        return node
    return SchemaNode("any")


# --- printer columns and selectable fields ----------------------------------------------------

def _column_cell(path: str, kind: str) -> Callable[[Any, datetime], Any]:
    try:
        find = compile_path(path)
    except JsonPathError:
        def broken(_obj: Any, _now: datetime) -> Any:
            return None

        return broken

    def cell(obj: Any, now: datetime) -> Any:
        values = find(obj)
        if not values:
            return None
        value = values[0]
        if value is None:
            return None
        if kind == "string":
            return render(value)
        if kind == "integer":
            return int(value) if isinstance(value, int | float) and not isinstance(
                value, bool) else None
        if kind == "number":
            return float(value) if isinstance(value, int | float) and not isinstance(
                value, bool) else None
        if kind == "boolean":
            return value if isinstance(value, bool) else None
        if kind == "date":
            if not isinstance(value, str):
                return None
            from fakeapi.registry.kinds.common import since_cell

            shown = since_cell(value, now)
            return "<invalid>" if shown == "<unknown>" else shown
        return None

    return cell


def _columns(columns: list[Any]) -> tuple[Column, ...]:
    if not columns:
        columns = [{"name": "Age", "type": "date", "description": _CREATION_DOC,
                    "jsonPath": ".metadata.creationTimestamp"}]
    out = [NAME_COLUMN]
    for column in columns:
        spec = as_dict(column)
        path = str(spec.get("jsonPath") or "")
        kind = str(spec.get("type") or "string")
        out.append(Column(
            str(spec.get("name") or ""),
            _column_cell(path, kind),
            type=kind,
            format=str(spec.get("format") or ""),
            description=str(spec.get("description") or "")
            or f"Custom resource definition column (in JSONPath format): {path}",
            priority=int(spec.get("priority") or 0),
        ))
    return tuple(out)


def _selectable(fields: list[Any]) -> tuple[tuple[str, Callable[[Any], list[Any]]], ...]:
    out = []
    for entry in fields:
        path = str(as_dict(entry).get("jsonPath") or "")
        try:
            out.append((path.removeprefix("."), compile_path(path)))
        except JsonPathError:
            continue
    return tuple(out)


# --- compiling a version --------------------------------------------------------------------

_CACHE: dict[bytes, ServedVersion | None] = {}


def served_version(crd: Mapping[str, Any], version: Mapping[str, Any]) -> ServedVersion | None:
    """The compiled ``version`` of ``crd`` (None when its schema cannot be compiled)."""
    spec = as_dict(crd.get("spec"))
    accepted = as_dict(as_dict(crd.get("status")).get("acceptedNames"))
    storage = next(
        (str(v.get("name")) for v in as_list(spec.get("versions"))
         if isinstance(v, dict) and v.get("storage") is True), str(version.get("name") or ""),
    )
    key = orjson.dumps(
        [spec.get("group"), spec.get("scope"), accepted, storage, version],
        option=orjson.OPT_SORT_KEYS,
    )
    if key in _CACHE:
        return _CACHE[key]
    compiled = _compile(spec, accepted, storage, version)
    if len(_CACHE) > 1024:
        _CACHE.clear()
    _CACHE[key] = compiled
    return compiled


def _compile(
    spec: Mapping[str, Any], accepted: Mapping[str, Any], storage: str,
    version: Mapping[str, Any],
) -> ServedVersion | None:
    schema = as_dict(as_dict(version.get("schema")).get("openAPIV3Schema")) or _OPEN_SCHEMA
    try:
        structural = structural_for(schema)
    except StructuralError:
        return None
    subresources = as_dict(version.get("subresources"))
    scale = subresources.get("scale")
    scale_spec = None
    if isinstance(scale, dict):
        scale_spec = ScaleSpec(
            str(scale.get("specReplicasPath") or ""),
            str(scale.get("statusReplicasPath") or ""),
            scale.get("labelSelectorPath") or None,
        )
    kind = str(accepted.get("kind") or "")
    return ServedVersion(
        group=str(spec.get("group") or ""),
        name=str(version.get("name") or ""),
        kind=kind,
        list_kind=str(accepted.get("listKind") or f"{kind}List"),
        plural=str(accepted.get("plural") or ""),
        singular=str(accepted.get("singular") or kind.lower()),
        namespaced=spec.get("scope") == "Namespaced",
        short_names=tuple(str(n) for n in as_list(accepted.get("shortNames"))),
        categories=tuple(str(c) for c in as_list(accepted.get("categories"))),
        storage_version=storage,
        schema=schema,
        structural=structural,
        status_subresource=subresources.get("status") is not None,
        scale=scale_spec,
        deprecated=version.get("deprecated") is True,
        warning=deprecation_warning(spec, version),
        columns=_columns(as_list(version.get("additionalPrinterColumns"))),
        selectable=_selectable(as_list(version.get("selectableFields"))),
    )


_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_STABILITY = {None: 3, "beta": 2, "alpha": 1}


def version_priority_key(name: str) -> tuple[int, int, int, str]:
    """Kubernetes' version order (``CompareKubeAwareVersionStrings``) as a sort key, most
    preferred first: GA before beta before alpha, higher numbers first, other names last."""
    match = _KUBE_VERSION.match(name)
    if match is None:
        return (1, 0, 0, name)
    major, stability, minor = match.groups()
    return (0, -_STABILITY[stability], -int(major) * 1000 - int(minor or 0), name)


def deprecation_warning(spec: Mapping[str, Any], version: Mapping[str, Any]) -> str | None:
    """The Warning header of a deprecated version: its own text, or upstream's default naming
    the newest served version that is not deprecated and newer than it."""
    if version.get("deprecated") is not True:
        return None
    custom = version.get("deprecationWarning")
    if isinstance(custom, str):
        return custom
    group = spec.get("group") or ""
    kind = as_dict(spec.get("names")).get("kind") or ""
    name = str(version.get("name") or "")
    message = f"{group}/{name} {kind} is deprecated"
    newer = [
        str(v.get("name")) for v in as_list(spec.get("versions"))
        if isinstance(v, dict) and v.get("served") is True and v.get("deprecated") is not True
        and version_priority_key(str(v.get("name"))) < version_priority_key(name)
    ]
    if newer:
        best = min(newer, key=version_priority_key)
        message += f"; use {group}/{best} {kind}"
    return message
