"""From a client's JSON object to one the registry may store: kind check, unknown fields, types.

Upstream decodes a body into a Go struct: unknown fields cannot survive that, and a value of the
wrong type fails decoding with 400 BadRequest. We keep objects as dicts, so the same happens in two
steps: the compiled schema prunes unknown fields (reporting them as ``fieldValidation`` asks), then
the pydantic model checks the types. A missing required field is not a decoding error upstream but
a validation error (422), and is reported as one.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from fakeapi.errors import StatusError, bad_request
from fakeapi.registry.options import WriteOptions
from fakeapi.resources import ResourceType
from fakeapi.schema import prune_unknown_fields
from fakeapi.validation import field as fe

__all__ = ["decode_object", "check_types", "cannot_handle"]


def cannot_handle(rt: ResourceType, detail: str) -> StatusError:
    return bad_request(
        f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {detail}'
    )


def decode_object(
    rt: ResourceType, obj: Any, options: WriteOptions, *, patch: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The object without unknown fields, and the warnings to send; raises on bad input.

    Types are checked later, by :func:`check_types`, on the object the registry is about to
    validate.
    """
    if not isinstance(obj, dict):
        raise cannot_handle(
            rt, f"json: cannot unmarshal {_json_type(obj)} into Go value of type struct"
        )
    api_version = obj.get("apiVersion")
    if api_version not in (None, "") and api_version != rt.api_version:
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            f"version ({rt.api_version})"
        )
    kind = obj.get("kind")
    if kind not in (None, "") and kind != rt.kind:
        raise bad_request(
            f"the kind in the data ({kind}) does not match the expected kind ({rt.kind})"
        )
    if not isinstance(obj.get("metadata", {}), dict):
        raise cannot_handle(
            rt, "json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta"
        )
    pruned, unknown = prune_unknown_fields(rt.schema, obj, patch=patch)
    problems = [f'unknown field "{p}"' for p in unknown]
    problems += [f'duplicate field "{p}"' for p in options.duplicate_fields]
    warnings: list[str] = []
    if problems:
        if options.field_validation == "Strict":
            raise cannot_handle(rt, "strict decoding error: " + ", ".join(problems))
        if options.field_validation == "Warn":
            warnings = problems
    return pruned, warnings


def check_types(rt: ResourceType, obj: dict[str, Any]) -> list[fe.FieldError]:
    """Raise 400 for a value of the wrong type; return the required fields that are missing.

    Missing fields are returned rather than raised so that the registry reports them in one 422
    together with the kind's own validation errors, as upstream validates the whole object.
    """
    try:
        rt.model.model_validate(obj)
    except ValidationError as exc:
        missing: list[fe.FieldError] = []
        for error in exc.errors():
            path = _path(error["loc"])
            if error["type"] == "missing":
                missing.append(fe.required(path))
                continue
            raise cannot_handle(
                rt,
                f"json: cannot unmarshal {_json_type(error.get('input'))} into Go struct field "
                f"{rt.kind}.{path} of type {_expected(error['type'])}",
            ) from None
        return missing
    return []


_TYPE_NAMES = {
    "string_type": "string",
    "int_type": "int64",
    "int_parsing": "int64",
    "int_from_float": "int64",
    "float_type": "float64",
    "float_parsing": "float64",
    "bool_type": "bool",
    "bool_parsing": "bool",
    "dict_type": "map",
    "list_type": "slice",
    "model_type": "struct",
    "model_attributes_type": "struct",
}


def _expected(error_type: str) -> str:
    return _TYPE_NAMES.get(error_type, error_type)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in part or part in ("str", "int", "float", "bool") or part.startswith("function"):
            continue  # pydantic's union/validator tags are not part of the field path
        else:
            out = f"{out}.{part}" if out else part
    return out
