"""Label and field selectors: grammar, upstream error text, matching semantics."""

from __future__ import annotations

import pytest

from fakeapi.selectors import (
    FieldSelector,
    LabelSelector,
    SelectorError,
    escape_field_value,
    label_selector_from_api,
    parse_field_selector,
    parse_label_selector,
)

KEY_NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
BINARY_OPS = "in, notin, =, ==, !=, gt, lt"


# ------------------------------------------------------------------------------------------
# Label selector grammar


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("", ""),
        ("x=a,y=b,z=c", "x=a,y=b,z=c"),
        ("x!=a,y=b", "x!=a,y=b"),
        ("x=", "x="),
        ("x= ", "x="),
        ("x=,z= ", "x=,z="),
        ("x= ,z= ", "x=,z="),
        ("!x", "!x"),
        ("x>1", "x>1"),
        ("x>1,z<5", "x>1,z<5"),
        ("x==a", "x==a"),
        ("k", "k"),
        ("  a  =  b  ,  c  ", "a=b,c"),
        ("\ta\n=\rb", "a=b"),
        ("x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"),
        ("x in (b,a,b)", "x in (a,b)"),
        ("x in (a)", "x in (a)"),
        ("x in (,)", "x in ()"),
        ("x in (a,)", "x in (,a)"),
        ("in in (in), notin notin (notin)", "in in (in),notin notin (notin)"),
        ("notin=in", "notin=in"),
        ("b=1,a=2", "a=2,b=1"),  # sorted by key
        ("example.com/gpu=true", "example.com/gpu=true"),
        ("a.b-c_d=E.f-G_h", "a.b-c_d=E.f-G_h"),
        ("x<-1", None),  # value rule: must start alphanumeric (see rejections)
    ],
)
def test_label_grammar_accepts(text: str, rendered: str | None) -> None:
    if rendered is None:
        with pytest.raises(SelectorError):
            parse_label_selector(text)
        return
    assert str(parse_label_selector(text)) == rendered


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("x=a||y=b", None),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("a,,b", "found ',', expected: identifier after ','"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("a b", f"unable to parse requirement: found 'b', expected: {BINARY_OPS}"),
        ("a (", f"unable to parse requirement: found '(', expected: {BINARY_OPS}"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("!!a", "unable to parse requirement: found '!', expected: identifier"),
        ("a=(b)", "unable to parse requirement: found '(', expected: identifier"),
        ("a=!b", "unable to parse requirement: found '!', expected: identifier"),
        ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
        ("a in", "unable to parse requirement: found '' expected: '('"),
        (
            "x<a",
            'unable to parse requirement: values[0]: Invalid value: "a": '
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            "x>1.5",
            'unable to parse requirement: values[0]: Invalid value: "1.5": '
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            "x<-1",
            f'unable to parse requirement: values[0][x]: Invalid value: "-1": {VALUE_RULE}',
        ),
        (
            "x>a.",
            "unable to parse requirement: [values[0]: Invalid value: \"a.\": for 'Gt', 'Lt' "
            f'operators, the value must be an integer, values[0][x]: Invalid value: "a.": '
            f"{VALUE_RULE}]",
        ),
        ("-a", f'unable to parse requirement: <nil>: Invalid value: "-a": {KEY_NAME_RULE}'),
        ("k=v_", f'unable to parse requirement: values[0][k]: Invalid value: "v_": {VALUE_RULE}'),
        (
            "k=" + "v" * 64,
            f'unable to parse requirement: values[0][k]: Invalid value: "{"v" * 64}": '
            "must be no more than 63 bytes",
        ),
        (
            "k" * 64,
            f'unable to parse requirement: <nil>: Invalid value: "{"k" * 64}": '
            "name part must be no more than 63 bytes",
        ),
        (
            "/a",
            'unable to parse requirement: <nil>: Invalid value: "/a": '
            "prefix part must be non-empty",
        ),
        (
            "a/",
            'unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; '
            + KEY_NAME_RULE,
        ),
        (
            "Example.com/a",
            'unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a '
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
            "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
            "[a-z0-9])?)*')",
        ),
        (
            "a/b/c",
            'unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must '
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
    ],
)
def test_label_grammar_rejects_with_upstream_message(text: str, message: str | None) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(text)
    if message is not None:
        assert caught.value.message == message
        assert str(caught.value) == message


def test_nul_byte_ends_input_like_upstream_lexer() -> None:
    assert str(parse_label_selector("a=b,c\x00")) == "a=b,c"
    with pytest.raises(SelectorError, match="expected: in, notin"):
        parse_label_selector("a\x00b")


# ------------------------------------------------------------------------------------------
# Label selector matching

LABELS = {"foo": "bar", "baz": "blah", "n": "5"}


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", {}, True),
        ("", LABELS, True),
        ("foo=bar", LABELS, True),
        ("foo==bar", LABELS, True),
        ("foo=bar,baz=blah", LABELS, True),
        ("foo=blah", LABELS, False),
        ("foo=bar,foobar=bar,baz=blah", LABELS, False),
        ("x=z", {}, False),
        ("x=", {}, False),  # an empty value still requires the key
        ("x=", {"x": ""}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x!=y", {}, True),  # != matches a missing label
        ("x in (a,b)", {"x": "b"}, True),
        ("x in (a,b)", {"x": "c"}, False),
        ("x in (a,b)", {}, False),
        ("x in ()", {"x": ""}, True),
        ("x notin (a,b)", {"x": "c"}, True),
        ("x notin (a,b)", {"x": "a"}, False),
        ("x notin (a,b)", {}, True),  # notin matches a missing label
        ("x", {"x": ""}, True),
        ("x", {"y": "z"}, False),
        ("!x", {"y": "z"}, True),
        ("!x", {}, True),
        ("!x", {"x": ""}, False),
        ("notin=in", {"notin": "in"}, True),
        ("n>4", LABELS, True),
        ("n>5", LABELS, False),
        ("n<6", LABELS, True),
        ("n<5", LABELS, False),
        ("x>1", {}, False),  # Gt/Lt need the label
        ("x<1", {}, False),
        ("x>1", {"x": "abc"}, False),  # and an integer label value
        ("x<10", {"x": "-3"}, True),
        ("x>1", {"x": "+2"}, True),
        ("x>1", {"x": " 2"}, False),
        ("x>1", {"x": "1_0"}, False),
        ("x>1", {"x": "99999999999999999999"}, False),  # out of int64 range
    ],
)
def test_label_matching(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


def test_empty_and_exact_match() -> None:
    assert parse_label_selector("").empty
    assert not parse_label_selector("a").empty
    selector = parse_label_selector("app=web,tier in (db),env notin (x)")
    assert selector.requires_exact_match("app") == "web"
    assert selector.requires_exact_match("tier") == "db"
    assert selector.requires_exact_match("env") is None
    assert selector.requires_exact_match("missing") is None


def test_parse_is_deterministic_and_comparable() -> None:
    first, second = parse_label_selector("x=a,a=x"), parse_label_selector("a=x,x=a")
    assert str(first) == str(second) == "a=x,x=a"
    assert first == second
    assert hash(first) == hash(second)


# ------------------------------------------------------------------------------------------
# metav1.LabelSelector objects


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ({}, {"a": "b"}, True),
        ({"matchLabels": {}}, {}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "b", "c": "d"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]},
            {"a": "y"},
            True,
        ),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["x"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": ""}, False),
        (
            {
                "matchLabels": {"a": "b"},
                "matchExpressions": [{"key": "c", "operator": "Exists", "values": []}],
            },
            {"a": "b"},
            False,
        ),
    ],
)
def test_label_selector_from_api_matches(
    selector: dict[str, object], labels: dict[str, str], expected: bool
) -> None:
    assert label_selector_from_api(selector).matches(labels) is expected


def test_null_api_selector_matches_nothing() -> None:
    nothing = label_selector_from_api(None)
    assert not nothing.matches({})
    assert not nothing.empty
    assert nothing == LabelSelector.nothing()
    assert label_selector_from_api({}).empty
    assert label_selector_from_api({}) == LabelSelector.everything()


def test_api_selector_renders_sorted() -> None:
    selector = label_selector_from_api(
        {
            "matchLabels": {"z": "1", "a": "2"},
            "matchExpressions": [{"key": "m", "operator": "NotIn", "values": ["q", "p"]}],
        }
    )
    assert str(selector) == "a=2,m notin (p,q),z=1"


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
            '"Gt" is not a valid label selector operator',
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["b"]}]},
            'values: Invalid value: ["b"]: values set must be empty for exists and does not exist',
        ),
        ({"matchLabels": {"-a": "b"}}, f'key: Invalid value: "-a": {KEY_NAME_RULE}'),
        ({"matchLabels": {"a": "b c"}}, f'values[0][a]: Invalid value: "b c": {VALUE_RULE}'),
    ],
)
def test_label_selector_from_api_rejects(selector: dict[str, object], message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        label_selector_from_api(selector)
    assert caught.value.message == message


# ------------------------------------------------------------------------------------------
# Field selectors


@pytest.mark.parametrize(
    ("text", "requirements", "rendered"),
    [
        ("", (), ""),
        ("metadata.name=x", (("metadata.name", "=", "x"),), "metadata.name=x"),
        ("metadata.name==x", (("metadata.name", "=", "x"),), "metadata.name=x"),
        ("status.phase!=Failed", (("status.phase", "!=", "Failed"),), "status.phase!=Failed"),
        (
            "spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed",
            (
                ("spec.nodeName", "=", "n1"),
                ("status.phase", "!=", "Failed"),
                ("status.phase", "!=", "Succeeded"),
            ),
            "spec.nodeName=n1,status.phase!=Failed,status.phase!=Succeeded",
        ),
        (
            "involvedObject.namespace=",
            (("involvedObject.namespace", "=", ""),),
            "involvedObject.namespace=",
        ),
        ("a=a,", (("a", "=", "a"),), "a=a"),
        (",a=a", (("a", "=", "a"),), "a=a"),
        ("=", (), ""),  # upstream reads a bare "=" as everything
        ("!=x", (("", "!=", "x"),), "!=x"),
        # terms sort on their raw text, so "k2=" comes before "k="
        (r"k=\,,k2=v2", (("k2", "=", "v2"), ("k", "=", ",")), r"k2=v2,k=\,"),
        (r"k=\\,k2=v2", (("k2", "=", "v2"), ("k", "=", "\\")), r"k2=v2,k=\\"),
        (r"k=\\\,,k2=v2", (("k2", "=", "v2"), ("k", "=", "\\,")), r"k2=v2,k=\\\,"),
        (r"x=a\=\=b", (("x", "=", "a==b"),), r"x=a\=\=b"),
        (r"x=a||y\=b", (("x", "=", "a||y=b"),), r"x=a||y\=b"),
        ("a!b=c", (("a!b", "=", "c"),), "a!b=c"),
        ("함=수,목=록", (("목", "=", "록"), ("함", "=", "수")), "목=록,함=수"),
    ],
)
def test_field_selector_parses(
    text: str, requirements: tuple[tuple[str, str, str], ...], rendered: str
) -> None:
    selector = parse_field_selector(text)
    assert selector.requirements == requirements
    assert str(selector) == rendered
    assert selector.empty is (not requirements)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"),
        ("x=a==b", "invalid field selector: unescaped character in value: 61"),
        ("x==a==b", "invalid field selector: unescaped character in value: 61"),
        ("k=\\", "invalid field selector: invalid escape sequence: \\"),
        ("k=\\\\\\", "invalid field selector: invalid escape sequence: \\"),
        ("k=\\a", "invalid field selector: invalid escape sequence: \\a"),
        ("k=\\!", "invalid field selector: invalid escape sequence: \\!"),
    ],
)
def test_field_selector_rejects_with_upstream_message(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(text)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("value", "escaped"),
    [("", ""), ("a", "a"), ("=", r"\="), (",", r"\,"), ("\\", "\\\\"), (r"\=\,\ ", r"\\\=\\\,\\ ")],
)
def test_field_value_escaping_round_trips(value: str, escaped: str) -> None:
    assert escape_field_value(value) == escaped
    assert parse_field_selector(f"f={escaped}").exact_match("f") == value


FIELDS = {"metadata.name": "x", "metadata.namespace": "ns", "status.phase": "Running"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", True),
        ("metadata.name=x", True),
        ("metadata.name=y", False),
        ("metadata.name=x,metadata.name=x", True),  # kr8s repeats the term
        ("metadata.name=x,metadata.name=y", False),
        ("status.phase!=Failed,status.phase!=Succeeded", True),
        ("status.phase!=Running", False),
        ("spec.nodeName=", True),  # a missing field reads as ""
        ("spec.nodeName!=", False),
        ("spec.nodeName=n1", False),
        ("spec.nodeName!=n1", True),
    ],
)
def test_field_selector_matching(text: str, expected: bool) -> None:
    assert parse_field_selector(text).matches(FIELDS) is expected


def test_field_selector_fields_and_exact_match() -> None:
    selector = parse_field_selector("metadata.namespace=ns,status.phase!=Failed,metadata.name=b")
    assert selector.fields == {"metadata.namespace", "status.phase", "metadata.name"}
    assert selector.exact_match("metadata.name") == "b"
    assert selector.exact_match("metadata.namespace") == "ns"
    assert selector.exact_match("status.phase") is None
    assert selector.exact_match("spec.nodeName") is None
    assert parse_field_selector("a=1,a=2").exact_match("a") == "1"


def test_field_selector_equality() -> None:
    assert parse_field_selector("b=1,a=2") == parse_field_selector("a=2,b=1")
    assert parse_field_selector("") == FieldSelector()
