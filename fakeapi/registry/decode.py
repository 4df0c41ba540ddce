"""From a client's JSON object to one the registry may store: kind check, unknown fields, types.

Upstream decodes every body into a typed Go struct. A value of the wrong type fails that decoding
with the decoder's own text, an unknown field cannot survive it, and times and quantities come
out in their canonical form. :mod:`fakeapi.registry.typed_decode` does the same walk over the
compiled schema; this module decides how each kind of request reports what it finds, as
kube-apiserver's handlers do:

* create and update: 400 ``<Kind> in version "<v>" cannot be handled as a <Kind>: <decoder text>``;
* JSON, merge and strategic merge patches: the patched object is decoded, and a failure (unknown
  fields under ``fieldValidation=Strict`` included) is a 422 on the field ``patch`` (``"" is
  invalid: patch: Invalid value: ...``); a patch that changes ``metadata.name`` is a 400, as any
  body whose name differs from the URL's;
* server-side apply: structured-merge-diff's ``failed to create typed patch object`` text (upstream
  answers it with a 500; here it is a 400, as every other bad body).

Unknown fields are pruned and reported as ``fieldValidation`` asks; a decoding error wins over
them, as Go's strict decoding reports them only once the object decoded. A missing required field
is not a decoding error upstream but a validation error (422): :func:`check_types` returns those for
the registry to report together with the kind's own validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from fakeapi import errors
from fakeapi.errors import StatusError, bad_request
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.typed_decode import (
    DecodeError,
    DecodeMode,
    ObjectDecoder,
    TypedDecoder,
    json_type_name,
)
from fakeapi.schema import SchemaNode
from fakeapi.validation import field as fe

__all__ = ["decode_object", "decode_patched", "check_types", "check_decoded", "cannot_handle"]


def cannot_handle(rt: ResourceType, detail: str) -> StatusError:
    return bad_request(
        f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {detail}'
    )


def _check_type_meta(rt: ResourceType, obj: Any) -> None:
    if not isinstance(obj, dict):
        raise cannot_handle(
            rt, f"json: cannot unmarshal {json_type_name(obj)} into Go value of type struct"
        )
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise bad_request(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{json_type_name(value)} into Go struct field .{key} of type string"
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


def _unknown_field_problems(decoder: ObjectDecoder, options: WriteOptions) -> list[str]:
    problems = [f'unknown field "{p}"' for p in decoder.unknown]
    problems += [f'duplicate field "{p}"' for p in options.duplicate_fields]
    return problems


def _decode_changed(
    decoder: ObjectDecoder,
    rt: ResourceType,
    obj: Any,
    stored: Mapping[str, Any] | None,
    untouched: frozenset[str] = frozenset(),
    copied: set[str] | None = None,
    missing: list[str] | None = None,
) -> dict[str, Any]:
    """``decoder.decode`` of ``obj``, skipping top-level parts identical to the stored version's.

    A status write sends the whole object back, spec included. A part whose JSON is byte for
    byte the stored version's was decoded when it was written and can report nothing (no
    unknown field, no type error), so it is copied from those bytes instead of walked again.
    ``untouched`` names parts the caller knows to be private copies of the stored version's (a
    patch left them alone): they are taken as they are, without comparing or copying.
    ``copied`` collects the keys of the parts that are such copies in the result. ``missing``
    (a ``checked`` decoder's) collects the required fields found absent in the parts decoded.
    """
    if not stored or not isinstance(obj, dict):
        decoded = (
            _decode_created(decoder, rt.schema, obj)
            if isinstance(decoder, TypedDecoder) and isinstance(obj, dict)
            else decoder.decode(rt.schema, obj)
        )
        if missing is not None:
            missing.extend(decoder.missing)
        return decoded
    same: dict[str, bytes | None] = {}
    for key, value in obj.items():
        if key in _TYPE_META or value is None:
            continue
        known = stored.get(key)
        if known is not None:
            if key in untouched:
                same[key] = None
                continue
            encoded = orjson.dumps(value)
            if encoded == orjson.dumps(known):
                same[key] = encoded
    if not same:
        decoded = decoder.decode(rt.schema, obj)
        if missing is not None:
            missing.extend(decoder.missing)
        return decoded
    decoded = decoder.decode(rt.schema, {k: v for k, v in obj.items() if k not in same})
    if missing is not None:
        missing.extend(decoder.missing)
    if copied is not None:
        copied.update(same)
    out: dict[str, Any] = {}
    for key in obj:
        if key in same:
            same_bytes = same[key]
            out[key] = obj[key] if same_bytes is None else orjson.loads(same_bytes)
        elif key in decoded:
            out[key] = decoded[key]
    return out


_TYPE_META = ("apiVersion", "kind")

#: the part of a new object whose decoding is kept (see :func:`_decode_created`)
_REPEATED_PART = "spec"
_DECODED_PARTS_KEPT = 512
#: decoded ``spec`` parts by schema, decoder version and mode, and the part's JSON as sent; the
#: node is held by its key, so a schema compiled again is a new key, never a stale answer
_decoded_parts: dict[tuple[SchemaNode, str, str, bytes], bytes] = {}


def _decode_created(
    decoder: TypedDecoder, schema: SchemaNode, obj: dict[str, Any]
) -> dict[str, Any]:
    """``decoder.decode(schema, obj)`` for a new object, its ``spec`` walked once per content.

    Objects made from one template (the pods of a workload, the claims of their template)
    send the same ``spec`` again and again. Its typed decoding depends only on the schema, the
    decoder's version and mode, and its JSON (which tells an integer from a float and a boolean
    from a number), and a part whose walk reported nothing (no unknown field, no missing
    required field; a type error raises) adds nothing to the walk of the rest. So the decoded
    JSON of such a part is kept, and the next object sending the same bytes gets a fresh copy
    of it in its place while the rest of the object is walked as usual, the result's keys in
    the order the walk gives them.
    """
    part = obj.get(_REPEATED_PART)
    if not isinstance(part, dict) or not part:
        return decoder.decode(schema, obj)
    try:
        content = orjson.dumps(part)
    except TypeError:  # not JSON (an integer beyond 64 bits): walked, not kept
        return decoder.decode(schema, obj)
    key = (schema, decoder.package, decoder.mode, content)
    known = _decoded_parts.get(key)
    if known is None:
        decoded = decoder.decode(schema, obj)
        found = decoded.get(_REPEATED_PART)
        if not decoder.unknown and not decoder.missing and isinstance(found, dict):
            if len(_decoded_parts) >= _DECODED_PARTS_KEPT:
                _decoded_parts.clear()  # a miss is only the long way
            _decoded_parts[key] = orjson.dumps(found)
        return decoded
    rest = decoder.decode(schema, {k: v for k, v in obj.items() if k != _REPEATED_PART})
    out: dict[str, Any] = {}
    for name in obj:
        if name == _REPEATED_PART:
            out[name] = orjson.loads(known)
        elif name in rest:
            out[name] = rest[name]
    return out


def decode_object(
    rt: ResourceType,
    obj: Any,
    options: WriteOptions,
    *,
    patch: bool = False,
    stored: Mapping[str, Any] | None = None,
    copied: set[str] | None = None,
    missing: list[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The decoded object (a new one) and the warnings to send; raises on bad input.

    ``patch`` marks a server-side apply configuration: it is checked as structured-merge-diff
    checks one, and kept as sent otherwise (nulls and directives included) for the merge.
    ``stored`` (the current version, for an update) lets parts sent back unchanged skip the walk;
    ``copied`` then collects the keys of the result's parts that are byte for byte the stored
    version's (private copies). ``missing``: decode in ``checked`` mode and collect there the
    required fields found absent below the top level, for :func:`check_decoded`'s ``below``.
    """
    _check_type_meta(rt, obj)
    mode: DecodeMode = "apply" if patch else "decode" if missing is None else "checked"
    decoder = rt.new_decoder(mode)
    try:
        decoded = decoder.decode(rt.schema, obj) if patch else _decode_changed(
            decoder, rt, obj, stored, copied=copied, missing=missing
        )
    except DecodeError as exc:
        if patch:
            raise bad_request(
                f"failed to create typed patch object ({_object_gvknn(rt, obj)}): {exc.message}"
            ) from None
        raise cannot_handle(rt, exc.message) from None
    problems = _unknown_field_problems(decoder, options)
    warnings: list[str] = []
    if problems:
        if options.field_validation == "Strict":
            raise cannot_handle(rt, "strict decoding error: " + ", ".join(problems))
        if options.field_validation == "Warn":
            warnings = problems
    return decoded, warnings


def decode_patched(
    rt: ResourceType,
    patched: Any,
    options: WriteOptions,
    *,
    patch_type: str,
    patch: Any,
    name: str,
    namespace: str | None,
    stored: Mapping[str, Any] | None = None,
    untouched: frozenset[str] = frozenset(),
    copied: set[str] | None = None,
    missing: list[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The object a JSON, merge or strategic merge patch produced, decoded; raises on bad input.

    Like upstream, a decoding failure (a strict decoding error included) is a 422 on the field
    ``patch`` whose value is the patched object (the patch itself for a strategic merge patch),
    and the patched object must keep the name and namespace of the URL. ``untouched``: top-level
    parts of ``patched`` that are private copies of ``stored``'s (taken as they are); ``copied``
    collects the keys of the result's parts that are such copies; ``missing`` as for
    :func:`decode_object`.
    """
    decoder = rt.new_decoder("decode" if missing is None else "checked")
    try:
        _check_type_meta(rt, patched)
        decoded = _decode_changed(decoder, rt, patched, stored, untouched, copied, missing)
    except DecodeError as exc:
        raise _patch_invalid(patched, patch_type, patch, exc.message) from None
    except StatusError as exc:
        if exc.code != 400:
            raise
        raise _patch_invalid(patched, patch_type, patch, exc.message) from None
    problems = _unknown_field_problems(decoder, options)
    warnings: list[str] = []
    if problems:
        if options.field_validation == "Strict":
            message = "strict decoding error: " + ", ".join(problems)
            raise _patch_invalid(patched, patch_type, patch, message)
        if options.field_validation == "Warn":
            warnings = problems
    meta = decoded.get("metadata") or {}
    check_name(meta, name=name, namespace=namespace if rt.namespaced else None)
    return decoded, warnings


def check_name(meta: dict[str, Any], *, name: str, namespace: str | None) -> None:
    """The object's name (and namespace, if set) must be the URL's (upstream ``checkName``)."""
    object_name = meta.get("name") or ""
    if object_name != name:
        raise bad_request(
            f"the name of the object ({object_name}) does not match the name on the URL ({name})"
        )
    object_namespace = meta.get("namespace") or ""
    if namespace and object_namespace and object_namespace != namespace:
        raise bad_request(
            f"the namespace of the object ({object_namespace}) does not match the namespace on "
            f"the request ({namespace})"
        )


def _patch_invalid(patched: Any, patch_type: str, patch: Any, message: str) -> StatusError:
    if patch_type.startswith("application/strategic-merge-patch"):
        shown = go_format(patch)
    else:
        shown = orjson.dumps(patched).decode()
    error = fe.invalid("patch", shown, message)
    return errors.invalid(kind="", group="", name="", causes=fe.causes([error]))


def go_format(value: Any) -> str:
    """``fmt.Sprintf("%+v", v)`` of a decoded JSON value (maps print with sorted keys)."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_format(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) or abs(value) >= 1e21 else str(int(value))
    return str(value)


def _object_gvknn(rt: ResourceType, obj: Any) -> str:
    """``namespace/name; group/version, Kind=Kind`` as structured-merge-diff errors name objects."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    return f"{namespace}/{name}; {rt.group}/{rt.version}, Kind={rt.kind}"


def check_types(
    rt: ResourceType, obj: dict[str, Any], *, stored: dict[str, Any] | None = None
) -> list[fe.FieldError]:
    """Decode the object about to be validated in place; return the required fields it lacks.

    The object may come from a merge (server-side apply) that nothing decoded yet, so the types
    are checked again (400 on a mismatch) and times and quantities normalised. Required structs
    that are absent are filled with ``{}``, as Go's zero value encodes; other missing required
    fields are returned rather than raised so that the registry reports them in one 422 together
    with the kind's own validation errors, as upstream validates the whole object.

    ``stored``: ``obj`` holds parts of an update built from that stored version (a binding, an
    apply); fields below its top level that are byte for byte the stored ones are not walked
    again (see :meth:`TypedDecoder.final_against`).
    """
    decoder = rt.new_decoder("final")
    try:
        if stored is None:
            decoded = decoder.decode(rt.schema, obj)
        else:
            decoded = decoder.final_against(rt.schema, obj, stored)
    except DecodeError as exc:
        raise cannot_handle(rt, exc.message) from None
    assert decoded is obj
    return [fe.required(path) for path in decoder.missing]


def check_decoded(
    rt: ResourceType, obj: dict[str, Any], *, below: list[str] | None = None
) -> list[fe.FieldError]:
    """:func:`check_types` for an object :func:`decode_object` produced (not a ``patch=True``
    configuration), changed since only by well-typed server-set fields.

    The decoding already checked every type, pruned unknown fields, dropped nulls and wrote
    times and quantities canonically, so a second full walk would only fill required structs and
    find missing required fields; this does just that, with the same result. ``below``: what a
    ``checked`` decoding (``missing=``) found below the top level, where it filled the required
    structs as well: only the top level is left.
    """
    decoder = rt.new_decoder("final")
    if below is None:
        decoder.fill_required(rt.schema, obj)
        return [fe.required(path) for path in decoder.missing]
    decoder.fill_required(rt.schema, obj, nested=False)
    return [fe.required(path) for path in (*below, *decoder.missing)]
