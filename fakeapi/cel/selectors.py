"""Device selectors: compile once, evaluate per device, remember the answer.

A selector's result depends only on the expression and the device, so:

* :class:`DeviceView` wraps one device of one slice version. Its CEL variables are built lazily
  on first use, and it carries the memo of every selector result evaluated against it. When a
  slice changes, its owner builds new views and the memo goes with the old ones — nothing is ever
  re-evaluated for a device whose slice did not change.
* :class:`CelSelectorCompiler` caches compiled selectors by expression text (per feature set).

The :class:`SelectorCompiler` / :class:`CompiledSelector` protocols are the seam for another CEL
engine; the API server's validation uses :func:`compile_selector` and :func:`selector_cost` with
the very same environment the allocator uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from fakeapi.cel.checker import Features, check
from fakeapi.cel.errors import CELCompileError, CELRuntimeError, EvalError, enhance_runtime_message
from fakeapi.cel.parser import parse_for_compile
from fakeapi.cel.program import Activation, CostLimitExceededError, Evaluator, compile_program
from fakeapi.cel.semver import SemverError, parse_semver
from fakeapi.cel.values import DomainMap, type_name
from fakeapi.quantity import QuantityError, parse_quantity

__all__ = [
    "CEL_SELECTOR_MAX_COST",
    "CelSelectorCompiler",
    "CompiledSelector",
    "DeviceView",
    "Features",
    "SelectorCompiler",
    "compile_selector",
    "get_compiler",
    "selector_cost",
]

CEL_SELECTOR_MAX_COST = 1_000_000


class DeviceView:
    """One device as CEL sees it, plus the memo of selector results for this slice version.

    ``device`` is the API's JSON shape of ``spec.devices[i]``; ``driver`` the slice's driver.
    """

    __slots__ = ("_variables", "device", "driver", "results")

    def __init__(self, *, driver: str, device: Mapping[str, object]) -> None:
        self.driver = driver
        self.device = device
        self._variables: dict[str, object] | EvalError | None = None
        self.results: dict[object, bool | CELRuntimeError] = {}

    def variables(self) -> dict[str, object]:
        """The ``device`` variable's fields; raises :class:`EvalError` for a bad attribute."""
        built = self._variables
        if built is None:
            try:
                built = _build_variables(self.driver, self.device)
            except EvalError as exc:
                built = exc
            self._variables = built
        if isinstance(built, EvalError):
            raise built
        return built


def _split_name(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _attribute_value(name: str, attribute: Mapping[str, object]) -> object:
    for key in ("ints", "bools", "strings"):
        if key in attribute and attribute[key] is not None:
            return list(attribute[key])  # type: ignore[call-overload]
    if attribute.get("versions") is not None:
        try:
            return [parse_semver(str(v)) for v in attribute["versions"]]  # type: ignore[attr-defined]
        except SemverError as exc:
            raise EvalError(f"attribute {name}: parse semantic version: {exc}") from None
    for key in ("int", "bool", "string"):
        if attribute.get(key) is not None:
            return attribute[key]
    if attribute.get("version") is not None:
        try:
            return parse_semver(str(attribute["version"]))
        except SemverError as exc:
            raise EvalError(f"attribute {name}: parse semantic version: {exc}") from None
    raise EvalError(f"attribute {name}: unsupported attribute value")


def _build_variables(driver: str, device: Mapping[str, object]) -> dict[str, object]:
    attributes = DomainMap()
    raw_attributes = device.get("attributes") or {}
    assert isinstance(raw_attributes, Mapping)
    for name, attribute in raw_attributes.items():
        domain, ident = _split_name(name, driver)
        attributes.setdefault(domain, {})[ident] = _attribute_value(name, attribute)  # type: ignore[index]
    capacity = DomainMap()
    raw_capacity = device.get("capacity") or {}
    assert isinstance(raw_capacity, Mapping)
    for name, cap in raw_capacity.items():
        domain, ident = _split_name(name, driver)
        try:
            value = parse_quantity(str(cap["value"] if isinstance(cap, Mapping) else cap))
        except QuantityError as exc:
            raise EvalError(f"capacity {name}: {exc}") from None
        capacity.setdefault(domain, {})[ident] = value  # type: ignore[index]
    return {
        "driver": driver,
        "allowMultipleAllocations": bool(device.get("allowMultipleAllocations") or False),
        "attributes": attributes,
        "capacity": capacity,
    }


class CompiledSelector(Protocol):
    """A compiled selector expression."""

    @property
    def expression(self) -> str: ...

    def matches(self, device: DeviceView) -> bool:
        """True/False, or raise :class:`CELRuntimeError` (fatal for allocation)."""
        ...


class SelectorCompiler(Protocol):
    """Compiles selector expressions; raises :class:`CELCompileError` for rejected ones."""

    def compile(self, expression: str) -> CompiledSelector: ...


class _CelSelector:
    __slots__ = ("cost_limit", "estimated_cost", "expression", "program")

    def __init__(
        self, expression: str, program: Evaluator, estimated_cost: int, cost_limit: int
    ) -> None:
        self.expression = expression
        self.program = program
        self.estimated_cost = estimated_cost
        self.cost_limit = cost_limit

    def matches(self, device: DeviceView) -> bool:
        result = device.results.get(self)
        if result is None:
            result = self._evaluate(device)
            device.results[self] = result
        if result is True or result is False:
            return result
        raise result

    def _evaluate(self, device: DeviceView) -> bool | CELRuntimeError:
        try:
            activation = Activation({"device": device.variables()}, self.cost_limit)
            value = self.program(activation)
        except EvalError as exc:
            return CELRuntimeError(enhance_runtime_message(exc.message))
        except CostLimitExceededError as exc:
            return CELRuntimeError(str(exc))
        except RecursionError:
            return CELRuntimeError("expression nesting too deep")
        if isinstance(value, bool):
            return value
        kind = type_name(value)
        return CELRuntimeError(
            f"CEL result of type {kind} could not be converted to bool: "
            f"type conversion error from '{kind}' to 'bool'"
        )

    def __repr__(self) -> str:
        return f"CompiledSelector({self.expression!r})"


class CelSelectorCompiler:
    """The default :class:`SelectorCompiler`: parse, check, compile to closures; cached by text."""

    def __init__(
        self, *, features: Features | None = None, cost_limit: int = CEL_SELECTOR_MAX_COST
    ) -> None:
        self.features = features or Features()
        self.cost_limit = cost_limit
        self._cache: dict[str, _CelSelector | CELCompileError] = {}

    def compile(self, expression: str) -> CompiledSelector:
        cached = self._cache.get(expression)
        if cached is None:
            try:
                cached = self._compile(expression)
            except CELCompileError as exc:
                cached = exc
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[expression] = cached
        if isinstance(cached, CELCompileError):
            raise cached
        return cached

    def _compile(self, expression: str) -> _CelSelector:
        node = parse_for_compile(expression)
        result = check(node, expression=expression, features=self.features)
        program = compile_program(node, list_type_attributes=self.features.list_type_attributes)
        return _CelSelector(expression, program, result.cost, self.cost_limit)

    def estimated_cost(self, expression: str) -> int:
        compiled = self.compile(expression)
        assert isinstance(compiled, _CelSelector)
        return compiled.estimated_cost


_COMPILERS: dict[Features, CelSelectorCompiler] = {}


def get_compiler(features: Features | None = None) -> CelSelectorCompiler:
    """The shared compiler (and its cache) for one feature set."""
    features = features or Features()
    compiler = _COMPILERS.get(features)
    if compiler is None:
        compiler = _COMPILERS[features] = CelSelectorCompiler(features=features)
    return compiler


def compile_selector(expression: str, *, features: Features | None = None) -> str | None:
    """Validation entry point: None when the expression compiles, else upstream-like detail
    (``compilation failed: ERROR: <input>:1:1: …`` or ``must evaluate to bool …``)."""
    try:
        get_compiler(features).compile(expression)
    except CELCompileError as exc:
        return exc.message
    return None


def selector_cost(expression: str, *, features: Features | None = None) -> int:
    """Estimated worst-case cost; validation rejects above :data:`CEL_SELECTOR_MAX_COST`.
    Raises :class:`CELCompileError` when the expression does not compile."""
    return get_compiler(features).estimated_cost(expression)
