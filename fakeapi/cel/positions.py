"""Where in the source an expression is, as cel-go reports it in compile errors.

cel-go's messages end with the source line and a caret under the reported column; the
parser and the checker both format their findings this way.
"""

from __future__ import annotations

__all__ = ["located"]


def located(expression: str, line: int, column: int, message: str) -> str:
    """Format like cel-go issues: ``ERROR: <input>:L:C: msg`` plus the source line and a caret."""
    lines = expression.splitlines() or [""]
    source = lines[min(line, len(lines)) - 1]
    caret = "." * max(column - 1, 0) + "^"
    return f"ERROR: <input>:{line}:{column}: {message}\n | {source}\n | {caret}"
