"""The allocator reads node selectors as upstream's does, through NewNodeSelector.

A slice whose node selector has a term that does not parse is an error, even when another term
would match the node; the message names the bad field as component-helpers does.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.scheduler.plugins.dynamic_resources import AllocationError, Node, allocate

from .test_allocator_claim_limit import DRIVER, GPU_CLASS, claim, exact

NODE = Node("node-1", {"zone": "a"})


def _slice(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": "zone-a-gpus"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": "zone-a", "generation": 1, "resourceSliceCount": 1},
            "nodeSelector": {"nodeSelectorTerms": list(terms)},
            "devices": [{"name": "gpu-0"}],
        },
    }


ZONE_A = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}


def test_a_slice_selecting_the_node_offers_its_devices() -> None:
    result = allocate(claims=[claim(exact("gpu", 1))], node=NODE, classes=[GPU_CLASS],
                      slices=[_slice(ZONE_A)])
    assert result is not None
    assert [r["device"] for r in result[0]["devices"]["results"]] == ["gpu-0"]


@pytest.mark.parametrize(
    ("bad_term", "error"),
    [
        ({"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]},
         'nodeSelectorTerms[1].matchExpressions[0].operator: Unsupported value: "Near"'),
        ({"matchExpressions": [{"key": "zone", "operator": "NotIn"}]},
         "nodeSelectorTerms[1].matchExpressions[0].values: Invalid value: null"),
        ({"matchFields": [{"key": "metadata.name", "operator": "In",
                           "values": ["node-1", "node-2"]}]},
         "nodeSelectorTerms[1].matchFields[0].values: Invalid value: "
         '["node-1","node-2"]: must have one element'),
    ],
)
def test_a_term_that_does_not_parse_fails_the_allocation_even_beside_a_matching_one(
    bad_term: dict[str, Any], error: str
) -> None:
    with pytest.raises(AllocationError) as raised:
        allocate(claims=[claim(exact("gpu", 1))], node=NODE, classes=[GPU_CLASS],
                 slices=[_slice(ZONE_A, bad_term)])
    assert "failed to parse node selector: " in str(raised.value)
    assert error in str(raised.value)
