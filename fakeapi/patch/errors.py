"""Why a patch or an apply was refused, as ``kind: Status`` errors with upstream codes and wording.

Every failure here is a :class:`~fakeapi.errors.StatusError`, so handlers re-raise them untouched
and both transports answer exactly as kube-apiserver does:

* 400 BadRequest — the body is not the shape the patch type needs (upstream's decoding errors and
  the strategic-merge "invalid patch format" family), or an apply configuration that cannot be
  turned into a field set;
* 409 Conflict — :class:`ApplyConflict`, server-side apply fields owned by another manager;
* 413 RequestEntityTooLarge — a JSON patch with more than 10000 operations;
* 422 Invalid — a JSON patch operation that cannot be applied (failed ``test``, missing path) and
  the strategic-merge errors upstream reports as unprocessable. Upstream hides the reason behind
  a fixed sentence; the reason is kept on :attr:`PatchError.detail` for logs and tests.

Upstream prints Go values in several messages (``map: map[image:x] does not contain declared merge
key: name``); :func:`go_value` renders JSON values the way Go's ``%v`` does so messages match.
"""

from __future__ import annotations

import json
from typing import Any

from fakeapi.errors import StatusError

__all__ = [
    "UNPROCESSABLE_MESSAGE",
    "ApplyConflict",
    "PatchError",
    "bad_request",
    "go_escaped",
    "go_json",
    "go_string",
    "go_type",
    "go_value",
    "too_many_operations",
    "unprocessable",
]

#: What kube-apiserver says for every 422 it builds with NewGenericServerResponse.
UNPROCESSABLE_MESSAGE = "the server rejected our request due to an error in our request"


class PatchError(StatusError):
    """A patch that cannot be applied; ``detail`` says why even when the message is generic."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        detail: str = "",
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code, reason, message, details)
        self.detail = detail or message


class ApplyConflict(StatusError):  # noqa: N818 - the name the registry and handlers use
    """409 Conflict from server-side apply: one cause per field another manager owns.

    ``causes`` are ``{"reason": "FieldManagerConflict", "message": ..., "field": ...}`` as
    upstream's ``metav1.StatusCause`` serialises them; ``details`` carries only the causes.
    """

    def __init__(self, message: str, causes: list[dict[str, str]]) -> None:
        super().__init__(409, "Conflict", message, {"causes": causes})
        self.causes = causes


def bad_request(message: str) -> PatchError:
    return PatchError(400, "BadRequest", message)


def unprocessable(detail: str) -> PatchError:
    """422 Invalid with upstream's fixed message; ``detail`` keeps the real reason."""
    return PatchError(422, "Invalid", UNPROCESSABLE_MESSAGE, detail=detail, details={})


def too_many_operations(limit: int, got: int) -> PatchError:
    return PatchError(
        413,
        "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is "
        f"{limit}, got {got}",
    )


def go_type(value: Any) -> str:
    """The Go type ``encoding/json`` decodes ``value`` into (``map[string]interface {}``...)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


def _go_number(value: float) -> str:
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e21):
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').zfill(2)}"
    return text


def go_value(value: Any) -> str:
    """``fmt.Sprintf("%v", value)`` for a decoded JSON value (maps print with sorted keys)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _go_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{k}:{go_value(value[k])}" for k in sorted(value))
        return "map[" + " ".join(items) + "]"
    return str(value)


def go_string(value: Any) -> str:
    """``fmt.Sprintf("%s", value)``: strings as is, anything else as Go's ``%!s(T=v)``."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({go_type(value)}={go_value(value)})"


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
               "\u2029": "\\u2029"}


def go_json(value: Any) -> str:
    """Compact JSON as Go's encoder writes it (HTML characters escaped, integral floats as ints)."""
    return go_escaped(json.dumps(_integral(value), separators=(",", ":"), ensure_ascii=False))


def go_escaped(text: str) -> str:
    """Compact JSON ``text`` (as Python's or orjson's encoder write it) with the characters Go's
    encoder escapes besides them escaped."""
    if any(c in text for c in _GO_ESCAPES):
        text = "".join(_GO_ESCAPES.get(c, c) for c in text)
    return text


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value
