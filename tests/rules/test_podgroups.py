"""Guard for fakeapi.rules.podgroups: a pod names its PodGroup in either of two shapes.

``spec.workloadRef.podGroupName`` is the KEP-5729 seed shape fakeapi serves,
``spec.schedulingGroup.podGroupName`` upstream's; every component reads both alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.podgroups import group_claim_entries, may_use_group_claims, pod_group_name


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


GROUP = {"spec": {"resourceClaims": [
    {"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
    {"name": "nic", "resourceClaimName": "shared-nic"},
]}}


@pytest.mark.parametrize(
    ("entry", "group_entry"),
    [
        # identical to the group's entry (name and source): the group's claim (upstream)
        ({"name": "gpu", "resourceClaimTemplateName": "gpu-template"}, True),
        ({"name": "nic", "resourceClaimName": "shared-nic"}, True),
        # the same name with another source, or the same source under another name: the pod's own
        ({"name": "gpu", "resourceClaimTemplateName": "other"}, False),
        ({"name": "gpu", "resourceClaimName": "gpu-template"}, False),
        ({"name": "gpu2", "resourceClaimTemplateName": "gpu-template"}, False),
        ({"name": "nic", "resourceClaimName": "shared-nic",
          "resourceClaimTemplateName": "t"}, False),
    ],
)
def test_an_entry_identical_to_a_group_entry_is_the_groups_claim(
    entry: dict[str, Any], group_entry: bool
) -> None:
    pod = {"spec": {"schedulingGroup": {"podGroupName": "g"}, "resourceClaims": [entry]}}
    [resolved] = group_claim_entries(pod, GROUP)
    expected = {"name": entry["name"], "podGroupResourceClaim": entry["name"]}
    assert resolved == (expected if group_entry else entry)


def test_the_seed_form_and_a_pod_without_its_group_are_left_as_they_are() -> None:
    seed = {"name": "gpu", "podGroupResourceClaim": "gpu"}
    own = {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}
    pod = {"spec": {"workloadRef": {"podGroupName": "g"}, "resourceClaims": [seed, own]}}
    assert group_claim_entries(pod, None) == [seed, own]
    assert may_use_group_claims(pod)
    assert not may_use_group_claims({"spec": {"resourceClaims": [own]}})  # no group
