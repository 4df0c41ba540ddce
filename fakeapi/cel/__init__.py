"""The CEL environment for DRA device selectors, shared by API validation and the allocator.

It lives in ``fakeapi`` (not ``scheduler``) because validation must compile selectors with exactly
the environment the allocator evaluates them in, and ``fakeapi`` may not import the scheduler.
Callers depend on the small :class:`SelectorCompiler` / :class:`CompiledSelector` protocols so the
engine can be swapped; the default engine reuses cel-python's parser and compiles to closures.
"""

from .checker import Features
from .errors import CELCompileError, CELRuntimeError
from .selectors import (
    CEL_SELECTOR_MAX_COST,
    CelSelectorCompiler,
    CompiledSelector,
    DeviceView,
    SelectorCompiler,
    compile_selector,
    get_compiler,
    selector_cost,
)
from .semver import Semver, SemverError, parse_semver

__all__ = [
    "CEL_SELECTOR_MAX_COST",
    "CELCompileError",
    "CELRuntimeError",
    "CelSelectorCompiler",
    "CompiledSelector",
    "DeviceView",
    "Features",
    "SelectorCompiler",
    "Semver",
    "SemverError",
    "compile_selector",
    "get_compiler",
    "parse_semver",
    "selector_cost",
]
