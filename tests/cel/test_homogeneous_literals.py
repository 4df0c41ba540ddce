"""Mixed-type list and map literals are rejected at compile time, as in upstream's environment.

Kubernetes compiles selectors with cel-go's homogeneous-aggregate-literal validator: after the
type check passes, every list literal's elements, and every map literal's keys and values, must
have exactly the same type as the first one. ``int`` and ``double`` differ, and so do ``dyn`` and
any concrete type. The findings read ``expected type 'X' but found 'Y'`` and point at the
offending element, in the same ``ERROR: <input>:L:C:`` form as every other compile error.
"""

from __future__ import annotations

import pytest

from fakeapi.cel import (
    CELCompileError,
    CelSelectorCompiler,
    Features,
    compile_selector,
    selector_cost,
)

ATTR = 'device.attributes["dra.example.com"]'


def error(expression: str, *, features: Features | None = None) -> str:
    message = compile_selector(expression, features=features)
    assert message is not None, f"{expression!r} compiled"
    return message


def finding(line: int, column: int, expected: str, found: str, source: str) -> str:
    caret = "." * (column - 1) + "^"
    return (
        f"ERROR: <input>:{line}:{column}: expected type '{expected}' but found '{found}'\n"
        f" | {source}\n | {caret}"
    )


class TestRejected:
    def test_message_format(self) -> None:
        expression = 'device.driver in ["a", 1]'
        assert error(expression) == "compilation failed: " + finding(
            1, 24, "string", "int", expression
        )

    @pytest.mark.parametrize(
        ("expression", "column", "expected", "found"),
        [
            ('[1, "a"].size() == 2', 5, "int", "string"),
            ("[1, 2.0].size() == 2", 5, "int", "double"),
            ("[1u, 1].size() == 2", 6, "uint", "int"),
            ("[true, false, 1].size() == 3", 15, "bool", "int"),
            ("[null, 1].size() == 2", 8, "null", "int"),
            ('[b"x", "x"].size() == 2', 8, "bytes", "string"),
            ("1 in [1, 2.0]", 10, "int", "double"),
            ("[[1], [2.0]].size() == 2", 7, "list(int)", "list(double)"),
            ('[{"a": 1}, {"a": "b"}].size() == 2', 12, "map(string, int)", "map(string, string)"),
            ("[[1], {}].size() == 2", 7, "list(int)", "map(dyn, dyn)"),
            ('[[], [1], ["a"]].size() == 3', 11, "list(int)", "list(string)"),
        ],
    )
    def test_list_elements(self, expression: str, column: int, expected: str, found: str) -> None:
        assert error(expression) == "compilation failed: " + finding(
            1, column, expected, found, expression
        )

    def test_only_the_first_odd_list_element_is_reported(self) -> None:
        message = error('[1, "a", 2.0].size() == 3')
        assert message.count("ERROR:") == 1
        assert "<input>:1:5: expected type 'int' but found 'string'" in message

    def test_map_keys(self) -> None:
        expression = '{"a": 1, 2: 3}.size() == 2'
        assert error(expression) == "compilation failed: " + finding(
            1, 10, "string", "int", expression
        )

    def test_map_values(self) -> None:
        expression = '{"a": 1, "b": "x"}.size() == 2'
        assert error(expression) == "compilation failed: " + finding(
            1, 15, "int", "string", expression
        )

    def test_every_odd_map_entry_is_reported_in_source_order(self) -> None:
        expression = '{1: "a", "b": 2, "c": true}.size() == 3'
        assert error(expression) == "compilation failed: " + "\n".join(
            [
                finding(1, 10, "int", "string", expression),
                finding(1, 15, "string", "int", expression),
                finding(1, 18, "int", "string", expression),
                finding(1, 23, "string", "bool", expression),
            ]
        )

    def test_empty_map_value_takes_the_type_of_the_next_one(self) -> None:
        expression = '{"a": [], "b": [1], "c": ["x"]}.size() == 3'
        assert error(expression) == "compilation failed: " + finding(
            1, 26, "list(int)", "list(string)", expression
        )

    def test_nested_literals_report_inner_and_outer(self) -> None:
        # The inner list is list(dyn) once its elements disagree, so the outer one differs too.
        expression = "[[1, 2.0], [3]].size() == 2"
        assert error(expression) == "compilation failed: " + "\n".join(
            [
                finding(1, 6, "int", "double", expression),
                finding(1, 12, "list(dyn)", "list(int)", expression),
            ]
        )

    def test_literal_inside_a_macro(self) -> None:
        assert "1:19: expected type 'int' but found 'double'" in error(
            "[1, 2].map(x, [x, 2.0]).size() == 2"
        )

    def test_dyn_does_not_mix_with_concrete_types(self) -> None:
        # dyn() makes an element dyn-typed, and dyn is not the same type as int.
        assert "<input>:1:10: expected type 'dyn' but found 'int'" in error(
            "[dyn(1), 2].size() == 2"
        )
        # A call is located at its opening parenthesis, as in cel-go.
        assert "<input>:1:11: expected type 'int' but found 'dyn'" in error(
            "[1, 2, dyn(3)].size() == 3"
        )

    def test_attribute_values_are_any_typed(self) -> None:
        # Upstream declares attribute values with the protobuf Any type ...
        expression = f"[{ATTR}.model, 1].size() == 2"
        assert error(expression) == "compilation failed: " + finding(
            1, len(ATTR) + 10, "any", "int", expression
        )
        # ... and as dyn once list-type attributes are enabled.
        with_lists = Features(list_type_attributes=True)
        assert f"<input>:1:{len(ATTR) + 10}: expected type 'dyn' but found 'int'" in error(
            expression, features=with_lists
        )

    def test_position_on_a_later_line(self) -> None:
        expression = '[1,\n  "a"].size() == 2'
        assert error(expression) == (
            "compilation failed: ERROR: <input>:2:3: expected type 'int' but found 'string'\n"
            ' |   "a"].size() == 2\n'
            " | ..^"
        )

    def test_whole_expression_literal_reports_the_mix_not_the_result_type(self) -> None:
        # The validator runs before the result type is looked at.
        assert "expected type 'int' but found 'string'" in error('[1, "a"]')
        assert error("[1, 2]") == "must evaluate to bool or the unknown type, not list(int)"

    def test_type_errors_come_first(self) -> None:
        # cel-go only validates literals of expressions that type-check.
        message = error('[1, "a"].size() == 2 && noSuchVar')
        assert "undeclared reference to 'noSuchVar'" in message
        assert "expected type" not in message


class TestAccepted:
    @pytest.mark.parametrize(
        "expression",
        [
            '["a", "b"].size() == 2',
            'device.driver in ["a", "b"]',
            "[1, 2, 3].all(x, x > 0)",
            "[1.0, 2.5].size() == 2",
            "[1u, 2u].size() == 2",
            '{"a": 1, "b": 2}.size() == 2',
            '{1: "a", 2: "b"}.size() == 2',
            "[[1], [2, 3]].size() == 2",
            '[{"a": [1]}, {"b": [2]}].size() == 2',
            '[dyn(1), dyn("a"), dyn(2.0)].size() == 3',
            '{dyn(1): "a", dyn("b"): "c"}.size() == 2',
            '{"a": dyn(1), "b": dyn("x")}.size() == 2',
            '[quantity("1"), quantity("2Gi")].size() == 2',
            f"[{ATTR}.model, {ATTR}.numa].size() == 2",
            f'{ATTR}.model in ["a", "b"]',
        ],
    )
    def test_homogeneous(self, expression: str) -> None:
        assert compile_selector(expression) is None

    @pytest.mark.parametrize(
        "expression",
        [
            "[].size() == 0",
            "{}.size() == 0",
            "[[], [1]].size() == 2",
            "[[1], []].size() == 2",
            '[{}, {"a": 1}].size() == 2',
            "[[], []].size() == 2",
        ],
    )
    def test_empty_literals(self, expression: str) -> None:
        # An empty literal's element type is a free type parameter that takes the other's type.
        assert compile_selector(expression) is None

    def test_attribute_values_with_list_type_attributes(self) -> None:
        features = Features(list_type_attributes=True)
        expression = f"[{ATTR}.model, {ATTR}.numa].size() == 2"
        assert compile_selector(expression, features=features) is None

    def test_types_the_checker_cannot_work_out_are_not_reported(self) -> None:
        # cel-go types `attribute + 1` as int; this checker does not know, so it stays lenient.
        assert compile_selector(f"[{ATTR}.numa + 1, 2].size() == 2") is None


class TestEntryPoints:
    def test_compiler_raises_the_same_message(self) -> None:
        expression = '{"a": 1, "b": "x"}.size() == 2'
        with pytest.raises(CELCompileError) as raised:
            CelSelectorCompiler().compile(expression)
        assert raised.value.message == compile_selector(expression)

    def test_cost_estimation_refuses_the_expression(self) -> None:
        with pytest.raises(CELCompileError, match="expected type 'int' but found 'double'"):
            selector_cost("[1, 2.0].size() == 2")

    def test_rejected_once_and_cached(self) -> None:
        compiler = CelSelectorCompiler()
        for _ in range(2):
            with pytest.raises(CELCompileError, match="expected type 'int' but found 'string'"):
                compiler.compile('[1, "a"].size() == 2')


class TestPositions:
    """Nodes are located where cel-go locates them, which other compile errors share."""

    def test_operator_selection_and_bool_literal(self) -> None:
        assert error('1 + "a" == 2').startswith("compilation failed: ERROR: <input>:1:3:")
        assert error("device.nope == 1").startswith("compilation failed: ERROR: <input>:1:7:")
        assert "<input>:2:2: expected type 'string' but found 'bool'" in error(
            '["a", // true\n true].size() == 2'
        )
