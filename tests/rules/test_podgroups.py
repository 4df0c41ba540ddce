"""Guard for fakeapi.rules.podgroups: a pod names its PodGroup in either of two shapes.

``spec.workloadRef.podGroupName`` is the KEP-5729 seed shape fakeapi serves,
``spec.schedulingGroup.podGroupName`` upstream's; every component reads both alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.podgroups import pod_group_name


@pytest.mark.parametrize(
    ("spec", "group"),
    [
        ({"workloadRef": {"name": "training", "podGroupName": "workers"}}, "workers"),
        ({"schedulingGroup": {"podGroupName": "workers"}}, "workers"),
        ({"workloadRef": {"name": "training"}, "schedulingGroup": {"podGroupName": "w"}}, "w"),
        ({"schedulingGroup": {"podGroupName": ""}}, ""),
        ({}, ""),
    ],
)
def test_a_pods_group_is_read_from_either_shape(spec: dict[str, Any], group: str) -> None:
    assert pod_group_name({"spec": spec}) == group


def test_a_pod_without_a_spec_belongs_to_no_group() -> None:
    assert pod_group_name({"metadata": {"name": "p"}}) == ""
