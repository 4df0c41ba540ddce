"""Guard for fakeapi.rules.nodes: a node's Ready condition, read alike by every component.

Cases follow component-helpers ``node/util`` (GetNodeCondition, IsNodeReady); the blank status
reading as Unknown is the node lifecycle controller's rule.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.nodes import is_node_ready, node_condition, node_ready_status


def _node(*conditions: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "n"}, "status": {"conditions": list(conditions)}}


# (description, node, Ready status, ready)
READY_CASES = [
    ("ready", _node({"type": "Ready", "status": "True"}), "True", True),
    ("not ready", _node({"type": "Ready", "status": "False"}), "False", False),
    ("unknown", _node({"type": "Ready", "status": "Unknown"}), "Unknown", False),
    ("a blank status reads as unknown", _node({"type": "Ready"}), "Unknown", False),
    ("no Ready condition", _node({"type": "MemoryPressure", "status": "False"}), "", False),
    ("no status at all", {"metadata": {"name": "n"}}, "", False),
]


@pytest.mark.parametrize(("description", "node", "status", "ready"), READY_CASES)
def test_the_ready_condition_is_read_alike(
    description: str, node: dict[str, Any], status: str, ready: bool
) -> None:
    assert node_ready_status(node) == status, description
    assert is_node_ready(node) is ready, description


def test_node_conditions_are_found_by_type() -> None:
    pressure = {"type": "MemoryPressure", "status": "False"}
    node = _node({"type": "Ready", "status": "True"}, pressure)
    assert node_condition(node, "MemoryPressure") is pressure
    assert node_condition(node, "DiskPressure") is None
