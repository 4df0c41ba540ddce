"""The device-selector CEL environment: variables, lookup semantics, libraries, errors, cost,
compile cache and per-device memoisation."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.cel import (
    CEL_SELECTOR_MAX_COST,
    CELCompileError,
    CELRuntimeError,
    CelSelectorCompiler,
    DeviceView,
    Features,
    compile_selector,
    get_compiler,
    selector_cost,
)

DRIVER = "dra.example.com"
DEVICE: dict[str, Any] = {
    "name": "gpu-0",
    "attributes": {
        "model": {"string": "a100"},
        "numa": {"int": 1},
        "healthy": {"bool": True},
        "driverVersion": {"version": "1.2.3"},
        "other.example.com/slot": {"int": 7},
    },
    "capacity": {"memory": {"value": "40Gi"}, "cores": {"value": "1500m"}},
    "allowMultipleAllocations": True,
}


def view(device: dict[str, Any] | None = None) -> DeviceView:
    return DeviceView(driver=DRIVER, device=device or DEVICE)


def evaluate(expression: str, *, features: Features | None = None) -> bool:
    return get_compiler(features).compile(expression).matches(view())


def runtime_error(expression: str, *, features: Features | None = None) -> str:
    with pytest.raises(CELRuntimeError) as err:
        evaluate(expression, features=features)
    return err.value.message


def compile_error(expression: str, *, features: Features | None = None) -> str:
    with pytest.raises(CELCompileError) as err:
        get_compiler(features).compile(expression)
    return err.value.message


class TestVariables:
    def test_driver_is_the_slice_driver(self) -> None:
        assert evaluate(f'device.driver == "{DRIVER}"')
        assert not evaluate('device.driver == "other"')

    def test_unqualified_attributes_live_under_the_driver_domain(self) -> None:
        assert evaluate(f'device.attributes["{DRIVER}"].model == "a100"')
        assert evaluate(f'device.attributes["{DRIVER}"].numa == 1')
        assert evaluate(f'device.attributes["{DRIVER}"].healthy')
        assert evaluate('device.attributes["other.example.com"].slot == 7')

    def test_version_attributes_are_semver_values(self) -> None:
        assert evaluate(
            f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan(semver("1.0.0"))'
        )
        assert evaluate(f'device.attributes["{DRIVER}"].driverVersion.minor() == 2')

    def test_capacity_values_are_quantities(self) -> None:
        assert evaluate(f'device.capacity["{DRIVER}"].memory.compareTo(quantity("1Gi")) >= 0')
        assert evaluate(f'device.capacity["{DRIVER}"].memory == quantity("40Gi")')

    def test_allow_multiple_allocations_exists_with_consumable_capacity(self) -> None:
        assert evaluate("device.allowMultipleAllocations")
        plain = DeviceView(driver=DRIVER, device={"name": "d"})
        assert get_compiler().compile("device.allowMultipleAllocations == false").matches(plain)

    def test_allow_multiple_allocations_is_undefined_without_consumable_capacity(self) -> None:
        message = compile_error(
            "device.allowMultipleAllocations", features=Features(consumable_capacity=False)
        )
        assert "undefined field 'allowMultipleAllocations'" in message


class TestLookupSemantics:
    def test_unknown_domain_is_an_empty_map(self) -> None:
        assert not evaluate('"x" in device.attributes["unknown.example.com"]')
        assert evaluate('device.attributes["unknown.example.com"].size() == 0')
        assert evaluate('device.capacity["unknown.example.com"].size() == 0')

    def test_unknown_key_in_known_domain_is_a_runtime_error_with_hint(self) -> None:
        message = runtime_error(f'device.attributes["{DRIVER}"].missing == 1')
        assert message.startswith("no such key: missing")
        assert "consider using CEL optional chaining" in message
        assert "guarding the check with has()" in message

    def test_has_guards_optional_attributes(self) -> None:
        assert evaluate(f'!has(device.attributes["{DRIVER}"].missing)')
        assert evaluate(f'has(device.attributes["{DRIVER}"].model)')

    def test_errors_are_absorbed_by_logical_operators_like_cel(self) -> None:
        assert evaluate(f'device.attributes["{DRIVER}"].missing == 1 || true')
        assert not evaluate(f'false && device.attributes["{DRIVER}"].missing == 1')
        assert runtime_error(f'true && device.attributes["{DRIVER}"].missing == 1')

    def test_non_bool_result_is_a_runtime_error(self) -> None:
        message = runtime_error(f'device.attributes["{DRIVER}"].model')
        assert message.startswith("CEL result of type string could not be converted to bool")


class TestQuantityLibrary:
    @pytest.mark.parametrize(
        "expression",
        [
            'quantity("1Gi") == quantity("1024Mi")',
            'isQuantity("10Mi") && !isQuantity("10 Mi")',
            'quantity("2").compareTo(quantity("1")) == 1',
            'quantity("1").compareTo(quantity("1000m")) == 0',
            'quantity("1Gi").isGreaterThan(quantity("1G"))',
            'quantity("1G").isLessThan(quantity("1Gi"))',
            'quantity("2Ki").asInteger() == 2048',
            'quantity("1500m").asApproximateFloat() == 1.5',
            'quantity("2").isInteger() && !quantity("1500m").isInteger()',
            'quantity("1").add(quantity("500m")) == quantity("1500m")',
            'quantity("1").add(2) == quantity("3")',
            'quantity("1").sub(quantity("2")).sign() == -1',
            'quantity("5").sub(5).sign() == 0',
            f'device.capacity["{DRIVER}"].cores.isGreaterThan(quantity("1"))',
        ],
    )
    def test_quantity_functions(self, expression: str) -> None:
        assert evaluate(expression)

    def test_as_integer_fails_on_lost_precision(self) -> None:
        assert "cannot convert value to integer" in runtime_error(
            'quantity("1500m").asInteger() == 1'
        )

    def test_invalid_quantity_is_a_runtime_error(self) -> None:
        assert "quantities must match" in runtime_error('quantity("abc").sign() == 0')


class TestSemverLibrary:
    @pytest.mark.parametrize(
        "expression",
        [
            'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2',
            'semver("1.2.3").patch() == 3',
            'semver("v1.2", true) == semver("1.2.0")',
            'isSemver("1.0.0") && !isSemver("v1.0") && isSemver("v1.0", true)',
            'semver("1.0.0").compareTo(semver("2.0.0")) == -1',
            'semver("1.0.0-alpha").isLessThan(semver("1.0.0"))',
            'semver("1.0.1").isGreaterThan(semver("1.0.0+build"))',
        ],
    )
    def test_semver_functions(self, expression: str) -> None:
        assert evaluate(expression)

    def test_invalid_semver_is_a_runtime_error(self) -> None:
        # blang/semver's words, as Kubernetes' library returns them
        assert runtime_error('semver("1.0").major() == 1') == "No Major.Minor.Patch elements found"
        assert runtime_error('semver("01.2.3").major() == 1') == (
            'Major number must not contain leading zeroes "01"'
        )


class TestExtensions:
    def test_cel_bind_names_a_subexpression(self) -> None:
        assert evaluate(
            f'cel.bind(d, device.attributes["{DRIVER}"], d.model == "a100" && d.numa == 1)'
        )

    def test_cel_bind_is_lazy(self) -> None:
        assert evaluate(f'cel.bind(x, device.attributes["{DRIVER}"].missing, true)')

    def test_standard_macros_and_strings(self) -> None:
        assert evaluate(f'device.attributes["{DRIVER}"].exists(k, k.startsWith("mod"))')
        assert evaluate("[1, 2, 3].all(x, x > 0) && [1, 2, 3].map(x, x * 2) == [2, 4, 6]")
        assert evaluate('"a100".matches("^a[0-9]+$") && "A100".lowerAscii() == "a100"')

    def test_includes_needs_list_type_attributes(self) -> None:
        features = Features(list_type_attributes=True)
        device = {"name": "d", "attributes": {"models": {"strings": ["a", "b"]}}}
        compiled = get_compiler(features).compile(
            f'device.attributes["{DRIVER}"].models.includes("b")'
        )
        assert compiled.matches(view(device))
        assert "undeclared reference to 'includes'" in compile_error('"a".includes("a")')


class TestCompileErrors:
    def test_undeclared_variable(self) -> None:
        message = compile_error("noSuchVar")
        assert message.startswith("compilation failed: ERROR: <input>:1:1:")
        assert "undeclared reference to 'noSuchVar' (in container '')" in message

    def test_undeclared_function(self) -> None:
        assert "undeclared reference to 'nope'" in compile_error('nope("x")')

    def test_result_must_be_bool(self) -> None:
        assert compile_error("1 + 1") == "must evaluate to bool or the unknown type, not int"

    def test_syntax_error(self) -> None:
        assert "Syntax error" in compile_error("device.driver ==")

    def test_ill_typed_operator(self) -> None:
        assert "found no matching overload for '_+_' applied to '(string, int)'" in compile_error(
            '"a" + 1 == "b"'
        )

    def test_validation_helper_returns_message_or_none(self) -> None:
        assert compile_selector('device.driver == "x"') is None
        assert "undeclared reference" in (compile_selector("noSuchVar") or "")


class TestCost:
    def test_nested_comprehensions_over_device_maps_exceed_the_limit(self) -> None:
        expression = (
            "device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
            "device.attributes.all(d, a == b))))"
        )
        assert selector_cost(expression) > CEL_SELECTOR_MAX_COST

    def test_runtime_cost_limit_aborts_evaluation(self) -> None:
        compiler = CelSelectorCompiler(cost_limit=10)
        compiled = compiler.compile("[1, 2, 3, 4].all(x, [1, 2, 3, 4].all(y, x > 0))")
        with pytest.raises(CELRuntimeError, match="actual cost limit exceeded"):
            compiled.matches(view())


class TestCaching:
    def test_compiled_selectors_are_cached_by_expression_text(self) -> None:
        compiler = CelSelectorCompiler()
        assert compiler.compile('device.driver == "x"') is compiler.compile('device.driver == "x"')

    def test_results_are_memoised_per_device_view(self) -> None:
        compiler = CelSelectorCompiler()
        compiled = compiler.compile(f'device.attributes["{DRIVER}"].numa == 1')
        device_view = view()
        assert compiled.matches(device_view)
        assert device_view.results == {compiled: True}
        device_view.results[compiled] = False  # a memo hit never re-evaluates
        assert compiled.matches(device_view) is False

    def test_a_new_slice_version_gets_a_fresh_view(self) -> None:
        compiled = CelSelectorCompiler().compile(f'device.attributes["{DRIVER}"].numa == 1')
        assert compiled.matches(view())
        changed = {**DEVICE, "attributes": {"numa": {"int": 2}}}
        assert not compiled.matches(view(changed))

    def test_runtime_errors_are_memoised_too(self) -> None:
        compiled = CelSelectorCompiler().compile(f'device.attributes["{DRIVER}"].missing')
        device_view = view()
        for _ in range(2):
            with pytest.raises(CELRuntimeError):
                compiled.matches(device_view)
        assert isinstance(device_view.results[compiled], CELRuntimeError)
