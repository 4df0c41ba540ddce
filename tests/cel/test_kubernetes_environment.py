"""The libraries Kubernetes' CEL base environment adds, as device selectors see them: optional
values, ext.Strings v2 (with format), sets, two-variable comprehensions, ext.Lists v3, the ip,
cidr and url libraries, and cel-go's syntax-error texts. What the environment does not have
(ext.Math) is rejected at compile time."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.cel import CELCompileError, CELRuntimeError, DeviceView, Features, get_compiler

DRIVER = "dra.example.com"
D = f'device.attributes["{DRIVER}"]'
DEVICE: dict[str, Any] = {
    "name": "nic-0",
    "attributes": {
        "model": {"string": "a100"},
        "numa": {"int": 1},
        "ip": {"string": "10.0.3.7"},
        "endpoint": {"string": "https://nic.example.com:8443/v1?zone=a&zone=b"},
    },
    "capacity": {"memory": {"value": "40Gi"}},
}


def evaluate(expression: str) -> bool:
    return get_compiler().compile(expression).matches(DeviceView(driver=DRIVER, device=DEVICE))


def compile_error(expression: str) -> str:
    with pytest.raises(CELCompileError) as err:
        get_compiler().compile(expression)
    return err.value.message


def runtime_error(expression: str) -> str:
    with pytest.raises(CELRuntimeError) as err:
        evaluate(expression)
    return err.value.message


class TestSyntaxErrors:
    def test_an_expression_cut_short_names_the_expected_tokens_at_its_end(self) -> None:
        assert compile_error("device.driver ==") == (
            "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' "
            "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
            "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
            " | device.driver ==\n"
            " | ................^"
        )

    def test_a_missing_closing_parenthesis(self) -> None:
        message = compile_error('(device.driver == "x"')
        assert message.startswith(
            "compilation failed: ERROR: <input>:1:22: Syntax error: mismatched input '<EOF>' "
            "expecting ')'"
        )

    def test_a_stray_token_after_a_complete_expression(self) -> None:
        assert compile_error('device.driver == "x" x').startswith(
            "compilation failed: ERROR: <input>:1:22: Syntax error: extraneous input 'x' "
            "expecting <EOF>"
        )

    def test_an_unknown_character_is_a_token_recognition_error(self) -> None:
        assert "Syntax error: token recognition error at: '$'" in compile_error(
            'device.driver == $"x"'
        )

    def test_reserved_words_cannot_be_identifiers(self) -> None:
        assert "reserved identifier: while" in compile_error("while")

    def test_the_caret_line_shows_the_failing_line_of_a_multi_line_expression(self) -> None:
        message = compile_error('device.driver == "x" &&\n  device.driver ==')
        assert message.endswith(" |   device.driver ==\n | ..................^")
        assert "ERROR: <input>:2:19:" in message


class TestOptionals:
    def test_optional_field_selection_falls_back_to_a_default(self) -> None:
        assert evaluate(f'{D}.?missing.orValue("none") == "none"')
        assert evaluate(f'{D}.?model.orValue("none") == "a100"')

    def test_optional_index_and_has_value(self) -> None:
        assert evaluate(f'{D}[?"model"].hasValue()')
        assert not evaluate(f'{D}[?"missing"].hasValue()')

    def test_optional_constructors_and_or(self) -> None:
        assert evaluate("optional.none().or(optional.of(2)).value() == 2")
        assert evaluate('!optional.ofNonZeroValue("").hasValue()')

    def test_value_of_none_is_an_error(self) -> None:
        assert runtime_error("optional.none().value() == 1") == "optional.none() dereference"

    def test_optional_list_elements_and_map_entries(self) -> None:
        assert evaluate(f"size([?{D}.?missing, ?{D}.?model]) == 1")
        assert evaluate(f'{{?"a": {D}.?missing, "b": 1}} == {{"b": 1}}')


class TestStrings:
    def test_format_clauses(self) -> None:
        assert evaluate(f'"%s-%d-%.2f".format([{D}.model, {D}.numa, 1.5]) == "a100-1-1.50"')
        assert evaluate('"%x %o %b".format([255, 8, 5]) == "ff 10 101"')

    def test_format_checks_a_literal_format_string_at_compile_time(self) -> None:
        assert "decimal clause can only be used on integers, was given string" in compile_error(
            '"%d".format(["x"]) == "x"'
        )
        assert "too many arguments supplied to string.format (expected 1, got 2)" in (
            compile_error('"%s".format(["a", "b"]) == "a"')
        )

    def test_extended_string_functions(self) -> None:
        assert evaluate(f'{D}.model.upperAscii() == "A100"')
        assert evaluate('"a,b,c".split(",").join("-") == "a-b-c"')
        assert evaluate('"tacocat".lastIndexOf("a", 3) == 1')
        assert evaluate('strings.quote("a\\nb") == "\\"a\\\\nb\\""')


class TestCollections:
    def test_sets(self) -> None:
        assert evaluate("sets.contains([1, 2, 3], [3, 1])")
        assert evaluate("sets.intersects([1, 2], [2, 5])")
        assert evaluate("sets.equivalent([1, 1, 2], [2, 1])")

    def test_two_variable_comprehensions_and_transforms(self) -> None:
        assert evaluate("[10, 20].all(i, v, v == (i + 1) * 10)")
        assert evaluate('{"a": 1, "b": 2}.exists(k, v, k == "b" && v == 2)')
        assert evaluate("[1, 2, 3].transformList(i, v, i < 2, v * 10) == [10, 20]")
        assert evaluate('{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}')
        assert evaluate('{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}')

    def test_ext_lists_version_3(self) -> None:
        assert evaluate("[3, 1, 2].sort() == [1, 2, 3]")
        assert evaluate('["bb", "a"].sortBy(s, size(s)) == ["a", "bb"]')
        assert evaluate("[[1], [2, 3]].flatten() == [1, 2, 3]")
        assert evaluate("[1, 2, 2].distinct() == [1, 2] && lists.range(3) == [0, 1, 2]")
        assert evaluate("[1, 2, 3, 4].slice(1, 3) == [2, 3] && [1, 2].reverse() == [2, 1]")

    def test_math_extension_is_not_part_of_the_environment(self) -> None:
        assert compile_error("math.greatest(1, 2) == 2") == (
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'math' "
            "(in container '')\n"
            " | math.greatest(1, 2) == 2\n"
            " | ^\n"
            "ERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n"
            " | math.greatest(1, 2) == 2\n"
            " | .............^"
        )


class TestNetwork:
    def test_ip_addresses(self) -> None:
        assert evaluate(f"ip({D}.ip).family() == 4")
        assert evaluate(f'cidr("10.0.0.0/16").containsIP({D}.ip)')
        assert evaluate('ip("::1").isLoopback() && !ip("10.0.0.1").isLoopback()')
        assert evaluate('ip.isCanonical("2001:db8::abcd") && !ip.isCanonical("2001:DB8::ABCD")')

    def test_invalid_addresses_fail_with_kubernetes_messages(self) -> None:
        assert not evaluate('isIP("10.0.0.256")')
        assert runtime_error('ip("10.0.0.256").family() == 4') == (
            'IP Address "10.0.0.256" parse error during conversion from string: '
            'ParseAddr("10.0.0.256"): IPv4 field has value >255'
        )
        assert runtime_error('ip("::ffff:1.2.3.4").family() == 6') == (
            'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'
        )

    def test_cidrs(self) -> None:
        assert evaluate('cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")')
        assert evaluate('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")')
        assert evaluate('cidr("::1/128").prefixLength() == 128 && isCIDR("10.0.0.0/8")')

    def test_urls(self) -> None:
        assert evaluate(f'url({D}.endpoint).getHostname() == "nic.example.com"')
        assert evaluate(f'url({D}.endpoint).getPort() == "8443"')
        assert evaluate(f'url({D}.endpoint).getQuery()["zone"] == ["a", "b"]')
        assert evaluate('url("/a b").getEscapedPath() == "/a%20b" && !isURL("relative/path")')


class TestNamedFormats:
    def test_valid_strings_give_none(self) -> None:
        assert evaluate(f"!format.dns1123Label().validate({D}.model).hasValue()")
        assert evaluate(
            '!format.named("uuid").value().validate('
            '"123e4567-e89b-12d3-a456-426614174000").hasValue()'
        )

    def test_invalid_strings_give_apimachinery_messages(self) -> None:
        assert evaluate(
            'format.dns1123Label().validate("My_Name").value() == ["a lowercase RFC 1123 label '
            "must consist of lower case alphanumeric characters or '-', and must start and end "
            "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]"
        )

    def test_unknown_format_names_are_none(self) -> None:
        assert evaluate('!format.named("nope").hasValue()')


class TestTimestamps:
    def test_timestamps_and_durations(self) -> None:
        assert evaluate(
            'timestamp("2009-02-13T23:31:30Z") + duration("1h") '
            '== timestamp("2009-02-14T00:31:30Z")'
        )
        assert evaluate('timestamp("2009-02-13T23:31:30Z").getHours("Asia/Kathmandu") == 5')
        assert evaluate('string(duration("1h30m")) == "5400s"')

    def test_literal_arguments_are_validated_at_compile_time(self) -> None:
        assert "invalid timestamp argument" in compile_error('timestamp("yesterday") == 1')


def test_list_type_attributes_keep_includes() -> None:
    features = Features(list_type_attributes=True)
    device = {"name": "d", "attributes": {"zones": {"strings": ["a", "b"]}}}
    compiled = get_compiler(features).compile(f'device.attributes["{DRIVER}"].zones.includes("b")')
    assert compiled.matches(DeviceView(driver=DRIVER, device=device))
