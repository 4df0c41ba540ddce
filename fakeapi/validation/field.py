"""Field paths and field errors, rendered exactly as upstream's ``field.Error`` renders them.

A validator returns a list of :class:`FieldError`; the registry turns a non-empty list into one
422 Invalid whose message and ``details.causes`` match what kubectl prints for a real server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = [
    "Path",
    "FieldError",
    "required",
    "invalid",
    "type_invalid",
    "not_supported",
    "duplicate",
    "forbidden",
    "too_many",
    "too_long",
    "not_found",
    "internal",
    "causes",
]


class Path:
    """An immutable field path such as ``spec.devices.requests[0].name``.

    Validators build one per field they visit, so this is a plain slotted class (a frozen
    dataclass pays for ``object.__setattr__`` on every construction); nothing assigns to it.
    """

    __slots__ = ("text",)

    def __init__(self, text: str = "") -> None:
        self.text = text

    def child(self, name: str, *more: str) -> Path:
        text = self.text
        if not more:
            return Path(f"{text}.{name}" if text else name)
        for part in (name, *more):
            text = f"{text}.{part}" if text else part
        return Path(text)

    def index(self, i: int) -> Path:
        return Path(f"{self.text}[{i}]")

    def key(self, k: str) -> Path:
        return Path(f"{self.text}[{k}]")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Path(text={self.text!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Path:
            return NotImplemented
        assert isinstance(other, Path)
        return self.text == other.text

    def __hash__(self) -> int:
        return hash((self.text,))


# reason (upstream ErrorType) -> the text that leads the message
_TYPES = {
    "FieldValueNotFound": "Not found",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "InternalError": "Internal error",
    "FieldValueTypeInvalid": "Invalid value",
}

_OMIT = object()


def _render_value(value: Any) -> str:
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


@dataclass(frozen=True, slots=True)
class FieldError:
    """One validation error: upstream's ``field.Error`` (type, field, bad value, detail)."""

    reason: str
    field: str
    detail: str = ""
    value: Any = _OMIT

    @property
    def message(self) -> str:
        """The cause message: ``Invalid value: "x": must be ...``."""
        head = _TYPES.get(self.reason, self.reason)
        if self.reason in (
            "FieldValueRequired",
            "FieldValueForbidden",
            "FieldValueTooLong",
            "InternalError",
        ):
            return f"{head}: {self.detail}" if self.detail else head
        if self.reason == "FieldValueTooMany":
            return f"{head}: {self.detail}" if self.detail else head
        if self.value is _OMIT:
            return f"{head}: {self.detail}" if self.detail else head
        text = f"{head}: {_render_value(self.value)}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def cause(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.message, "field": self.field}


def required(path: Path | str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", str(path), detail)


def invalid(path: Path | str, value: Any, detail: str = "") -> FieldError:
    return FieldError("FieldValueInvalid", str(path), detail, value)


def type_invalid(path: Path | str, value: Any, detail: str = "") -> FieldError:
    """A value of the wrong type (upstream ``field.TypeInvalid``: reads as Invalid value)."""
    return FieldError("FieldValueTypeInvalid", str(path), detail, value)


def not_supported(path: Path | str, value: Any, valid: Sequence[str]) -> FieldError:
    detail = "supported values: " + ", ".join(f'"{v}"' for v in valid) if valid else ""
    return FieldError("FieldValueNotSupported", str(path), detail, value)


def duplicate(path: Path | str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", str(path), "", value)


def forbidden(path: Path | str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", str(path), detail)


def too_many(path: Path | str, actual: int, limit: int) -> FieldError:
    """``Too many: 33: must have at most 32 items`` (upstream ``field.TooMany``)."""
    if actual >= 0:
        detail = f"{actual}: must have at most {limit} items"
    else:
        detail = f"must have at most {limit} items"
    return FieldError("FieldValueTooMany", str(path), detail)


def too_long(path: Path | str, limit: int) -> FieldError:
    detail = f"may not be more than {limit} bytes" if limit >= 0 else "value is too long"
    return FieldError("FieldValueTooLong", str(path), detail)


def not_found(path: Path | str, value: Any) -> FieldError:
    return FieldError("FieldValueNotFound", str(path), "", value)


def internal(path: Path | str, detail: str) -> FieldError:
    return FieldError("InternalError", str(path), detail)


def causes(errors: Iterable[FieldError]) -> list[dict[str, str]]:
    return [e.cause() for e in errors]
