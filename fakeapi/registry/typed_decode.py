"""Decoding a JSON object the way kube-apiserver decodes it into a typed Go struct.

Objects stay dicts here, so the facts a Go struct carries (which fields exist, what type each has,
how times and quantities are written) come from the compiled schema (:mod:`fakeapi.schema`), and
one walk over the object does what Go's ``encoding/json`` does with them:

* a value of the wrong JSON type is an ``UnmarshalTypeError`` worded as Go words it: the innermost
  struct, the JSON field path without list indices, the Go type::

      json: cannot unmarshal string into Go struct field
      ExactDeviceRequest.spec.devices.requests.exactly.count of type int64

  (one line in the message).

  Go keeps decoding after such an error and reports the first one; errors raised by a type's own
  decoder (a time, a quantity, an int-or-string) stop decoding at once, and win even over an
  earlier type error. Both orders are kept.
* ``null`` leaves a field unset (it is dropped), and a ``null`` list item or map value becomes the
  item type's zero value;
* timestamps and quantities are stored in their canonical form (``metav1.Time`` in UTC to the
  second, ``MicroTime`` to the microsecond, quantities as ``resource.Quantity.String()``);
* unknown fields are pruned and reported, for ``fieldValidation``.

Server-side apply does not decode its configuration into Go structs but into structured-merge-diff
typed values, whose errors read differently (``.spec.x: expected string, got ...``, all errors at
once); ``mode="apply"`` words them that way and leaves values as sent for the merge.

The walk also finds required fields that are absent (``mode="final"``): a required struct is
filled with ``{}`` as Go's zero value would be encoded, anything else is reported for a 422.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fakeapi.quantity import QuantityError, parse_quantity
from fakeapi.registry.go_time import GoTimeError, normalize_time
from fakeapi.schema import DIRECTIVE_PREFIXES, SchemaNode

__all__ = ["DecodeMode", "DecodeError", "TypedDecoder", "go_type_name", "json_type_name"]

DecodeMode = Literal["decode", "apply", "final"]
_DIRECTIVE_KEYS = frozenset({"$patch", "$retainKeys"})
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


class DecodeError(Exception):
    """The object cannot be decoded; ``message`` is the decoder's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def json_type_name(value: Any) -> str:
    """How Go's decoder names a JSON value's type in an ``UnmarshalTypeError``."""
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
    return "null"


def go_type_name(node: SchemaNode, package: str) -> str:
    """The Go type a node decodes into, as ``reflect.Type.String()`` prints it."""
    kind = node.kind
    if kind == "object":
        if node.model is None:
            return "struct"
        module = node.model.__module__
        pkg = "v1" if module == "fakeapi.models.meta" else package
        return f"{pkg}.{node.model.__name__}"
    if kind == "array":
        return "[]" + (go_type_name(node.item, package) if node.item else "interface {}")
    if kind == "map":
        return "map[string]" + (go_type_name(node.item, package) if node.item else "interface {}")
    if kind == "any":
        return "interface {}"
    if node.format == "quantity":
        return "resource.Quantity"
    if node.format == "int-or-string":
        return "intstr.IntOrString"
    if node.format == "date-time":
        return "v1.MicroTime" if node.micro_time else "v1.Time"
    return {
        "integer": node.format if node.format in _INT_RANGES else "int64",
        "number": "float64",
        "boolean": "bool",
    }.get(node.scalar_type, "string")


def _number_text(value: int | float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(slots=True)
class TypedDecoder:
    """One decode of one object; create a new one per request (it collects state).

    ``decode`` and ``apply`` build a new object and leave the input alone; ``final`` rewrites the
    object it is given in place (the registry owns it and holds references into it).
    """

    package: str
    mode: DecodeMode = "decode"
    #: paths of unknown fields, in document order (``spec.devices.requests[0].bogus``)
    unknown: list[str] = field(default_factory=list)
    #: paths of required fields that are absent (``mode="final"``)
    missing: list[str] = field(default_factory=list)
    #: structured-merge-diff errors (``mode="apply"``), all of them
    apply_errors: list[str] = field(default_factory=list)
    _first_type_error: str | None = None

    def decode(self, node: SchemaNode, obj: dict[str, Any]) -> dict[str, Any]:
        """The decoded object; raises :class:`DecodeError` with the decoder's message."""
        out = self._object(node, obj, "", "", "", "")
        if self._first_type_error is not None:
            raise DecodeError(self._first_type_error)
        if self.apply_errors:
            if len(self.apply_errors) == 1:
                raise DecodeError(self.apply_errors[0])
            raise DecodeError("errors:\n  " + "\n  ".join(self.apply_errors))
        assert isinstance(out, dict)
        return out

    # --- errors --------------------------------------------------------------------------------
    def _type_error(
        self, value_text: str, node: SchemaNode, struct: str, gopath: str, smd_path: str, value: Any
    ) -> None:
        if self.mode == "apply":
            self.apply_errors.append(f"{smd_path}: {_smd_expectation(node, value)}")
            return
        if self._first_type_error is None:
            self._first_type_error = _go_message(
                value_text, struct, gopath, go_type_name(node, self.package)
            )

    def _fatal(self, message: str) -> DecodeError:
        return DecodeError(message)

    # --- the walk ------------------------------------------------------------------------------
    def _value(
        self, node: SchemaNode, value: Any, path: str, struct: str, gopath: str, smd: str
    ) -> Any:
        """``value`` decoded as ``node`` (never None: callers handle null)."""
        kind = node.kind
        if kind == "any":
            return value
        if kind == "object":
            if not isinstance(value, dict):
                self._type_error(json_type_name(value), node, struct, gopath, smd, value)
                return value
            return self._object(node, value, path, struct, gopath, smd)
        if kind == "array":
            if not isinstance(value, list):
                self._type_error(json_type_name(value), node, struct, gopath, smd, value)
                return value
            return self._array(node, value, path, struct, gopath, smd)
        if kind == "map":
            if not isinstance(value, dict):
                self._type_error(json_type_name(value), node, struct, gopath, smd, value)
                return value
            return self._map(node, value, path, struct, gopath, smd)
        return self._scalar(node, value, struct, gopath, smd)

    def _object(
        self, node: SchemaNode, value: dict[str, Any], path: str, struct: str, gopath: str, smd: str
    ) -> dict[str, Any]:
        props = node.properties
        name = node.model.__name__ if node.model is not None else struct
        out: dict[str, Any] = {}
        keep_nulls = self.mode == "apply"
        for key, sub in value.items():
            child = props.get(key)
            sub_path = f"{path}.{key}" if path else key
            if child is None:
                if self.mode == "apply" and (
                    key in _DIRECTIVE_KEYS or key.startswith(DIRECTIVE_PREFIXES)
                ):
                    out[key] = sub
                elif self.mode != "final":
                    self.unknown.append(sub_path)
                else:
                    out[key] = sub
                continue
            if sub is None:
                if keep_nulls and child.kind != "object":
                    out[key] = None
                continue
            new = self._value(
                child, sub, sub_path, name, f"{gopath}.{key}" if gopath else key, f"{smd}.{key}"
            )
            if new is not None:
                out[key] = new
        if self.mode == "final":
            for key in node.required:
                if key in out:
                    continue
                child = props[key]
                sub_path = f"{path}.{key}" if path else key
                if child.kind == "object" and child.model is not None:
                    out[key] = self._object(
                        child, {}, sub_path, name, f"{gopath}.{key}" if gopath else key, smd
                    )
                else:
                    self.missing.append(sub_path)
            # in place, so that references the registry holds into the object stay valid
            value.clear()
            value.update(out)
            return value
        return out

    def _array(
        self, node: SchemaNode, value: list[Any], path: str, struct: str, gopath: str, smd: str
    ) -> list[Any]:
        item = node.item
        if item is None or item.kind == "any":
            return value
        meta = node.list_meta
        keys = meta.map_keys if meta is not None and meta.list_type == "map" else ()
        set_list = meta is not None and meta.list_type == "set"
        out: list[Any] = []
        for i, sub in enumerate(value):
            if sub is None:
                if self.mode == "apply":
                    out.append(None)
                    continue
                out.append(_zero(item))
                continue
            smd_item = smd + _smd_index(i, sub, keys, set_list)
            out.append(self._value(item, sub, f"{path}[{i}]", struct, gopath, smd_item))
        if self.mode == "final":
            value[:] = out
            return value
        return out

    def _map(
        self, node: SchemaNode, value: dict[str, Any], path: str, struct: str, gopath: str, smd: str
    ) -> dict[str, Any]:
        item = node.item
        if item is None or item.kind == "any":
            return value
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if sub is None:
                zero = None if self.mode == "apply" else _zero(item)
                if zero is not None or self.mode == "apply":
                    out[key] = zero
                continue
            out[key] = self._value(
                item, sub, f"{path}.{key}" if path else key, struct, gopath, f"{smd}.{key}"
            )
        if self.mode == "final":
            value.clear()
            value.update(out)
            return value
        return out

    def _scalar(self, node: SchemaNode, value: Any, struct: str, gopath: str, smd: str) -> Any:
        fmt = node.format
        if fmt == "quantity":
            return self._quantity(value, struct, gopath, smd, node)
        if fmt == "int-or-string":
            if isinstance(value, str):
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                low, high = _INT_RANGES["int32"]
                if low <= value <= high:
                    return value
            if self.mode == "apply":
                if isinstance(value, bool | list | dict):
                    self.apply_errors.append(f"{smd}: {_smd_expectation(node, value)}")
                return value
            raise self._fatal(_go_message(_number_or_type(value), struct, gopath, "int32"))
        if fmt == "date-time":
            if not isinstance(value, str):
                if self.mode == "apply":
                    self.apply_errors.append(f"{smd}: {_smd_expectation(node, value)}")
                    return value
                raise self._fatal(_go_message(json_type_name(value), struct, gopath, "string"))
            if self.mode == "apply":
                return value
            try:
                return normalize_time(value, micro=node.micro_time)
            except GoTimeError as exc:
                raise self._fatal(str(exc)) from None
        scalar = node.scalar_type
        if scalar == "string":
            if not isinstance(value, str):
                self._type_error(json_type_name(value), node, struct, gopath, smd, value)
            return value
        if scalar == "boolean":
            if not isinstance(value, bool):
                self._type_error(json_type_name(value), node, struct, gopath, smd, value)
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._type_error(json_type_name(value), node, struct, gopath, smd, value)
            return value
        if scalar == "integer" and self.mode != "apply":
            low, high = _INT_RANGES.get(fmt, _INT_RANGES["int64"])
            if isinstance(value, float) or not low <= value <= high:
                self._type_error(f"number {_number_text(value)}", node, struct, gopath, smd, value)
        return value

    def _quantity(self, value: Any, struct: str, gopath: str, smd: str, node: SchemaNode) -> Any:
        if self.mode == "apply":
            if isinstance(value, bool | list | dict):
                self.apply_errors.append(f"{smd}: {_smd_expectation(node, value)}")
            return value
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            text = "true" if value is True else "false" if value is False else "{"
        elif isinstance(value, str):
            text = value.strip()
        else:
            text = _number_text(value)
        try:
            return str(parse_quantity(text))
        except QuantityError as exc:
            raise self._fatal(str(exc)) from None


def _go_message(value_text: str, struct: str, gopath: str, go_type: str) -> str:
    if not gopath:
        return f"json: cannot unmarshal {value_text} into Go value of type {go_type}"
    return (
        f"json: cannot unmarshal {value_text} into Go struct field {struct}.{gopath} "
        f"of type {go_type}"
    )


def _number_or_type(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"number {_number_text(value)}"
    return json_type_name(value)


def _zero(node: SchemaNode) -> Any:
    """Go's zero value of a list item or map value, as it is encoded (None: omitted/null)."""
    if node.kind == "object":
        return {}
    if node.kind != "scalar":
        return None
    if node.format == "quantity":
        return "0"
    if node.format in ("date-time", "int-or-string"):
        return None if node.format == "date-time" else 0
    return {"string": "", "integer": 0, "number": 0, "boolean": False}.get(node.scalar_type)


def _smd_index(i: int, item: Any, keys: tuple[str, ...], set_list: bool) -> str:
    """A list item in structured-merge-diff's path syntax: ``[name="gpu"]``, ``[="x"]``, ``[0]``."""
    if keys and isinstance(item, dict) and all(k in item for k in keys):
        return "[" + ",".join(f"{k}={_go_quote(item[k])}" for k in keys) + "]"
    if set_list and isinstance(item, str | int | float | bool):
        return f"[={_go_quote(item)}]"
    return f"[{i}]"


def _go_quote(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _go_value(value: Any) -> str:
    """``%#v`` of a decoded YAML value, as structured-merge-diff prints it in its errors."""
    if isinstance(value, bool):
        inner = "true" if value else "false"
    elif isinstance(value, str):
        inner = _go_quote(value)
    elif isinstance(value, int | float):
        inner = _number_text(value)
    elif isinstance(value, list):
        inner = "[]interface {}{" + ", ".join(_go_value_inner(v) for v in value) + "}"
    elif isinstance(value, dict):
        items = ", ".join(f"{_go_quote(k)}:{_go_value_inner(v)}" for k, v in value.items())
        inner = "map[string]interface {}{" + items + "}"
    else:
        inner = "interface {}(nil)"
    return f"&value.valueUnstructured{{Value:{inner}}}"


def _go_value_inner(value: Any) -> str:
    text = _go_value(value)
    return text[len("&value.valueUnstructured{Value:") : -1]


def _go_type_of(value: Any) -> str:
    """``%T`` of a decoded YAML value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


def _smd_expectation(node: SchemaNode, value: Any) -> str:
    """structured-merge-diff's message for a value that does not fit ``node``."""
    kind = node.kind
    if kind == "object" or kind == "map":
        return f"expected map, got {_go_value(value)}"
    if kind == "array":
        return f"expected list, got {_go_value(value)}"
    if node.format in ("quantity", "int-or-string"):
        return f"expected scalar, got {_go_type_of(value)}"
    if node.scalar_type in ("integer", "number"):
        return f"expected numeric (int or float), got {_go_type_of(value)}"
    if node.scalar_type == "boolean":
        return f"expected boolean, got {_go_value(value)}"
    return f"expected string, got {_go_value(value)}"
