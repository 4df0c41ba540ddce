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
once) and which refuse unknown fields whatever ``fieldValidation`` says (``.spec.x: field not
declared in schema``); ``mode="apply"`` words them that way and leaves values as sent for the
merge.

The walk also finds required fields that are absent (``mode="final"``): a required struct is
filled with ``{}`` as Go's zero value would be encoded, anything else is reported for a 422.
``mode="checked"`` is ``decode`` that does the same below the top level as it goes, so that a
request body needs no second walk for it: only the top level, which the registry completes
(apiVersion, kind, metadata) after decoding, is left to :meth:`TypedDecoder.fill_required`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import orjson

from fakeapi.quantity import QuantityError, parse_quantity
from fakeapi.registry.go_time import GoTimeError, normalize_time
from fakeapi.schema import DIRECTIVE_PREFIXES, SchemaNode

__all__ = [
    "DecodeMode", "DecodeError", "ObjectDecoder", "TypedDecoder", "go_type_name", "go_type_of",
    "json_type_name",
]

DecodeMode = Literal["decode", "checked", "apply", "final"]
_DIRECTIVE_KEYS = frozenset({"$patch", "$retainKeys"})
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
#: tuples, not unions: ``isinstance`` takes a tuple several times faster
_NUMBERS = (int, float)
_QUANTITY_TYPES = (str, int, float)


class DecodeError(Exception):
    """The object cannot be decoded; ``message`` is the decoder's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ObjectDecoder(Protocol):
    """What :mod:`fakeapi.registry.decode` asks of the decoder of one request body: the
    :class:`TypedDecoder` of the built-in kinds, or a custom resource's (a row chooses, with
    :meth:`~fakeapi.registry.resource_table.ResourceType.new_decoder`)."""

    #: paths of unknown fields found (for ``fieldValidation``)
    unknown: list[str]
    #: paths of required fields that are absent (``final`` mode; ``checked``: below the top)
    missing: list[str]

    def decode(self, node: SchemaNode, obj: dict[str, Any]) -> dict[str, Any]: ...

    def final_against(
        self, node: SchemaNode, obj: dict[str, Any], stored: dict[str, Any]
    ) -> dict[str, Any]: ...

    def fill_required(
        self, node: SchemaNode, obj: dict[str, Any], *, nested: bool = True
    ) -> None: ...


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
    if node.go_type:
        return node.go_type if "." in node.go_type else f"{package}.{node.go_type}"
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


#: Where a value sits, built as the walk descends and turned into text only for an error: ``None``
#: (the root), ``("f", parent, name)`` a struct field, ``("k", parent, key)`` a map entry,
#: ``("i", parent, index, item, list_node)`` a list item.
Loc = tuple[Any, ...] | None


def _json_path(loc: Loc) -> str:
    """``spec.devices.requests[0].name``: the path in upstream's field errors."""
    parts: list[str] = []
    while loc is not None:
        if loc[0] == "i":
            parts.append(f"[{loc[2]}]")
        else:
            parts.append(loc[2])
            if loc[1] is not None:
                parts.append(".")
        loc = loc[1]
    return "".join(reversed(parts))


def _go_path(loc: Loc) -> str:
    """``spec.devices.requests.exactly.count``: Go's decoder names struct fields only."""
    names: list[str] = []
    while loc is not None:
        if loc[0] == "f":
            names.append(loc[2])
        loc = loc[1]
    return ".".join(reversed(names))


def _smd_path(loc: Loc) -> str:
    """``.spec.devices.requests[0].exactly.count``: structured-merge-diff's path syntax."""
    parts: list[str] = []
    while loc is not None:
        if loc[0] == "i":
            meta = loc[4].list_meta
            keys = meta.map_keys if meta is not None and meta.list_type == "map" else ()
            parts.append(
                _smd_index(loc[2], loc[3], keys, meta is not None and meta.list_type == "set")
            )
        else:
            parts.append(f".{loc[2]}")
        loc = loc[1]
    return "".join(reversed(parts))


@dataclass(slots=True)
class TypedDecoder:
    """One decode of one object; create a new one per request (it collects state).

    ``decode`` and ``apply`` build a new object and leave the input alone; ``final`` rewrites the
    object it is given in place (the registry owns it and holds references into it). Paths are
    kept as cheap location chains and spelled out only when something is reported.
    """

    package: str
    mode: DecodeMode = "decode"
    #: paths of unknown fields, in document order (``spec.devices.requests[0].bogus``)
    unknown: list[str] = field(default_factory=list)
    #: paths of required fields that are absent (``mode="final"``; ``"checked"``: below the top)
    missing: list[str] = field(default_factory=list)
    #: structured-merge-diff errors (``mode="apply"``), all of them
    apply_errors: list[str] = field(default_factory=list)
    _first_type_error: str | None = None

    def decode(self, node: SchemaNode, obj: dict[str, Any]) -> dict[str, Any]:
        """The decoded object; raises :class:`DecodeError` with the decoder's message."""
        out = self._object(node, obj, None, "")
        if self._first_type_error is not None:
            raise DecodeError(self._first_type_error)
        if self.apply_errors:
            if len(self.apply_errors) == 1:
                raise DecodeError(self.apply_errors[0])
            raise DecodeError("errors:\n  " + "\n  ".join(self.apply_errors))
        return out

    def final_against(
        self, node: SchemaNode, obj: dict[str, Any], stored: dict[str, Any]
    ) -> dict[str, Any]:
        """:meth:`decode` in ``final`` mode, for an object built from the ``stored`` version.

        The stored version went through this very walk when it was written, so a field whose
        JSON is byte for byte the stored one's would come out unchanged and report nothing (see
        :func:`_clean_copy` for the one exception, a ``{}`` inside): it is kept as it is.
        Structs that differ are walked the same way, field by field, so a binding that sets
        ``spec.nodeName`` does not walk the rest of the spec; everything else is walked as
        :meth:`decode` walks it, in the same order. The top level is not compared (the caller
        passes only the parts that changed).
        """
        assert self.mode == "final"
        out = self._object_against(node, obj, stored, None, "", compare=False)
        if self._first_type_error is not None:
            raise DecodeError(self._first_type_error)
        return out

    def _object_against(
        self,
        node: SchemaNode,
        value: dict[str, Any],
        stored: dict[str, Any],
        loc: Loc,
        struct: str,
        *,
        compare: bool = True,
    ) -> dict[str, Any]:
        props = node.properties
        name = node.model.__name__ if node.model is not None else struct
        out: dict[str, Any] = {}
        for key, sub in value.items():
            known = stored.get(key)
            if (
                compare
                and known is not None
                and sub.__class__ is known.__class__
                and _clean_copy(sub, known)
            ):
                out[key] = sub
                continue
            child = props.get(key)
            if child is None:
                out[key] = sub
                continue
            if sub is None:
                continue
            kind = child.kind
            if kind == "object" and isinstance(sub, dict) and isinstance(known, dict):
                out[key] = self._object_against(child, sub, known, ("f", loc, key), name)
                continue
            if kind == "scalar" and not child.format:
                scalar = child.scalar_type
                cls = sub.__class__
                if (cls is str and scalar == "string") or (cls is bool and scalar == "boolean"):
                    out[key] = sub
                    continue
            new = self._value(child, sub, ("f", loc, key), name)
            if new is not None:
                out[key] = new
        self._fill_required_into(out, node, loc, name)
        value.clear()
        value.update(out)
        return value

    def _fill_required_into(
        self, out: dict[str, Any], node: SchemaNode, loc: Any, name: str
    ) -> None:
        """Required fields ``out`` lacks: empty structs where the field is one (decoded as Go
        would), a "missing" report otherwise."""
        required = node.required
        if not required:
            return
        zeros = _zero_when_missing(node)
        for key in required:
            if key in out:
                continue
            child = node.properties[key]
            if child.kind == "object" and child.model is not None:
                out[key] = self._object(child, {}, ("f", loc, key), name)
            elif key in zeros:
                out[key] = zeros[key]
            else:
                self.missing.append(_json_path(("f", loc, key)))

    def fill_required(
        self, node: SchemaNode, obj: dict[str, Any], *, nested: bool = True
    ) -> None:
        """What a ``final`` walk does to an object a ``decode`` walk produced, in place.

        Such an object has only known fields of the right types, no nulls and canonical times
        and quantities, so a ``final`` walk would change nothing but the required fields: absent
        required structs are filled (at the end of their parent, as there) and other absent
        required fields land in :attr:`missing`, in the same order. Only the branches whose
        schema declares a required field somewhere below are visited. ``nested=False``: the
        object came out of a ``checked`` walk, which did all that below the top level already.
        """
        assert self.mode == "final"
        if nested:
            self._required_object(node, obj, None, "")
        else:
            name = node.model.__name__ if node.model is not None else ""
            self._fill_required_into(obj, node, None, name)

    def _required_object(
        self, node: SchemaNode, value: dict[str, Any], loc: Loc, struct: str
    ) -> None:
        props = node.properties
        name = node.model.__name__ if node.model is not None else struct
        known = _required_below
        for key, sub in value.items():
            child = props.get(key)
            if child is None:
                continue
            below = known.get(child)
            if below is None:
                below = _has_required_below(child)
            if below:
                self._required_value(child, sub, ("f", loc, key), name)
        required = node.required
        if not required:
            return
        zeros = _zero_when_missing(node)
        for key in required:
            if key in value:
                continue
            child = props[key]
            if child.kind == "object" and child.model is not None:
                value[key] = self._object(child, {}, ("f", loc, key), name)
            elif key in zeros:
                value[key] = zeros[key]
            else:
                self.missing.append(_json_path(("f", loc, key)))

    def _required_value(self, node: SchemaNode, value: Any, loc: Loc, struct: str) -> None:
        kind = node.kind
        if kind == "object":
            if isinstance(value, dict):
                self._required_object(node, value, loc, struct)
            return
        item = node.item
        if item is None:
            return
        if kind == "array" and isinstance(value, list):
            for i, sub in enumerate(value):
                if sub is not None:
                    self._required_value(item, sub, ("i", loc, i, sub, node), struct)
        elif kind == "map" and isinstance(value, dict):
            for key, sub in value.items():
                if sub is not None:
                    self._required_value(item, sub, ("k", loc, key), struct)

    # --- errors --------------------------------------------------------------------------------
    def _type_error(
        self, value_text: str, node: SchemaNode, struct: str, loc: Loc, value: Any
    ) -> None:
        if self.mode == "apply":
            self.apply_errors.append(f"{_smd_path(loc)}: {_smd_expectation(node, value)}")
            return
        if self._first_type_error is None:
            self._first_type_error = _go_message(
                value_text, struct, _go_path(loc), go_type_name(node, self.package)
            )

    def _apply_error(self, node: SchemaNode, loc: Loc, value: Any) -> None:
        self.apply_errors.append(f"{_smd_path(loc)}: {_smd_expectation(node, value)}")

    # --- the walk ------------------------------------------------------------------------------
    def _value(self, node: SchemaNode, value: Any, loc: Loc, struct: str) -> Any:
        """``value`` decoded as ``node`` (never None: callers handle null)."""
        kind = node.kind
        if kind == "scalar":
            return self._scalar(node, value, loc, struct)
        if kind == "any":
            return self._free_form(value)
        if kind == "array":
            if isinstance(value, list):
                return self._array(node, value, loc, struct)
        elif isinstance(value, dict):
            if kind == "object":
                return self._object(node, value, loc, struct)
            return self._map(node, value, loc, struct)
        self._type_error(json_type_name(value), node, struct, loc, value)
        return value

    def _object(
        self, node: SchemaNode, value: dict[str, Any], loc: Loc, struct: str
    ) -> dict[str, Any]:
        props = node.properties
        name = node.model.__name__ if node.model is not None else struct
        out: dict[str, Any] = {}
        mode = self.mode
        plain = _plain_fields.get(node)
        if plain is None:
            plain = _plain_fields_of(node)
        for key, sub in value.items():
            if sub.__class__ is plain.get(key):
                out[key] = sub  # the common leaf (see _plain_fields_of), decided without a call
                continue
            child = props.get(key)
            if child is None:
                if mode == "apply":
                    if key in _DIRECTIVE_KEYS or key.startswith(DIRECTIVE_PREFIXES):
                        out[key] = sub
                    else:
                        path = _smd_path(("f", loc, key))
                        self.apply_errors.append(f"{path}: field not declared in schema")
                elif mode != "final":
                    self.unknown.append(_json_path(("f", loc, key)))
                else:
                    out[key] = sub
                continue
            if sub is None:
                if mode == "apply" and child.kind != "object":
                    out[key] = None
                continue
            if child.kind == "object" and sub.__class__ is dict:  # _value's first choice
                out[key] = self._object(child, sub, ("f", loc, key), name)
                continue
            new = self._value(child, sub, ("f", loc, key), name)
            if new is not None:
                out[key] = new
        if mode == "final":
            self._fill_required_into(out, node, loc, name)
            # in place, so that references the registry holds into the object stay valid
            value.clear()
            value.update(out)
            return value
        if mode == "checked" and loc is not None and node.required:
            self._fill_required_into(out, node, loc, name)
        return out

    def _array(self, node: SchemaNode, value: list[Any], loc: Loc, struct: str) -> list[Any]:
        item = node.item
        if item is None or item.kind == "any":
            free: list[Any] = self._free_form(value)
            return free
        out: list[Any] = []
        for i, sub in enumerate(value):
            if sub is None:
                if self.mode == "checked" and item.kind == "object":
                    # the zero struct, checked as the walk of a decoded object would check it
                    out.append(self._object(item, {}, ("i", loc, i, None, node), struct))
                    continue
                out.append(None if self.mode == "apply" else _zero(item))
                continue
            out.append(self._value(item, sub, ("i", loc, i, sub, node), struct))
        if self.mode == "final":
            value[:] = out
            return value
        return out

    def _map(
        self, node: SchemaNode, value: dict[str, Any], loc: Loc, struct: str
    ) -> dict[str, Any]:
        item = node.item
        if item is None or item.kind == "any":
            free: dict[str, Any] = self._free_form(value)
            return free
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if sub is None:
                if self.mode == "checked" and item.kind == "object":
                    # the zero struct, checked as the walk of a decoded object would check it
                    out[key] = self._object(item, {}, ("k", loc, key), struct)
                    continue
                zero = None if self.mode == "apply" else _zero(item)
                if zero is not None or self.mode == "apply":
                    out[key] = zero
                continue
            out[key] = self._value(item, sub, ("k", loc, key), struct)
        if self.mode == "final":
            value.clear()
            value.update(out)
            return value
        return out

    def _free_form(self, value: Any) -> Any:
        """A value the schema leaves free (``RawExtension``, free-form maps), taken as it is: a
        private copy when decoding, so the result shares nothing mutable with the body (the
        in-process transport hands the registry the caller's own body)."""
        if (self.mode == "decode" or self.mode == "checked") and isinstance(value, (dict, list)):
            return orjson.loads(orjson.dumps(value))
        return value

    def _scalar(self, node: SchemaNode, value: Any, loc: Loc, struct: str) -> Any:
        scalar = node.scalar_type
        fmt = node.format
        if scalar == "string" and not fmt:
            if value.__class__ is not str:
                self._type_error(json_type_name(value), node, struct, loc, value)
            return value
        if fmt == "quantity":
            return self._quantity(value, loc, node)
        if fmt == "int-or-string":
            if isinstance(value, str):
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                low, high = _INT_RANGES["int32"]
                if low <= value <= high:
                    return value
            if self.mode == "apply":
                if isinstance(value, bool | list | dict):
                    self._apply_error(node, loc, value)
                return value
            raise DecodeError(_go_message(_number_or_type(value), struct, _go_path(loc), "int32"))
        if fmt == "date-time":
            if not isinstance(value, str):
                if self.mode == "apply":
                    self._apply_error(node, loc, value)
                    return value
                raise DecodeError(
                    _go_message(json_type_name(value), struct, _go_path(loc), "string")
                )
            if self.mode == "apply":
                return value
            try:
                return _normalized_time(value, node.micro_time)
            except GoTimeError as exc:
                raise DecodeError(str(exc)) from None
        if scalar == "string":
            if not isinstance(value, str):
                self._type_error(json_type_name(value), node, struct, loc, value)
            return value
        if scalar == "boolean":
            if not isinstance(value, bool):
                self._type_error(json_type_name(value), node, struct, loc, value)
            return value
        if isinstance(value, bool) or not isinstance(value, _NUMBERS):
            self._type_error(json_type_name(value), node, struct, loc, value)
            return value
        if scalar == "integer" and self.mode != "apply":
            low, high = _INT_RANGES.get(fmt, _INT_RANGES["int64"])
            if isinstance(value, float) or not low <= value <= high:
                self._type_error(f"number {_number_text(value)}", node, struct, loc, value)
        return value

    def _quantity(self, value: Any, loc: Loc, node: SchemaNode) -> Any:
        if self.mode == "apply":
            if isinstance(value, bool | list | dict):
                self._apply_error(node, loc, value)
            return value
        if isinstance(value, bool) or not isinstance(value, _QUANTITY_TYPES):
            text = "true" if value is True else "false" if value is False else "{"
        elif isinstance(value, str):
            text = value.strip()
        else:
            text = _number_text(value)
        try:
            return _canonical_quantity(text)
        except QuantityError as exc:
            raise DecodeError(str(exc)) from None


_PLAIN_SCALARS = (str, int, bool)
_EMPTY_CONTAINERS = (dict, list)


def _clean_copy(value: Any, stored: Any) -> bool:
    """``value`` encodes to the same JSON as ``stored`` (values and types alike; the caller
    checked the classes match) and holds no ``{}``, so walking it again would change and report
    nothing.

    A first walk turns a ``null`` list item or map value into its zero value (``{}`` for a
    struct) without walking into it, so a second walk could still fill it or find required
    fields missing in it: a value holding ``{}`` below it is walked again (a field whose own
    value is ``{}`` was walked). Strings, integers and booleans of one class are the same JSON
    when equal (floats are not: ``-0.0 == 0.0``).
    """
    if value.__class__ in _PLAIN_SCALARS:
        return bool(value == stored)
    if not value and value.__class__ in _EMPTY_CONTAINERS:
        return not stored  # ``{}`` or ``[]`` as a field's own value: walked the first time
    try:
        encoded = orjson.dumps(value)
        return b"{}" not in encoded and encoded == orjson.dumps(stored)
    except TypeError:  # not JSON: never taken for the stored value
        return False


_required_below: dict[SchemaNode, bool] = {}


def _has_required_below(node: SchemaNode) -> bool:
    """Whether an object of ``node``, or anything in it, can lack a required field."""
    known = _required_below.get(node)
    if known is not None:
        return known
    _required_below[node] = True  # a recursive type meets itself: assume yes (only costs a walk)
    if node.kind == "object":
        found = bool(node.required) or any(
            _has_required_below(child) for child in node.properties.values()
        )
    elif node.kind in ("array", "map") and node.item is not None:
        found = _has_required_below(node.item)
    else:
        found = False
    _required_below[node] = found
    return found


@functools.lru_cache(maxsize=4096)
def _canonical_quantity(text: str) -> str:
    return str(parse_quantity(text))


@functools.lru_cache(maxsize=4096)
def _normalized_time(text: str, micro: bool) -> str | None:
    return normalize_time(text, micro=micro)


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


def go_type_of(value: Any) -> str:
    """``%T`` of a decoded JSON or YAML value (unstructured's types)."""
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
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "<nil>"


def _smd_expectation(node: SchemaNode, value: Any) -> str:
    """structured-merge-diff's message for a value that does not fit ``node``."""
    kind = node.kind
    if kind == "object" or kind == "map":
        return f"expected map, got {_go_value(value)}"
    if kind == "array":
        return f"expected list, got {_go_value(value)}"
    if node.format in ("quantity", "int-or-string"):
        return f"expected scalar, got {go_type_of(value)}"
    if node.scalar_type in ("integer", "number"):
        return f"expected numeric (int or float), got {go_type_of(value)}"
    if node.scalar_type == "boolean":
        return f"expected boolean, got {_go_value(value)}"
    return f"expected string, got {_go_value(value)}"


def _zero_when_missing(node: SchemaNode) -> Mapping[str, Any]:
    """Required fields of ``node``'s model that Go decodes to their zero value when absent and
    upstream's validation accepts so (a model's ``ZERO_WHEN_MISSING``): filled, not refused.

    Kept by node: a pydantic model class answers a missing class attribute through its
    metaclass's ``__getattr__``, which raises and catches an exception each time. A model's
    class variable does not change once the schema is compiled from it.
    """
    zeros = _zeros_by_node.get(node)
    if zeros is None:
        if len(_zeros_by_node) > 100_000:  # schemas compiled again and again (custom resources)
            _zeros_by_node.clear()
        zeros = _zeros_by_node[node] = getattr(node.model, "ZERO_WHEN_MISSING", _NO_ZEROS)
    return zeros


_NO_ZEROS: Mapping[str, Any] = {}
_plain_fields: dict[SchemaNode, dict[str, type]] = {}


def _plain_fields_of(node: SchemaNode) -> dict[str, type]:
    """The fields of struct ``node`` that are plain strings or booleans (no format), each with
    the one class a valid value has (``str``, ``bool``): such a value decodes to itself in every
    mode, whatever the walk's location, so :meth:`TypedDecoder._object` takes it as it is
    (``None`` is never such a class). Most leaves of an object are these."""
    if len(_plain_fields) > 100_000:  # schemas compiled again and again (custom resources)
        _plain_fields.clear()
    plain: dict[str, type] = {}
    for key, child in node.properties.items():
        if child.kind == "scalar" and not child.format:
            if child.scalar_type == "string":
                plain[key] = str
            elif child.scalar_type == "boolean":
                plain[key] = bool
    _plain_fields[node] = plain
    return plain
_zeros_by_node: dict[SchemaNode, Mapping[str, Any]] = {}
