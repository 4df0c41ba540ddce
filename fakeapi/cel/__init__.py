"""The CEL environment for DRA device selectors, shared by API validation and the allocator.

It lives in ``fakeapi`` (not ``scheduler``) because validation must compile selectors with exactly
the environment the allocator evaluates them in, and ``fakeapi`` may not import the scheduler.
Callers depend on the small :class:`SelectorCompiler` / :class:`CompiledSelector` protocols so the
engine can be swapped; the default engine has its own parser (cel-go's grammar and error texts)
and compiles to closures. :func:`compile_expression` offers the same language with any declared
variables. docs/cel.md lists what the environment offers.
"""

from fakeapi.cel.checker import Features
from fakeapi.cel.environment import Program, compile_expression
from fakeapi.cel.errors import CELCompileError, CELRuntimeError
from fakeapi.cel.selectors import (
    CEL_SELECTOR_MAX_COST,
    CelSelectorCompiler,
    CompiledSelector,
    DeviceView,
    SelectorCompiler,
    compile_selector,
    get_compiler,
    selector_cost,
)
from fakeapi.cel.semver import Semver, SemverError, parse_semver

__all__ = [
    "CEL_SELECTOR_MAX_COST",
    "CELCompileError",
    "CELRuntimeError",
    "CelSelectorCompiler",
    "CompiledSelector",
    "DeviceView",
    "Features",
    "Program",
    "SelectorCompiler",
    "Semver",
    "SemverError",
    "compile_expression",
    "compile_selector",
    "get_compiler",
    "parse_semver",
    "selector_cost",
]
