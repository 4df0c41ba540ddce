"""Validation of a CustomResourceDefinition, with upstream's messages and field paths.

kube-apiserver validates a definition in its internal form, into which the v1 form converts by
moving per-version schemas, subresources, printer columns and selectable fields that are the
same in every version up to the spec (``spec.validation``, ``spec.subresources``,
``spec.additionalPrinterColumns``, ``spec.selectableFields``). Its error paths name that form:
a one-version definition with a bad schema is reported at
``spec.validation.openAPIV3Schema...``, not at ``spec.versions[0].schema...``. This module
reproduces the conversion (:func:`internal_view`) and then upstream's checks in its order: the
name (``plural.group``), group, scope, versions (unique, one storage version, schemas, printer
columns, subresources, selectable fields, deprecation warnings), names, conversion, the stored
versions, the API-approval annotation of protected groups and ``preserveUnknownFields``.

fakeapi converts between versions only with the ``None`` strategy (only ``apiVersion``
changes); a ``Webhook`` strategy is refused here with a message saying so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import orjson

from fakeapi.apiextensions.definitions import (
    API_APPROVED_ANNOTATION,
    approval_state,
    is_protected_group,
)
from fakeapi.apiextensions.fieldpaths import valid_field_path
from fakeapi.apiextensions.formats import unrecognized_format
from fakeapi.apiextensions.schema_validation import (
    SchemaOptions,
    map_list_keys_problems,
    validate_schema,
)
from fakeapi.apiextensions.structural import (
    StructuralError,
    new_structural,
    validate_structural,
    walk_schemas,
)
from fakeapi.name_syntax import is_dns1123_subdomain
from fakeapi.objects import as_dict, as_list
from fakeapi.validation import field as fe

__all__ = [
    "MAX_SELECTABLE_FIELDS",
    "format_warnings",
    "internal_view",
    "validate_crd",
    "validate_crd_status",
    "validate_crd_update",
]

MAX_SELECTABLE_FIELDS = 8
_PRINTER_TYPES = ("boolean", "date", "integer", "number", "string")
_PRINTER_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
_SCOPES = ("Cluster", "Namespaced")
_CONVERSION_REVIEW_VERSIONS = ("v1", "v1beta1")
_LIFTED = ("schema", "subresources", "additionalPrinterColumns", "selectableFields")
_TOP_LEVEL = {
    "schema": "validation",
    "subresources": "subresources",
    "additionalPrinterColumns": "additionalPrinterColumns",
    "selectableFields": "selectableFields",
}
_DNS1035_LABEL = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def is_dns1035_label(value: str) -> list[str]:
    """apimachinery's ``IsDNS1035Label``."""
    errs: list[str] = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])?", value):
        errs.append(_DNS1035_LABEL)
    return errs


def internal_view(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec as upstream validates it: per-version fields identical in every version moved
    to the spec (``validation``, ``subresources``, ``additionalPrinterColumns``,
    ``selectableFields``) and ``version`` set to the first version's name."""
    view = dict(spec)
    versions = [dict(v) for v in as_list(spec.get("versions")) if isinstance(v, dict)]
    view["versions"] = versions
    if not versions:
        return view
    view["version"] = versions[0].get("name")
    for key in _LIFTED:
        first = versions[0].get(key)
        encoded = orjson.dumps(first, option=orjson.OPT_SORT_KEYS)
        if all(orjson.dumps(v.get(key), option=orjson.OPT_SORT_KEYS) == encoded
               for v in versions):
            view[_TOP_LEVEL[key]] = first
            for v in versions:
                v.pop(key, None)
    return view


def _schema_of(holder: Mapping[str, Any] | None) -> dict[str, Any] | None:
    schema = as_dict(holder).get("openAPIV3Schema") if holder else None
    return schema if isinstance(schema, dict) else None


def _schemas(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = []
    top = _schema_of(view.get("validation"))
    if top is not None:
        found.append(top)
    for version in view["versions"]:
        schema = _schema_of(version.get("schema"))
        if schema is not None:
            found.append(schema)
    return found


def _has(view: Mapping[str, Any], predicate: Any) -> bool:
    return any(any(predicate(s) for s in walk_schemas(root)) for root in _schemas(view))


def _non_structural(view: Mapping[str, Any]) -> bool:
    for root in _schemas(view):
        try:
            new_structural(root)
        except StructuralError:
            return True
        if validate_structural(root, fe.Path()):
            return True
    return False


def _status_enabled(subresources: Any) -> bool:
    return isinstance(subresources, dict) and subresources.get("status") is not None


def _subresources_for(view: Mapping[str, Any], name: str) -> Any:
    if not any(v.get("subresources") is not None for v in view["versions"]):
        return view.get("subresources")
    for version in view["versions"]:
        if version.get("name") == name:
            return version.get("subresources")
    return None


# --- entry points -------------------------------------------------------------------------------

def validate_crd(crd: Mapping[str, Any]) -> list[fe.FieldError]:
    """Errors of a new definition (metadata's generic checks are the store's)."""
    return _validate(crd, None, SchemaOptions(), require_immutable_names=False)


def validate_crd_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[fe.FieldError]:
    """Errors of an update: the new definition's, relaxed where the old one already broke a
    rule, and the names that may not change."""
    old_view = internal_view(as_dict(old.get("spec")))
    options = SchemaOptions(
        require_structural=not _non_structural(old_view),
        require_valid_property_type=not _has(
            old_view, lambda s: isinstance(s.get("type"), str) and s.get("type")
            and s["type"] not in ("string", "number", "integer", "boolean", "array", "object")
        ),
        require_atomic_set_type=not _has(old_view, _non_atomic_set),
        require_map_list_keys_map_set_validation=not _has(old_view, _bad_map_list_keys),
    )
    established = _condition_true(old, "Established")
    return _validate(new, old, options, require_immutable_names=established)


def validate_crd_status(crd: Mapping[str, Any]) -> list[fe.FieldError]:
    """Errors of a status write (the accepted names)."""
    status = as_dict(crd.get("status"))
    return _names(as_dict(status.get("acceptedNames")), fe.Path("status").child("acceptedNames"))


def _condition_true(crd: Mapping[str, Any], kind: str) -> bool:
    for condition in as_list(as_dict(crd.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == kind:
            return condition.get("status") == "True"
    return False


def _non_atomic_set(s: Mapping[str, Any]) -> bool:
    items = s.get("items")
    if s.get("x-kubernetes-list-type") != "set" or not isinstance(items, dict):
        return False
    if items.get("type") == "array":
        return items.get("x-kubernetes-list-type") not in (None, "atomic")
    if items.get("type") == "object":
        return items.get("x-kubernetes-map-type") != "atomic"
    return False


def _bad_map_list_keys(s: Mapping[str, Any]) -> bool:
    return bool(map_list_keys_problems(s, fe.Path()))


def _validate(
    crd: Mapping[str, Any], old: Mapping[str, Any] | None, options: SchemaOptions, *,
    require_immutable_names: bool,
) -> list[fe.FieldError]:
    spec = as_dict(crd.get("spec"))
    meta = as_dict(crd.get("metadata"))
    errs: list[fe.FieldError] = []
    if old is None:
        name = meta.get("name") or ""
        required = f"{as_dict(spec.get('names')).get('plural') or ''}.{spec.get('group') or ''}"
        if name and name != required:
            errs.append(fe.invalid(
                fe.Path("metadata.name"), name, 'must be spec.names.plural+"."+spec.group'
            ))
    view = internal_view(spec)
    old_view = internal_view(as_dict(old.get("spec"))) if old is not None else None
    if old_view is not None:
        unchanged = _versions_with_unchanged_schemas(view, old_view)
    else:
        unchanged = set()
    errs += _spec(view, options, fe.Path("spec"), unchanged, old_view)
    if old_view is not None:
        errs += _spec_update(view, old_view, require_immutable_names)
    errs += validate_crd_status(crd)
    status = as_dict(crd.get("status"))
    errs += _stored_versions(as_list(status.get("storedVersions")), view["versions"])
    errs += _api_approval(crd, old)
    errs += _preserve_unknown_fields(spec, as_dict(old.get("spec")) if old is not None else None)
    return errs


def _versions_with_unchanged_schemas(view: dict[str, Any], old_view: dict[str, Any]) -> set[str]:
    def schema_for(v: dict[str, Any], name: str) -> bytes | None:
        top = v.get("validation")
        for version in v["versions"]:
            if version.get("name") == name:
                return orjson.dumps(version.get("schema") or top, option=orjson.OPT_SORT_KEYS)
        return None

    out: set[str] = set()
    for version in view["versions"]:
        name = str(version.get("name") or "")
        new = schema_for(view, name)
        if new is not None and new == schema_for(old_view, name):
            out.add(name)
    return out


# --- spec ---------------------------------------------------------------------------------------

def _spec(
    view: dict[str, Any], options: SchemaOptions, path: fe.Path, unchanged: set[str],
    old_view: dict[str, Any] | None,
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    group = view.get("group") or ""
    if not group:
        errs.append(fe.required(path.child("group")))
    else:
        problems = is_dns1123_subdomain(group)
        if problems:
            errs.append(fe.invalid(path.child("group"), group, ",".join(problems)))
        elif len(group.split(".")) < 2:
            errs.append(fe.invalid(
                path.child("group"), group, "should be a domain with at least one dot"
            ))
    scope = view.get("scope") or ""
    if not scope:
        errs.append(fe.required(path.child("scope")))
    elif scope not in _SCOPES:
        errs.append(fe.not_supported(path.child("scope"), scope, _SCOPES))
    preserve = view.get("preserveUnknownFields") is True
    if not preserve:
        options = replace(options, require_structural=True)
    require_openapi = old_view is None or _all_versions_have_schemas(old_view)
    if require_openapi:
        if _schema_of(view.get("validation")) is None:
            for i, version in enumerate(view["versions"]):
                if _schema_of(version.get("schema")) is None:
                    errs.append(fe.required(
                        path.child("versions").index(i).child("schema").child("openAPIV3Schema")
                    ))
    elif not preserve and _schema_of(view.get("validation")) is None:
        for i, version in enumerate(view["versions"]):
            if version.get("served") and _schema_of(version.get("schema")) is None:
                errs.append(fe.required(
                    path.child("versions").index(i).child("schema", "openAPIV3Schema"),
                    "because otherwise all fields are pruned",
                ))
    if _has(view, lambda s: s.get("default") is not None):
        options = replace(options, require_structural=True)
        if preserve:
            errs.append(fe.invalid(
                path.child("preserveUnknownFields"), True,
                "must be false in order to use defaults in the schema",
            ))
    storage = 0
    names: set[str] = set()
    unique = True
    for i, version in enumerate(view["versions"]):
        at = path.child("versions").index(i)
        if version.get("storage") is True:
            storage += 1
        name = str(version.get("name") or "")
        if name in names:
            unique = False
        names.add(name)
        problems = is_dns1035_label(name)
        if problems:
            errs.append(fe.invalid(at.child("name"), name, ",".join(problems)))
        subresources = _subresources_for(view, name)
        version_options = (
            replace(options, suppress_per_expression_cost=True) if name in unchanged else options
        )
        errs += _version(version, at, _status_enabled(subresources), version_options)
    if not unique:
        errs.append(fe.invalid(path.child("versions"), view.get("versions"),
                               "must contain unique version names"))
    if storage != 1:
        errs.append(fe.invalid(path.child("versions"), view.get("versions"),
                               "must have exactly one version marked as storage version"))
    names_spec = as_dict(view.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not names_spec.get(key):
            errs.append(fe.required(path.child("names", key)))
    errs += _names(names_spec, path.child("names"))
    top_options = (
        replace(options, suppress_per_expression_cost=True)
        if str(view.get("version") or "") in unchanged else options
    )
    errs += _validation(
        view.get("validation"), _any_status(view), top_options, path.child("validation")
    )
    errs += _subresources(view.get("subresources"), path.child("subresources"))
    for i, column in enumerate(as_list(view.get("additionalPrinterColumns"))):
        errs += _column(as_dict(column), path.child("additionalPrinterColumns").index(i))
    selectable = as_list(view.get("selectableFields"))
    if selectable:
        schema = _schema_of(view.get("validation"))
        if schema is None:
            errs.append(fe.invalid(
                path.child("selectableFields"), "", "may only be set when validations.schema is "
                "included",
            ))
        else:
            errs += _selectable(selectable, schema, path)
    conversion = view.get("conversion")
    if isinstance(conversion, dict) and conversion.get("strategy") not in (None, "None") and (
        preserve
    ):
        errs.append(fe.invalid(
            path.child("conversion").child("strategy"), conversion.get("strategy"),
            "must be None if spec.preserveUnknownFields is true",
        ))
    errs += _conversion(conversion, path.child("conversion"))
    return errs


def _all_versions_have_schemas(view: Mapping[str, Any]) -> bool:
    if _schema_of(view.get("validation")) is not None:
        return True
    return all(_schema_of(v.get("schema")) is not None for v in view["versions"])


def _any_status(view: Mapping[str, Any]) -> bool:
    if _status_enabled(view.get("subresources")):
        return True
    return any(_status_enabled(v.get("subresources")) for v in view["versions"])


def _validation(
    holder: Any, status_enabled: bool, options: SchemaOptions, path: fe.Path
) -> list[fe.FieldError]:
    if not isinstance(holder, dict):
        return []
    return validate_schema(
        _schema_of(holder), status_enabled=status_enabled, options=options, path=path
    )


def _version(
    version: dict[str, Any], path: fe.Path, status_enabled: bool, options: SchemaOptions
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    warning = version.get("deprecationWarning")
    for problem in _deprecation_warning(version.get("deprecated") is True, warning):
        errs.append(fe.invalid(path.child("deprecationWarning"), warning, problem))
    errs += _validation(version.get("schema"), status_enabled, options, path.child("schema"))
    errs += _subresources(version.get("subresources"), path.child("subresources"))
    for i, column in enumerate(as_list(version.get("additionalPrinterColumns"))):
        errs += _column(as_dict(column), path.child("additionalPrinterColumns").index(i))
    selectable = as_list(version.get("selectableFields"))
    if selectable:
        schema = _schema_of(version.get("schema"))
        if schema is None:
            errs.append(fe.invalid(
                path.child("selectableFields"), "",
                "may only be set when `version.schema.openAPIV3Schema` is not included",
            ))
        else:
            errs += _selectable(selectable, schema, path)
    return errs


def _deprecation_warning(deprecated: bool, warning: Any) -> list[str]:
    if not deprecated and warning is not None:
        return ["can only be set for deprecated versions"]
    if not isinstance(warning, str):
        return []
    problems = []
    if len(warning.encode()) > 256:
        problems.append("must be <= 256 characters long")
    if not warning:
        problems.append("must not be an empty string")
    for i, char in enumerate(warning):
        if not char.isprintable():
            problems.append(
                "must only contain printable UTF-8 characters; non-printable character found "
                f"at index {i}"
            )
            break
    return problems


def _names(names: Mapping[str, Any], path: fe.Path) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    for key in ("plural", "singular"):
        value = names.get(key)
        if isinstance(value, str) and value:
            problems = is_dns1035_label(value)
            if problems:
                errs.append(fe.invalid(path.child(key), value, ",".join(problems)))
    for key in ("kind", "listKind"):
        value = names.get(key)
        if isinstance(value, str) and value:
            problems = is_dns1035_label(value.lower())
            if problems:
                errs.append(fe.invalid(
                    path.child(key), value,
                    "may have mixed case, but should otherwise match: " + ",".join(problems),
                ))
    for i, short in enumerate(as_list(names.get("shortNames"))):
        problems = is_dns1035_label(str(short))
        if problems:
            errs.append(fe.invalid(path.child("shortNames").index(i), short, ",".join(problems)))
    kind = names.get("kind")
    if kind and kind == names.get("listKind"):
        errs.append(fe.invalid(
            path.child("listKind"), names.get("listKind"), "kind and listKind may not be the same"
        ))
    for i, category in enumerate(as_list(names.get("categories"))):
        problems = is_dns1035_label(str(category))
        if problems:
            errs.append(fe.invalid(path.child("categories").index(i), category,
                                   ",".join(problems)))
    return errs


def _column(column: Mapping[str, Any], path: fe.Path) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    types = ",".join(_PRINTER_TYPES)
    if not column.get("name"):
        errs.append(fe.required(path.child("name")))
    kind = column.get("type")
    if not kind:
        errs.append(fe.required(path.child("type"), f"must be one of {types}"))
    elif kind not in _PRINTER_TYPES:
        errs.append(fe.invalid(path.child("type"), kind, f"must be one of {types}"))
    fmt = column.get("format")
    if fmt and fmt not in _PRINTER_FORMATS:
        errs.append(fe.invalid(path.child("format"), fmt,
                               f"must be one of {','.join(_PRINTER_FORMATS)}"))
    json_path = column.get("jsonPath")
    if not json_path:
        errs.append(fe.required(path.child("JSONPath")))
    else:
        errs += simple_json_path(str(json_path), path.child("JSONPath"))
    return errs


def simple_json_path(text: str, path: fe.Path) -> list[fe.FieldError]:
    """Upstream's ``validateSimpleJSONPath``."""
    if not text:
        return [fe.invalid(path, text, "must not be empty")]
    if text[0] != ".":
        return [fe.invalid(path, text, "must be a simple json path starting with .")]
    return []


def _subresources(subresources: Any, path: fe.Path) -> list[fe.FieldError]:
    if not isinstance(subresources, dict) or not isinstance(subresources.get("scale"), dict):
        return []
    scale = subresources["scale"]
    errs: list[fe.FieldError] = []
    spec_path = scale.get("specReplicasPath") or ""
    if not spec_path:
        errs.append(fe.required(path.child("scale.specReplicasPath")))
    else:
        found = simple_json_path(spec_path, path.child("scale.specReplicasPath"))
        if found:
            errs += found
        elif not spec_path.startswith(".spec."):
            errs.append(fe.invalid(path.child("scale.specReplicasPath"), spec_path,
                                   "should be a json path under .spec"))
    status_path = scale.get("statusReplicasPath") or ""
    if not status_path:
        errs.append(fe.required(path.child("scale.statusReplicasPath")))
    else:
        found = simple_json_path(status_path, path.child("scale.statusReplicasPath"))
        if found:
            errs += found
        elif not status_path.startswith(".status."):
            errs.append(fe.invalid(path.child("scale.statusReplicasPath"), status_path,
                                   "should be a json path under .status"))
    selector = scale.get("labelSelectorPath")
    if isinstance(selector, str) and selector:
        found = simple_json_path(selector, path.child("scale.labelSelectorPath"))
        if found:
            errs += found
        elif not selector.startswith((".spec.", ".status.")):
            errs.append(fe.invalid(path.child("scale.labelSelectorPath"), selector,
                                   "should be a json path under either .spec or .status"))
    return errs


def _selectable(
    fields: Sequence[Any], schema: Mapping[str, Any], parent: fe.Path
) -> list[fe.FieldError]:
    """The selectable fields of a version (``parent``: the version, or the spec)."""
    errs: list[fe.FieldError] = []
    path = parent.child("selectableFields")
    try:
        structural = new_structural(schema)
    except StructuralError as exc:
        return [fe.invalid(parent.child("schema.openAPIV3Schema"), "", str(exc))]
    unique: set[str] = set()
    for i, entry in enumerate(fields):
        at = path.index(i).child("jsonPath")
        json_path = as_dict(entry).get("jsonPath") or ""
        if not json_path:
            errs.append(fe.required(at))
            continue
        try:
            found_path, node = valid_field_path(json_path, structural, allow_array_notation=False)
        except ValueError as exc:
            errs.append(fe.invalid(at, json_path, f"is an invalid path: {exc}"))
            continue
        if found_path.split(".")[0].split("[")[0] == "metadata":
            errs.append(fe.invalid(at, json_path, "must not point to fields in metadata"))
        if node is None or node.type not in ("string", "boolean", "integer"):
            errs.append(fe.invalid(
                at, json_path, "must point to a field of type string, boolean or integer. Enum "
                "string fields and strings with formats are allowed.",
            ))
        if found_path in unique:
            errs.append(fe.duplicate(at, json_path))
        unique.add(found_path)
    if len(unique) > MAX_SELECTABLE_FIELDS:
        errs.append(fe.too_many(path, len(unique), MAX_SELECTABLE_FIELDS))
    return errs


def _conversion(conversion: Any, path: fe.Path) -> list[fe.FieldError]:
    if not isinstance(conversion, dict):
        return []
    errs: list[fe.FieldError] = []
    strategy = conversion.get("strategy") or ""
    if not strategy:
        errs.append(fe.required(path.child("strategy")))
    elif strategy not in ("None", "Webhook"):
        errs.append(fe.not_supported(path.child("strategy"), strategy, ("None", "Webhook")))
    webhook = as_dict(conversion.get("webhook"))
    if strategy == "Webhook":
        errs.append(fe.forbidden(
            path.child("strategy"),
            "fakeapi does not call conversion webhooks: only the None strategy (versions "
            "differing only in apiVersion) is supported; set spec.conversion.strategy to None",
        ))
        review = as_list(webhook.get("conversionReviewVersions"))
        if not review:
            errs.append(fe.required(path.child("conversionReviewVersions")))
        elif not any(v in _CONVERSION_REVIEW_VERSIONS for v in review):
            errs.append(fe.invalid(
                path.child("conversionReviewVersions"), review,
                "must include at least one of v1, v1beta1",
            ))
    else:
        if webhook.get("clientConfig") is not None:
            errs.append(fe.forbidden(path.child("webhookClientConfig"),
                                     "should not be set when strategy is not set to Webhook"))
        if as_list(webhook.get("conversionReviewVersions")):
            errs.append(fe.forbidden(path.child("conversionReviewVersions"),
                                     "should not be set when strategy is not set to Webhook"))
    return errs


def _spec_update(
    view: Mapping[str, Any], old_view: Mapping[str, Any], require_immutable_names: bool
) -> list[fe.FieldError]:
    errs: list[fe.FieldError] = []
    path = fe.Path("spec")
    names, old_names = as_dict(view.get("names")), as_dict(old_view.get("names"))
    checks = [("scope", view.get("scope"), old_view.get("scope"), path.child("scope"))]
    checks.append(("kind", names.get("kind"), old_names.get("kind"), path.child("names", "kind")))
    if require_immutable_names:
        for _, new, old, at in checks:
            if new != old:
                errs.append(fe.invalid(at, new, "field is immutable"))
    if view.get("group") != old_view.get("group"):
        errs.append(fe.invalid(path.child("group"), view.get("group"), "field is immutable"))
    if names.get("plural") != old_names.get("plural"):
        errs.append(fe.invalid(path.child("names", "plural"), names.get("plural"),
                               "field is immutable"))
    return errs


def _stored_versions(stored: list[Any], versions: list[dict[str, Any]]) -> list[fe.FieldError]:
    path = fe.Path("status").child("storedVersions")
    if not stored:
        return [fe.invalid(path, stored, "must have at least one stored version")]
    errs: list[fe.FieldError] = []
    remaining = {v: i for i, v in enumerate(stored)}
    for version in versions:
        name = version.get("name")
        if version.get("storage") is True and name not in remaining:
            errs.append(fe.invalid(path, stored, f"must have the storage version {name}"))
        remaining.pop(name, None)  # type: ignore[arg-type]
    for name, i in remaining.items():
        errs.append(fe.invalid(
            path.index(i), name,
            f"missing from spec.versions; {name} was previously a storage version, and must "
            f"remain in spec.versions until a storage migration ensures no data remains "
            f"persisted in {name} and removes {name} from status.storedVersions",
        ))
    return errs


# --- API approval and preserveUnknownFields -------------------------------------------------------

def _api_approval(
    crd: Mapping[str, Any], old: Mapping[str, Any] | None
) -> list[fe.FieldError]:
    group = str(as_dict(crd.get("spec")).get("group") or "")
    if not is_protected_group(group):
        return []
    annotations = as_dict(as_dict(crd.get("metadata")).get("annotations"))
    state, reason = approval_state(annotations)
    if old is not None:
        old_state, _ = approval_state(as_dict(as_dict(old.get("metadata")).get("annotations")))
        if old_state == state:
            return []
    path = fe.Path("metadata").child("annotations").key(API_APPROVED_ANNOTATION)
    if state == "Missing":
        return [fe.required(path, reason)]
    if state == "Invalid":
        return [fe.invalid(path, annotations.get(API_APPROVED_ANNOTATION), reason)]
    return []


def _preserve_unknown_fields(
    spec: Mapping[str, Any], old_spec: Mapping[str, Any] | None
) -> list[fe.FieldError]:
    if old_spec is not None and old_spec.get("preserveUnknownFields") is True:
        return []
    if spec.get("preserveUnknownFields") is True:
        return [fe.invalid(
            fe.Path("spec").child("preserveUnknownFields"), True,
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
            "spec.versions[*].schema instead",
        )]
    return []


def format_warnings(spec: Mapping[str, Any], old_spec: Mapping[str, Any] | None) -> list[str]:
    """Upstream's warnings on a written definition: formats the server does not know (new ones
    only, on updates) and ``set`` lists of objects or lists."""
    def unknown(s: Mapping[str, Any]) -> list[str]:
        found = []
        for root in _schemas(internal_view(s)):
            for node in walk_schemas(root):
                fmt = node.get("format")
                if isinstance(fmt, str) and unrecognized_format(str(node.get("type") or ""), fmt):
                    found.append(fmt)
        return found

    def set_warnings(s: Mapping[str, Any]) -> set[str]:
        found = set()
        for root in _schemas(internal_view(s)):
            for node in walk_schemas(root):
                items = node.get("items")
                if (
                    node.get("x-kubernetes-list-type") == "set"
                    and isinstance(items, dict)
                    and items.get("type") in ("object", "array")
                ):
                    found.add(
                        f"x-kubernetes-list-type: set for items of type \"{items['type']}\" "
                        "is not supported by server-side apply or CEL validation rules"
                    )
        return found

    old_formats = set(unknown(old_spec)) if old_spec is not None else set()
    warnings = [f'unrecognized format "{f}"' for f in unknown(spec) if f not in old_formats]
    old_sets = set_warnings(old_spec) if old_spec is not None else set()
    warnings += sorted(w for w in set_warnings(spec) if w not in old_sets)
    return warnings
