"""Errors of the selector CEL environment.

Two exception classes cross the package boundary: :class:`CELCompileError` (the expression is
rejected before it ever sees a device) and :class:`CELRuntimeError` (evaluation against one device
failed). Their messages follow cel-go / Kubernetes wording because they end up verbatim in API
validation errors and in allocator errors that users read and tests compare.

:class:`EvalError` is internal: it is raised while evaluating and may be absorbed by ``&&``,
``||`` and the comprehension macros, as CEL's commutative error semantics require.
"""

from __future__ import annotations

__all__ = [
    "NO_SUCH_KEY_HINT",
    "CELCompileError",
    "CELRuntimeError",
    "EvalError",
    "enhance_runtime_message",
]

NO_SUCH_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields"
)


class CELCompileError(Exception):
    """The expression does not compile; ``message`` is the text after ``compilation failed: ``
    for syntax and type errors, or the full detail for result-type errors."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CELRuntimeError(Exception):
    """Evaluation failed for one device; ``message`` is the (enhanced) CEL error text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EvalError(Exception):
    """A CEL error value raised during evaluation (absorbable by logical operators)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def enhance_runtime_message(message: str) -> str:
    """Add upstream's optional-chaining hint to ``no such key`` errors (idempotent)."""
    if "no such key:" in message and NO_SUCH_KEY_HINT not in message:
        return message + NO_SUCH_KEY_HINT
    return message
