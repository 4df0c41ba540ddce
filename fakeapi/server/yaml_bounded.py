"""YAML request bodies decoded at a bounded cost, with go-yaml's limits and messages.

kube-apiserver reads YAML through sigs.k8s.io/yaml over go-yaml, which refuses a document whose
decode is mostly alias expansion ("billion laughs": a few hundred bytes of nested anchors that
expand to billions of nodes) and one nested deeper than 10000 levels. PyYAML has no alias limit
(libyaml under it stops nesting at 1000 levels): it shares the node of an anchor between its
aliases, so it builds such a document cheaply, and the expansion happens later, in whatever walks
the value (copying it, finding duplicate keys, encoding it), which then holds the event loop for
minutes.

So the composed node graph is checked once, before anything is constructed from it, counting
nodes as go-yaml's decoder counts them (``decodeCount``, and ``aliasCount`` for the nodes reached
through an alias) and failing as it fails: once more than 100 aliased nodes and 1000 nodes in all
have been seen and the aliased share passes ``allowedAliasRatio`` (99% up to 400,000 nodes,
falling to 10% at 4,000,000). A document that passes expands to at most about 400,000 aliased
nodes beyond its own (for any body under the 3 MiB limit), so everything after the check stays
bounded, and the check itself visits each written node once (:func:`check_aliasing`). An alias
inside its own anchor (``a: &x {b: *x}``) is refused as go-yaml refuses it, instead of becoming a
cyclic value.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = ["MAX_DEPTH", "YAMLLimitError", "bounded_loader", "check_aliasing"]

#: go-yaml's limit on nesting (``max_depth``)
MAX_DEPTH = 10_000
_RATIO_LOW = 400_000
_RATIO_HIGH = 4_000_000
_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YAMLLimitError(yaml.YAMLError):
    """A document over go-yaml's limits; ``str()`` is go-yaml's message."""


def _allowed_alias_ratio(decode_count: int) -> float:
    if decode_count <= _RATIO_LOW:
        return 0.99
    if decode_count >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decode_count - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW)


def _anchor_name(node: yaml.Node, text: str | None) -> str:
    """The anchor a node was defined with, read back from the text at its start (libyaml's
    marks carry no text, so the loader passes the document's)."""
    mark = node.start_mark
    buffer = getattr(mark, "buffer", None)
    source = buffer if isinstance(buffer, str) else text
    if source is not None:
        found = _ANCHOR.match(source, mark.index)
        if found:
            return found.group(1)
    return ""


def check_aliasing(root: yaml.Node, *, text: str | None = None) -> None:
    """Count the composed graph as go-yaml's decoder would, raising :class:`YAMLLimitError` on
    excessive aliasing, an anchor containing itself, or nesting past :data:`MAX_DEPTH`.

    PyYAML gives every alias of an anchor the anchor's node itself. A node's first visit, in
    document order, is where it is defined (its parent and position are recorded); an edge to a
    node from anywhere else is an alias. go-yaml decodes an alias by decoding its target again,
    every node of it counted as aliased; here each node's expanded size is computed once, after
    its children, and an alias adds its target's size in one step. That gives go-yaml's verdict
    at the cost of one visit per node of the document as written: within an expansion every node
    counted is aliased, so the aliased share only grows while the share allowed only falls, and
    checking at the end of each expansion (and at every node outside them) fails exactly the
    documents go-yaml fails.
    """
    decode_count = 1  # the document node
    alias_count = 0
    home: dict[int, tuple[int, int]] = {}
    size: dict[int, int] = {}  # expanded node count of each node whose subtree is done
    on_path: set[int] = set()

    def check() -> None:
        if (
            alias_count > 100
            and decode_count > 1000
            and alias_count / decode_count > _allowed_alias_ratio(decode_count)
        ):
            raise YAMLLimitError("yaml: document contains excessive aliasing")

    # (node, its place, nesting depth, leaving); ``leaving`` sums its children once they are done
    stack: list[tuple[yaml.Node, tuple[int, int], int, bool]] = [(root, (0, 0), 0, False)]
    while stack:
        node, place, depth, leaving = stack.pop()
        key = id(node)
        children = _children(node)
        if leaving:
            on_path.discard(key)
            total = 1
            for index, child in enumerate(children):
                total += size[id(child)]
                if home[id(child)] != (key, index):
                    total += 1  # the alias node itself
            size[key] = total
            continue
        defined = home.setdefault(key, place)
        if defined != place:  # an alias: its own node, then its target decoded again
            if key in on_path or key not in size:
                name = _anchor_name(node, text)
                raise YAMLLimitError(f"yaml: anchor '{name}' value contains itself")
            decode_count += 1
            decode_count += size[key]
            alias_count += size[key]
            check()
            continue
        decode_count += 1
        check()
        if not children:
            size[key] = 1
            continue
        if depth >= MAX_DEPTH:
            raise YAMLLimitError(f"yaml: exceeded max depth of {MAX_DEPTH}")
        on_path.add(key)
        stack.append((node, place, depth, True))
        for index in range(len(children) - 1, -1, -1):
            stack.append((children[index], (key, index), depth + 1, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def bounded_loader(base: type[yaml.SafeLoader] | None = None) -> type[yaml.SafeLoader]:
    """A safe loader class (libyaml's when installed) that checks each document with
    :func:`check_aliasing` before constructing it; ``base`` adds constructors of its own."""
    parent: type[yaml.SafeLoader] = base or _BaseLoader

    class _Bounded(parent):  # type: ignore[valid-type,misc]
        def __init__(self, stream: Any) -> None:
            self.source_text = stream if isinstance(stream, str) else None
            super().__init__(stream)

        def get_single_data(self) -> Any:
            node = self.get_single_node()
            if node is None:
                return None
            check_aliasing(node, text=self.source_text)
            return self.construct_document(node)

    return _Bounded
