"""YAML request bodies are held to go-yaml's limits, with its verdicts and messages.

The table's documents are go-yaml's own limit tests (``limit_test.go``), at the sizes that keep
this suite fast; the property checks that the counting in :func:`check_aliasing`, which adds an
alias's expanded size in one step, reaches the verdict of go-yaml's node-by-node walk on random
documents of anchors and aliases.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from fakeapi.errors import StatusError
from fakeapi.server.encoding import decode_body
from fakeapi.server.yaml_bounded import YAMLLimitError, _allowed_alias_ratio, check_aliasing

EXCESSIVE = "error converting YAML to JSON: yaml: document contains excessive aliasing"

GO_YAML_LIMIT_CASES = [
    # (name in go-yaml's limit_test.go, document, error or None)
    ("1kb of maps", "a: &a [{a}" + ",{a}" * (1 * 1024 // 4 - 1) + "]", None),
    ("10kb of maps", "a: &a [{a}" + ",{a}" * (10 * 1024 // 4 - 1) + "]", None),
    (
        "10kb of maps with 100 aliases (1000kb upstream)",
        "{a: &a [{a}" + ",{a}" * (10 * 1024 // 4 - 100) + "], b: &b [*a" + ",*a" * 99 + "]}",
        EXCESSIVE,
    ),
    ("a billion laughs", "\n".join(
        ["x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        + [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
    ), EXCESSIVE),
    ("an anchor holding itself", "a: &x {b: *x}\n",
     "error converting YAML to JSON: yaml: anchor 'x' value contains itself"),
]


@pytest.mark.parametrize(
    ("name", "document", "error"), GO_YAML_LIMIT_CASES, ids=[c[0] for c in GO_YAML_LIMIT_CASES]
)
def test_yaml_documents_get_go_yamls_verdict(name, document, error):
    if error is None:
        value, _ = decode_body(document.encode(), "application/yaml", want_duplicates=True)
        assert isinstance(value, dict)
    else:
        with pytest.raises(StatusError) as refused:
            decode_body(document.encode(), "application/yaml", want_duplicates=True)
        assert (refused.value.code, refused.value.message) == (400, error)


def _walk_like_go(root: yaml.Node) -> bool:
    """go-yaml's decode, node by node: True when it would refuse the document as excessive."""
    decode_count, alias_count = 1, 0
    home: dict[int, tuple[int, int]] = {}
    stack: list[tuple[yaml.Node, tuple[int, int], int]] = [(root, (0, 0), 0)]
    while stack:
        node, place, alias_depth = stack.pop()
        if home.setdefault(id(node), place) != place:
            decode_count += 1
            alias_count += alias_depth > 0
            alias_depth += 1
        decode_count += 1
        alias_count += alias_depth > 0
        if (
            alias_count > 100
            and decode_count > 1000
            and alias_count / decode_count > _allowed_alias_ratio(decode_count)
        ):
            return True
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        for index in range(len(children) - 1, -1, -1):
            stack.append((children[index], (id(node), index), alias_depth))
    return False


@st.composite
def _anchored_documents(draw: st.DrawFn) -> str:
    """Anchors defined in order, each a list of scalars and aliases of earlier anchors."""
    lines = []
    for i in range(draw(st.integers(min_value=1, max_value=6))):
        fanout = draw(st.integers(min_value=1, max_value=10))
        choices = ["s"] + [f"*a{j}" for j in range(i)] + [f"*a{i - 1}"] * 3 * bool(i)
        items = draw(st.lists(st.sampled_from(choices), min_size=fanout, max_size=fanout))
        lines.append(f"a{i}: &a{i} [{', '.join(items)}]")
    plain = draw(st.integers(min_value=0, max_value=2000))
    lines.append("pad: [" + ", ".join(["p"] * plain) + "]")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, database=None)
@given(document=_anchored_documents())
def test_counting_expansions_whole_reaches_go_yamls_verdict(document):
    node = yaml.compose(document, Loader=yaml.SafeLoader)
    try:
        check_aliasing(node)
        refused = False
    except YAMLLimitError:
        refused = True
    assert refused == _walk_like_go(node)
