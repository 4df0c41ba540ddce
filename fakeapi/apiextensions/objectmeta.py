"""Embedded resources inside a custom resource: their apiVersion, kind and metadata.

A schema node with ``x-kubernetes-embedded-resource`` holds a whole Kubernetes object (a pod
template, say). Upstream checks its type meta and object metadata as it would a resource's own
(``schemaobjectmeta.Validate``): ``apiVersion`` and ``kind`` are required strings, the kind a
DNS label in any case, and metadata passes object-metadata validation with a path-segment name
rule (a missing name is fine there). The resource root is validated by the registry itself, so
only nested embedded resources are walked here. :func:`coerce_embedded` is the decoding side:
non-string ``apiVersion``/``kind`` are refused, as decoding into ``metav1.TypeMeta`` would.
"""

from __future__ import annotations

from typing import Any

from fakeapi.apiextensions.structural import Structural
from fakeapi.name_syntax import is_dns1123_label
from fakeapi.validation import field as fe
from fakeapi.validation.meta import validate_object_meta

__all__ = ["coerce_embedded", "validate_embedded_resources"]


def validate_embedded_resources(schema: Structural | None, obj: Any) -> list[fe.FieldError]:
    """Errors of the embedded resources below the resource root ``obj``."""
    if schema is None or not schema.embedded_below or not isinstance(obj, dict):
        return []
    return _children(fe.Path(), schema, obj)


def _children(path: fe.Path, schema: Structural, obj: Any) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    if isinstance(obj, dict):
        properties = schema.properties or {}
        extra = schema.additional_schema
        for key, value in obj.items():
            sub = properties.get(key)
            if sub is not None:
                errs += _validate(path.child(key), sub, value)
            elif extra is not None:
                errs += _validate(path.key(key), extra, value)
    elif isinstance(obj, list) and schema.items is not None:
        for i, value in enumerate(obj):
            errs += _validate(path.index(i), schema.items, value)
    return errs


def _validate(path: fe.Path, schema: Structural, value: Any) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    if schema.embedded_resource and isinstance(value, dict):
        errs += _embedded(path, value)
    if schema.embedded_below:
        errs += _children(path, schema, value)
    return errs


def _path_segment(name: str) -> list[str]:
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    for bad in ("/", "%"):
        if bad in name:
            return [f"may not contain '{bad}'"]
    return []


def _embedded(path: fe.Path, obj: dict[str, Any]) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    if "apiVersion" not in obj:
        errs.append(fe.required(path.child("apiVersion")))
    if "kind" not in obj:
        errs.append(fe.required(path.child("kind")))
    for key, value in obj.items():
        if key == "apiVersion":
            if not isinstance(value, str):
                errs.append(fe.invalid(path.child("apiVersion"), value, "must be a string"))
            elif not value:
                errs.append(fe.invalid(path.child("apiVersion"), value, "must not be empty"))
            elif value.count("/") > 1:
                errs.append(fe.invalid(
                    path.child("apiVersion"), value,
                    f"unexpected GroupVersion string: {value}",
                ))
        elif key == "kind":
            if not isinstance(value, str):
                errs.append(fe.invalid(path.child("kind"), value, "must be a string"))
            elif not value:
                errs.append(fe.invalid(path.child("kind"), value, "must not be empty"))
            else:
                problems = is_dns1123_label(value.lower())
                if problems:
                    errs.append(fe.invalid(
                        path.child("kind"), value,
                        "may have mixed case, but should otherwise match: " + ",".join(problems),
                    ))
        elif key == "metadata" and isinstance(value, dict):
            meta = dict(value)
            if not meta.get("name"):
                meta["name"] = "fakename"  # upstream sets one to avoid the missing-name error
            errs += validate_object_meta(
                meta,
                namespaced=bool(meta.get("namespace")),
                name_validator=_path_segment,
                path=path.child("metadata"),
            )
        elif key == "metadata":
            errs.append(fe.invalid(path.child("metadata"), value, "expected an object"))
    return errs


def coerce_embedded(schema: Structural | None, obj: Any) -> fe.FieldError | None:
    """The first embedded resource (the root excluded) whose apiVersion or kind is not a
    string, as a field error; None when all are."""
    if schema is None or not schema.embedded_below:
        return None
    return _coerce(fe.Path(), schema, obj, root=True)


def _coerce(path: fe.Path, schema: Structural, obj: Any, *, root: bool) -> fe.FieldError | None:
    if isinstance(obj, dict):
        if schema.embedded_resource and not root:
            for key in ("apiVersion", "kind"):
                if key in obj and not isinstance(obj[key], str):
                    return fe.invalid(path.child(key), obj[key], "must be a string")
        properties = schema.properties or {}
        extra = schema.additional_schema
        for key, value in obj.items():
            sub = properties.get(key)
            if sub is not None:
                if not (sub.embedded_resource or sub.embedded_below):
                    continue
                found = _coerce(path.child(key), sub, value, root=False)
            elif extra is not None and (extra.embedded_resource or extra.embedded_below):
                found = _coerce(path.key(key), extra, value, root=False)
            else:
                continue
            if found is not None:
                return found
    elif isinstance(obj, list) and schema.items is not None and (
        schema.items.embedded_resource or schema.items.embedded_below
    ):
        for i, value in enumerate(obj):
            found = _coerce(path.index(i), schema.items, value, root=False)
            if found is not None:
                return found
    return None
