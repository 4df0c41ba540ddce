"""Metadata rules every kind shares: names, namespace, labels, annotations, owners, finalizers.

The generic store calls :func:`validate_object_meta` on create and
:func:`validate_object_meta_update` on update, before the kind's own strategy validates the rest.
The kind decides only how its name is checked (``name_validator``: DNS subdomain for most kinds,
DNS label for namespaces). Messages and field paths are apimachinery's, including its quirks
(label errors are reported at ``metadata.labels``, not at the key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fakeapi.name_syntax import (
    is_dns1123_label,
    is_qualified_name,
    is_valid_label_value,
    mask_trailing_dash,
)
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, required, too_long

__all__ = [
    "FIELD_IMMUTABLE",
    "TOTAL_ANNOTATION_SIZE_LIMIT",
    "validate_annotations",
    "validate_finalizers",
    "validate_immutable",
    "validate_labels",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_owner_references",
]

FIELD_IMMUTABLE = "field is immutable"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
_NEGATIVE = "must be greater than or equal to 0"
_ORPHAN = "orphan"
_FOREGROUND = "foregroundDeletion"
#: kinds that may never own another object (``group/version, Kind=kind``)
_BANNED_OWNERS = frozenset({("", "v1", "Event")})


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    name_validator: Callable[[str], list[str]],
    path: Path,
) -> list[FieldError]:
    """Errors of a new object's metadata.

    ``name_validator`` checks a complete name; a ``generateName`` prefix is checked with its
    trailing dash masked, as upstream does. The store may call this before or after it generated
    a name from ``generateName``: with neither set the error is ``name or generateName is
    required``.
    """
    errors: list[FieldError] = []
    generate_name = meta.get("generateName") or ""
    if generate_name:
        for msg in name_validator(mask_trailing_dash(generate_name)):
            errors.append(invalid(path.child("generateName"), generate_name, msg))
    name = meta.get("name") or ""
    if not name:
        if not generate_name:
            errors.append(required(path.child("name"), "name or generateName is required"))
    else:
        for msg in name_validator(name):
            errors.append(invalid(path.child("name"), name, msg))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errors.append(required(path.child("namespace")))
        else:
            for msg in is_dns1123_label(namespace):
                errors.append(invalid(path.child("namespace"), namespace, msg))
    elif namespace:
        errors.append(forbidden(path.child("namespace"), "not allowed on this type"))
    errors.extend(_validate_generation(meta, path))
    errors.extend(_validate_maps(meta, path))
    finalizers = meta.get("finalizers")
    if finalizers:
        errors.extend(validate_finalizers(finalizers, path=path.child("finalizers")))
    return errors


def _validate_maps(meta: Mapping[str, Any], path: Path) -> list[FieldError]:
    """Labels, annotations and owner references (each skipped when absent or empty: no errors)."""
    errors: list[FieldError] = []
    labels = meta.get("labels")
    if labels:
        errors.extend(validate_labels(labels, path=path.child("labels")))
    annotations = meta.get("annotations")
    if annotations:
        errors.extend(validate_annotations(annotations, path=path.child("annotations")))
    refs = meta.get("ownerReferences")
    if refs:
        errors.extend(validate_owner_references(refs, path=path.child("ownerReferences")))
    return errors


def validate_object_meta_update(
    new: Mapping[str, Any], old: Mapping[str, Any], path: Path
) -> list[FieldError]:
    """Errors of an update's metadata: immutable identity, no new finalizers while deleting.

    System fields the client may leave out (uid, creationTimestamp, deletion fields) count as
    unchanged when absent, because upstream copies them from the stored object before it
    validates.
    """
    errors: list[FieldError] = []
    if old.get("deletionTimestamp"):
        added = sorted(set(new.get("finalizers") or ()) - set(old.get("finalizers") or ()))
        if added:
            listed = ", ".join(f'"{f}"' for f in added)
            errors.append(
                forbidden(
                    path.child("finalizers"),
                    "no new finalizers can be added if the object is being deleted, "
                    f"found new finalizers []string{{{listed}}}",
                )
            )
    errors.extend(_validate_generation(new, path))
    new_generation = new.get("generation")
    if isinstance(new_generation, int) and new_generation < (old.get("generation") or 0):
        errors.append(invalid(path.child("generation"), new_generation, "must not be decremented"))
    for key in ("name", "namespace"):
        value = new.get(key) or ""
        if value != (old.get(key) or ""):
            errors.append(invalid(path.child(key), value, FIELD_IMMUTABLE))
    for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
        value = new.get(key)
        if value is not None and value != old.get(key):
            errors.append(invalid(path.child(key), value, FIELD_IMMUTABLE))
    errors.extend(_validate_maps(new, path))
    return errors


def validate_immutable(new: Any, old: Any, path: Path) -> list[FieldError]:
    """``<path>: Invalid value: <new>: field is immutable`` when ``new`` differs from ``old``."""
    if new == old:
        return []
    return [invalid(path, new, FIELD_IMMUTABLE)]


def validate_labels(labels: Mapping[str, Any] | None, *, path: Path) -> list[FieldError]:
    """Label keys are qualified names, values valid label values; errors sit at ``path``."""
    errors: list[FieldError] = []
    for key, value in (labels or {}).items():
        for msg in is_qualified_name(key):
            errors.append(invalid(path, key, msg))
        text = value if isinstance(value, str) else str(value)
        for msg in is_valid_label_value(text):
            errors.append(invalid(path, text, msg))
    return errors


def validate_annotations(annotations: Mapping[str, Any] | None, *, path: Path) -> list[FieldError]:
    """Annotation keys are qualified names (checked lower-cased); all of them at most 256 KiB."""
    errors: list[FieldError] = []
    total = 0
    for key, value in (annotations or {}).items():
        for msg in is_qualified_name(key.lower()):
            errors.append(invalid(path, key, msg))
        total += len(key.encode()) + len(str(value).encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors


def validate_owner_references(
    refs: Sequence[Mapping[str, Any]] | None, *, path: Path
) -> list[FieldError]:
    """Each reference names apiVersion, kind, name and uid; at most one is the controller."""
    errors: list[FieldError] = []
    first_controller = ""
    for i, ref in enumerate(refs or ()):
        at = path.index(i)
        api_version = ref.get("apiVersion") or ""
        group_version = _parse_group_version(api_version)
        if not api_version:
            errors.append(required(at.child("apiVersion"), "must not be empty"))
        elif group_version is None or not group_version[1]:
            errors.append(
                invalid(
                    at.child("apiVersion"), api_version, "must be <group>/<version> or <version>"
                )
            )
        kind = ref.get("kind") or ""
        for key in ("kind", "name", "uid"):
            if not ref.get(key):
                errors.append(required(at.child(key), "must not be empty"))
        if group_version is not None and (*group_version, kind) in _BANNED_OWNERS:
            group, version = group_version
            errors.append(
                invalid(
                    at,
                    dict(ref),
                    f"{group}/{version}, Kind={kind} is disallowed from being an owner",
                )
            )
        if ref.get("controller") is True:
            current = f"{kind}/{ref.get('name') or ''}"
            if first_controller:
                errors.append(
                    invalid(
                        path,
                        [dict(r) for r in refs or ()],
                        'Only one reference can have Controller set to true. Found "true" in '
                        f"references for {first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errors


def validate_finalizers(finalizers: Sequence[str] | None, *, path: Path) -> list[FieldError]:
    """Finalizers are qualified names; ``orphan`` and ``foregroundDeletion`` exclude each other."""
    errors: list[FieldError] = []
    items = list(finalizers or ())
    for finalizer in items:
        for msg in is_qualified_name(finalizer):
            errors.append(invalid(path, finalizer, msg))
    if _ORPHAN in items and _FOREGROUND in items:
        errors.append(
            invalid(path, items, f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set")
        )
    return errors


def _validate_generation(meta: Mapping[str, Any], path: Path) -> list[FieldError]:
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        return [invalid(path.child("generation"), generation, _NEGATIVE)]
    return []


def _parse_group_version(text: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: ``v1`` → ("", "v1"), ``apps/v1`` → ("apps", "v1")."""
    if not text or text == "/":
        return ("", "")
    parts = text.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None
