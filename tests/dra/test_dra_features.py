"""Feature gates: defaults, the --feature-gates flag, and dropping fields of disabled gates."""

from __future__ import annotations

import pytest

from fakeapi.features import (
    EMULATED_VERSION,
    KNOWN_FEATURES,
    FeatureGateError,
    GatedFields,
    default_gates,
    drop_disabled_fields,
    drop_field,
    enabled,
    field_in_use,
    parse_feature_gates,
)


@pytest.mark.parametrize(
    ("gate", "default"),
    [
        ("DynamicResourceAllocation", True),
        ("DRAAdminAccess", True),
        ("DRAPrioritizedList", True),
        ("DRAResourceClaimDeviceStatus", True),
        ("DRADeviceTaints", True),
        ("DRADeviceTaintRules", True),
        ("DRAPartitionableDevices", True),
        ("DRAConsumableCapacity", True),
        ("DRADeviceBindingConditions", True),
        ("DRAExtendedResource", True),
        ("DRAListTypeAttributes", False),
        ("DRAWorkloadResourceClaims", False),
        ("DRAFractionalCapacityRange", False),
        ("GenericWorkload", True),
        ("WorkloadPodGroupResourceClaimTemplate", True),
        ("DRAReservedForWorkloads", True),
        ("DRAResourceAvailabilityVisibility", True),
        ("ResourceHealthStatus", True),
    ],
)
def test_defaults_are_kubernetes_1_37_with_seed_features_on(gate: str, default: bool) -> None:
    assert default_gates()[gate] is default


def test_the_emulated_release_is_1_37() -> None:
    assert str(EMULATED_VERSION) == "1.37"
    assert EMULATED_VERSION.git_version == "v1.37.0"


@pytest.mark.parametrize("gate", ["DRAPrioritizedList", "DRAResourceClaimDeviceStatus"])
def test_gates_that_went_ga_and_locked_in_1_37_cannot_be_turned_off(gate: str) -> None:
    with pytest.raises(FeatureGateError, match=f"cannot set feature gate {gate} to false"):
        parse_feature_gates(f"{gate}=false")


def test_the_allocator_takes_its_defaults_from_the_one_table() -> None:
    from fakeapi.scheduler.plugins.dynamic_resources import DEFAULT_GATES, AllocatorFeatures

    assert dict(DEFAULT_GATES) == {name: default_gates()[name] for name in DEFAULT_GATES}
    assert AllocatorFeatures.from_gates() == AllocatorFeatures.from_gates(default_gates())


def test_flag_overrides_defaults() -> None:
    gates = parse_feature_gates("DRAListTypeAttributes=true, DRADeviceTaints=false,")
    assert gates["DRAListTypeAttributes"] is True
    assert gates["DRADeviceTaints"] is False
    assert gates["DRAConsumableCapacity"] is True
    assert set(gates) == set(KNOWN_FEATURES)


def test_go_bool_spellings_are_accepted() -> None:
    gates = parse_feature_gates(
        "DRAListTypeAttributes=1,DRADeviceTaints=F,DRAConsumableCapacity=FALSE"
    )
    assert (
        gates["DRAListTypeAttributes"],
        gates["DRADeviceTaints"],
        gates["DRAConsumableCapacity"],
    ) == (True, False, False)


def test_empty_flag_means_defaults() -> None:
    assert parse_feature_gates("") == default_gates()


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("NoSuchGate=true", "unrecognized feature gate: NoSuchGate"),
        ("DRADeviceTaints", "missing bool value for DRADeviceTaints"),
        (
            "DRADeviceTaints=yes",
            "invalid value of DRADeviceTaints=yes, err: "
            'strconv.ParseBool: parsing "yes": invalid syntax',
        ),
        (
            "DRAAdminAccess=false",
            "cannot set feature gate DRAAdminAccess to false, feature is locked to true",
        ),
    ],
)
def test_bad_flags_are_rejected_with_upstream_messages(flag: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as info:
        parse_feature_gates(flag)
    assert str(info.value) == message


def test_locked_gate_may_be_set_to_its_default() -> None:
    assert parse_feature_gates("DRAAdminAccess=true")["DRAAdminAccess"] is True


def test_missing_gate_falls_back_to_its_default() -> None:
    assert enabled({}, "DRAPrioritizedList") is True
    assert enabled({}, "DRAListTypeAttributes") is False
    assert enabled({"DRAPrioritizedList": False}, "DRAPrioritizedList") is False
    assert enabled({}, "Unknown") is False


def test_field_paths_with_wildcards() -> None:
    obj = {
        "spec": {
            "devices": [
                {"name": "a", "capacity": {"m": {"value": "1", "requestPolicy": {}}}},
                {"name": "b", "capacity": {"m": {"value": "1", "requestPolicy": {"default": "1"}}}},
            ]
        }
    }
    assert field_in_use(obj, "spec.devices[*].capacity{*}.requestPolicy")
    assert not field_in_use(obj, "spec.devices[*].taints")
    drop_field(obj, "spec.devices[*].capacity{*}.requestPolicy")
    assert obj == {
        "spec": {
            "devices": [
                {"name": "a", "capacity": {"m": {"value": "1"}}},
                {"name": "b", "capacity": {"m": {"value": "1"}}},
            ]
        }
    }


@pytest.mark.parametrize(
    ("obj", "path", "in_use", "after"),
    [
        # the parent is absent, null, or of another type: nothing is addressed
        ({}, "spec.devices[*].taints", False, {}),
        ({"spec": None}, "spec.x", False, {"spec": None}),
        ({"spec": []}, "spec.x", False, {"spec": []}),
        ({"spec": {"devices": {"a": 1}}}, "spec.devices[*].x", False,
         {"spec": {"devices": {"a": 1}}}),
        ({"spec": {"m": [1]}}, "spec.m{*}.x", False, {"spec": {"m": [1]}}),
        # items that are not objects, or lack the field, are skipped; the others are addressed
        ({"s": {"l": [None, 3, {"x": 1}, {"y": 2}, {"x": []}]}}, "s.l[*].x", True,
         {"s": {"l": [None, 3, {}, {"y": 2}, {}]}}),
        # wildcards nested in wildcards
        ({"l": [{"m": {"a": {"x": 0}, "b": {}}}, {"m": {"c": {"x": None}}}]}, "l[*].m{*}.x", True,
         {"l": [{"m": {"a": {}, "b": {}}}, {"m": {"c": {}}}]}),
        # a path ending in a wildcard addresses no field of a dict
        ({"l": [1, 2]}, "l[*]", False, {"l": [1, 2]}),
        # a field holding only empty values is there but not in use; dropping removes it
        ({"a": {"b": {}}}, "a.b", False, {"a": {}}),
    ],
)
def test_field_paths_address_every_match(
    obj: dict[str, object], path: str, in_use: bool, after: dict[str, object]
) -> None:
    assert field_in_use(obj, path) is in_use
    drop_field(obj, path)
    assert obj == after


def test_empty_values_do_not_count_as_in_use() -> None:
    assert not field_in_use({"status": {"devices": []}}, "status.devices")
    assert field_in_use({"spec": {"x": False}}, "spec.x")
    assert not field_in_use(None, "spec.x")


RULE = GatedFields(("DRADeviceTaints",), ("spec.devices[*].taints",))


def test_disabled_fields_dropped_on_create() -> None:
    new = {"spec": {"devices": [{"name": "a", "taints": [{"key": "k"}]}]}}
    drop_disabled_fields(new, None, gates={"DRADeviceTaints": False}, rules=[RULE])
    assert new == {"spec": {"devices": [{"name": "a"}]}}


def test_disabled_fields_kept_when_old_object_uses_them() -> None:
    old = {"spec": {"devices": [{"name": "a", "taints": [{"key": "k"}]}]}}
    new = {
        "spec": {
            "devices": [
                {"name": "a", "taints": [{"key": "k"}]},
                {"name": "b", "taints": [{"key": "j"}]},
            ]
        }
    }
    drop_disabled_fields(new, old, gates={"DRADeviceTaints": False}, rules=[RULE])
    assert len(new["spec"]["devices"][1]["taints"]) == 1


def test_enabled_fields_are_kept() -> None:
    new = {"spec": {"devices": [{"name": "a", "taints": [{"key": "k"}]}]}}
    drop_disabled_fields(new, None, gates={}, rules=[RULE])
    assert new["spec"]["devices"][0]["taints"]


def test_fields_needing_two_gates_dropped_when_either_is_off() -> None:
    rule = GatedFields(
        ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"), ("spec.bindsToNode",)
    )
    new = {"spec": {"bindsToNode": True}}
    drop_disabled_fields(new, None, gates={"DRAResourceClaimDeviceStatus": False}, rules=[rule])
    assert new == {"spec": {}}
