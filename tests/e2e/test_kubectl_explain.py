"""``kubectl explain`` marks required fields as against a real cluster and reads like upstream.

Real kubectl reads the server's OpenAPI v3 documents; what it prints for the DRA kinds is checked
line by line for the ``-required-`` markers upstream's documents produce, and every description
it prints for them is checked to be free of project jargon.
"""

from __future__ import annotations

import re

import pytest

JARGON = re.compile(r"\b(fakeapi|seed|KEP-?\d*|docs/|in-process|simulated)\b", re.IGNORECASE)


@pytest.mark.parametrize(
    ("target", "required_line"),
    [
        ("resourceclaims", "spec\t<ResourceClaimSpec> -required-"),
        ("resourceclaimtemplates", "spec\t<ResourceClaimTemplateSpec> -required-"),
        ("resourceclaimtemplates.spec", "spec\t<ResourceClaimSpec> -required-"),
        ("deviceclasses", "spec\t<DeviceClassSpec> -required-"),
        ("resourceslices", "spec\t<ResourceSliceSpec> -required-"),
        ("resourceslices.spec", "driver\t<string> -required-"),
        ("resourceslices.spec", "pool\t<ResourcePool> -required-"),
        ("resourceclaims.spec.devices.requests", "name\t<string> -required-"),
        ("resourceclaims.spec.devices.requests.exactly", "deviceClassName\t<string> -required-"),
        ("resourceclaims.status.devices.conditions", "reason\t<string> -required-"),
        ("pods.spec", "containers\t<[]Container> -required-"),
        ("pods.spec.containers", "name\t<string> -required-"),
        ("priorityclasses", "value\t<integer> -required-"),
    ],
)
def test_explain_marks_upstream_required_fields(kubectl, target, required_line):
    out = kubectl("explain", target, namespaced=False)
    lines = [line.strip() for line in out.splitlines()]
    assert required_line in lines, f"{required_line!r} not in kubectl explain {target}:\n{out}"


def test_explain_of_the_claim_spec_names_the_field_and_its_type(kubectl):
    out = kubectl("explain", "resourceclaim.spec", namespaced=False)
    lines = out.splitlines()
    assert lines[:4] == [
        "GROUP:      resource.k8s.io",
        "KIND:       ResourceClaim",
        "VERSION:    v1",
        "",
    ]
    assert "FIELD: spec <ResourceClaimSpec>" in lines
    assert "devices\t<DeviceClaim>" in [line.strip() for line in lines]


@pytest.mark.parametrize(
    "target",
    [
        "resourceclaims",
        "resourceclaims.spec.reservedFor",
        "resourceclaims.status.allocation",
        "pods.spec.resourceClaims",
        "pods.spec.workloadRef",
        "pods.status",
        "resourceslices.spec.devices",
        "deviceclasses.spec",
    ],
)
def test_explain_descriptions_carry_no_project_jargon(kubectl, target):
    out = kubectl("explain", target, namespaced=False)
    match = JARGON.search(out)
    assert match is None, f"{match.group(0)!r} in kubectl explain {target}:\n{out}"
