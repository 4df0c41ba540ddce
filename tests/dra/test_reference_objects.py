"""Reference objects validate cleanly and fit the schema exactly.

Two sources: every slice, class and claim of ``tests/support/allocator_cases.yaml`` (expanded
following the file's header conventions), and example objects of the
resource.k8s.io/v1 shapes and of the seed KEPs (docs/keps.md). Each object must pass its kind's
validation with the features it uses switched on, decode with its model, and lose nothing when
pruned with ``prune_unknown_fields(schema_for(Model), obj)``.

A few allocator cases feed the allocator objects the API itself would reject (upstream's allocator
tests build them in memory and never send them to an API server): selectors without ``cel``, an
unknown allocation mode, empty constraints or counters, lone binding conditions, ranges beyond the
capacity, camel-case subrequest names (``subReq-0``) and hyphenated capacity names
(``capacity-0``). Those rejections are asserted explicitly below, so they stay visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from fakeapi.features import KNOWN_FEATURES
from fakeapi.models.device_class import DeviceClass
from fakeapi.models.device_taint_rule import DeviceTaintRule
from fakeapi.models.resource_claim import ResourceClaim, ResourceClaimTemplate
from fakeapi.models.resource_pool import ResourcePool
from fakeapi.models.resource_slice import ResourceSlice
from fakeapi.models.scheduling import PodGroup, Workload
from fakeapi.schema import prune_unknown_fields, schema_for
from fakeapi.validation import dra, dra_scheduling
from fakeapi.validation.field import FieldError

from ..support.allocator_cases import (
    device_class,
    load_allocator_cases,
    resource_claim,
    resource_slice,
)

ALL_ON = {name: (spec.default if spec.locked else True) for name, spec in KNOWN_FEATURES.items()}
# milli-unit ranges change how ranges are checked; the cases use whole numbers either way
CASES = load_allocator_cases()

# --- what the API rejects in upstream's allocator test data ----------------------------------

#: (case, object name) -> the (field, reason) pairs the API reports, beyond naming quirks
API_REJECTS: dict[tuple[str, str], list[tuple[str, str]]] = {
    ("empty-device-class-name", "claim-0"): [
        ("spec.devices.requests[0].exactly.deviceClassName", "FieldValueRequired")
    ],
    ("selector-without-cel", "claim-0"): [
        ("spec.devices.requests[0].exactly.selectors[0].cel", "FieldValueRequired")
    ],
    ("unknown-allocation-mode", "claim-0"): [
        ("spec.devices.requests[0].exactly.allocationMode", "FieldValueNotSupported")
    ],
    ("empty-constraint", "claim-0"): [("spec.devices.constraints[0]", "FieldValueRequired")],
    ("cel-undeclared-variable-in-class", "class-a"): [
        ("spec.selectors[0].cel.expression", "FieldValueInvalid")
    ],
    ("unknown-counter-set-invalid-pool", "slice-1"): [
        ("spec.devices[0].consumesCounters[0].counters", "FieldValueRequired")
    ],
    ("unknown-counter-set-invalid-pool", "slice-2"): [
        ("spec.sharedCounters[0].counters", "FieldValueRequired")
    ],
    ("pools-with-binding-conditions-searched-last", "slice-3"): [
        ("spec.devices[0].bindingFailureConditions", "FieldValueInvalid")
    ],
    ("distinct-attribute-one-shared-device", "slice-1"): [
        ("spec.devices[0].capacity[capacity-0].requestPolicy.validRange.max", "FieldValueInvalid"),
        ("spec.devices[0].capacity[capacity-0].requestPolicy.validRange.step", "FieldValueInvalid"),
    ],
    ("full-shared-device-skipped", "slice-1"): [
        (
            f"spec.devices[{i}].capacity[capacity-0].requestPolicy.validRange.{f}",
            "FieldValueInvalid",
        )
        for i in (0, 1)
        for f in ("max", "step")
    ],
}

_QUIRK_NAMES = re.compile(r"^(subReq-\d+|capacity-\d+)$")


def _naming_quirk(error: FieldError) -> bool:
    """An upstream test name the API rejects (camel-case label, hyphenated C identifier)."""
    return isinstance(error.value, str) and bool(_QUIRK_NAMES.match(error.value))


def _case_objects() -> list[tuple[str, str, str, dict[str, Any]]]:
    out = []
    for case in CASES:
        for spec in case.get("slices") or []:
            out.append((case["name"], "slice", spec["name"], resource_slice(spec)))
        for spec in case.get("classes") or []:
            out.append((case["name"], "class", spec["name"], device_class(spec)))
        for spec in case.get("claims") or []:
            out.append(
                (case["name"], "claim", spec["name"], resource_claim(spec, namespace="default"))
            )
    return out


CASE_OBJECTS = _case_objects()
VALIDATORS: dict[str, tuple[type[BaseModel], Callable[[dict[str, Any]], list[FieldError]]]] = {
    "slice": (ResourceSlice, lambda o: dra.validate_resource_slice(o, gates=ALL_ON)),
    "class": (DeviceClass, lambda o: dra.validate_device_class(o, gates=ALL_ON)),
    "claim": (ResourceClaim, lambda o: dra.validate_resource_claim(o, gates=ALL_ON)),
}


def assert_fits_schema(model: type[BaseModel], obj: dict[str, Any]) -> None:
    pruned, unknown = prune_unknown_fields(schema_for(model), obj)
    assert unknown == []
    assert pruned == obj
    model.model_validate(obj)


@pytest.mark.parametrize(
    ("case", "kind", "name", "obj"),
    CASE_OBJECTS,
    ids=[f"{c}/{k}/{n}" for c, k, n, _ in CASE_OBJECTS],
)
def test_allocator_case_object_is_valid(
    case: str, kind: str, name: str, obj: dict[str, Any]
) -> None:
    model, validate = VALIDATORS[kind]
    assert_fits_schema(model, obj)
    errors = [e for e in validate(obj) if not _naming_quirk(e)]
    expected = API_REJECTS.get((case, name), [])
    assert sorted((e.field, e.reason) for e in errors) == sorted(expected), [str(e) for e in errors]


def test_every_expected_rejection_belongs_to_a_case_object() -> None:
    known = {(case, name) for case, _, name, _ in CASE_OBJECTS}
    assert set(API_REJECTS) <= known


def test_naming_quirks_are_the_only_other_rejections() -> None:
    quirks = {
        str(e.value)
        for _, kind, _, obj in CASE_OBJECTS
        for e in VALIDATORS[kind][1](obj)
        if _naming_quirk(e)
    }
    assert quirks <= {"subReq-0", "subReq-1", "capacity-0", "capacity-1"}


# --- example objects: the v1 shapes and the seed KEPs ---------------------------------------

EXAMPLES = yaml.safe_load_all("""
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 2}
  nodeName: node-1
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      gpu.example.com/numa: {int: 0}
      driverVersion: {version: 1.2.3}
      gpu.example.com/profile: {string: full}
    capacity:
      memory:
        value: 40Gi
        requestPolicy:
          default: 1Gi
          validValues: [1Gi, 2Gi]
    consumesCounters:
    - counterSet: gpu-0-counters
      counters: {memory: {value: 10Gi}}
    taints:
    - {key: k, value: v, effect: NoSchedule, timeAdded: "2026-01-01T00:00:00Z"}
    bindsToNode: true
    bindingConditions: [Attached]
    bindingFailureConditions: [Failed]
    allowMultipleAllocations: true
  - name: gpu-1
    capacity:
      memory:
        value: 40Gi
        requestPolicy:
          default: 1Gi
          validRange: {min: 1Gi, max: 8Gi, step: 1Gi}
    allowMultipleAllocations: true
    nodeAllocatableResources:
      cpu:
        mapping: {capacityKey: memory, capacityMultiplier: "1"}
        overhead: {perPod: 100m, perContainer: 10m}
  partitionTypeAttribute: gpu.example.com/profile
  skipNodeOperations: [NodePrepareResources, NodeUnprepareResources]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu-counters}
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 2}
  nodeName: node-1
  sharedCounters:
  - name: gpu-0-counters
    counters: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: network-attached}
spec:
  driver: nic.example.com
  pool: {name: rack-1/switch-1, generation: 0, resourceSliceCount: 1}
  perDeviceNodeSelection: true
  devices:
  - {name: nic-0, nodeName: node-1}
  - name: nic-1
    nodeSelector:
      nodeSelectorTerms: [{matchExpressions: [{key: region, operator: In, values: [r1]}]}]
  - {name: nic-2, allNodes: true}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  config: [{opaque: {driver: gpu.example.com, parameters: {sharing: timeSliced}}}]
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu-claim, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].numa == 0'}}]
        allocationMode: ExactCount
        count: 1
        adminAccess: true
        tolerations:
        - {key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 30}
        capacity: {requests: {memory: 2Gi}}
    - name: nic
      firstAvailable:
      - {name: big, deviceClassName: nic.example.com, allocationMode: ExactCount, count: 2}
      - {name: small, deviceClassName: nic.example.com, allocationMode: All}
    constraints:
    - requests: [gpu, nic/big]
      matchAttribute: gpu.example.com/numa
    - distinctAttribute: gpu.example.com/numa
    config:
    - requests: [gpu]
      opaque: {driver: gpu.example.com, parameters: {mode: exclusive}}
status:
  allocation:
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-1
        device: gpu-0
        adminAccess: true
        tolerations: [{key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 30}]
        bindingConditions: [Attached]
        bindingFailureConditions: [Failed]
        shareID: 0b8a6c52-6a53-4b8e-9d33-9a4f3e2f6a11
        consumedCapacity: {memory: 2Gi}
      - {request: nic/big, driver: nic.example.com, pool: rack-1/switch-1, device: nic-0}
      - {request: nic/big, driver: nic.example.com, pool: rack-1/switch-1, device: nic-2}
      config:
      - source: FromClass
        requests: [gpu]
        opaque: {driver: gpu.example.com, parameters: {sharing: timeSliced}}
      - source: FromClaim
        requests: [gpu]
        opaque: {driver: gpu.example.com, parameters: {mode: exclusive}}
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]
    allocationTimestamp: "2026-01-01T00:00:00Z"
  reservedFor:
  - {apiGroup: "", resource: pods, name: p, uid: 6f1f3c43-1c1e-4c57-8d8e-4d8a3f7b9c22}
  devices:
  - driver: gpu.example.com
    pool: node-1
    device: gpu-0
    shareID: 0b8a6c52-6a53-4b8e-9d33-9a4f3e2f6a11
    conditions:
    - type: Ready
      status: "True"
      reason: Prepared
      message: ""
      lastTransitionTime: "2026-01-01T00:00:00Z"
    data: {health: ok}
    networkData: {interfaceName: eth1, ips: [10.0.0.1/24], hardwareAddress: "00:11:22:33:44:55"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: pg-claim-template, namespace: default}
spec:
  metadata:
    labels: {app: training}
    annotations: {example.com/owner: team-a}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: gpu-0-broken}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
  taint: {key: example.com/broken, value: ecc, effect: NoExecute, timeAdded: "2026-01-01T00:00:00Z"}
status:
  conditions:
  - type: EvictionInProgress
    status: "False"
    reason: Completed
    message: ""
    lastTransitionTime: "2026-01-01T00:00:00Z"
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: my-workload, namespace: default}
spec:
  podGroupTemplates:
  - name: group-1
    policy: {basic: {}}
    resourceClaims:
    - name: pg-claim
      resourceClaimTemplateName: pg-claim-template
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: PodGroup
metadata: {name: my-podgroup-1, namespace: default}
spec:
  workloadRef: {name: my-workload}
  podGroupTemplateRef: {name: group-1}
  resourceClaims:
  - name: pg-claim
    resourceClaimTemplateName: pg-claim-template
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: jobset-claim, namespace: default}
spec:
  reservedFor:
    apiGroup: example.com
    resource: jobsets
    name: my-job
    uid: 6f1f3c43-1c1e-4c57-8d8e-4d8a3f7b9c22
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}}
status:
  allocation:
    reservedForAnyPod: true
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]
  reservedFor:
  - apiGroup: example.com
    resource: jobsets
    name: my-job
    uid: 6f1f3c43-1c1e-4c57-8d8e-4d8a3f7b9c22
---
apiVersion: resource.k8s.io/v1beta2
kind: ResourcePool
metadata: {name: example.com-gpu.node-1}
spec:
  driver: example.com/gpu
  poolName: node-1
  nodeName: node-1
status:
  summary:
    totalDevices: 4
    allocatedDevices: 3
    availableDevices: 1
    unavailableDevices: 0
    partiallyAllocatedDevices: 0
  conditions:
  - type: Complete
    status: "True"
    reason: AllSlicesPresent
    message: All slices of the pool are present
    lastTransitionTime: "2026-01-01T00:00:00Z"
  - type: Valid
    status: "True"
    reason: ValidationPassed
    message: ""
    lastTransitionTime: "2026-01-01T00:00:00Z"
  validationErrors: []
  truncatedErrorCount: 0
  observedSliceCount: 1
  expectedSliceCount: 1
  observedGeneration: 5
  lastUpdateTime: "2026-01-01T00:00:00Z"
""")
EXAMPLE_OBJECTS: list[dict[str, Any]] = list(EXAMPLES)


def _without_status(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"metadata": obj["metadata"], "spec": obj["spec"]}


def _validate_example(obj: dict[str, Any]) -> list[FieldError]:
    kind = obj["kind"]
    if kind == "ResourceSlice":
        return dra.validate_resource_slice(obj, gates=ALL_ON)
    if kind == "DeviceClass":
        return dra.validate_device_class(obj, gates=ALL_ON)
    if kind == "ResourceClaim":
        return dra.validate_resource_claim(
            obj, gates=ALL_ON
        ) + dra.validate_resource_claim_status_update(obj, _without_status(obj))
    if kind == "ResourceClaimTemplate":
        return dra.validate_resource_claim_template(obj, gates=ALL_ON)
    if kind == "DeviceTaintRule":
        return dra.validate_device_taint_rule(obj) + dra.validate_device_taint_rule_status_update(
            obj
        )
    if kind == "Workload":
        return dra_scheduling.validate_workload(obj)
    if kind == "PodGroup":
        return dra_scheduling.validate_pod_group(
            obj
        ) + dra_scheduling.validate_pod_group_status_update(obj)
    if kind == "ResourcePool":
        return dra.validate_resource_pool(obj)
    raise AssertionError(kind)


MODELS: dict[str, type[BaseModel]] = {
    "ResourceSlice": ResourceSlice,
    "DeviceClass": DeviceClass,
    "ResourceClaim": ResourceClaim,
    "ResourceClaimTemplate": ResourceClaimTemplate,
    "DeviceTaintRule": DeviceTaintRule,
    "Workload": Workload,
    "PodGroup": PodGroup,
    "ResourcePool": ResourcePool,
}


@pytest.mark.parametrize(
    "obj", EXAMPLE_OBJECTS, ids=[f"{o['kind']}/{o['metadata']['name']}" for o in EXAMPLE_OBJECTS]
)
def test_reference_example_is_valid_and_fits_schema(obj: dict[str, Any]) -> None:
    assert_fits_schema(MODELS[obj["kind"]], obj)
    assert [str(e) for e in _validate_example(obj)] == []


def test_every_served_kind_has_an_example() -> None:
    assert {o["kind"] for o in EXAMPLE_OBJECTS} == set(MODELS)
