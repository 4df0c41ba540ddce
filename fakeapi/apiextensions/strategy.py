"""The strategy and the request decoder of a custom resource, made from its served version.

Upstream's ``customResourceStrategy`` and the decoding its ``crdHandler`` wires in front of it,
as fakeapi's :class:`~fakeapi.registry.strategy.Strategy` hooks:

* decoding (:class:`CustomResourceDecoder`) keeps ``apiVersion``, ``kind`` and a typed
  ``metadata`` (unknown metadata fields reported), prunes what the schema does not declare
  (reported for ``fieldValidation``) and drops nulls the schema does not allow; a value of the
  wrong type is left for validation, which words it as upstream does (``spec.replicas in body
  must be of type integer``); server-side apply refuses undeclared fields and wrong types as
  structured-merge-diff does;
* defaults are applied as the body is decoded (:meth:`CustomResourceStrategy.apply_defaults`),
  so the writer owns them;
* validation is the schema's (with ratcheting on updates), the scale paths', the embedded
  resources', the list types' and the CEL rules' (skipped, with upstream's note, when the
  object already has errors those rules could trip over); rules that fail on unchanged values
  only warn;
* the status subresource validates ``status`` alone against the status schema; the object's
  generation moves whenever anything but metadata changes;
* the scale subresource is :mod:`fakeapi.registry.scale`'s, over the definition's paths;
* a definition being deleted refuses new objects.
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson

from fakeapi import errors
from fakeapi.apiextensions.defaulting import apply_defaults
from fakeapi.apiextensions.listtypes import validate_list_sets_and_maps
from fakeapi.apiextensions.objectmeta import coerce_embedded, validate_embedded_resources
from fakeapi.apiextensions.pruning import prune, prune_nulls
from fakeapi.apiextensions.structural import Structural
from fakeapi.apiextensions.versions import ScaleSpec, ServedVersion
from fakeapi.name_syntax import is_qualified_name
from fakeapi.objects import dig
from fakeapi.registry.scale import ScaleSubresource
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.registry.typed_decode import DecodeError, DecodeMode, TypedDecoder, go_type_of
from fakeapi.schema import SchemaNode
from fakeapi.validation import field as fe

__all__ = ["CustomResourceDecoder", "CustomResourceStrategy", "strategy_for"]

_BLOCKING = frozenset({
    "FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
    "FieldValueTypeInvalid",
})
_STANDARD_FINALIZERS = frozenset({"orphan", "foregroundDeletion", "kubernetes"})
_META = ("apiVersion", "kind", "metadata")


class CustomResourceStrategy(Strategy):
    """A custom resource's behaviour; :func:`strategy_for` makes one per served version."""

    tracks_generation: ClassVar[bool] = True
    custom_field_labels: ClassVar[bool] = True
    allow_unconditional_update: ClassVar[bool] = False
    non_spec_fields: ClassVar[frozenset[str]] = frozenset({"apiVersion", "kind", "metadata"})

    def __init__(self, served: ServedVersion, *, terminating: bool) -> None:
        self.served = served
        self.terminating = terminating
        #: warnings of ratcheted rule failures, from validation to the warnings hook
        self._rule_warnings: dict[int, tuple[Obj, list[str]]] = {}

    # --- writes ---------------------------------------------------------------------------------
    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        if self.served.has_defaults:
            apply_defaults(obj, self.served.structural)

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        if self.terminating:
            raise errors.forbidden(
                resource=self.served.plural, group=self.served.group,
                name=str((obj.get("metadata") or {}).get("name") or ""),
                message="create not allowed while custom resource definition is terminating",
            )
        super().prepare_for_create(obj, ctx)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[fe.FieldError]:
        return self._validate(obj, None)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[fe.FieldError]:
        return self._validate(new, old)

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[fe.FieldError]:
        served = self.served
        errs: list[fe.FieldError] = []
        status_validator = served.status_validator
        if status_validator is not None and "status" in new:
            errs += status_validator.validate_update(
                new["status"], old.get("status"), path=fe.Path("status")
            )
        errs += self._scale_status(new)
        listed = validate_list_sets_and_maps(served.structural, new)
        if listed and not validate_list_sets_and_maps(served.structural, old):
            errs += listed
        return self._rules(new, old, errs)

    def _validate(self, obj: Obj, old: Obj | None) -> list[fe.FieldError]:
        served = self.served
        if old is None:
            errs = served.validator.validate(obj)
        else:
            errs = served.validator.validate_update(obj, old)
        errs += self._scale_spec(obj) + self._scale_status(obj)
        errs += validate_embedded_resources(served.structural, obj)
        if old is None or not validate_list_sets_and_maps(served.structural, old):
            errs += validate_list_sets_and_maps(served.structural, obj)
        return self._rules(obj, old, errs)

    def _rules(self, obj: Obj, old: Obj | None, errs: list[fe.FieldError]) -> list[fe.FieldError]:
        rules = self.served.rules
        if rules is None:
            return errs
        if any(e.reason in _BLOCKING for e in errs):
            return [*errs, fe.invalid(  # upstream's nil path and nil value print so
                "<nil>", "null", "some validation rules were not checked because the object "
                "was invalid; correct the existing errors to complete validation",
            )]
        found, warnings = rules.validate(obj) if old is None else rules.validate(obj, old)
        if warnings:
            if len(self._rule_warnings) > 64:
                self._rule_warnings.clear()
            self._rule_warnings[id(obj)] = (obj, warnings)
        return errs + found

    def _scale_spec(self, obj: Obj) -> list[fe.FieldError]:
        scale = self.served.scale
        if scale is None:
            return []
        return _replicas_errors(obj, scale.spec_replicas_path)

    def _scale_status(self, obj: Obj) -> list[fe.FieldError]:
        scale = self.served.scale
        if scale is None:
            return []
        errs = _replicas_errors(obj, scale.status_replicas_path)
        if scale.label_selector_path:
            value, found = _nested(obj, scale.label_selector_path)
            if found and not isinstance(value, str):
                errs.append(fe.invalid(
                    scale.label_selector_path, "",
                    f"{_accessor(scale.label_selector_path)} accessor error: {_go_print(value)} "
                    f"is of the type {go_type_of(value)}, expected string",
                ))
        return errs

    # --- warnings -------------------------------------------------------------------------------
    def warnings_on_create(self, obj: Obj, ctx: WriteContext) -> list[str]:
        return _finalizer_warnings(obj, None) + self._take_rule_warnings(obj)

    def warnings_on_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[str]:
        return _finalizer_warnings(new, old) + self._take_rule_warnings(new)

    def _take_rule_warnings(self, obj: Obj) -> list[str]:
        entry = self._rule_warnings.pop(id(obj), None)
        return entry[1] if entry is not None and entry[0] is obj else []

    # --- reads ----------------------------------------------------------------------------------
    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, find in self.served.selectable:
            values = find(obj)
            value = values[0] if values else None
            if value is None:
                out[name] = ""
            elif isinstance(value, bool):
                out[name] = "true" if value else "false"
            else:
                out[name] = str(value)
        return out


def strategy_for(served: ServedVersion, *, terminating: bool) -> CustomResourceStrategy:
    """The strategy of one served version (the flags the store reads are class attributes,
    so each version gets its own subclass)."""
    attributes: dict[str, Any] = {
        "status_subresource": served.status_subresource,
        "field_labels": tuple(name for name, _ in served.selectable),
        "columns": served.columns,
        "scale": _scale(served.scale) if served.scale is not None else None,
    }
    cls = type(f"{served.kind}Strategy", (CustomResourceStrategy,), attributes)
    strategy: CustomResourceStrategy = cls(served, terminating=terminating)
    return strategy


def _scale(spec: ScaleSpec) -> ScaleSubresource:
    """Where the scale subresource finds replicas and selector (upstream's ``ScaleREST`` of
    custom resources: the integers at ``specReplicasPath`` and ``statusReplicasPath``, the
    string at ``labelSelectorPath``; a scale write sets ``specReplicasPath``, creating the
    objects on the way, through the object's own update, so its schema and rules apply)."""
    selector_path = _path(spec.label_selector_path) if spec.label_selector_path else None

    def selector(obj: dict[str, Any]) -> str:
        value = dig(obj, *selector_path) if selector_path is not None else None
        return value if isinstance(value, str) else ""

    return ScaleSubresource(
        spec_replicas=_path(spec.spec_replicas_path),
        status_replicas=_path(spec.status_replicas_path),
        selector=selector,
    )


def _path(path: str) -> tuple[str, ...]:
    return tuple(path.lstrip(".").split("."))


def _nested(obj: Any, path: str) -> tuple[Any, bool]:
    value = obj
    for part in path.lstrip(".").split("."):
        if not isinstance(value, dict) or part not in value:
            return None, False
        value = value[part]
    return value, True


def _accessor(path: str) -> str:
    """unstructured's ``jsonPath`` of a field path: ``.spec.replicas``."""
    return "." + path.lstrip(".")


def _go_print(value: Any) -> str:
    """Go's ``%v`` of a JSON value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + " ".join(_go_print(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_print(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def _replicas_errors(obj: Obj, path: str) -> list[fe.FieldError]:
    """A replicas path must hold a non-negative int32 if anything (upstream's scale checks,
    reported at the path as written, ``.spec.replicas``)."""
    value, found = _nested(obj, path)
    if not found:
        return []
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            return [fe.invalid(
                path, 0, f"{_accessor(path)} accessor error: {_go_print(value)} is of the type "
                f"{go_type_of(value)}, expected int64",
            )]
    if value < 0:
        return [fe.invalid(path, value, "should be a non-negative integer")]
    if value > 2**31 - 1:
        return [fe.invalid(path, value, f"should be less than or equal to {2**31 - 1}")]
    return []


def _finalizer_warnings(obj: Obj, old: Obj | None) -> list[str]:
    finalizers = (obj.get("metadata") or {}).get("finalizers") or []
    known = set((old.get("metadata") or {}).get("finalizers") or []) if old is not None else set()
    warnings: list[str] = []
    for name in sorted(set(finalizers) - known):
        if not isinstance(name, str):
            continue
        quoted = orjson.dumps(name).decode()
        for problem in is_qualified_name(name):
            warnings.append(f"metadata.finalizers: {quoted}: {problem}")
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            if "." in name:
                warnings.append(
                    f"metadata.finalizers: {quoted}: prefer a domain-qualified finalizer name "
                    "including a path (/) to avoid accidental conflicts with other finalizer "
                    "writers"
                )
            else:
                warnings.append(
                    f"metadata.finalizers: {quoted}: prefer a domain-qualified finalizer name to "
                    "avoid accidental conflicts with other finalizer writers"
                )
    return warnings


# --- decoding ---------------------------------------------------------------------------------

class CustomResourceDecoder:
    """Decodes one request body of a custom resource (the :class:`ObjectDecoder` protocol)."""

    def __init__(self, served: ServedVersion, mode: DecodeMode) -> None:
        self.served = served
        self.mode = mode
        self.unknown: list[str] = []
        self.missing: list[str] = []

    def decode(self, node: SchemaNode, obj: dict[str, Any]) -> dict[str, Any]:
        if self.mode == "apply":
            return self._apply(node, obj)
        if self.mode == "final":
            self._final(obj)
            return obj
        out: dict[str, Any] = orjson.loads(orjson.dumps(obj))
        self._coerce(out, report=True)
        return out

    def final_against(
        self, node: SchemaNode, obj: dict[str, Any], stored: dict[str, Any]
    ) -> dict[str, Any]:
        self._final(obj)
        return obj

    def fill_required(
        self, node: SchemaNode, obj: dict[str, Any], *, nested: bool = True
    ) -> None:
        """Required fields of custom resources are checked by their schema's validation."""

    def _final(self, obj: dict[str, Any]) -> None:
        self._coerce(obj, report=False)

    def _coerce(self, obj: dict[str, Any], *, report: bool) -> None:
        """Typed metadata, pruning and dropped nulls, in place."""
        metadata = obj.get("metadata")
        if metadata is not None:
            obj["metadata"] = self._metadata(metadata, report=report)
        structural = self.served.structural
        unknown = prune(obj, structural)
        if report:
            self.unknown.extend(unknown)
        prune_nulls(obj, structural)
        problem = coerce_embedded(structural, obj)
        if problem is not None:
            raise DecodeError(str(problem))

    def _metadata(self, metadata: Any, *, report: bool) -> Any:
        from fakeapi.models.meta import ObjectMeta
        from fakeapi.schema import schema_for

        if not isinstance(metadata, dict):
            raise DecodeError(
                "json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta"
            )
        decoder = TypedDecoder("v1", mode="decode")
        node = schema_for(ObjectMeta)
        decoded = decoder.decode(node, metadata)
        if report:
            self.unknown.extend(f"metadata.{path}" for path in decoder.unknown)
        return decoded

    def _apply(self, node: SchemaNode, obj: dict[str, Any]) -> dict[str, Any]:
        """A server-side apply configuration: undeclared fields and wrong types refused, as
        structured-merge-diff refuses them; values kept as sent."""
        problems: list[str] = []
        root = self.served.structural
        for key, value in obj.items():
            if key in _META:
                continue
            sub = (root.properties or {}).get(key)
            _typed(sub, value, f".{key}", problems, preserve=root.preserve_unknown_fields)
        if problems:
            raise DecodeError(problems[0] if len(problems) == 1 else "errors:\n  " +
                              "\n  ".join(problems))
        return obj


def _typed(
    s: Structural | None, value: Any, path: str, problems: list[str], *, preserve: bool
) -> None:
    if s is None:
        if not preserve:
            problems.append(f"{path}: field not declared in schema")
        return
    if value is None or s.int_or_string:
        return
    kind = s.type
    if kind == "object":
        if not isinstance(value, dict):
            problems.append(f"{path}: expected map, got {_smd_kind(value)}")
            return
        extra = s.additional_schema
        for key, sub in value.items():
            declared = (s.properties or {}).get(key)
            if s.embedded_resource and key in _META:
                continue
            if declared is not None:
                _typed(declared, sub, f"{path}.{key}", problems, preserve=False)
            elif extra is not None:
                _typed(extra, sub, f"{path}.{key}", problems, preserve=False)
            elif not (s.preserve_unknown_fields or s.additional_properties is not None):
                problems.append(f"{path}.{key}: field not declared in schema")
    elif kind == "array":
        if not isinstance(value, list):
            problems.append(f"{path}: expected list, got {_smd_kind(value)}")
            return
        for i, item in enumerate(value):
            _typed(s.items, item, f"{path}[{i}]", problems, preserve=True)
    elif kind == "string" and not isinstance(value, str):
        problems.append(f"{path}: expected string, got {_smd_kind(value)}")
    elif kind in ("integer", "number") and (
        isinstance(value, bool) or not isinstance(value, int | float)
    ):
        problems.append(f"{path}: expected numeric (int or float), got {_smd_kind(value)}")
    elif kind == "boolean" and not isinstance(value, bool):
        problems.append(f"{path}: expected boolean, got {_smd_kind(value)}")


def _smd_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "float" if isinstance(value, float) else "int"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return "null"

