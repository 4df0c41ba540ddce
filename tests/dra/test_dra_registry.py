"""Registry behaviour of the DRA and workload kinds, through their strategies' hooks.

The hooks are called in the order the generic store calls them (prepare, then validate), on
JSON-shaped objects, so these tests pin what a client sees without a running store.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.errors import StatusError
from fakeapi.features import default_gates
from fakeapi.registry.kinds.deviceclass import DeviceClassStrategy
from fakeapi.registry.kinds.devicetaintrule import DeviceTaintRuleStrategy
from fakeapi.registry.kinds.podgroup import PodGroupStrategy
from fakeapi.registry.kinds.resourceclaim import ResourceClaimStrategy, claim_state
from fakeapi.registry.kinds.resourceclaimtemplate import ResourceClaimTemplateStrategy
from fakeapi.registry.kinds.resourcepool import CONTROLLER_FIELD_MANAGER, ResourcePoolStrategy
from fakeapi.registry.kinds.resourceslice import ResourceSliceStrategy
from fakeapi.registry.kinds.workload import WorkloadStrategy
from fakeapi.registry.strategy import Strategy, WriteContext
from fakeapi.validation.field import FieldError

from ..registry.strategy_steps import prepare_new

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
LATER = datetime(2026, 3, 1, 13, 0, 0, tzinfo=UTC)
UID = "0b8a6c52-6a53-4b8e-9d33-9a4f3e2f6a11"


def ctx(
    *,
    now: datetime = NOW,
    manager: str = "kubectl-create",
    labels: Callable[[str], Mapping[str, str] | None] | None = None,
    **gates: bool,
) -> WriteContext:
    return WriteContext(
        now=now,
        feature_gates={**default_gates(), **gates},
        field_manager=manager,
        namespace_labels=labels,
    )


def namespace_labels(
    labels: Mapping[str, str] | None,
) -> Callable[[str], Mapping[str, str] | None]:
    """A namespace lookup that answers ``labels`` for every namespace."""
    return lambda _namespace: labels


def create(
    strategy: Strategy, obj: dict[str, Any], context: WriteContext | None = None
) -> list[str]:
    context = context or ctx()
    prepare_new(strategy, obj, context)
    return [str(e) for e in strategy.validate(obj, context)]


def update(
    strategy: Strategy,
    new: dict[str, Any],
    old: dict[str, Any],
    context: WriteContext | None = None,
) -> list[str]:
    """A main-resource update as the store runs it: old status restored first."""
    context = context or ctx()
    if strategy.status_subresource:
        new.pop("status", None)
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])
    strategy.prepare_for_update(new, old, context)
    return [str(e) for e in strategy.validate_update(new, old, context)]


def status_update(
    strategy: Strategy,
    new: dict[str, Any],
    old: dict[str, Any],
    context: WriteContext | None = None,
) -> list[str]:
    """A status write as the store runs it: everything but status comes from the old object."""
    context = context or ctx()
    merged = copy.deepcopy(old)
    merged["status"] = copy.deepcopy(new.get("status"))
    new.clear()
    new.update(merged)
    strategy.prepare_for_status_update(new, old, context)
    return [str(e) for e in strategy.validate_status_update(new, old, context)]


def claim(**exactly: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {
            "devices": {
                "requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", **exactly}}
                ]
            }
        },
    }


def allocation(*, admin: bool = False, device: str = "gpu-0") -> dict[str, Any]:
    result: dict[str, Any] = {
        "request": "gpu",
        "driver": "gpu.example.com",
        "pool": "node-1",
        "device": device,
    }
    if admin:
        result["adminAccess"] = True
    return {"devices": {"results": [result]}}


def stored_claim(**status: Any) -> dict[str, Any]:
    obj = claim()
    prepare_new(ResourceClaimStrategy(), obj, ctx())
    obj["metadata"]["uid"] = UID
    if status:
        obj["status"] = status
    return obj


def slice_(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "driver": "gpu.example.com",
        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": [{"name": "gpu-0"}],
    }
    base.update(spec)
    return {"metadata": {"name": "s", "creationTimestamp": "2026-03-01T11:00:00Z"}, "spec": base}


# --- ResourceClaim ---------------------------------------------------------------------------


class TestResourceClaimCreate:
    def test_status_is_reset(self) -> None:
        obj = claim()
        obj["status"] = {"allocation": allocation()}
        assert create(ResourceClaimStrategy(), obj) == []
        assert "status" not in obj

    def test_requests_are_defaulted(self) -> None:
        obj = claim(tolerations=[{"key": "k", "value": "v"}])
        obj["spec"]["devices"]["requests"].append(
            {
                "name": "nic",
                "firstAvailable": [{"name": "a", "deviceClassName": "c", "allocationMode": "All"}],
            }
        )
        assert create(ResourceClaimStrategy(), obj) == []
        exactly = obj["spec"]["devices"]["requests"][0]["exactly"]
        assert exactly["allocationMode"] == "ExactCount"
        assert exactly["count"] == 1
        assert exactly["tolerations"][0]["operator"] == "Equal"
        sub = obj["spec"]["devices"]["requests"][1]["firstAvailable"][0]
        assert sub == {"name": "a", "deviceClassName": "c", "allocationMode": "All"}

    def test_explicit_zero_count_defaults_to_one(self) -> None:
        obj = claim(count=0)
        assert create(ResourceClaimStrategy(), obj) == []
        assert obj["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1

    def test_first_available_dropped_when_prioritized_list_disabled(self) -> None:
        obj: dict[str, Any] = {
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "nic", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}
                    ]
                }
            },
        }
        errs = create(ResourceClaimStrategy(), obj, ctx(DRAPrioritizedList=False))
        assert "firstAvailable" not in obj["spec"]["devices"]["requests"][0]
        assert errs == [
            "spec.devices.requests[0]: Required value: exactly one of `exactly` or "
            "`firstAvailable` is required"
        ]

    def test_admin_access_dropped_when_gate_disabled(self) -> None:
        obj = claim(adminAccess=True)
        assert create(ResourceClaimStrategy(), obj, ctx(DRAAdminAccess=False)) == []
        assert "adminAccess" not in obj["spec"]["devices"]["requests"][0]["exactly"]

    def test_reserved_for_dropped_without_seed_gate(self) -> None:
        obj = claim()
        obj["spec"]["reservedFor"] = {
            "resource": "jobsets",
            "apiGroup": "x.io",
            "name": "j",
            "uid": UID,
        }
        assert create(ResourceClaimStrategy(), obj, ctx(DRAReservedForWorkloads=False)) == []
        assert "reservedFor" not in obj["spec"]

    def test_reserved_for_kept_with_seed_gate(self) -> None:
        obj = claim()
        obj["spec"]["reservedFor"] = {
            "resource": "jobsets",
            "apiGroup": "x.io",
            "name": "j",
            "uid": UID,
        }
        assert create(ResourceClaimStrategy(), obj) == []
        assert obj["spec"]["reservedFor"]["resource"] == "jobsets"

    def test_admin_access_needs_namespace_label(self) -> None:
        strategy = ResourceClaimStrategy()
        lookup = namespace_labels({"team": "a"})
        assert create(strategy, claim(adminAccess=True), ctx(labels=lookup)) == [
            "spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the "
            "`resource.kubernetes.io/admin-access: true` label on the containing namespace"
        ]

    def test_admin_access_allowed_in_labelled_namespace(self) -> None:
        labels = {"ns": {"resource.kubernetes.io/admin-access": "true"}}
        strategy = ResourceClaimStrategy()
        lookup = labels.get
        assert create(strategy, claim(adminAccess=True), ctx(labels=lookup)) == []

    def test_admin_access_false_needs_no_label(self) -> None:
        strategy = ResourceClaimStrategy()
        lookup = namespace_labels({})
        assert create(strategy, claim(adminAccess=False), ctx(labels=lookup)) == []

    def test_admin_access_in_missing_namespace_is_internal_error(self) -> None:
        strategy = ResourceClaimStrategy()
        lookup = namespace_labels(None)
        obj = claim(adminAccess=True)
        prepare_new(strategy, obj, ctx())
        errs = strategy.validate(obj, ctx(labels=lookup))
        assert [e.reason for e in errs] == ["InternalError"]
        assert "could not retrieve namespace to verify admin access" in str(errs[0])


class TestResourceClaimUpdate:
    def test_spec_is_immutable(self) -> None:
        old = stored_claim()
        new = copy.deepcopy(old)
        new["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
        errs = update(ResourceClaimStrategy(), new, old)
        assert len(errs) == 1 and errs[0].startswith("spec: Invalid value: {")
        assert errs[0].endswith(": field is immutable")

    def test_metadata_only_change_is_accepted(self) -> None:
        old = stored_claim(allocation=allocation())
        new = copy.deepcopy(old)
        new["metadata"]["labels"] = {"a": "b"}
        del new["status"]
        assert update(ResourceClaimStrategy(), new, old) == []
        assert new["status"] == old["status"]

    def test_disabled_field_kept_when_already_in_use(self) -> None:
        old: dict[str, Any] = {
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "nic", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}
                    ]
                }
            },
        }
        prepare_new(ResourceClaimStrategy(), old, ctx())
        new = copy.deepcopy(old)
        assert update(ResourceClaimStrategy(), new, old, ctx(DRAPrioritizedList=False)) == []
        assert new["spec"]["devices"]["requests"][0]["firstAvailable"]


class TestResourceClaimStatus:
    def test_allocation_and_reservation_accepted(self) -> None:
        old = stored_claim()
        new = {
            "status": {
                "allocation": allocation(),
                "reservedFor": [{"resource": "pods", "name": "p", "uid": UID}],
            }
        }
        assert status_update(ResourceClaimStrategy(), new, old) == []

    def test_spec_changes_through_status_are_ignored(self) -> None:
        old = stored_claim()
        new = copy.deepcopy(old)
        new["spec"]["devices"]["requests"][0]["exactly"]["count"] = 5
        new["status"] = {"allocation": allocation()}
        assert status_update(ResourceClaimStrategy(), new, old) == []
        assert new["spec"] == old["spec"]

    def test_reserved_for_needs_allocation(self) -> None:
        new = {"status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": UID}]}}
        assert status_update(ResourceClaimStrategy(), new, stored_claim()) == [
            "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"
        ]

    def test_allocation_cannot_change(self) -> None:
        old = stored_claim(allocation=allocation())
        new = {"status": {"allocation": allocation(device="gpu-1")}}
        errs = status_update(ResourceClaimStrategy(), new, old)
        assert len(errs) == 1 and errs[0].startswith("status.allocation: Invalid value: ")
        assert errs[0].endswith("field is immutable")

    def test_deallocation_is_accepted(self) -> None:
        old = stored_claim(
            allocation=allocation(), reservedFor=[{"resource": "pods", "name": "p", "uid": UID}]
        )
        assert status_update(ResourceClaimStrategy(), {"status": {}}, old) == []

    def test_no_new_reservations_while_deleting(self) -> None:
        old = stored_claim(
            allocation=allocation(), reservedFor=[{"resource": "pods", "name": "p", "uid": UID}]
        )
        old["metadata"]["deletionTimestamp"] = "2026-03-01T12:00:00Z"
        new = copy.deepcopy(old)
        new["status"]["reservedFor"].append({"resource": "pods", "name": "q", "uid": "u2"})
        assert status_update(ResourceClaimStrategy(), new, old) == [
            "status.reservedFor: Forbidden: new entries may not be added while "
            "`deallocationRequested` "
            "or `deletionTimestamp` are set"
        ]

    def test_reservations_may_be_removed_while_deleting(self) -> None:
        old = stored_claim(
            allocation=allocation(),
            reservedFor=[
                {"resource": "pods", "name": "p", "uid": UID},
                {"resource": "pods", "name": "q", "uid": "u2"},
            ],
        )
        old["metadata"]["deletionTimestamp"] = "2026-03-01T12:00:00Z"
        new = copy.deepcopy(old)
        new["status"]["reservedFor"].pop()
        assert status_update(ResourceClaimStrategy(), new, old) == []

    def test_device_status_of_deallocated_device_is_dropped(self) -> None:
        old = stored_claim(
            allocation=allocation(),
            devices=[{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}],
        )
        new = {
            "status": {
                "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]
            }
        }
        assert status_update(ResourceClaimStrategy(), new, old) == []
        assert "devices" not in new["status"]

    def test_device_status_dropped_when_gate_disabled(self) -> None:
        old = stored_claim(allocation=allocation())
        new = {
            "status": {
                "allocation": allocation(),
                "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}],
            }
        }
        assert (
            status_update(
                ResourceClaimStrategy(), new, old, ctx(DRAResourceClaimDeviceStatus=False)
            )
            == []
        )
        assert "devices" not in new["status"]

    def test_newly_granted_admin_access_needs_namespace_label(self) -> None:
        strategy = ResourceClaimStrategy()
        lookup = namespace_labels({})
        new = {"status": {"allocation": allocation(admin=True)}}
        assert status_update(strategy, new, stored_claim(), ctx(labels=lookup)) == [
            "status.allocation.devices.results[0].adminAccess: Forbidden: "
            "admin access to devices requires "
            "the `resource.kubernetes.io/admin-access: true` label on the containing namespace"
        ]

    def test_admin_access_already_granted_is_not_rechecked(self) -> None:
        strategy = ResourceClaimStrategy()
        lookup = namespace_labels({})
        old = stored_claim(allocation=allocation(admin=True))
        new = {
            "status": {
                "allocation": allocation(admin=True),
                "reservedFor": [{"resource": "pods", "name": "p", "uid": UID}],
            }
        }
        assert status_update(strategy, new, old, ctx(labels=lookup)) == []

    def test_reservation_of_pod_group_and_any_pod_flag(self) -> None:
        new: dict[str, Any] = {
            "status": {
                "allocation": {**allocation(), "reservedForAnyPod": True},
                "reservedFor": [
                    {
                        "apiGroup": "scheduling.k8s.io",
                        "resource": "podgroups",
                        "name": "pg",
                        "uid": UID,
                    }
                ],
            }
        }
        assert status_update(ResourceClaimStrategy(), new, stored_claim()) == []
        assert new["status"]["allocation"]["reservedForAnyPod"] is True


@pytest.mark.parametrize(
    ("metadata", "status", "state"),
    [
        ({}, {}, "pending"),
        ({}, {"allocation": {}}, "allocated"),
        ({}, {"allocation": {}, "reservedFor": [{"uid": "u"}]}, "allocated,reserved"),
        ({"deletionTimestamp": "2026-01-01T00:00:00Z"}, {}, "deleted"),
        ({"deletionTimestamp": "2026-01-01T00:00:00Z"}, {"allocation": {}}, "deleted,allocated"),
        (
            {"deletionTimestamp": "2026-01-01T00:00:00Z"},
            {"allocation": {}, "reservedFor": [{"uid": "u"}]},
            "deleted,allocated,reserved",
        ),
    ],
)
def test_claim_state_cell(metadata: dict[str, Any], status: dict[str, Any], state: str) -> None:
    assert claim_state({"metadata": metadata, "status": status}, NOW) == state


def test_claim_columns_are_name_state_age() -> None:
    assert [c.name for c in ResourceClaimStrategy.columns] == ["Name", "State", "Age"]
    assert ResourceClaimStrategy.status_subresource and ResourceClaimStrategy.tracks_generation


# --- ResourceClaimTemplate -----------------------------------------------------------------------


def template(**exactly: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "t", "namespace": "ns"},
        "spec": {"spec": claim(**exactly)["spec"]},
    }


class TestResourceClaimTemplate:
    def test_spec_defaulted_and_valid(self) -> None:
        obj = template()
        assert create(ResourceClaimTemplateStrategy(), obj) == []
        assert obj["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1

    def test_spec_is_immutable(self) -> None:
        old = template()
        prepare_new(ResourceClaimTemplateStrategy(), old, ctx())
        new = copy.deepcopy(old)
        new["spec"]["metadata"] = {"labels": {"a": "b"}}
        errs = update(ResourceClaimTemplateStrategy(), new, old)
        assert len(errs) == 1 and errs[0].startswith("spec: Invalid value:")

    def test_admin_access_needs_namespace_label(self) -> None:
        strategy = ResourceClaimTemplateStrategy()
        lookup = namespace_labels({})
        errs = create(strategy, template(adminAccess=True), ctx(labels=lookup))
        assert errs[0].startswith("spec.devices.requests[0].adminAccess: Forbidden: admin access")

    def test_gated_fields_dropped_inside_template(self) -> None:
        obj = template(tolerations=[{"key": "k", "operator": "Exists"}])
        assert create(ResourceClaimTemplateStrategy(), obj, ctx(DRADeviceTaints=False)) == []
        assert "tolerations" not in obj["spec"]["spec"]["devices"]["requests"][0]["exactly"]


# --- ResourceSlice ---------------------------------------------------------------------------


class TestResourceSlice:
    def test_field_selectors_and_columns(self) -> None:
        strategy = ResourceSliceStrategy()
        obj = slice_()
        # upstream's field labels for ResourceSlices (spec.pool.name is not one)
        assert strategy.field_labels == ("spec.nodeName", "spec.driver")
        assert strategy.selectable_fields(obj) == {
            "spec.nodeName": "node-1",
            "spec.driver": "gpu.example.com",
        }
        assert [c.name for c in strategy.columns] == ["Name", "Node", "Driver", "Pool", "Age"]
        assert [c.cell(obj, NOW) for c in strategy.columns] == [
            "s",
            "node-1",
            "gpu.example.com",
            "node-1",
            "60m",
        ]

    def test_node_cell_without_node_name(self) -> None:
        obj = slice_(allNodes=True)
        del obj["spec"]["nodeName"]
        assert ResourceSliceStrategy.columns[1].cell(obj, NOW) == "<none>"
        assert ResourceSliceStrategy().selectable_fields(obj)["spec.nodeName"] == ""

    def test_taints_get_time_added_on_create(self) -> None:
        obj = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "taints": [
                        {"key": "k", "effect": "NoSchedule"},
                        {"key": "j", "effect": "None", "timeAdded": "2025-01-01T00:00:00Z"},
                    ],
                }
            ]
        )
        assert create(ResourceSliceStrategy(), obj) == []
        taints = obj["spec"]["devices"][0]["taints"]
        assert taints[0]["timeAdded"] == "2026-03-01T12:00:00Z"
        assert taints[1]["timeAdded"] == "2025-01-01T00:00:00Z"

    def test_taint_time_kept_across_updates(self) -> None:
        old = slice_(devices=[{"name": "gpu-0", "taints": [{"key": "k", "effect": "NoSchedule"}]}])
        prepare_new(ResourceSliceStrategy(), old, ctx())
        new = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "taints": [
                        {"key": "k", "effect": "NoSchedule"},
                        {"key": "k2", "effect": "NoExecute"},
                    ],
                }
            ]
        )
        assert update(ResourceSliceStrategy(), new, old, ctx(now=LATER)) == []
        taints = new["spec"]["devices"][0]["taints"]
        assert taints[0]["timeAdded"] == "2026-03-01T12:00:00Z"
        assert taints[1]["timeAdded"] == "2026-03-01T13:00:00Z"

    @pytest.mark.parametrize(
        ("field", "value", "path"),
        [
            ("driver", "other.example.com", "spec.driver"),
            ("nodeName", "node-2", "spec.nodeName"),
            (
                "pool",
                {"name": "node-2", "generation": 1, "resourceSliceCount": 1},
                "spec.pool.name",
            ),
        ],
    )
    def test_identity_is_immutable(self, field: str, value: Any, path: str) -> None:
        old = slice_()
        new = slice_(**{field: value})
        errs = update(ResourceSliceStrategy(), new, old)
        assert any(
            e.startswith(f"{path}: Invalid value: ") and e.endswith("field is immutable")
            for e in errs
        ), errs

    def test_pool_generation_may_change(self) -> None:
        new = slice_(pool={"name": "node-1", "generation": 2, "resourceSliceCount": 1})
        assert update(ResourceSliceStrategy(), new, slice_()) == []

    def test_taints_dropped_when_gate_disabled(self) -> None:
        obj = slice_(devices=[{"name": "gpu-0", "taints": [{"key": "k", "effect": "NoSchedule"}]}])
        assert create(ResourceSliceStrategy(), obj, ctx(DRADeviceTaints=False)) == []
        assert "taints" not in obj["spec"]["devices"][0]

    def test_taints_kept_on_update_when_in_use(self) -> None:
        old = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "taints": [
                        {"key": "k", "effect": "NoSchedule", "timeAdded": "2025-01-01T00:00:00Z"}
                    ],
                }
            ]
        )
        new = copy.deepcopy(old)
        assert update(ResourceSliceStrategy(), new, old, ctx(DRADeviceTaints=False)) == []
        assert new["spec"]["devices"][0]["taints"]

    def test_partitionable_fields_dropped_when_gate_disabled(self) -> None:
        obj = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "consumesCounters": [
                        {"counterSet": "cs", "counters": {"mem": {"value": "1Gi"}}}
                    ],
                }
            ]
        )
        assert create(ResourceSliceStrategy(), obj, ctx(DRAPartitionableDevices=False)) == []
        assert obj["spec"]["devices"] == [{"name": "gpu-0"}]

    def test_list_attributes_dropped_by_default(self) -> None:
        obj = slice_(
            devices=[{"name": "gpu-0", "attributes": {"a": {"ints": [1, 2]}, "b": {"int": 1}}}]
        )
        errs = create(ResourceSliceStrategy(), obj)
        assert obj["spec"]["devices"][0]["attributes"] == {"a": {}, "b": {"int": 1}}
        assert errs == [
            'spec.devices[0].attributes[a]: Invalid value: "": exactly one value must be specified'
        ]

    def test_request_policy_dropped_without_consumable_capacity(self) -> None:
        obj = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "allowMultipleAllocations": True,
                    "capacity": {
                        "mem": {
                            "value": "8Gi",
                            "requestPolicy": {"default": "1Gi", "validValues": ["1Gi"]},
                        }
                    },
                }
            ]
        )
        assert create(ResourceSliceStrategy(), obj, ctx(DRAConsumableCapacity=False)) == []
        assert obj["spec"]["devices"][0] == {"name": "gpu-0", "capacity": {"mem": {"value": "8Gi"}}}

    def test_upper_case_driver_warns(self) -> None:
        obj = slice_(driver="GPU.example.com")
        assert create(ResourceSliceStrategy(), obj) == []
        assert ResourceSliceStrategy().warnings_on_create(obj, ctx()) == [
            "spec.driver: driver names should be lowercase; "
            '"GPU.example.com" contains uppercase characters'
        ]

    def test_unchanged_capacity_is_not_revalidated(self) -> None:
        old = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "capacity": {
                        "mem": {
                            "value": "8Gi",
                            "requestPolicy": {"default": "1Gi", "validValues": ["1Gi"]},
                        }
                    },
                }
            ]
        )
        new = copy.deepcopy(old)
        new["spec"]["devices"].append({"name": "gpu-1"})
        assert update(ResourceSliceStrategy(), new, old) == []
        new["spec"]["devices"][0]["capacity"]["mem"]["value"] = "16Gi"
        errs = update(ResourceSliceStrategy(), copy.deepcopy(new), old)
        assert errs == [
            "spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations "
            "must be true"
        ]

    def test_unchanged_taint_effect_is_not_revalidated(self) -> None:
        old = slice_(
            devices=[
                {
                    "name": "gpu-0",
                    "taints": [
                        {"key": "k", "effect": "Evict", "timeAdded": "2025-01-01T00:00:00Z"}
                    ],
                }
            ]
        )
        assert update(ResourceSliceStrategy(), copy.deepcopy(old), old) == []


# --- DeviceClass ---------------------------------------------------------------------------------


class TestDeviceClass:
    def test_stored_selectors_are_not_recompiled(self) -> None:
        old: dict[str, Any] = {
            "metadata": {"name": "c"},
            "spec": {"selectors": [{"cel": {"expression": "noSuchVar"}}]},
        }
        new = copy.deepcopy(old)
        new["metadata"]["labels"] = {"a": "b"}
        assert update(DeviceClassStrategy(), new, old) == []
        new["spec"]["selectors"].append({"cel": {"expression": "true"}})
        errs = update(DeviceClassStrategy(), new, old)
        assert len(errs) == 1 and "undeclared reference to 'noSuchVar'" in errs[0]

    def test_stored_config_is_not_size_checked(self) -> None:
        big = {"opaque": {"driver": "d.com", "parameters": {"b": "x" * 20000}}}
        old = {"metadata": {"name": "c"}, "spec": {"config": [big]}}
        assert update(DeviceClassStrategy(), copy.deepcopy(old), old) == []
        assert "Too long" in create(DeviceClassStrategy(), copy.deepcopy(old))[0]

    def test_extended_resource_name_dropped_when_gate_disabled(self) -> None:
        obj = {"metadata": {"name": "c"}, "spec": {"extendedResourceName": "example.com/gpu"}}
        assert create(DeviceClassStrategy(), obj, ctx(DRAExtendedResource=False)) == []
        assert obj["spec"] == {}

    def test_spec_is_mutable_and_generation_tracked(self) -> None:
        assert DeviceClassStrategy.tracks_generation
        old = {"metadata": {"name": "c"}, "spec": {}}
        new = {"metadata": {"name": "c"}, "spec": {"selectors": [{"cel": {"expression": "true"}}]}}
        assert update(DeviceClassStrategy(), new, old) == []


# --- DeviceTaintRule -----------------------------------------------------------------------------


def rule(effect: str = "NoSchedule", **taint: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "r"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com"},
            "taint": {"key": "k", "effect": effect, **taint},
        },
    }


class TestDeviceTaintRule:
    def test_time_added_set_and_status_reset_on_create(self) -> None:
        obj = rule()
        obj["status"] = {"conditions": []}
        assert create(DeviceTaintRuleStrategy(), obj) == []
        assert obj["spec"]["taint"]["timeAdded"] == "2026-03-01T12:00:00Z"
        assert "status" not in obj

    def test_time_added_kept_when_effect_unchanged(self) -> None:
        old = rule(timeAdded="2025-01-01T00:00:00Z")
        new = rule(value="v")
        assert update(DeviceTaintRuleStrategy(), new, old, ctx(now=LATER)) == []
        assert new["spec"]["taint"]["timeAdded"] == "2025-01-01T00:00:00Z"

    def test_time_added_refreshed_when_effect_changes(self) -> None:
        old = rule(timeAdded="2025-01-01T00:00:00Z")
        new = rule("NoExecute", timeAdded="2025-01-01T00:00:00Z")
        assert update(DeviceTaintRuleStrategy(), new, old, ctx(now=LATER)) == []
        assert new["spec"]["taint"]["timeAdded"] == "2026-03-01T13:00:00Z"

    def test_a_time_the_client_sets_with_the_new_effect_is_kept(self) -> None:
        old = rule(timeAdded="2025-01-01T00:00:00Z")
        new = rule("NoExecute", timeAdded="2020-01-01T00:00:00Z")
        assert update(DeviceTaintRuleStrategy(), new, old, ctx(now=LATER)) == []
        assert new["spec"]["taint"]["timeAdded"] == "2020-01-01T00:00:00Z"

    def test_status_conditions_validated(self) -> None:
        old = rule()
        new = {
            "status": {
                "conditions": [
                    {
                        "type": "EvictionInProgress",
                        "status": "True",
                        "reason": "PodsPending",
                        "lastTransitionTime": "2026-03-01T12:00:00Z",
                    }
                ]
            }
        }
        assert status_update(DeviceTaintRuleStrategy(), new, old) == []
        bad = {
            "status": {
                "conditions": [
                    {
                        "type": "EvictionInProgress",
                        "status": "Maybe",
                        "reason": "X",
                        "lastTransitionTime": "2026-03-01T12:00:00Z",
                    }
                ]
            }
        }
        errs = status_update(DeviceTaintRuleStrategy(), bad, old)
        assert errs[0].startswith('status.conditions[0].status: Unsupported value: "Maybe"')


# --- ResourcePool (KEP-5677) ---------------------------------------------------------------------


def pool() -> dict[str, Any]:
    return {
        "metadata": {"name": "example.com-gpu.node-1", "creationTimestamp": "2026-03-01T11:00:00Z"},
        "spec": {"driver": "example.com/gpu", "poolName": "node-1", "nodeName": "node-1"},
    }


class TestResourcePool:
    def test_users_cannot_create(self) -> None:
        with pytest.raises(StatusError) as info:
            create(ResourcePoolStrategy(), pool(), ctx(manager="kubectl-create"))
        assert info.value.code == 403
        assert info.value.reason == "Forbidden"
        assert info.value.message.startswith(
            'resourcepools.resource.k8s.io "example.com-gpu.node-1" is forbidden: '
            "ResourcePools are "
            "maintained by the resourcepool-controller"
        )

    def test_users_cannot_update_or_write_status(self) -> None:
        old = pool()
        with pytest.raises(StatusError):
            update(ResourcePoolStrategy(), pool(), old, ctx(manager="kubectl-edit"))
        with pytest.raises(StatusError):
            status_update(ResourcePoolStrategy(), {"status": {}}, old, ctx(manager="kubectl-patch"))

    def test_controller_writes_are_accepted(self) -> None:
        controller = ctx(manager=CONTROLLER_FIELD_MANAGER)
        obj = pool()
        assert create(ResourcePoolStrategy(), obj, controller) == []
        new = {
            "status": {
                "summary": {"totalDevices": 4, "allocatedDevices": 3, "availableDevices": 1},
                "observedSliceCount": 1,
                "expectedSliceCount": 1,
                "observedGeneration": 5,
            }
        }
        assert status_update(ResourcePoolStrategy(), new, obj, controller) == []

    def test_spec_is_immutable(self) -> None:
        new = pool()
        new["spec"]["nodeName"] = "node-2"
        errs = update(ResourcePoolStrategy(), new, pool(), ctx(manager=CONTROLLER_FIELD_MANAGER))
        assert errs[0].startswith("spec: Invalid value:") and errs[0].endswith("field is immutable")

    def test_columns_and_field_labels(self) -> None:
        obj = pool()
        obj["status"] = {
            "summary": {"totalDevices": 4, "allocatedDevices": 3, "availableDevices": 1}
        }
        strategy = ResourcePoolStrategy()
        names = [c.name for c in strategy.columns if c.priority == 0]
        assert names == ["Name", "Driver", "Total", "Allocated", "Available"]
        assert [c.cell(obj, NOW) for c in strategy.columns] == [
            "example.com-gpu.node-1",
            "example.com/gpu",
            4,
            3,
            1,
            "node-1",
            "node-1",
            0,
            "60m",
        ]
        assert strategy.selectable_fields(obj) == {
            "spec.driver": "example.com/gpu",
            "spec.nodeName": "node-1",
        }


# --- Workload / PodGroup -------------------------------------------------------------------------


def workload() -> dict[str, Any]:
    return {
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {
            "podGroupTemplates": [
                {
                    "name": "group-1",
                    "policy": {"basic": {}},
                    "resourceClaims": [{"name": "pg-claim", "resourceClaimTemplateName": "t"}],
                }
            ]
        },
    }


def pod_group() -> dict[str, Any]:
    return {
        "metadata": {"name": "pg", "namespace": "ns"},
        "spec": {
            "workloadRef": {"name": "w"},
            "podGroupTemplateRef": {"name": "group-1"},
            "resourceClaims": [{"name": "pg-claim", "resourceClaimTemplateName": "t"}],
        },
    }


class TestWorkloadAndPodGroup:
    def test_workload_templates_are_immutable(self) -> None:
        new = workload()
        new["spec"]["podGroupTemplates"][0]["policy"] = {"gang": {"minCount": 2}}
        errs = update(WorkloadStrategy(), new, workload())
        assert len(errs) == 1 and errs[0].startswith("spec.podGroupTemplates: Invalid value:")

    def test_workload_controller_ref_may_be_set_once(self) -> None:
        new = workload()
        new["spec"]["controllerRef"] = {"kind": "Job", "name": "j", "apiGroup": "batch"}
        assert update(WorkloadStrategy(), new, workload()) == []
        newer = copy.deepcopy(new)
        newer["spec"]["controllerRef"]["name"] = "k"
        errs = update(WorkloadStrategy(), newer, new)
        assert errs[0].startswith("spec.controllerRef: Invalid value:")

    def test_workload_claims_dropped_without_seed_gate(self) -> None:
        obj = workload()
        assert (
            create(WorkloadStrategy(), obj, ctx(WorkloadPodGroupResourceClaimTemplate=False)) == []
        )
        assert "resourceClaims" not in obj["spec"]["podGroupTemplates"][0]

    def test_pod_group_spec_is_immutable(self) -> None:
        new = pod_group()
        new["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "other"
        errs = update(PodGroupStrategy(), new, pod_group())
        assert len(errs) == 1 and errs[0].startswith("spec.resourceClaims: Invalid value:")

    def test_pod_group_status_records_generated_claims(self) -> None:
        old = pod_group()
        assert create(PodGroupStrategy(), old) == []
        new = {
            "status": {
                "resourceClaimStatuses": [
                    {"name": "pg-claim", "resourceClaimName": "pg-pg-claim-abcde"}
                ]
            }
        }
        assert status_update(PodGroupStrategy(), new, old) == []

    def test_pod_group_claims_dropped_without_seed_gate(self) -> None:
        obj = pod_group()
        assert (
            create(PodGroupStrategy(), obj, ctx(WorkloadPodGroupResourceClaimTemplate=False)) == []
        )
        assert "resourceClaims" not in obj["spec"]


@pytest.mark.parametrize(
    ("strategy", "status", "generation"),
    [
        (ResourceClaimStrategy, True, True),
        (ResourceClaimTemplateStrategy, False, True),
        (ResourceSliceStrategy, False, True),
        (DeviceClassStrategy, False, True),
        (DeviceTaintRuleStrategy, True, True),
        (ResourcePoolStrategy, True, True),
        (WorkloadStrategy, False, True),
        (PodGroupStrategy, True, True),
    ],
)
def test_status_subresource_and_generation(
    strategy: type[Strategy], status: bool, generation: bool
) -> None:
    assert strategy.status_subresource is status
    assert strategy.tracks_generation is generation


def test_errors_are_field_errors() -> None:
    obj = claim(count=-1)
    strategy = ResourceClaimStrategy()
    prepare_new(strategy, obj, ctx())
    errs = strategy.validate(obj, ctx())
    assert all(isinstance(e, FieldError) for e in errs)
    assert errs[0].cause() == {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: -1: must be greater than zero",
        "field": "spec.devices.requests[0].exactly.count",
    }
