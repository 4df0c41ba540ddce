"""Validation of a custom resource against its schema, as kube-openapi's ``SchemaValidator`` does.

kube-apiserver validates a custom resource with kube-openapi's validator (a go-openapi fork) and
turns its results into field errors. Both the order of the checks and the wording carry over:
per schema, the type, then ``allOf``/``anyOf``/``oneOf``/``not``, then the string checks
(``maxLength``, ``minLength``, ``pattern``; the first failing one only), the format, the number
checks (``multipleOf``, ``minimum``, ``maximum``), the list checks (items first, then
``minItems``, ``maxItems``, ``uniqueItems``), ``enum``, and the object checks
(``minProperties``, ``maxProperties``, the properties, then ``required``). Messages read
``spec.replicas in body should be greater than or equal to 1``; the field error wrapping each
one follows upstream's ``kubeOpenAPIResultToFieldErrors`` (``Required value``, ``Unsupported
value``, ``Too long``, ``Too many``, ``Invalid value``).

A schema is compiled once into :class:`SchemaValidator` nodes (regular expressions and format
checks looked up once). An update is validated with *ratcheting* (CRDValidationRatcheting, GA
upstream): a value equal to its counterpart in the old object (correlated by field name, map
key, or the keys of a list of type map) is not validated again, so an object that became
invalid under a newer schema can still be updated where the update does not touch the invalid
part.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from fakeapi.apiextensions.formats import format_checker, supported_format
from fakeapi.apiextensions.regex import compile_go_regex
from fakeapi.validation import field as fe

__all__ = ["SchemaValidator", "go_number"]

#: no old value to ratchet against
_NO_OLD: Any = object()
#: what a pattern that does not compile matches: nothing
_NEVER = re.compile(r"(?!)")

# kube-openapi's error codes, as far as the field-error conversion tells them apart
_REQUIRED, _ENUM, _TOO_LONG, _MAX_ITEMS, _TOO_MANY_PROPERTIES, _INVALID_TYPE, _OTHER = range(7)


class _Err:
    """One kube-openapi result: a ``Validation`` (``name`` set) or a composite message."""

    __slots__ = ("code", "message", "name", "valid", "value", "values")

    def __init__(
        self,
        code: int,
        name: str | None,
        message: str,
        value: Any = None,
        valid: Any = None,
        values: list[Any] | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.message = message
        self.value = value
        self.valid = valid
        self.values = values


def go_number(value: float | int) -> str:
    """Go's ``%v`` of a float64 (``10``, ``1.5``, ``1e+21``) or an int64."""
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").rjust(2, "0")
        return f"{mantissa}e{sign}{digits}"
    return text


def _go_quote(value: Any) -> str:
    """Go's ``%q`` of a string."""
    return orjson.dumps(value).decode() if isinstance(value, str) else str(value)


def _go_value(value: Any) -> str:
    """Go's ``%v`` of a JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_number(value)
    if isinstance(value, list):
        return "[" + " ".join(_go_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_value(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _child_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _same_json(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (``1`` is not ``true``); key order may give false
    negatives, which only cost a second look."""
    if a is b:
        return True
    if isinstance(a, str | bool | int | float) or a is None:
        return type(a) is type(b) and a == b
    return orjson.dumps(a) == orjson.dumps(b)


def _enum_match(value: Any, allowed: Any) -> bool:
    if isinstance(value, bool) or isinstance(allowed, bool):
        return value is allowed if isinstance(value, bool) and isinstance(allowed, bool) else False
    if isinstance(value, int | float) and isinstance(allowed, int | float):
        return bool(value == allowed)
    return _same_json(value, allowed)


class SchemaValidator:
    """One compiled schema node; :meth:`validate` checks a value (and its subtree)."""

    __slots__ = (
        "additional",
        "all_of",
        "any_of",
        "enum",
        "exclusive_maximum",
        "exclusive_minimum",
        "format",
        "format_check",
        "items",
        "list_keys",
        "max_items",
        "max_length",
        "max_properties",
        "maximum",
        "min_items",
        "min_length",
        "min_properties",
        "minimum",
        "multiple_of",
        "not_",
        "nullable",
        "one_of",
        "pattern",
        "pattern_text",
        "properties",
        "required",
        "types",
        "unique_items",
    )

    def __init__(self, raw: Mapping[str, Any]) -> None:
        kind = raw.get("type") if isinstance(raw.get("type"), str) else ""
        assert isinstance(kind, str)
        if raw.get("x-kubernetes-int-or-string") is True:
            self.types: tuple[str, ...] = ("integer", "string")
        else:
            self.types = (kind,) if kind else ()
        self.nullable = raw.get("nullable") is True
        fmt = raw.get("format") if isinstance(raw.get("format"), str) else ""
        self.format = supported_format(kind if len(self.types) <= 1 else "", fmt or "")
        self.format_check: Callable[[str], bool] | None = (
            format_checker(self.format) if self.format else None
        )
        self.maximum = _number(raw.get("maximum"))
        self.exclusive_maximum = raw.get("exclusiveMaximum") is True
        self.minimum = _number(raw.get("minimum"))
        self.exclusive_minimum = raw.get("exclusiveMinimum") is True
        self.multiple_of = _number(raw.get("multipleOf"))
        self.max_length = _integer(raw.get("maxLength"))
        self.min_length = _integer(raw.get("minLength"))
        pattern = raw.get("pattern")
        self.pattern_text = pattern if isinstance(pattern, str) and pattern else ""
        self.pattern: re.Pattern[str] | None = None
        if self.pattern_text:
            try:
                self.pattern = compile_go_regex(self.pattern_text)
            except re.error as exc:  # every string fails, naming the problem (kube-openapi)
                self.pattern_text = f"{self.pattern_text}, but pattern is invalid: {exc}"
                self.pattern = _NEVER
        self.max_items = _integer(raw.get("maxItems"))
        self.min_items = _integer(raw.get("minItems"))
        self.unique_items = raw.get("uniqueItems") is True
        self.max_properties = _integer(raw.get("maxProperties"))
        self.min_properties = _integer(raw.get("minProperties"))
        enum = raw.get("enum")
        self.enum: list[Any] | None = list(enum) if isinstance(enum, list) and enum else None
        required = raw.get("required")
        self.required: tuple[str, ...] = tuple(
            r for r in required if isinstance(r, str)
        ) if isinstance(required, list) else ()
        properties = raw.get("properties")
        self.properties: dict[str, SchemaValidator] = {
            name: SchemaValidator(sub)
            for name, sub in (properties.items() if isinstance(properties, dict) else ())
            if isinstance(sub, dict)
        }
        extra = raw.get("additionalProperties")
        self.additional: SchemaValidator | bool | None = (
            SchemaValidator(extra) if isinstance(extra, dict) else
            extra if isinstance(extra, bool) else None
        )
        items = raw.get("items")
        self.items = SchemaValidator(items) if isinstance(items, dict) else None
        keys = raw.get("x-kubernetes-list-map-keys")
        self.list_keys: tuple[str, ...] = (
            tuple(keys) if raw.get("x-kubernetes-list-type") == "map" and isinstance(keys, list)
            else ()
        )
        self.all_of = _clauses(raw.get("allOf"))
        self.any_of = _clauses(raw.get("anyOf"))
        self.one_of = _clauses(raw.get("oneOf"))
        not_ = raw.get("not")
        self.not_ = SchemaValidator(not_) if isinstance(not_, dict) else None

    # --- entry points ---------------------------------------------------------------------------
    def validate(self, value: Any, *, path: fe.Path | None = None) -> list[fe.FieldError]:
        """The field errors of ``value``, rooted at ``path`` (the object's root when None)."""
        errs: list[_Err] = []
        self._validate(value, _NO_OLD, "", errs)
        return _field_errors(errs, path)

    def validate_update(
        self, value: Any, old: Any, *, path: fe.Path | None = None
    ) -> list[fe.FieldError]:
        """:meth:`validate` with ratcheting against the old version's value."""
        errs: list[_Err] = []
        self._validate(value, old, "", errs)
        return _field_errors(errs, path)

    # --- the walk --------------------------------------------------------------------------------
    def _validate(self, data: Any, old: Any, path: str, errs: list[_Err]) -> None:
        if old is not _NO_OLD and _same_json(data, old):
            return  # ratcheting: an unchanged value is not validated again
        if data is None:
            if self.types and not self.nullable:
                errs.append(_invalid_type(path, ",".join(self.types), "null"))
            if self.enum is not None and not any(v is None for v in self.enum):
                errs.append(_enum_fail(path, data, self.enum))
            return
        self._type(data, path, errs)
        if self.all_of or self.any_of or self.one_of or self.not_ is not None:
            self._junctors(data, old, path, errs)
        if isinstance(data, str):
            self._string(data, path, errs)
            check = self.format_check
            if check is not None and not check(data):
                errs.append(_invalid_type(path, self.format, data))
        elif isinstance(data, int | float) and not isinstance(data, bool):
            self._number(data, path, errs)
        elif isinstance(data, list):
            self._array(data, old, path, errs)
        if self.enum is not None and not any(_enum_match(data, v) for v in self.enum):
            errs.append(_enum_fail(path, data, self.enum))
        if isinstance(data, dict):
            self._object(data, old, path, errs)

    def _type(self, data: Any, path: str, errs: list[_Err]) -> None:
        types = self.types
        fmt = self.format
        if not types and not fmt:
            return
        actual = _type_of(data)
        actual_format = "int64" if actual == "integer" else "float64" if actual == "number" else ""
        float_int = (
            actual == "number" and float(data).is_integer() and "integer" in types
        )
        int_float = actual == "integer" and "number" in types
        if (
            actual not in ("string", "array")
            and fmt
            and not (actual in types or actual_format == fmt or float_int or int_float)
        ):
            errs.append(_invalid_type(path, fmt, actual_format))
            return
        if "number" not in types and "integer" not in types and fmt and actual in (
            "string", "array"
        ):
            return
        if not (actual in types or float_int or int_float):
            errs.append(_invalid_type(path, ",".join(types), actual))

    def _junctors(self, data: Any, old: Any, path: str, errs: list[_Err]) -> None:
        if self.any_of:
            best: list[_Err] | None = None
            succeeded = False
            for clause in self.any_of:
                result: list[_Err] = []
                clause._validate(data, old, path, result)
                if not result:
                    succeeded = True
                    best = None
                    break
                if best is None or len(result) < len(best):
                    best = result
            if not succeeded:
                errs.append(_Err(
                    _OTHER, None, f'"{path}" must validate at least one schema (anyOf)'
                ))
            if best:
                errs.extend(best)
        if self.one_of:
            valid = 0
            best_failure: list[_Err] | None = None
            for clause in self.one_of:
                result = []
                clause._validate(data, old, path, result)
                if not result:
                    valid += 1
                    best_failure = None
                elif valid == 0 and (best_failure is None or len(result) < len(best_failure)):
                    best_failure = result
            if valid != 1:
                detail = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                errs.append(_Err(
                    _OTHER, None,
                    f'"{path}" must validate one and only one schema (oneOf). {detail}',
                ))
                if best_failure:
                    errs.extend(best_failure)
        if self.all_of:
            valid = 0
            for clause in self.all_of:
                result = []
                clause._validate(data, old, path, result)
                if not result:
                    valid += 1
                errs.extend(result)
            if valid != len(self.all_of):
                detail = ". None validated" if valid == 0 else ""
                errs.append(_Err(
                    _OTHER, None, f'"{path}" must validate all the schemas (allOf){detail}'
                ))
        if self.not_ is not None:
            result = []
            self.not_._validate(data, _NO_OLD, path, result)
            if not result:
                errs.append(_Err(_OTHER, None, f'"{path}" must not validate the schema (not)'))

    def _string(self, data: str, path: str, errs: list[_Err]) -> None:
        if self.max_length is not None and len(data) > self.max_length:
            errs.append(_Err(
                _TOO_LONG, path,
                f"{path} in body should be at most {self.max_length} chars long",
                value=data, valid=self.max_length,
            ))
            return
        if self.min_length is not None and len(data) < self.min_length:
            errs.append(_Err(
                _OTHER, path, f"{path} in body should be at least {self.min_length} chars long",
                value=data,
            ))
            return
        if self.pattern is not None and self.pattern.search(data) is None:
            errs.append(_Err(
                _OTHER, path, f"{path} in body should match '{self.pattern_text}'", value=data
            ))

    def _number(self, data: float | int, path: str, errs: list[_Err]) -> None:
        factor = self.multiple_of
        if factor is not None:
            if factor <= 0:
                errs.append(_Err(
                    _OTHER, path,
                    f"factor MultipleOf declared for {path} must be positive: {go_number(factor)}",
                    value=factor,
                ))
            else:
                shown: float | int = factor
                if isinstance(data, int) and float(factor).is_integer():
                    shown = int(factor)
                    multiple = data % int(factor) == 0
                else:
                    ratio = (1 / factor) * data if factor < 1 else data / factor
                    multiple = float(ratio).is_integer()
                if not multiple:
                    errs.append(_Err(
                        _OTHER, path,
                        f"{path} in body should be a multiple of {go_number(shown)}", value=data,
                    ))
        if self.minimum is not None:
            bound = _native_bound(data, self.minimum)
            if data < bound or (self.exclusive_minimum and data == bound):
                word = "greater than" if self.exclusive_minimum else "greater than or equal to"
                errs.append(_Err(
                    _OTHER, path, f"{path} in body should be {word} {go_number(bound)}",
                    value=data,
                ))
        if self.maximum is not None:
            bound = _native_bound(data, self.maximum)
            if data > bound or (self.exclusive_maximum and data == bound):
                word = "less than" if self.exclusive_maximum else "less than or equal to"
                errs.append(_Err(
                    _OTHER, path, f"{path} in body should be {word} {go_number(bound)}",
                    value=data,
                ))

    def _array(self, data: list[Any], old: Any, path: str, errs: list[_Err]) -> None:
        items = self.items
        if items is not None:
            olds = _correlated_items(self.list_keys, old)
            for i, item in enumerate(data):
                old_item = _NO_OLD
                if olds is not None and isinstance(item, dict):
                    old_item = olds.get(_item_key(self.list_keys, item), _NO_OLD)
                items._validate(item, old_item, f"{path}[{i}]", errs)
        size = len(data)
        if self.min_items is not None and size < self.min_items:
            errs.append(_Err(
                _OTHER, path, f"{path} in body should have at least {self.min_items} items",
                value=size,
            ))
        if self.max_items is not None and size > self.max_items:
            errs.append(_Err(
                _MAX_ITEMS, path, f"{path} in body should have at most {self.max_items} items",
                value=size, valid=self.max_items,
            ))
        if self.unique_items and _has_duplicates(data):
            errs.append(_Err(_OTHER, path, f"{path} in body shouldn't contain duplicates"))

    def _object(self, data: dict[str, Any], old: Any, path: str, errs: list[_Err]) -> None:
        size = len(data)
        if self.min_properties is not None and size < self.min_properties:
            errs.append(_Err(
                _OTHER, path,
                f"{path} in body should have at least {self.min_properties} properties",
                value=size,
            ))
        if self.max_properties is not None and size > self.max_properties:
            errs.append(_Err(
                _TOO_MANY_PROPERTIES, path,
                f"{path} in body should have at most {self.max_properties} properties",
                value=size, valid=self.max_properties,
            ))
        old_map = old if isinstance(old, dict) else None
        properties = self.properties
        extra = self.additional
        if extra is False:
            for key in data:
                if key not in properties:
                    errs.append(_Err(
                        _OTHER, path, f"{path}.{key} in body is a forbidden property", value=key
                    ))
        elif isinstance(extra, SchemaValidator):
            for key, value in data.items():
                if key not in properties:
                    old_value = old_map.get(key, _NO_OLD) if old_map is not None else _NO_OLD
                    extra._validate(value, old_value, f"{path}.{key}", errs)
        for name, sub in properties.items():
            if name in data:
                old_value = old_map.get(name, _NO_OLD) if old_map is not None else _NO_OLD
                sub._validate(data[name], old_value, _child_path(path, name), errs)
        for name in self.required:
            if name not in data:
                errs.append(_Err(_REQUIRED, f"{path}.{name}", f"{path}.{name} in body is required"))


def _clauses(value: Any) -> tuple[SchemaValidator, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(SchemaValidator(c) for c in value if isinstance(c, dict))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _native_bound(data: float | int, bound: float) -> float | int:
    """A bound as kube-openapi compares it with ``data``: truncated to an integer for integer
    values (``MaximumNativeType``), as is for floats."""
    return int(bound) if isinstance(data, int) else bound


def _has_duplicates(values: list[Any]) -> bool:
    seen: set[bytes] = set()
    for value in values:
        encoded = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        if isinstance(value, float) and value.is_integer():
            encoded = orjson.dumps(int(value))
        if encoded in seen:
            return True
        seen.add(encoded)
    return False


def _item_key(keys: tuple[str, ...], item: dict[str, Any]) -> bytes:
    return orjson.dumps([item.get(k) for k in keys])


def _correlated_items(keys: tuple[str, ...], old: Any) -> dict[bytes, Any] | None:
    """The old items of a list of type map by their keys (only such lists correlate)."""
    if not keys or not isinstance(old, list):
        return None
    return {_item_key(keys, item): item for item in old if isinstance(item, dict)}


def _invalid_type(path: str, expected: str, actual: str) -> _Err:
    return _Err(
        _INVALID_TYPE, path, f"{path} in body must be of type {expected}: {_go_quote(actual)}",
        value=actual,
    )


def _enum_fail(path: str, data: Any, values: list[Any]) -> _Err:
    return _Err(
        _ENUM, path, f"{path} in body should be one of {_go_value(values)}", value=data,
        values=values,
    )


def _field_errors(errs: list[_Err], root: fe.Path | None) -> list[fe.FieldError]:
    """Upstream's ``kubeOpenAPIResultToFieldErrors``."""
    out: list[fe.FieldError] = []
    base = root.text if root is not None else ""
    for err in errs:
        if err.name is None:  # upstream's nil path prints as <nil>
            out.append(fe.invalid(base or "<nil>", "", err.message))
            continue
        name = err.name.removeprefix(".") if err.name not in ("", ".") else ""
        where = f"{base}.{name}" if base and name else (name or base)
        value = err.value if err.value is not None else ""
        if err.code == _REQUIRED:
            out.append(fe.required(where))
        elif err.code == _ENUM:
            shown = [
                v if isinstance(v, str) else orjson.dumps(v).decode() for v in err.values or ()
            ]
            out.append(fe.not_supported(where, err.value, shown))
        elif err.code == _TOO_LONG:
            out.append(fe.too_long(where, err.valid if isinstance(err.valid, int) else -1))
        elif err.code in (_MAX_ITEMS, _TOO_MANY_PROPERTIES):
            actual = err.value if isinstance(err.value, int) else -1
            limit = err.valid if isinstance(err.valid, int) else -1
            out.append(fe.too_many(where, actual, limit))
        elif err.code == _INVALID_TYPE:
            out.append(fe.type_invalid(where, value, err.message))
        else:
            out.append(fe.invalid(where, value, err.message))
    return out
