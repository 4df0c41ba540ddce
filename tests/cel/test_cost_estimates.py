"""Estimated selector costs, unit for unit as Kubernetes' DRA environment estimates them.

Validation refuses a selector whose estimate exceeds 1,000,000, so these numbers decide what may
be stored. The figures are upstream's own (the DRA CEL library's expected costs for the same
expressions); each rests on a different rule: paths into the device's declared sizes, string
comparisons by the shorter operand, map membership as one lookup, macros by their expansion.
"""

from __future__ import annotations

import pytest

from fakeapi.cel import CEL_SELECTOR_MAX_COST, Features, get_compiler

A = 'device.attributes["dra.example.com"]'
C = 'device.capacity["dra.example.com"]'
LIST = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"


def nested_alls(levels: int) -> str:
    expression = "int('1'.find('[0-9]*')) < 100"
    for level in reversed(range(levels)):
        expression = f"{LIST}.all(v{level}, {expression})"
    return expression


ESTIMATES = [
    pytest.param("true", 0, id="literal"),
    pytest.param('device.driver == ""', 2, id="equal-to-empty-string"),
    pytest.param('device.driver == "dra.example.com"', 4, id="driver-name"),
    pytest.param("device.allowMultipleAllocations == true", 3, id="bool-field"),
    pytest.param('"no-such-domain" in device.attributes', 3, id="domain-membership"),
    pytest.param(f"{A}.name", 4, id="qualified-attribute"),
    pytest.param(f'{A}["name"]', 4, id="attribute-by-index"),
    pytest.param(f"{A}.name > 0", 5, id="int-comparison"),
    pytest.param(f'{A}.name == "fish"', 5, id="string-comparison"),
    pytest.param(f'{A}.name.isGreaterThan(semver("0.0.1"))', 6, id="semver"),
    pytest.param(
        f'{A}.name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)',
        7,
        id="semver-normalised",
    ),
    pytest.param(f'{C}.name.isGreaterThan(quantity("1Ki"))', 6, id="quantity"),
    pytest.param(
        f'"name" in {C} && {C}.name.isGreaterThan(quantity("1Ki"))', 10, id="checked-quantity"
    ),
    pytest.param(
        f'!("name" in {C}) || {C}.name.isGreaterThan(quantity("1Ki"))', 11, id="negated-check"
    ),
    pytest.param(f"{A}.a && {A}.b && {A}.c", 12, id="conjunction"),
    pytest.param(f"cel.bind(dra, {A}, dra.name)", 15, id="bind"),
    pytest.param(f'{A}.services.split("example").size() >= 2', 19, id="split"),
    pytest.param(f'{A}.services.matches("[^a]?sym")', 18, id="regex"),
    pytest.param('device.attributes.exists_one(x, x == "dra.example.com")', 164, id="domains"),
    pytest.param(f'{A}.exists_one(x, x == "services")', 133, id="attribute-names"),
    pytest.param('device.capacity.exists_one(x, x == "dra.example.com")', 164, id="cap-domains"),
    pytest.param(f'{C}.exists_one(x, x == "memory")', 133, id="capacity-names"),
    pytest.param(
        " && ".join(
            [
                f'{C}.quantity.isGreaterThan(quantity("1Ki"))',
                f"{A}.bool",
                f"{A}.int > 0",
                f'{A}.string == "fish"',
                f'{A}.version.isGreaterThan(semver("0.0.1"))',
                f'{C}["quantity"].isGreaterThan(quantity("1Ki"))',
                f'{A}["bool"]',
                f'{A}["int"] > 0',
                f'{A}["string"] == "fish"',
                f'{A}["version"].isGreaterThan(semver("0.0.1"))',
            ]
        ),
        52,
        id="every-kind-of-lookup",
    ),
    pytest.param(nested_alls(7), 85555551, id="seven-nested-alls"),
]


@pytest.mark.parametrize("list_type_attributes", [False, True])
@pytest.mark.parametrize(("expression", "cost"), ESTIMATES)
def test_estimate_matches_upstream(expression: str, cost: int, list_type_attributes: bool) -> None:
    compiler = get_compiler(Features(list_type_attributes=list_type_attributes))
    assert compiler.estimated_cost(expression) == cost


@pytest.mark.parametrize(
    ("expression", "cost"),
    [
        pytest.param(f"{A}.names.size() == 2", 6, id="list-size"),
        pytest.param(f"{A}.names.exists(x, x > 0)", 5 + (3 + 3) * 64, id="exists-over-list"),
        pytest.param(f'{A}.names.all(x, x != "")', 5 + (2 + 2) * 64, id="all-over-list"),
        pytest.param(
            f'{A}.names.all(x, x.isGreaterThan(semver("0.0.1")))',
            5 + (2 + 4) * 64,
            id="all-over-versions",
        ),
        pytest.param(f'{A}.name.includes("fish")', 4 + 48, id="includes"),
        pytest.param(f'{A}.name.includes(semver("1.0.0"))', 4 + 48 + 1, id="includes-semver"),
        pytest.param(f"1 in {A}.names", 4 + 64, id="in-list-attribute"),
    ],
)
def test_list_type_attribute_estimates_match_upstream(expression: str, cost: int) -> None:
    compiler = get_compiler(Features(list_type_attributes=True))
    assert compiler.estimated_cost(expression) == cost


def test_nesting_crosses_the_limit_where_upstream_says() -> None:
    compiler = get_compiler(Features())
    assert compiler.estimated_cost(nested_alls(5)) == 855551 <= CEL_SELECTOR_MAX_COST
    assert compiler.estimated_cost(nested_alls(6)) == 8555551 > CEL_SELECTOR_MAX_COST


def test_string_work_in_nested_macros_is_counted() -> None:
    # Each level walks the 32 domains; the innermost step joins two domain names (at most 63
    # characters each: 13 units) and walks the 126-character prefix (13 more).
    domains = "device.attributes"
    expression = f"{domains}.all(a, {domains}.all(b, {domains}.all(c, a.startsWith(b + c))))"
    assert get_compiler(Features()).estimated_cost(expression) == 1054915
