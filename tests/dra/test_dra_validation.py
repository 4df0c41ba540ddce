"""Table-driven validation of the DRA and workload kinds: one rejected object per rule.

Each case starts from a valid object of its kind, changes one thing, and names the field path,
the reason (upstream cause type) and a piece of the message it expects. The valid starting objects
and the boundary neighbours in ``ACCEPTED`` must produce no errors at all.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from fakeapi.features import default_gates
from fakeapi.validation import dra, dra_scheduling
from fakeapi.validation.dra_common import validate_node_selector
from fakeapi.validation.field import FieldError, Path

GATES = default_gates()
UID = "0b8a6c52-6a53-4b8e-9d33-9a4f3e2f6a11"
UID2 = "6f1f3c43-1c1e-4c57-8d8e-4d8a3f7b9c22"
LONG_CEL = 'device.driver == "' + "a" * (10 * 1024 - 19) + '"'

# --- valid starting objects -------------------------------------------------------------------


def claim() -> dict[str, Any]:
    return {
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": "gpu.example.com",
                            "allocationMode": "ExactCount",
                            "count": 1,
                        },
                    },
                    {
                        "name": "nic",
                        "firstAvailable": [
                            {
                                "name": "big",
                                "deviceClassName": "nic.example.com",
                                "allocationMode": "ExactCount",
                                "count": 2,
                            },
                            {
                                "name": "small",
                                "deviceClassName": "nic.example.com",
                                "allocationMode": "ExactCount",
                                "count": 1,
                            },
                        ],
                    },
                ],
                "constraints": [
                    {"requests": ["gpu", "nic/big"], "matchAttribute": "gpu.example.com/numa"}
                ],
                "config": [
                    {
                        "requests": ["gpu"],
                        "opaque": {"driver": "gpu.example.com", "parameters": {"mode": "fast"}},
                    }
                ],
            }
        },
    }


def allocated_claim() -> dict[str, Any]:
    obj = claim()
    obj["status"] = {
        "allocation": {
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": "gpu.example.com",
                        "pool": "node-1",
                        "device": "gpu-0",
                    },
                    {
                        "request": "nic/small",
                        "driver": "nic.example.com",
                        "pool": "node-1",
                        "device": "nic-0",
                        "shareID": UID,
                    },
                ],
                "config": [
                    {
                        "source": "FromClaim",
                        "requests": ["gpu"],
                        "opaque": {"driver": "gpu.example.com", "parameters": {"mode": "fast"}},
                    }
                ],
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}
                        ]
                    }
                ]
            },
        },
        "reservedFor": [{"resource": "pods", "name": "p", "uid": UID}],
        "devices": [
            {
                "driver": "gpu.example.com",
                "pool": "node-1",
                "device": "gpu-0",
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "Prepared",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ],
                "data": {"k": "v"},
                "networkData": {
                    "interfaceName": "eth1",
                    "ips": ["10.0.0.1/24"],
                    "hardwareAddress": "00:11:22:33:44:55",
                },
            }
        ],
    }
    return obj


def template() -> dict[str, Any]:
    return {
        "metadata": {"name": "t", "namespace": "default"},
        "spec": {
            "metadata": {"labels": {"app": "x"}, "annotations": {"a": "b"}},
            "spec": claim()["spec"],
        },
    }


def device(name: str = "gpu-0") -> dict[str, Any]:
    return {
        "name": name,
        "attributes": {
            "model": {"string": "a100"},
            "numa": {"int": 0},
            "driverVersion": {"version": "1.2.3"},
        },
        "capacity": {"memory": {"value": "40Gi"}},
    }


def slice_() -> dict[str, Any]:
    return {
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [device()],
        },
    }


def shared_slice() -> dict[str, Any]:
    obj = slice_()
    obj["spec"]["devices"][0]["allowMultipleAllocations"] = True
    obj["spec"]["devices"][0]["capacity"]["memory"] = {
        "value": "8Gi",
        "requestPolicy": {
            "default": "1Gi",
            "validRange": {"min": "1Gi", "max": "8Gi", "step": "1Gi"},
        },
    }
    return obj


def values_slice() -> dict[str, Any]:
    obj = shared_slice()
    obj["spec"]["devices"][0]["capacity"]["memory"]["requestPolicy"] = {
        "default": "2Gi",
        "validValues": ["1Gi", "2Gi", "4Gi"],
    }
    return obj


def counter_slice() -> dict[str, Any]:
    obj = slice_()
    obj["spec"]["devices"][0]["consumesCounters"] = [
        {"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "10Gi"}}}
    ]
    return obj


def per_device_slice() -> dict[str, Any]:
    obj = slice_()
    del obj["spec"]["nodeName"]
    obj["spec"]["perDeviceNodeSelection"] = True
    obj["spec"]["devices"][0]["nodeName"] = "node-1"
    return obj


def counter_sets_slice() -> dict[str, Any]:
    obj = slice_()
    del obj["spec"]["devices"]
    obj["spec"]["sharedCounters"] = [
        {"name": "gpu-0-counters", "counters": {"memory": {"value": "40Gi"}}}
    ]
    return obj


def device_class() -> dict[str, Any]:
    return {
        "metadata": {"name": "gpu.example.com"},
        "spec": {
            "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
            "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}],
            "extendedResourceName": "example.com/gpu",
        },
    }


def taint_rule() -> dict[str, Any]:
    return {
        "metadata": {"name": "r"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
            "taint": {"key": "example.com/broken", "value": "yes", "effect": "NoExecute"},
        },
        "status": {
            "conditions": [
                {
                    "type": "EvictionInProgress",
                    "status": "False",
                    "reason": "Done",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ]
        },
    }


def workload() -> dict[str, Any]:
    return {
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "j"},
            "podGroupTemplates": [
                {
                    "name": "group-1",
                    "policy": {"basic": {}},
                    "resourceClaims": [
                        {"name": "pg-claim", "resourceClaimTemplateName": "pg-claim-template"}
                    ],
                },
                {"name": "group-2", "policy": {"gang": {"minCount": 2}}},
            ],
        },
    }


def pod_group() -> dict[str, Any]:
    return {
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {
            "workloadRef": {"name": "w"},
            "podGroupTemplateRef": {"name": "group-1"},
            "resourceClaims": [
                {"name": "pg-claim", "resourceClaimTemplateName": "pg-claim-template"}
            ],
        },
        "status": {
            "resourceClaimStatuses": [{"name": "pg-claim", "resourceClaimName": "pg-pg-claim-x"}]
        },
    }


def resource_pool() -> dict[str, Any]:
    return {
        "metadata": {"name": "example.com-gpu.node-1"},
        "spec": {"driver": "example.com/gpu", "poolName": "node-1", "nodeName": "node-1"},
        "status": {
            "summary": {"totalDevices": 4, "allocatedDevices": 3, "availableDevices": 1},
            "validationErrors": [],
            "observedSliceCount": 1,
            "expectedSliceCount": 1,
        },
    }


Validator = Callable[[dict[str, Any]], list[FieldError]]

KINDS: dict[str, tuple[Callable[[], dict[str, Any]], Validator]] = {
    "claim": (claim, lambda o: dra.validate_resource_claim(o, gates=GATES)),
    "claim-status": (
        allocated_claim,
        lambda o: dra.validate_resource_claim_status_update(o, claim()),
    ),
    "template": (template, lambda o: dra.validate_resource_claim_template(o, gates=GATES)),
    "slice": (slice_, lambda o: dra.validate_resource_slice(o, gates=GATES)),
    "shared-slice": (shared_slice, lambda o: dra.validate_resource_slice(o, gates=GATES)),
    "values-slice": (values_slice, lambda o: dra.validate_resource_slice(o, gates=GATES)),
    "counter-slice": (counter_slice, lambda o: dra.validate_resource_slice(o, gates=GATES)),
    "per-device-slice": (per_device_slice, lambda o: dra.validate_resource_slice(o, gates=GATES)),
    "counter-sets-slice": (
        counter_sets_slice,
        lambda o: dra.validate_resource_slice(o, gates=GATES),
    ),
    "class": (device_class, lambda o: dra.validate_device_class(o, gates=GATES)),
    "taint-rule": (taint_rule, dra.validate_device_taint_rule),
    "taint-rule-status": (taint_rule, dra.validate_device_taint_rule_status_update),
    "workload": (workload, dra_scheduling.validate_workload),
    "pod-group": (pod_group, dra_scheduling.validate_pod_group),
    "pod-group-status": (pod_group, dra_scheduling.validate_pod_group_status_update),
    "pool": (resource_pool, dra.validate_resource_pool),
}

# --- mutation helpers -------------------------------------------------------------------------

_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[([^\]]+)\]")


def _segments(path: str) -> list[str | int]:
    out: list[str | int] = []
    for name, index, key in _SEGMENT.findall(path):
        out.append(int(index) if index else (name or key))
    return out


def _walk(obj: Any, path: str) -> tuple[Any, str | int]:
    parts = _segments(path)
    for part in parts[:-1]:
        obj = obj[part]
    return obj, parts[-1]


def set_(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        parent, last = _walk(obj, path)
        parent[last] = copy.deepcopy(value)

    return mutate


def del_(path: str) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        parent, last = _walk(obj, path)
        del parent[last]

    return mutate


def get(obj: Any, path: str) -> Any:
    parent, last = _walk(obj, path)
    return parent[last]


def many(*mutations: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        for m in mutations:
            m(obj)

    return mutate


def append(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        get(obj, path).append(copy.deepcopy(value))

    return mutate


def request(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1},
    }


def cel(expression: str) -> dict[str, Any]:
    return {"cel": {"expression": expression}}


def condition(ctype: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": ctype,
        "status": "True",
        "reason": "Because",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
        **extra,
    }


def tol(**fields: Any) -> dict[str, Any]:
    return fields


REQ = "spec.devices.requests[0].exactly"
SUB = "spec.devices.requests[1].firstAvailable"
RES = "status.allocation.devices.results"
DEV = "spec.devices[0]"
POLICY = f"{DEV}.capacity.memory.requestPolicy"


@dataclass(frozen=True)
class Rejected:
    id: str
    kind: str
    mutate: Callable[[dict[str, Any]], None]
    field: str
    reason: str
    detail: str = ""


REJECTED: list[Rejected] = [
    # --- ResourceClaim spec: requests -----------------------------------------------------------
    Rejected(
        "claim-requests-over-32",
        "claim",
        set_("spec.devices.requests", [request(f"r{i}") for i in range(33)]),
        "spec.devices.requests",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "claim-request-duplicate-name",
        "claim",
        append("spec.devices.requests", request("gpu")),
        "spec.devices.requests[2]",
        "FieldValueDuplicate",
        '"gpu"',
    ),
    Rejected(
        "claim-request-name-not-dns-label",
        "claim",
        set_("spec.devices.requests[0].name", "GPU"),
        "spec.devices.requests[0].name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "claim-request-name-empty",
        "claim",
        set_("spec.devices.requests[0].name", ""),
        "spec.devices.requests[0].name",
        "FieldValueRequired",
        "Required value",
    ),
    Rejected(
        "claim-request-neither-exactly-nor-first-available",
        "claim",
        del_(REQ.rsplit(".", 1)[0] + ".exactly"),
        "spec.devices.requests[0]",
        "FieldValueRequired",
        "exactly one of `exactly` or `firstAvailable` is required",
    ),
    Rejected(
        "claim-request-both-exactly-and-first-available",
        "claim",
        set_("spec.devices.requests[0].firstAvailable", [{"name": "a", "deviceClassName": "c"}]),
        "spec.devices.requests[0]",
        "FieldValueInvalid",
        "but multiple fields are set",
    ),
    Rejected(
        "claim-device-class-name-required",
        "claim",
        set_(f"{REQ}.deviceClassName", ""),
        f"{REQ}.deviceClassName",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-device-class-name-not-subdomain",
        "claim",
        set_(f"{REQ}.deviceClassName", "Bad_Class"),
        f"{REQ}.deviceClassName",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "claim-selectors-over-32",
        "claim",
        set_(f"{REQ}.selectors", [cel("true")] * 33),
        f"{REQ}.selectors",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "claim-selector-without-cel",
        "claim",
        set_(f"{REQ}.selectors", [{}]),
        f"{REQ}.selectors[0].cel",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-cel-syntax-error",
        "claim",
        set_(f"{REQ}.selectors", [cel("device.driver ==")]),
        f"{REQ}.selectors[0].cel.expression",
        "FieldValueInvalid",
        "compilation failed: ERROR: <input>:1:",
    ),
    Rejected(
        "claim-cel-undeclared-reference",
        "claim",
        set_(f"{REQ}.selectors", [cel("noSuchVar")]),
        f"{REQ}.selectors[0].cel.expression",
        "FieldValueInvalid",
        "undeclared reference to 'noSuchVar'",
    ),
    Rejected(
        "claim-cel-not-bool",
        "claim",
        set_(f"{REQ}.selectors", [cel("1 + 2")]),
        f"{REQ}.selectors[0].cel.expression",
        "FieldValueInvalid",
        "must evaluate to bool",
    ),
    Rejected(
        "claim-cel-too-long",
        "claim",
        set_(f"{REQ}.selectors", [cel(LONG_CEL + " ")]),
        f"{REQ}.selectors[0].cel.expression",
        "FieldValueTooLong",
        "may not be more than 10240 bytes",
    ),
    Rejected(
        "claim-all-mode-with-count",
        "claim",
        many(set_(f"{REQ}.allocationMode", "All"), set_(f"{REQ}.count", 2)),
        f"{REQ}.count",
        "FieldValueInvalid",
        "must not be specified when allocationMode is 'All'",
    ),
    Rejected(
        "claim-exact-count-negative",
        "claim",
        set_(f"{REQ}.count", -1),
        f"{REQ}.count",
        "FieldValueInvalid",
        "-1: must be greater than zero",
    ),
    Rejected(
        "claim-unknown-allocation-mode",
        "claim",
        set_(f"{REQ}.allocationMode", "Some"),
        f"{REQ}.allocationMode",
        "FieldValueNotSupported",
        'supported values: "All", "ExactCount"',
    ),
    Rejected(
        "claim-toleration-key-not-label-name",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="bad key", operator="Exists")]),
        f"{REQ}.tolerations[0].key",
        "FieldValueInvalid",
        "name part",
    ),
    Rejected(
        "claim-toleration-exists-with-value",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="Exists", value="v")]),
        f"{REQ}.tolerations[0].value",
        "FieldValueInvalid",
        "must be empty for operator `Exists`",
    ),
    Rejected(
        "claim-toleration-equal-bad-value",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="Equal", value="bad value!")]),
        f"{REQ}.tolerations[0].value",
        "FieldValueInvalid",
        "a valid label must be an empty string",
    ),
    Rejected(
        "claim-toleration-operator-unknown",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="Matches")]),
        f"{REQ}.tolerations[0].operator",
        "FieldValueNotSupported",
        '"Equal", "Exists"',
    ),
    Rejected(
        "claim-toleration-operator-empty",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="")]),
        f"{REQ}.tolerations[0].operator",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-toleration-effect-unknown",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="Exists", effect="Evict")]),
        f"{REQ}.tolerations[0].effect",
        "FieldValueNotSupported",
        '"NoExecute", "NoSchedule", "None"',
    ),
    Rejected(
        "claim-tolerations-over-16",
        "claim",
        set_(f"{REQ}.tolerations", [tol(operator="Exists")] * 17),
        f"{REQ}.tolerations",
        "FieldValueTooMany",
        "17: must have at most 16 items",
    ),
    Rejected(
        "claim-capacity-request-not-quantity",
        "claim",
        set_(f"{REQ}.capacity", {"requests": {"memory": "lots"}}),
        f"{REQ}.capacity.requests[memory]",
        "FieldValueInvalid",
        "quantities must match",
    ),
    Rejected(
        "claim-first-available-over-8",
        "claim",
        set_(SUB, [{"name": f"s{i}", "deviceClassName": "c"} for i in range(9)]),
        SUB,
        "FieldValueTooMany",
        "9: must have at most 8 items",
    ),
    Rejected(
        "claim-subrequest-duplicate-name",
        "claim",
        set_(f"{SUB}[1].name", "big"),
        f"{SUB}[1]",
        "FieldValueDuplicate",
        '"big"',
    ),
    Rejected(
        "claim-subrequest-name-not-dns-label",
        "claim",
        set_(f"{SUB}[0].name", "subReq-0"),
        f"{SUB}[0].name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "claim-subrequest-class-required",
        "claim",
        set_(f"{SUB}[0].deviceClassName", ""),
        f"{SUB}[0].deviceClassName",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-subrequest-bad-count",
        "claim",
        set_(f"{SUB}[0].count", -3),
        f"{SUB}[0].count",
        "FieldValueInvalid",
        "must be greater than zero",
    ),
    Rejected(
        "claim-subrequest-bad-selector",
        "claim",
        set_(f"{SUB}[0].selectors", [cel("device.")]),
        f"{SUB}[0].selectors[0].cel.expression",
        "FieldValueInvalid",
        "compilation failed",
    ),
    # --- constraints ------------------------------------------------------------------------
    Rejected(
        "claim-constraints-over-32",
        "claim",
        set_("spec.devices.constraints", [{"matchAttribute": "d.com/a"}] * 33),
        "spec.devices.constraints",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "claim-constraint-unknown-request",
        "claim",
        set_("spec.devices.constraints[0].requests", ["tpu"]),
        "spec.devices.constraints[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request in the claim or the name of a request and a subrequest",
    ),
    Rejected(
        "claim-constraint-unknown-subrequest",
        "claim",
        set_("spec.devices.constraints[0].requests", ["nic/huge"]),
        "spec.devices.constraints[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request",
    ),
    Rejected(
        "claim-constraint-subrequest-of-exact-request",
        "claim",
        set_("spec.devices.constraints[0].requests", ["gpu/big"]),
        "spec.devices.constraints[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request",
    ),
    Rejected(
        "claim-constraint-three-segments",
        "claim",
        set_("spec.devices.constraints[0].requests", ["nic/big/x"]),
        "spec.devices.constraints[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request",
    ),
    Rejected(
        "claim-constraint-duplicate-request",
        "claim",
        set_("spec.devices.constraints[0].requests", ["gpu", "gpu"]),
        "spec.devices.constraints[0].requests[1]",
        "FieldValueDuplicate",
        '"gpu"',
    ),
    Rejected(
        "claim-constraint-match-attribute-without-domain",
        "claim",
        set_("spec.devices.constraints[0].matchAttribute", "numa"),
        "spec.devices.constraints[0].matchAttribute",
        "FieldValueInvalid",
        "a fully qualified name must be a domain and a name separated by a slash",
    ),
    Rejected(
        "claim-constraint-match-attribute-empty-domain",
        "claim",
        set_("spec.devices.constraints[0].matchAttribute", "/numa"),
        "spec.devices.constraints[0].matchAttribute",
        "FieldValueInvalid",
        "the domain must not be empty",
    ),
    Rejected(
        "claim-constraint-match-attribute-empty-name",
        "claim",
        set_("spec.devices.constraints[0].matchAttribute", "gpu.example.com/"),
        "spec.devices.constraints[0].matchAttribute",
        "FieldValueInvalid",
        "the name must not be empty",
    ),
    Rejected(
        "claim-constraint-match-attribute-id-too-long",
        "claim",
        set_("spec.devices.constraints[0].matchAttribute", "gpu.example.com/" + "a" * 33),
        "spec.devices.constraints[0].matchAttribute",
        "FieldValueTooLong",
        "may not be more than 32 bytes",
    ),
    Rejected(
        "claim-constraint-distinct-attribute-bad-id",
        "claim",
        many(
            del_("spec.devices.constraints[0].matchAttribute"),
            set_("spec.devices.constraints[0].distinctAttribute", "gpu.example.com/9lives"),
        ),
        "spec.devices.constraints[0].distinctAttribute",
        "FieldValueInvalid",
        "a valid C identifier",
    ),
    Rejected(
        "claim-constraint-without-attribute",
        "claim",
        del_("spec.devices.constraints[0].matchAttribute"),
        "spec.devices.constraints[0]",
        "FieldValueRequired",
        'exactly one of "matchAttribute" or "distinctAttribute" is required',
    ),
    Rejected(
        "claim-constraint-with-both-attributes",
        "claim",
        set_("spec.devices.constraints[0].distinctAttribute", "gpu.example.com/numa"),
        "spec.devices.constraints[0]",
        "FieldValueInvalid",
        "but multiple fields are set",
    ),
    # --- config ------------------------------------------------------------------------------
    Rejected(
        "claim-config-over-32",
        "claim",
        set_("spec.devices.config", [{"opaque": {"driver": "d.com", "parameters": {}}}] * 33),
        "spec.devices.config",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "claim-config-opaque-required",
        "claim",
        del_("spec.devices.config[0].opaque"),
        "spec.devices.config[0].opaque",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-config-driver-required",
        "claim",
        set_("spec.devices.config[0].opaque.driver", ""),
        "spec.devices.config[0].opaque.driver",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-config-driver-too-long",
        "claim",
        set_("spec.devices.config[0].opaque.driver", "a" * 64),
        "spec.devices.config[0].opaque.driver",
        "FieldValueTooLong",
        "may not be more than 63 bytes",
    ),
    Rejected(
        "claim-config-driver-not-subdomain",
        "claim",
        set_("spec.devices.config[0].opaque.driver", "bad_driver"),
        "spec.devices.config[0].opaque.driver",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "claim-config-parameters-null",
        "claim",
        set_("spec.devices.config[0].opaque.parameters", None),
        "spec.devices.config[0].opaque.parameters",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-config-parameters-not-object",
        "claim",
        set_("spec.devices.config[0].opaque.parameters", [1, 2]),
        "spec.devices.config[0].opaque.parameters",
        "FieldValueInvalid",
        "must be a valid JSON object",
    ),
    Rejected(
        "claim-config-parameters-over-10ki",
        "claim",
        set_("spec.devices.config[0].opaque.parameters", {"blob": "x" * 10240}),
        "spec.devices.config[0].opaque.parameters",
        "FieldValueTooLong",
        "may not be more than 10240 bytes",
    ),
    Rejected(
        "claim-config-unknown-request",
        "claim",
        set_("spec.devices.config[0].requests", ["tpu"]),
        "spec.devices.config[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request",
    ),
    Rejected(
        "claim-reserved-for-needs-uid",
        "claim",
        set_("spec.reservedFor", {"apiGroup": "example.com", "resource": "jobsets", "name": "j"}),
        "spec.reservedFor.uid",
        "FieldValueRequired",
    ),
    Rejected(
        "claim-reserved-for-needs-resource",
        "claim",
        set_("spec.reservedFor", {"name": "j", "uid": UID}),
        "spec.reservedFor.resource",
        "FieldValueRequired",
    ),
    # --- ResourceClaimTemplate ---------------------------------------------------------------
    Rejected(
        "template-metadata-name-forbidden",
        "template",
        set_("spec.metadata.name", "x"),
        "spec.metadata.name",
        "FieldValueForbidden",
        "cannot be set for a template",
    ),
    Rejected(
        "template-metadata-namespace-forbidden",
        "template",
        set_("spec.metadata.namespace", "x"),
        "spec.metadata.namespace",
        "FieldValueForbidden",
        "cannot be set for a template",
    ),
    Rejected(
        "template-metadata-bad-label-key",
        "template",
        set_("spec.metadata.labels", {"bad key": "x"}),
        "spec.metadata.labels",
        "FieldValueInvalid",
        "name part",
    ),
    Rejected(
        "template-metadata-bad-label-value",
        "template",
        set_("spec.metadata.labels", {"k": "bad value"}),
        "spec.metadata.labels",
        "FieldValueInvalid",
        "a valid label must be",
    ),
    Rejected(
        "template-metadata-bad-annotation-key",
        "template",
        set_("spec.metadata.annotations", {"a/b/c": "x"}),
        "spec.metadata.annotations",
        "FieldValueInvalid",
    ),
    Rejected(
        "template-claim-spec-validated",
        "template",
        set_("spec.spec.devices.requests[0].exactly.count", -1),
        "spec.spec.devices.requests[0].exactly.count",
        "FieldValueInvalid",
        "must be greater than zero",
    ),
    # --- ResourceClaim status ----------------------------------------------------------------
    Rejected(
        "status-reserved-for-without-allocation",
        "claim-status",
        del_("status.allocation"),
        "status.reservedFor",
        "FieldValueForbidden",
        "may not be specified when `allocated` is not set",
    ),
    Rejected(
        "status-reserved-for-over-256",
        "claim-status",
        set_(
            "status.reservedFor",
            [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(257)],
        ),
        "status.reservedFor",
        "FieldValueTooMany",
        "257: must have at most 256 items",
    ),
    Rejected(
        "status-reserved-for-duplicate-uid",
        "claim-status",
        append("status.reservedFor", {"resource": "pods", "name": "q", "uid": UID}),
        "status.reservedFor[1]",
        "FieldValueDuplicate",
        UID,
    ),
    Rejected(
        "status-reserved-for-needs-resource",
        "claim-status",
        set_("status.reservedFor[0].resource", ""),
        "status.reservedFor[0].resource",
        "FieldValueRequired",
    ),
    Rejected(
        "status-reserved-for-needs-name",
        "claim-status",
        set_("status.reservedFor[0].name", ""),
        "status.reservedFor[0].name",
        "FieldValueRequired",
    ),
    Rejected(
        "status-reserved-for-needs-uid",
        "claim-status",
        set_("status.reservedFor[0].uid", ""),
        "status.reservedFor[0].uid",
        "FieldValueRequired",
    ),
    Rejected(
        "status-results-over-32",
        "claim-status",
        set_(
            f"{RES}",
            [
                {"request": "gpu", "driver": "d.com", "pool": "p", "device": f"d{i}"}
                for i in range(33)
            ],
        ),
        RES,
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "status-result-unknown-request",
        "claim-status",
        set_(f"{RES}[0].request", "tpu"),
        f"{RES}[0].request",
        "FieldValueInvalid",
        "must be the name of a request",
    ),
    Rejected(
        "status-result-driver-required",
        "claim-status",
        set_(f"{RES}[0].driver", ""),
        f"{RES}[0].driver",
        "FieldValueRequired",
    ),
    Rejected(
        "status-result-pool-invalid",
        "claim-status",
        set_(f"{RES}[0].pool", "node_1"),
        f"{RES}[0].pool",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "status-result-pool-too-long",
        "claim-status",
        set_(f"{RES}[0].pool", "a" * 254),
        f"{RES}[0].pool",
        "FieldValueTooLong",
        "may not be more than 253 bytes",
    ),
    Rejected(
        "status-result-device-invalid",
        "claim-status",
        set_(f"{RES}[0].device", "gpu.0"),
        f"{RES}[0].device",
        "FieldValueInvalid",
        "must not contain dots",
    ),
    Rejected(
        "status-result-share-id-upper-case",
        "claim-status",
        set_(f"{RES}[1].shareID", UID.upper()),
        f"{RES}[1].shareID",
        "FieldValueInvalid",
        "RFC 4122 normalized form",
    ),
    Rejected(
        "status-result-share-id-not-uuid",
        "claim-status",
        set_(f"{RES}[1].shareID", "share-1"),
        f"{RES}[1].shareID",
        "FieldValueInvalid",
        "error validating uid",
    ),
    Rejected(
        "status-result-binding-conditions-need-failure-conditions",
        "claim-status",
        set_(f"{RES}[0].bindingConditions", ["Attached"]),
        f"{RES}[0].bindingFailureConditions",
        "FieldValueInvalid",
        "bindingFailureConditions are required to use bindingConditions",
    ),
    Rejected(
        "status-result-failure-conditions-need-binding-conditions",
        "claim-status",
        set_(f"{RES}[0].bindingFailureConditions", ["Failed"]),
        f"{RES}[0].bindingConditions",
        "FieldValueInvalid",
        "bindingConditions are required to use bindingFailureConditions",
    ),
    Rejected(
        "status-result-binding-conditions-overlap",
        "claim-status",
        many(
            set_(f"{RES}[0].bindingConditions", ["A"]),
            set_(f"{RES}[0].bindingFailureConditions", ["A"]),
        ),
        f"{RES}[0].bindingFailureConditions[0]",
        "FieldValueInvalid",
        "bindingFailureConditions must not overlap with bindingConditions",
    ),
    Rejected(
        "status-result-binding-condition-duplicate",
        "claim-status",
        many(
            set_(f"{RES}[0].bindingConditions", ["A", "A"]),
            set_(f"{RES}[0].bindingFailureConditions", ["F"]),
        ),
        f"{RES}[0].bindingConditions[1]",
        "FieldValueDuplicate",
        '"A"',
    ),
    Rejected(
        "status-result-binding-conditions-over-4",
        "claim-status",
        many(
            set_(f"{RES}[0].bindingConditions", ["A", "B", "C", "D", "E"]),
            set_(f"{RES}[0].bindingFailureConditions", ["F"]),
        ),
        f"{RES}[0].bindingConditions",
        "FieldValueTooMany",
        "5: must have at most 4 items",
    ),
    Rejected(
        "status-result-binding-condition-bad-name",
        "claim-status",
        many(
            set_(f"{RES}[0].bindingConditions", ["not valid"]),
            set_(f"{RES}[0].bindingFailureConditions", ["F"]),
        ),
        f"{RES}[0].bindingConditions[0]",
        "FieldValueInvalid",
        "name part",
    ),
    Rejected(
        "status-result-toleration-invalid",
        "claim-status",
        set_(f"{RES}[0].tolerations", [tol(key="k", operator="Exists", value="v")]),
        f"{RES}[0].tolerations[0].value",
        "FieldValueInvalid",
        "must be empty for operator `Exists`",
    ),
    Rejected(
        "status-result-skip-prepare-without-unprepare",
        "claim-status",
        set_(f"{RES}[0].skipNodeOperations", ["NodePrepareResources"]),
        f"{RES}[0].skipNodeOperations",
        "FieldValueInvalid",
        "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped",
    ),
    Rejected(
        "status-config-source-required",
        "claim-status",
        set_("status.allocation.devices.config[0].source", ""),
        "status.allocation.devices.config[0].source",
        "FieldValueRequired",
    ),
    Rejected(
        "status-config-source-unknown",
        "claim-status",
        set_("status.allocation.devices.config[0].source", "FromPod"),
        "status.allocation.devices.config[0].source",
        "FieldValueNotSupported",
        '"FromClaim", "FromClass"',
    ),
    Rejected(
        "status-config-over-64",
        "claim-status",
        set_(
            "status.allocation.devices.config",
            [{"source": "FromClass", "opaque": {"driver": "d.com", "parameters": {}}}] * 65,
        ),
        "status.allocation.devices.config",
        "FieldValueTooMany",
        "65: must have at most 64 items",
    ),
    Rejected(
        "status-config-opaque-required",
        "claim-status",
        del_("status.allocation.devices.config[0].opaque"),
        "status.allocation.devices.config[0].opaque",
        "FieldValueRequired",
    ),
    Rejected(
        "status-node-selector-without-terms",
        "claim-status",
        set_("status.allocation.nodeSelector", {"nodeSelectorTerms": []}),
        "status.allocation.nodeSelector.nodeSelectorTerms",
        "FieldValueRequired",
        "must have at least one node selector term",
    ),
    Rejected(
        "status-node-selector-bad-field-key",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
            "spec.nodeName",
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
        "FieldValueInvalid",
        "not a valid field selector key",
    ),
    Rejected(
        "status-node-selector-field-needs-one-value",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values", ["a", "b"]
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values",
        "FieldValueRequired",
        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
    ),
    Rejected(
        "status-node-selector-in-without-values",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions",
            [{"key": "region", "operator": "In"}],
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
        "FieldValueRequired",
        "must be specified when `operator` is 'In' or 'NotIn'",
    ),
    Rejected(
        "status-node-selector-exists-with-values",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions",
            [{"key": "region", "operator": "Exists", "values": ["x"]}],
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
        "FieldValueForbidden",
        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ),
    Rejected(
        "status-node-selector-bad-operator",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions",
            [{"key": "region", "operator": "Near", "values": ["x"]}],
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
        "FieldValueInvalid",
        "not a valid selector operator",
    ),
    Rejected(
        "status-node-selector-gt-needs-single-value",
        "claim-status",
        set_(
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions",
            [{"key": "cores", "operator": "Gt", "values": ["1", "2"]}],
        ),
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
        "FieldValueRequired",
        "must be specified single value when `operator` is 'Lt' or 'Gt'",
    ),
    Rejected(
        "status-device-not-allocated",
        "claim-status",
        set_("status.devices[0].device", "gpu-9"),
        "status.devices[0]",
        "FieldValueInvalid",
        '"gpu.example.com/node-1/gpu-9": must be an allocated device in the claim',
    ),
    Rejected(
        "status-device-share-must-match",
        "claim-status",
        append(
            "status.devices", {"driver": "nic.example.com", "pool": "node-1", "device": "nic-0"}
        ),
        "status.devices[1]",
        "FieldValueInvalid",
        "must be an allocated device in the claim",
    ),
    Rejected(
        "status-device-duplicate",
        "claim-status",
        append(
            "status.devices", {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
        ),
        "status.devices[1]",
        "FieldValueDuplicate",
        "gpu.example.com/node-1/gpu-0",
    ),
    Rejected(
        "status-device-conditions-over-8",
        "claim-status",
        set_("status.devices[0].conditions", [condition(f"C{i}") for i in range(9)]),
        "status.devices[0].conditions",
        "FieldValueTooMany",
        "9: must have at most 8 items",
    ),
    Rejected(
        "status-device-condition-bad-status",
        "claim-status",
        set_("status.devices[0].conditions[0].status", "Yes"),
        "status.devices[0].conditions[0].status",
        "FieldValueNotSupported",
        '"False", "True", "Unknown"',
    ),
    Rejected(
        "status-device-condition-needs-reason",
        "claim-status",
        del_("status.devices[0].conditions[0].reason"),
        "status.devices[0].conditions[0].reason",
        "FieldValueRequired",
        "must be set",
    ),
    Rejected(
        "status-device-condition-duplicate-type",
        "claim-status",
        append("status.devices[0].conditions", condition("Ready")),
        "status.devices[0].conditions[1].type",
        "FieldValueDuplicate",
        '"Ready"',
    ),
    Rejected(
        "status-device-data-not-object",
        "claim-status",
        set_("status.devices[0].data", "text"),
        "status.devices[0].data",
        "FieldValueInvalid",
        "must be a valid JSON object",
    ),
    Rejected(
        "status-device-data-over-10ki",
        "claim-status",
        set_("status.devices[0].data", {"b": "x" * 10240}),
        "status.devices[0].data",
        "FieldValueTooLong",
        "may not be more than 10240 bytes",
    ),
    Rejected(
        "status-network-interface-name-too-long",
        "claim-status",
        set_("status.devices[0].networkData.interfaceName", "e" * 257),
        "status.devices[0].networkData.interfaceName",
        "FieldValueTooLong",
        "256",
    ),
    Rejected(
        "status-network-hardware-address-too-long",
        "claim-status",
        set_("status.devices[0].networkData.hardwareAddress", "a" * 129),
        "status.devices[0].networkData.hardwareAddress",
        "FieldValueTooLong",
        "128",
    ),
    Rejected(
        "status-network-ip-not-cidr",
        "claim-status",
        set_("status.devices[0].networkData.ips", ["10.0.0.1"]),
        "status.devices[0].networkData.ips[0]",
        "FieldValueInvalid",
        "must be a valid address in CIDR form",
    ),
    Rejected(
        "status-network-ip-garbage",
        "claim-status",
        set_("status.devices[0].networkData.ips", ["nope/24"]),
        "status.devices[0].networkData.ips[0]",
        "FieldValueInvalid",
        "must be a valid address in CIDR form",
    ),
    Rejected(
        "status-network-ip-duplicate",
        "claim-status",
        set_("status.devices[0].networkData.ips", ["10.0.0.1/24", "10.0.0.1/24"]),
        "status.devices[0].networkData.ips[1]",
        "FieldValueDuplicate",
        "10.0.0.1/24",
    ),
    Rejected(
        "status-network-ips-over-16",
        "claim-status",
        set_("status.devices[0].networkData.ips", [f"10.0.0.{i}/24" for i in range(17)]),
        "status.devices[0].networkData.ips",
        "FieldValueTooMany",
        "17: must have at most 16 items",
    ),
    # --- ResourceSlice -----------------------------------------------------------------------
    Rejected(
        "slice-driver-required",
        "slice",
        set_("spec.driver", ""),
        "spec.driver",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-driver-too-long",
        "slice",
        set_("spec.driver", "d" * 64),
        "spec.driver",
        "FieldValueTooLong",
        "may not be more than 63 bytes",
    ),
    Rejected(
        "slice-driver-not-subdomain",
        "slice",
        set_("spec.driver", "gpu_example"),
        "spec.driver",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "slice-pool-name-required",
        "slice",
        set_("spec.pool.name", ""),
        "spec.pool.name",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-pool-name-too-long",
        "slice",
        set_("spec.pool.name", "p" * 254),
        "spec.pool.name",
        "FieldValueTooLong",
        "may not be more than 253 bytes",
    ),
    Rejected(
        "slice-pool-name-part-invalid",
        "slice",
        set_("spec.pool.name", "rack-1/Node_1"),
        "spec.pool.name",
        "FieldValueInvalid",
        '"Node_1"',
    ),
    Rejected(
        "slice-pool-name-empty-part",
        "slice",
        set_("spec.pool.name", "rack-1//n"),
        "spec.pool.name",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "slice-resource-slice-count-zero",
        "slice",
        set_("spec.pool.resourceSliceCount", 0),
        "spec.pool.resourceSliceCount",
        "FieldValueInvalid",
        "0: must be greater than zero",
    ),
    Rejected(
        "slice-pool-generation-negative",
        "slice",
        set_("spec.pool.generation", -1),
        "spec.pool.generation",
        "FieldValueInvalid",
        "must be greater than or equal to zero",
    ),
    Rejected(
        "slice-no-node-selection",
        "slice",
        del_("spec.nodeName"),
        "spec",
        "FieldValueRequired",
        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` "
        "is required",
    ),
    Rejected(
        "slice-two-node-selections",
        "slice",
        set_("spec.allNodes", True),
        "spec",
        "FieldValueInvalid",
        '"{`nodeName`, `allNodes`}": exactly one of',
    ),
    Rejected(
        "slice-node-name-empty",
        "slice",
        set_("spec.nodeName", ""),
        "spec.nodeName",
        "FieldValueInvalid",
        "must be either unset or set to a non-empty string",
    ),
    Rejected(
        "slice-node-name-invalid",
        "slice",
        set_("spec.nodeName", "Node_1"),
        "spec.nodeName",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "slice-all-nodes-false",
        "slice",
        many(del_("spec.nodeName"), set_("spec.allNodes", False)),
        "spec.allNodes",
        "FieldValueInvalid",
        "must be either unset or set to true",
    ),
    Rejected(
        "slice-per-device-node-selection-false",
        "slice",
        set_("spec.perDeviceNodeSelection", False),
        "spec.perDeviceNodeSelection",
        "FieldValueInvalid",
        "must be either unset or set to true",
    ),
    Rejected(
        "slice-node-selector-two-terms",
        "slice",
        many(
            del_("spec.nodeName"),
            set_(
                "spec.nodeSelector",
                {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
                        {"matchExpressions": [{"key": "b", "operator": "Exists"}]},
                    ]
                },
            ),
        ),
        "spec.nodeSelector.nodeSelectorTerms",
        "FieldValueInvalid",
        "must have exactly one node selector term",
    ),
    Rejected(
        "slice-node-selector-bad-label-key",
        "slice",
        many(
            del_("spec.nodeName"),
            set_(
                "spec.nodeSelector",
                {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "bad key", "operator": "Exists"}]}
                    ]
                },
            ),
        ),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key",
        "FieldValueInvalid",
        "name part",
    ),
    Rejected(
        "slice-node-selector-bad-label-value",
        "slice",
        many(
            del_("spec.nodeName"),
            set_(
                "spec.nodeSelector",
                {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "a", "operator": "In", "values": ["bad value"]}
                            ]
                        }
                    ]
                },
            ),
        ),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]",
        "FieldValueInvalid",
    ),
    Rejected(
        "slice-devices-and-shared-counters",
        "slice",
        set_("spec.sharedCounters", [{"name": "cs", "counters": {"c": {"value": "1"}}}]),
        "spec",
        "FieldValueInvalid",
        "only one of `sharedCounters` or `devices` is allowed",
    ),
    Rejected(
        "slice-devices-over-128",
        "slice",
        set_("spec.devices", [{"name": f"d{i}"} for i in range(129)]),
        "spec.devices",
        "FieldValueTooMany",
        "129: must have at most 128 items",
    ),
    Rejected(
        "slice-devices-over-64-with-taints",
        "slice",
        set_(
            "spec.devices",
            [{"name": f"d{i}", "taints": [{"key": "k", "effect": "None"}]} for i in range(65)],
        ),
        "spec.devices",
        "FieldValueTooMany",
        "65: must have at most 64 items",
    ),
    Rejected(
        "slice-devices-over-64-with-counters",
        "slice",
        set_(
            "spec.devices",
            [
                {
                    "name": f"d{i}",
                    "consumesCounters": [{"counterSet": "cs", "counters": {"c": {"value": "1"}}}],
                }
                for i in range(65)
            ],
        ),
        "spec.devices",
        "FieldValueTooMany",
        "must have at most 64 items",
    ),
    Rejected(
        "slice-devices-over-64-with-list-attributes",
        "slice",
        set_(
            "spec.devices",
            [{"name": f"d{i}", "attributes": {"x": {"ints": [1]}}} for i in range(65)],
        ),
        "spec.devices",
        "FieldValueTooMany",
        "must have at most 64 items",
    ),
    Rejected(
        "slice-device-duplicate-name",
        "slice",
        append("spec.devices", {"name": "gpu-0"}),
        "spec.devices[1]",
        "FieldValueDuplicate",
        '"gpu-0"',
    ),
    Rejected(
        "slice-device-name-invalid",
        "slice",
        set_(f"{DEV}.name", "GPU-0"),
        f"{DEV}.name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "slice-device-over-32-attributes-and-capacities",
        "slice",
        set_(f"{DEV}.attributes", {f"a{i}": {"int": i} for i in range(32)}),
        DEV,
        "FieldValueInvalid",
        "33: the total number of attributes and capacities must not exceed 32",
    ),
    Rejected(
        "slice-device-over-48-attribute-values",
        "slice",
        set_(f"{DEV}.attributes", {"a": {"ints": list(range(30))}, "b": {"ints": list(range(19))}}),
        DEV,
        "FieldValueInvalid",
        "49: the total number of attribute values must not exceed 48",
    ),
    Rejected(
        "slice-attribute-without-value",
        "slice",
        set_(f"{DEV}.attributes.model", {}),
        f"{DEV}.attributes[model]",
        "FieldValueInvalid",
        "exactly one value must be specified",
    ),
    Rejected(
        "slice-attribute-two-values",
        "slice",
        set_(f"{DEV}.attributes.model", {"string": "a", "int": 1}),
        f"{DEV}.attributes[model]",
        "FieldValueInvalid",
        "exactly one value must be specified",
    ),
    Rejected(
        "slice-attribute-string-too-long",
        "slice",
        set_(f"{DEV}.attributes.model", {"string": "s" * 65}),
        f"{DEV}.attributes[model].string",
        "FieldValueTooLong",
        "may not be more than 64 bytes",
    ),
    Rejected(
        "slice-attribute-version-not-semver",
        "slice",
        set_(f"{DEV}.attributes.driverVersion", {"version": "1.2"}),
        f"{DEV}.attributes[driverVersion].version",
        "FieldValueInvalid",
        "must be a string compatible with semver.org spec 2.0.0",
    ),
    Rejected(
        "slice-attribute-version-leading-zero",
        "slice",
        set_(f"{DEV}.attributes.driverVersion", {"version": "01.2.3"}),
        f"{DEV}.attributes[driverVersion].version",
        "FieldValueInvalid",
        "semver.org",
    ),
    Rejected(
        "slice-attribute-empty-list",
        "slice",
        set_(f"{DEV}.attributes.model", {"strings": []}),
        f"{DEV}.attributes[model].strings",
        "FieldValueInvalid",
        "must not be empty if specified",
    ),
    Rejected(
        "slice-attribute-list-string-too-long",
        "slice",
        set_(f"{DEV}.attributes.model", {"strings": ["s" * 65]}),
        f"{DEV}.attributes[model].strings[0]",
        "FieldValueTooLong",
    ),
    Rejected(
        "slice-attribute-list-version-invalid",
        "slice",
        set_(f"{DEV}.attributes.model", {"versions": ["v1"]}),
        f"{DEV}.attributes[model].versions[0]",
        "FieldValueInvalid",
        "semver.org",
    ),
    Rejected(
        "slice-attribute-name-not-c-identifier",
        "slice",
        set_(f"{DEV}.attributes", {"gpu-model": {"int": 1}}),
        f"{DEV}.attributes",
        "FieldValueInvalid",
        "a valid C identifier must start with alphabetic character",
    ),
    Rejected(
        "slice-attribute-name-too-long",
        "slice",
        set_(f"{DEV}.attributes", {"a" * 33: {"int": 1}}),
        f"{DEV}.attributes",
        "FieldValueTooLong",
        "may not be more than 32 bytes",
    ),
    Rejected(
        "slice-attribute-domain-empty",
        "slice",
        set_(f"{DEV}.attributes", {"/numa": {"int": 1}}),
        f"{DEV}.attributes",
        "FieldValueInvalid",
        "the domain must not be empty",
    ),
    Rejected(
        "slice-attribute-domain-invalid",
        "slice",
        set_(f"{DEV}.attributes", {"bad_domain/numa": {"int": 1}}),
        f"{DEV}.attributes",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "slice-capacity-name-invalid",
        "slice",
        set_(f"{DEV}.capacity", {"capacity-0": {"value": "1"}}),
        f"{DEV}.capacity",
        "FieldValueInvalid",
        "a valid C identifier",
    ),
    Rejected(
        "slice-capacity-value-not-quantity",
        "slice",
        set_(f"{DEV}.capacity.memory.value", "forty"),
        f"{DEV}.capacity[memory].value",
        "FieldValueInvalid",
        "quantities must match the regular expression",
    ),
    Rejected(
        "slice-request-policy-needs-multiple-allocations",
        "slice",
        set_(f"{DEV}.capacity.memory.requestPolicy", {"default": "1Gi", "validValues": ["1Gi"]}),
        f"{DEV}.capacity[memory].requestPolicy",
        "FieldValueForbidden",
        "allowMultipleAllocations must be true",
    ),
    Rejected(
        "slice-policy-values-and-range",
        "shared-slice",
        set_(f"{POLICY}.validValues", ["1Gi"]),
        f"{DEV}.capacity[memory].requestPolicy",
        "FieldValueForbidden",
        "exactly one policy can be specified",
    ),
    Rejected(
        "slice-policy-range-needs-default",
        "shared-slice",
        del_(f"{POLICY}.default"),
        f"{DEV}.capacity[memory].requestPolicy.default",
        "FieldValueRequired",
        "required when validRange is defined",
    ),
    Rejected(
        "slice-policy-values-need-default",
        "values-slice",
        del_(f"{POLICY}.default"),
        f"{DEV}.capacity[memory].requestPolicy.default",
        "FieldValueRequired",
        "required when validValues is defined",
    ),
    Rejected(
        "slice-policy-values-unsorted",
        "values-slice",
        set_(f"{POLICY}.validValues", ["2Gi", "1Gi"]),
        f"{DEV}.capacity[memory].requestPolicy.validValues[1]",
        "FieldValueInvalid",
        "values must be sorted in ascending order",
    ),
    Rejected(
        "slice-policy-value-above-capacity",
        "values-slice",
        set_(f"{POLICY}.validValues", ["2Gi", "16Gi"]),
        f"{DEV}.capacity[memory].requestPolicy.validValues[1]",
        "FieldValueInvalid",
        "option is larger than capacity value: 8Gi",
    ),
    Rejected(
        "slice-policy-default-not-a-value",
        "values-slice",
        set_(f"{POLICY}.default", "3Gi"),
        f"{DEV}.capacity[memory].requestPolicy.validValues",
        "FieldValueInvalid",
        "default value is not valid according to the requestPolicy",
    ),
    Rejected(
        "slice-policy-values-over-10",
        "values-slice",
        set_(f"{POLICY}.validValues", [f"{i}Mi" for i in range(1, 12)]),
        f"{DEV}.capacity[memory].requestPolicy.validValues",
        "FieldValueTooMany",
        "11: must have at most 10",
    ),
    Rejected(
        "slice-policy-values-duplicate",
        "values-slice",
        set_(f"{POLICY}.validValues", ["2Gi", "2Gi"]),
        f"{DEV}.capacity[memory].requestPolicy.validValues[1]",
        "FieldValueDuplicate",
    ),
    Rejected(
        "slice-policy-range-needs-min",
        "shared-slice",
        del_(f"{POLICY}.validRange.min"),
        f"{DEV}.capacity[memory].requestPolicy.validRange.min",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-policy-range-min-above-capacity",
        "shared-slice",
        many(set_(f"{POLICY}.validRange", {"min": "16Gi"}), set_(f"{POLICY}.default", "16Gi")),
        f"{DEV}.capacity[memory].requestPolicy.validRange.min",
        "FieldValueInvalid",
        "min is larger than capacity value: 8Gi",
    ),
    Rejected(
        "slice-policy-default-below-min",
        "shared-slice",
        set_(f"{POLICY}.default", "512Mi"),
        f"{DEV}.capacity[memory].requestPolicy.validRange.default",
        "FieldValueInvalid",
        "default is less than min",
    ),
    Rejected(
        "slice-policy-default-above-max",
        "shared-slice",
        many(set_(f"{POLICY}.validRange.max", "4Gi"), set_(f"{POLICY}.default", "5Gi")),
        f"{DEV}.capacity[memory].requestPolicy.validRange.default",
        "FieldValueInvalid",
        "default is more than max: 4Gi",
    ),
    Rejected(
        "slice-policy-max-above-capacity",
        "shared-slice",
        set_(f"{POLICY}.validRange.max", "9Gi"),
        f"{DEV}.capacity[memory].requestPolicy.validRange.max",
        "FieldValueInvalid",
        "max is larger than capacity value: 8Gi",
    ),
    Rejected(
        "slice-policy-min-above-max",
        "shared-slice",
        many(
            set_(f"{POLICY}.validRange", {"min": "4Gi", "max": "2Gi"}),
            set_(f"{POLICY}.default", "4Gi"),
        ),
        f"{DEV}.capacity[memory].requestPolicy.validRange.max",
        "FieldValueInvalid",
        "min is larger than max",
    ),
    Rejected(
        "slice-policy-step-zero",
        "shared-slice",
        set_(f"{POLICY}.validRange.step", "0"),
        f"{DEV}.capacity[memory].requestPolicy.validRange.step",
        "FieldValueInvalid",
        "must be greater than zero",
    ),
    Rejected(
        "slice-policy-one-step-above-capacity",
        "shared-slice",
        many(
            set_(f"{POLICY}.validRange", {"min": "4Gi", "step": "8Gi"}),
            set_(f"{POLICY}.default", "4Gi"),
        ),
        f"{DEV}.capacity[memory].requestPolicy.validRange.step",
        "FieldValueInvalid",
        "one step 12Gi is larger than capacity value: 8Gi",
    ),
    Rejected(
        "slice-policy-default-off-step",
        "shared-slice",
        set_(f"{POLICY}.default", "1536Mi"),
        f"{DEV}.capacity[memory].requestPolicy.validRange.step",
        "FieldValueInvalid",
        "value is not a multiple of a given step (1Gi) from (1Gi)",
    ),
    Rejected(
        "slice-policy-max-off-step",
        "shared-slice",
        many(set_(f"{POLICY}.validRange.step", "2Gi"), set_(f"{POLICY}.validRange.max", "8Gi")),
        f"{DEV}.capacity[memory].requestPolicy.validRange.step",
        "FieldValueInvalid",
        "value is not a multiple of a given step (2Gi) from (1Gi)",
    ),
    Rejected(
        "slice-policy-negative-min",
        "shared-slice",
        many(set_(f"{POLICY}.validRange.min", "-1Gi"), set_(f"{POLICY}.validRange.max", "7Gi")),
        f"{DEV}.capacity[memory].requestPolicy.validRange.min",
        "FieldValueInvalid",
        "must be greater than or equal to 0",
    ),
    Rejected(
        "slice-taints-over-16",
        "slice",
        set_(f"{DEV}.taints", [{"key": f"k{i}", "effect": "None"} for i in range(17)]),
        f"{DEV}.taints",
        "FieldValueTooMany",
        "17: must have at most 16 items",
    ),
    Rejected(
        "slice-taint-key-invalid",
        "slice",
        set_(f"{DEV}.taints", [{"key": "bad key", "effect": "NoSchedule"}]),
        f"{DEV}.taints[0].key",
        "FieldValueInvalid",
        "name part",
    ),
    Rejected(
        "slice-taint-key-empty",
        "slice",
        set_(f"{DEV}.taints", [{"key": "", "effect": "NoSchedule"}]),
        f"{DEV}.taints[0].key",
        "FieldValueInvalid",
        "name part must be non-empty",
    ),
    Rejected(
        "slice-taint-value-invalid",
        "slice",
        set_(f"{DEV}.taints", [{"key": "k", "value": "bad value", "effect": "NoSchedule"}]),
        f"{DEV}.taints[0].value",
        "FieldValueInvalid",
        "a valid label must be",
    ),
    Rejected(
        "slice-taint-effect-required",
        "slice",
        set_(f"{DEV}.taints", [{"key": "k"}]),
        f"{DEV}.taints[0].effect",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-taint-effect-unknown",
        "slice",
        set_(f"{DEV}.taints", [{"key": "k", "effect": "Evict"}]),
        f"{DEV}.taints[0].effect",
        "FieldValueNotSupported",
        '"NoExecute", "NoSchedule", "None"',
    ),
    Rejected(
        "slice-consumes-counters-over-2",
        "counter-slice",
        set_(
            f"{DEV}.consumesCounters",
            [{"counterSet": f"cs{i}", "counters": {"c": {"value": "1"}}} for i in range(3)],
        ),
        f"{DEV}.consumesCounters",
        "FieldValueTooMany",
        "3: must have at most 2 items",
    ),
    Rejected(
        "slice-consumes-counters-duplicate-set",
        "counter-slice",
        append(
            f"{DEV}.consumesCounters",
            {"counterSet": "gpu-0-counters", "counters": {"c": {"value": "1"}}},
        ),
        f"{DEV}.consumesCounters[1]",
        "FieldValueDuplicate",
        '"gpu-0-counters"',
    ),
    Rejected(
        "slice-consumes-counters-set-required",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counterSet", ""),
        f"{DEV}.consumesCounters[0].counterSet",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-consumes-counters-set-not-dns-label",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counterSet", "Set_1"),
        f"{DEV}.consumesCounters[0].counterSet",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "slice-consumes-counters-empty",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counters", {}),
        f"{DEV}.consumesCounters[0].counters",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-consumes-counters-over-32",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counters", {f"c{i}": {"value": "1"} for i in range(33)}),
        f"{DEV}.consumesCounters[0].counters",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "slice-counter-name-not-dns-label",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counters", {"Memory": {"value": "1"}}),
        f"{DEV}.consumesCounters[0].counters",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "slice-counter-value-not-quantity",
        "counter-slice",
        set_(f"{DEV}.consumesCounters[0].counters.memory.value", "ten"),
        f"{DEV}.consumesCounters[0].counters[memory].value",
        "FieldValueInvalid",
        "quantities must match",
    ),
    Rejected(
        "slice-shared-counters-over-8",
        "counter-sets-slice",
        set_(
            "spec.sharedCounters",
            [{"name": f"cs{i}", "counters": {"c": {"value": "1"}}} for i in range(9)],
        ),
        "spec.sharedCounters",
        "FieldValueTooMany",
        "9: must have at most 8 items",
    ),
    Rejected(
        "slice-shared-counters-duplicate",
        "counter-sets-slice",
        append(
            "spec.sharedCounters", {"name": "gpu-0-counters", "counters": {"c": {"value": "1"}}}
        ),
        "spec.sharedCounters[1]",
        "FieldValueDuplicate",
        '"gpu-0-counters"',
    ),
    Rejected(
        "slice-shared-counters-name-required",
        "counter-sets-slice",
        set_("spec.sharedCounters[0].name", ""),
        "spec.sharedCounters[0].name",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-shared-counters-need-counters",
        "counter-sets-slice",
        del_("spec.sharedCounters[0].counters"),
        "spec.sharedCounters[0].counters",
        "FieldValueRequired",
    ),
    Rejected(
        "slice-shared-counters-over-32-counters",
        "counter-sets-slice",
        set_("spec.sharedCounters[0].counters", {f"c{i}": {"value": "1"} for i in range(33)}),
        "spec.sharedCounters[0].counters",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "slice-per-device-selection-missing",
        "per-device-slice",
        del_(f"{DEV}.nodeName"),
        DEV,
        "FieldValueRequired",
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when",
    ),
    Rejected(
        "slice-per-device-selection-twice",
        "per-device-slice",
        set_(f"{DEV}.allNodes", True),
        DEV,
        "FieldValueInvalid",
        '"{`nodeName`, `allNodes`}"',
    ),
    Rejected(
        "slice-per-device-node-name-empty",
        "per-device-slice",
        set_(f"{DEV}.nodeName", ""),
        f"{DEV}.nodeName",
        "FieldValueInvalid",
        "must not be empty",
    ),
    Rejected(
        "slice-per-device-all-nodes-false",
        "per-device-slice",
        many(del_(f"{DEV}.nodeName"), set_(f"{DEV}.allNodes", False)),
        f"{DEV}.allNodes",
        "FieldValueInvalid",
        "must be either unset or set to true",
    ),
    Rejected(
        "slice-device-node-selection-without-per-device",
        "slice",
        set_(f"{DEV}.allNodes", True),
        DEV,
        "FieldValueInvalid",
        "can only be set if `perDeviceNodeSelection` is set to true",
    ),
    Rejected(
        "slice-device-binding-conditions-alone",
        "slice",
        set_(f"{DEV}.bindingConditions", ["Attached"]),
        f"{DEV}.bindingFailureConditions",
        "FieldValueInvalid",
        "bindingFailureConditions are required to use bindingConditions",
    ),
    Rejected(
        "slice-skip-node-operations-unknown",
        "slice",
        set_("spec.skipNodeOperations", ["Reboot"]),
        "spec.skipNodeOperations[0]",
        "FieldValueNotSupported",
        '"NodePrepareResources"',
    ),
    Rejected(
        "slice-skip-prepare-only",
        "slice",
        set_("spec.skipNodeOperations", ["NodePrepareResources"]),
        "spec.skipNodeOperations",
        "FieldValueInvalid",
        "cannot be skipped unless NodeUnprepareResources",
    ),
    Rejected(
        "slice-partition-type-without-counters",
        "slice",
        set_("spec.partitionTypeAttribute", "gpu.example.com/profile"),
        "spec.partitionTypeAttribute",
        "FieldValueInvalid",
        "may only be set on a slice which declares devices",
    ),
    Rejected(
        "slice-partition-type-attribute-missing",
        "counter-slice",
        set_("spec.partitionTypeAttribute", "gpu.example.com/profile"),
        f"{DEV}.attributes[gpu.example.com/profile]",
        "FieldValueRequired",
        "so it must be set",
    ),
    Rejected(
        "slice-partition-type-attribute-not-string",
        "counter-slice",
        many(set_("spec.partitionTypeAttribute", "gpu.example.com/numa")),
        f"{DEV}.attributes[gpu.example.com/numa]",
        "FieldValueInvalid",
        "must be a string value",
    ),
    # --- DeviceClass --------------------------------------------------------------------------
    Rejected(
        "class-selectors-over-32",
        "class",
        set_("spec.selectors", [cel("true")] * 33),
        "spec.selectors",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "class-selector-without-cel",
        "class",
        set_("spec.selectors", [{}]),
        "spec.selectors[0].cel",
        "FieldValueRequired",
    ),
    Rejected(
        "class-selector-compile-error",
        "class",
        set_("spec.selectors", [cel("device.attributes[")]),
        "spec.selectors[0].cel.expression",
        "FieldValueInvalid",
        "compilation failed",
    ),
    Rejected(
        "class-selector-unknown-field",
        "class",
        set_("spec.selectors", [cel("device.vendor == 'x'")]),
        "spec.selectors[0].cel.expression",
        "FieldValueInvalid",
        "compilation failed",
    ),
    Rejected(
        # estimated 1,054,915: three levels of 32 domains, string work in the innermost step
        "class-selector-over-the-cost-limit",
        "class",
        set_(
            "spec.selectors",
            [
                cel(
                    "device.attributes.all(a, device.attributes.all(b, "
                    "device.attributes.all(c, a.startsWith(b + c))))"
                )
            ],
        ),
        "spec.selectors[0].cel.expression",
        "FieldValueForbidden",
        "too complex, exceeds cost limit",
    ),
    Rejected(
        "class-config-over-32",
        "class",
        set_("spec.config", [{"opaque": {"driver": "d.com", "parameters": {}}}] * 33),
        "spec.config",
        "FieldValueTooMany",
        "33: must have at most 32 items",
    ),
    Rejected(
        "class-config-opaque-required",
        "class",
        set_("spec.config", [{}]),
        "spec.config[0].opaque",
        "FieldValueRequired",
    ),
    Rejected(
        "class-config-parameters-not-object",
        "class",
        set_("spec.config[0].opaque.parameters", "x"),
        "spec.config[0].opaque.parameters",
        "FieldValueInvalid",
        "must be a valid JSON object",
    ),
    Rejected(
        "class-extended-resource-name-unqualified",
        "class",
        set_("spec.extendedResourceName", "gpu"),
        "spec.extendedResourceName",
        "FieldValueInvalid",
        "must be a valid extended resource name",
    ),
    Rejected(
        "class-extended-resource-name-kubernetes-io",
        "class",
        set_("spec.extendedResourceName", "deviceclass.resource.kubernetes.io/gpu"),
        "spec.extendedResourceName",
        "FieldValueInvalid",
        "must be a valid extended resource name",
    ),
    # --- DeviceTaintRule ---------------------------------------------------------------------
    Rejected(
        "taint-rule-selector-driver-invalid",
        "taint-rule",
        set_("spec.deviceSelector.driver", "Bad_Driver"),
        "spec.deviceSelector.driver",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    Rejected(
        "taint-rule-selector-pool-invalid",
        "taint-rule",
        set_("spec.deviceSelector.pool", ""),
        "spec.deviceSelector.pool",
        "FieldValueRequired",
    ),
    Rejected(
        "taint-rule-selector-device-invalid",
        "taint-rule",
        set_("spec.deviceSelector.device", "gpu_0"),
        "spec.deviceSelector.device",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "taint-rule-effect-unknown",
        "taint-rule",
        set_("spec.taint.effect", "Drain"),
        "spec.taint.effect",
        "FieldValueNotSupported",
        '"NoExecute", "NoSchedule", "None"',
    ),
    Rejected(
        "taint-rule-effect-required",
        "taint-rule",
        del_("spec.taint.effect"),
        "spec.taint.effect",
        "FieldValueRequired",
    ),
    Rejected(
        "taint-rule-key-required",
        "taint-rule",
        set_("spec.taint.key", ""),
        "spec.taint.key",
        "FieldValueInvalid",
        "name part must be non-empty",
    ),
    Rejected(
        "taint-rule-status-conditions-over-8",
        "taint-rule-status",
        set_("status.conditions", [condition(f"C{i}") for i in range(9)]),
        "status.conditions",
        "FieldValueTooMany",
        "9: must have at most 8 items",
    ),
    Rejected(
        "taint-rule-status-condition-needs-time",
        "taint-rule-status",
        del_("status.conditions[0].lastTransitionTime"),
        "status.conditions[0].lastTransitionTime",
        "FieldValueRequired",
        "must be set",
    ),
    Rejected(
        "taint-rule-status-condition-bad-reason",
        "taint-rule-status",
        set_("status.conditions[0].reason", "not a reason"),
        "status.conditions[0].reason",
        "FieldValueInvalid",
        "a condition reason must start with alphabetic character",
    ),
    # --- Workload -----------------------------------------------------------------------------
    Rejected(
        "workload-needs-templates",
        "workload",
        set_("spec.podGroupTemplates", []),
        "spec.podGroupTemplates",
        "FieldValueRequired",
        "must have at least one item",
    ),
    Rejected(
        "workload-templates-over-8",
        "workload",
        set_(
            "spec.podGroupTemplates", [{"name": f"g{i}", "policy": {"basic": {}}} for i in range(9)]
        ),
        "spec.podGroupTemplates",
        "FieldValueTooMany",
        "9: must have at most 8 items",
    ),
    Rejected(
        "workload-template-duplicate-name",
        "workload",
        set_("spec.podGroupTemplates[1].name", "group-1"),
        "spec.podGroupTemplates[1]",
        "FieldValueDuplicate",
        '"group-1"',
    ),
    Rejected(
        "workload-template-name-required",
        "workload",
        set_("spec.podGroupTemplates[0].name", ""),
        "spec.podGroupTemplates[0].name",
        "FieldValueRequired",
    ),
    Rejected(
        "workload-template-name-not-dns-label",
        "workload",
        set_("spec.podGroupTemplates[0].name", "Group.1"),
        "spec.podGroupTemplates[0].name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "workload-policy-none",
        "workload",
        set_("spec.podGroupTemplates[0].policy", {}),
        "spec.podGroupTemplates[0].policy",
        "FieldValueInvalid",
        "must specify one of: `basic`, `gang`",
    ),
    Rejected(
        "workload-policy-both",
        "workload",
        set_("spec.podGroupTemplates[0].policy", {"basic": {}, "gang": {"minCount": 1}}),
        "spec.podGroupTemplates[0].policy",
        "FieldValueInvalid",
        "exactly one of `basic`, `gang` is required, but multiple fields are set",
    ),
    Rejected(
        "workload-gang-min-count-zero",
        "workload",
        set_("spec.podGroupTemplates[1].policy.gang.minCount", 0),
        "spec.podGroupTemplates[1].policy.gang.minCount",
        "FieldValueRequired",
    ),
    Rejected(
        "workload-gang-min-count-negative",
        "workload",
        set_("spec.podGroupTemplates[1].policy.gang.minCount", -2),
        "spec.podGroupTemplates[1].policy.gang.minCount",
        "FieldValueInvalid",
        "must be greater than zero",
    ),
    Rejected(
        "workload-claims-over-4",
        "workload",
        set_(
            "spec.podGroupTemplates[0].resourceClaims",
            [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)],
        ),
        "spec.podGroupTemplates[0].resourceClaims",
        "FieldValueTooMany",
        "5: must have at most 4 items",
    ),
    Rejected(
        "workload-claim-both-sources",
        "workload",
        set_("spec.podGroupTemplates[0].resourceClaims[0].resourceClaimName", "x"),
        "spec.podGroupTemplates[0].resourceClaims[0]",
        "FieldValueInvalid",
        "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
    ),
    Rejected(
        "workload-claim-no-source",
        "workload",
        del_("spec.podGroupTemplates[0].resourceClaims[0].resourceClaimTemplateName"),
        "spec.podGroupTemplates[0].resourceClaims[0]",
        "FieldValueInvalid",
        "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
    ),
    Rejected(
        "workload-claim-duplicate-name",
        "workload",
        append(
            "spec.podGroupTemplates[0].resourceClaims",
            {"name": "pg-claim", "resourceClaimName": "x"},
        ),
        "spec.podGroupTemplates[0].resourceClaims[1].name",
        "FieldValueDuplicate",
        '"pg-claim"',
    ),
    Rejected(
        "workload-claim-name-not-dns-label",
        "workload",
        set_("spec.podGroupTemplates[0].resourceClaims[0].name", "PG"),
        "spec.podGroupTemplates[0].resourceClaims[0].name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "workload-claim-template-name-invalid",
        "workload",
        set_("spec.podGroupTemplates[0].resourceClaims[0].resourceClaimTemplateName", "Bad_Name"),
        "spec.podGroupTemplates[0].resourceClaims[0].resourceClaimTemplateName",
        "FieldValueInvalid",
    ),
    Rejected(
        "workload-controller-ref-needs-kind",
        "workload",
        set_("spec.controllerRef.kind", ""),
        "spec.controllerRef.kind",
        "FieldValueRequired",
    ),
    Rejected(
        "workload-controller-ref-name-with-slash",
        "workload",
        set_("spec.controllerRef.name", "a/b"),
        "spec.controllerRef.name",
        "FieldValueInvalid",
        "may not contain '/'",
    ),
    Rejected(
        "workload-controller-ref-bad-group",
        "workload",
        set_("spec.controllerRef.apiGroup", "Batch_"),
        "spec.controllerRef.apiGroup",
        "FieldValueInvalid",
        "RFC 1123 subdomain",
    ),
    # --- PodGroup ------------------------------------------------------------------------------
    Rejected(
        "pod-group-workload-ref-needs-name",
        "pod-group",
        set_("spec.workloadRef.name", ""),
        "spec.workloadRef.name",
        "FieldValueRequired",
    ),
    Rejected(
        "pod-group-template-ref-needs-workload",
        "pod-group",
        del_("spec.workloadRef"),
        "spec.workloadRef",
        "FieldValueRequired",
        "must be set when `podGroupTemplateRef` is set",
    ),
    Rejected(
        "pod-group-template-ref-name-invalid",
        "pod-group",
        set_("spec.podGroupTemplateRef.name", "G_1"),
        "spec.podGroupTemplateRef.name",
        "FieldValueInvalid",
        "RFC 1123 label",
    ),
    Rejected(
        "pod-group-policy-none",
        "pod-group",
        set_("spec.policy", {}),
        "spec.policy",
        "FieldValueInvalid",
        "must specify one of",
    ),
    Rejected(
        "pod-group-claim-no-source",
        "pod-group",
        set_("spec.resourceClaims[0]", {"name": "pg-claim"}),
        "spec.resourceClaims[0]",
        "FieldValueInvalid",
        "must specify one of",
    ),
    Rejected(
        "pod-group-claims-over-4",
        "pod-group",
        set_(
            "spec.resourceClaims", [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)]
        ),
        "spec.resourceClaims",
        "FieldValueTooMany",
        "5: must have at most 4 items",
    ),
    Rejected(
        "pod-group-status-unknown-claim",
        "pod-group-status",
        set_("status.resourceClaimStatuses[0].name", "other"),
        "status.resourceClaimStatuses[0].name",
        "FieldValueInvalid",
        "must match the name of an entry in `spec.resourceClaims`",
    ),
    Rejected(
        "pod-group-status-duplicate-claim",
        "pod-group-status",
        append("status.resourceClaimStatuses", {"name": "pg-claim"}),
        "status.resourceClaimStatuses[1].name",
        "FieldValueDuplicate",
        '"pg-claim"',
    ),
    Rejected(
        "pod-group-status-claim-name-invalid",
        "pod-group-status",
        set_("status.resourceClaimStatuses[0].resourceClaimName", "Bad_Claim"),
        "status.resourceClaimStatuses[0].resourceClaimName",
        "FieldValueInvalid",
    ),
    Rejected(
        "pod-group-status-condition-invalid",
        "pod-group-status",
        set_("status.conditions", [condition("PodGroupScheduled", status="Maybe")]),
        "status.conditions[0].status",
        "FieldValueNotSupported",
    ),
    # --- ResourcePool (KEP-5677) -------------------------------------------------------------
    Rejected(
        "pool-driver-required", "pool", set_("spec.driver", ""), "spec.driver", "FieldValueRequired"
    ),
    Rejected(
        "pool-name-required",
        "pool",
        set_("spec.poolName", ""),
        "spec.poolName",
        "FieldValueRequired",
    ),
    Rejected(
        "pool-name-invalid",
        "pool",
        set_("spec.poolName", "Node_1"),
        "spec.poolName",
        "FieldValueInvalid",
    ),
    Rejected(
        "pool-node-name-invalid",
        "pool",
        set_("spec.nodeName", "Node_1"),
        "spec.nodeName",
        "FieldValueInvalid",
    ),
    Rejected(
        "pool-summary-negative",
        "pool",
        set_("status.summary.availableDevices", -1),
        "status.summary.availableDevices",
        "FieldValueInvalid",
        "must be greater than or equal to 0",
    ),
    Rejected(
        "pool-validation-errors-over-10",
        "pool",
        set_("status.validationErrors", ["e"] * 11),
        "status.validationErrors",
        "FieldValueTooMany",
        "11: must have at most 10 items",
    ),
    Rejected(
        "pool-condition-invalid",
        "pool",
        set_("status.conditions", [condition("Complete", reason="")]),
        "status.conditions[0].reason",
        "FieldValueRequired",
    ),
]


@dataclass(frozen=True)
class Accepted:
    id: str
    kind: str
    mutate: Callable[[dict[str, Any]], None]


ACCEPTED: list[Accepted] = [
    Accepted(
        "claim-32-requests",
        "claim",
        many(
            set_("spec.devices.requests", [request(f"r{i}") for i in range(32)]),
            del_("spec.devices.constraints"),
            del_("spec.devices.config"),
        ),
    ),
    Accepted("claim-32-selectors", "claim", set_(f"{REQ}.selectors", [cel("true")] * 32)),
    Accepted("claim-cel-at-length-limit", "claim", set_(f"{REQ}.selectors", [cel(LONG_CEL)])),
    Accepted(
        "claim-all-mode-without-count",
        "claim",
        many(set_(f"{REQ}.allocationMode", "All"), del_(f"{REQ}.count")),
    ),
    Accepted(
        "claim-count-defaulted-when-missing",
        "claim",
        many(del_(f"{REQ}.count"), del_(f"{REQ}.allocationMode")),
    ),
    Accepted(
        "claim-16-tolerations", "claim", set_(f"{REQ}.tolerations", [tol(operator="Exists")] * 16)
    ),
    Accepted(
        "claim-toleration-equal-empty-value",
        "claim",
        set_(f"{REQ}.tolerations", [tol(key="k", operator="Equal")]),
    ),
    Accepted(
        "claim-toleration-any-effect",
        "claim",
        set_(
            f"{REQ}.tolerations",
            [tol(key="k", operator="Exists", effect="NoExecute", tolerationSeconds=30)],
        ),
    ),
    Accepted(
        "claim-8-subrequests",
        "claim",
        set_(
            SUB,
            [
                {
                    "name": "big" if i == 0 else f"s{i}",
                    "deviceClassName": "c",
                    "allocationMode": "ExactCount",
                    "count": 1,
                }
                for i in range(8)
            ],
        ),
    ),
    Accepted(
        "claim-constraint-on-all-requests", "claim", del_("spec.devices.constraints[0].requests")
    ),
    Accepted(
        "claim-constraint-distinct-attribute",
        "claim",
        many(
            del_("spec.devices.constraints[0].matchAttribute"),
            set_("spec.devices.constraints[0].distinctAttribute", "gpu.example.com/numa"),
        ),
    ),
    Accepted(
        "claim-attribute-with-two-slashes-not-rejected",
        "claim",
        set_("spec.devices.constraints[0].matchAttribute", "a.com/b/c"),
    ),
    Accepted(
        "claim-config-for-parent-request", "claim", set_("spec.devices.config[0].requests", ["nic"])
    ),
    Accepted(
        "claim-capacity-request", "claim", set_(f"{REQ}.capacity", {"requests": {"memory": "2Gi"}})
    ),
    Accepted(
        "claim-reserved-for-workload",
        "claim",
        set_(
            "spec.reservedFor",
            {"apiGroup": "example.com", "resource": "jobsets", "name": "j", "uid": UID},
        ),
    ),
    Accepted(
        "claim-parameters-at-10ki",
        "claim",
        set_("spec.devices.config[0].opaque.parameters", {"b": "x" * (10240 - 8)}),
    ),
    Accepted("claim-empty-spec", "claim", set_("spec", {})),
    Accepted("status-deallocated", "claim-status", set_("status", {})),
    Accepted(
        "status-256-reservations",
        "claim-status",
        set_(
            "status.reservedFor",
            [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(256)],
        ),
    ),
    Accepted(
        "status-reserved-for-pod-group",
        "claim-status",
        set_(
            "status.reservedFor",
            [{"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "pg", "uid": UID2}],
        ),
    ),
    Accepted(
        "status-reserved-for-any-pod",
        "claim-status",
        set_("status.allocation.reservedForAnyPod", True),
    ),
    Accepted(
        "status-binding-conditions-pair",
        "claim-status",
        many(
            set_(f"{RES}[0].bindingConditions", ["Attached"]),
            set_(f"{RES}[0].bindingFailureConditions", ["Failed"]),
            set_("status.allocation.allocationTimestamp", "2026-01-01T00:00:00Z"),
        ),
    ),
    Accepted(
        "status-device-with-share-id",
        "claim-status",
        append(
            "status.devices",
            {"driver": "nic.example.com", "pool": "node-1", "device": "nic-0", "shareID": UID},
        ),
    ),
    Accepted(
        "status-skip-all-node-operations",
        "claim-status",
        set_(f"{RES}[0].skipNodeOperations", ["*"]),
    ),
    Accepted(
        "status-16-ips",
        "claim-status",
        set_(
            "status.devices[0].networkData.ips",
            [f"10.0.0.{i}/24" for i in range(15)] + ["fd00::1/64"],
        ),
    ),
    Accepted("template-without-metadata", "template", del_("spec.metadata")),
    Accepted(
        "slice-128-devices", "slice", set_("spec.devices", [{"name": f"d{i}"} for i in range(128)])
    ),
    Accepted(
        "slice-64-devices-with-taints",
        "slice",
        set_(
            "spec.devices",
            [{"name": f"d{i}", "taints": [{"key": "k", "effect": "None"}]} for i in range(64)],
        ),
    ),
    Accepted(
        "slice-32-attributes-and-capacities",
        "slice",
        set_(f"{DEV}.attributes", {f"a{i}": {"int": i} for i in range(31)}),
    ),
    Accepted(
        "slice-48-attribute-values",
        "slice",
        set_(f"{DEV}.attributes", {"a": {"ints": list(range(30))}, "b": {"strings": ["x"] * 18}}),
    ),
    Accepted(
        "slice-all-attribute-kinds",
        "slice",
        set_(
            f"{DEV}.attributes",
            {
                "i": {"int": 1},
                "b": {"bool": False},
                "s": {"string": ""},
                "v": {"version": "1.0.0-rc.1+build.5"},
                "gpu.example.com/x": {"int": 2},
            },
        ),
    ),
    Accepted("slice-upper-case-driver-only-warns", "slice", set_("spec.driver", "GPU.example.com")),
    Accepted("slice-pool-name-with-slashes", "slice", set_("spec.pool.name", "rack-1/node-1")),
    Accepted("slice-pool-generation-zero", "slice", set_("spec.pool.generation", 0)),
    Accepted("slice-all-nodes", "slice", many(del_("spec.nodeName"), set_("spec.allNodes", True))),
    Accepted(
        "slice-node-selector",
        "slice",
        many(
            del_("spec.nodeName"),
            set_(
                "spec.nodeSelector",
                {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": ["r1"]}
                            ],
                            "matchFields": [
                                {"key": "metadata.name", "operator": "NotIn", "values": ["n9"]}
                            ],
                        }
                    ]
                },
            ),
        ),
    ),
    Accepted("slice-no-devices", "slice", del_("spec.devices")),
    Accepted("slice-shared-range-policy", "shared-slice", lambda o: None),
    Accepted("slice-shared-values-policy", "values-slice", lambda o: None),
    Accepted("slice-policy-without-rules", "shared-slice", set_(f"{POLICY}", {})),
    Accepted("slice-policy-max-on-step", "shared-slice", set_(f"{POLICY}.validRange.max", "7Gi")),
    Accepted(
        "slice-10-valid-values",
        "values-slice",
        many(
            set_(f"{POLICY}.validValues", [f"{512 * i}Mi" for i in range(1, 11)]),
            set_(f"{POLICY}.default", "1Gi"),
        ),
    ),
    Accepted("slice-counters", "counter-slice", lambda o: None),
    Accepted("slice-counter-sets", "counter-sets-slice", lambda o: None),
    Accepted("slice-per-device-selection", "per-device-slice", lambda o: None),
    Accepted(
        "slice-per-device-selector",
        "per-device-slice",
        many(
            del_(f"{DEV}.nodeName"),
            set_(
                f"{DEV}.nodeSelector",
                {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
                        {"matchExpressions": [{"key": "b", "operator": "Exists"}]},
                    ]
                },
            ),
        ),
    ),
    Accepted(
        "slice-16-taints",
        "slice",
        set_(f"{DEV}.taints", [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(16)]),
    ),
    Accepted(
        "slice-binding-conditions",
        "slice",
        many(
            set_(f"{DEV}.bindsToNode", True),
            set_(f"{DEV}.bindingConditions", ["Attached"]),
            set_(f"{DEV}.bindingFailureConditions", ["Failed"]),
        ),
    ),
    Accepted(
        "slice-partition-type-attribute",
        "counter-slice",
        many(set_("spec.partitionTypeAttribute", "gpu.example.com/model")),
    ),
    Accepted(
        "slice-skip-both-operations",
        "slice",
        set_("spec.skipNodeOperations", ["NodePrepareResources", "NodeUnprepareResources"]),
    ),
    Accepted("class-empty-spec", "class", set_("spec", {})),
    Accepted(
        "class-capacity-selector",
        "class",
        set_(
            "spec.selectors",
            [cel('device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0')],
        ),
    ),
    Accepted("taint-rule-empty-selector", "taint-rule", set_("spec.deviceSelector", {})),
    Accepted("taint-rule-without-selector", "taint-rule", del_("spec.deviceSelector")),
    Accepted("taint-rule-effect-none", "taint-rule", set_("spec.taint.effect", "None")),
    Accepted(
        "taint-rule-8-conditions",
        "taint-rule-status",
        set_("status.conditions", [condition(f"C{i}") for i in range(8)]),
    ),
    Accepted(
        "workload-8-templates",
        "workload",
        set_(
            "spec.podGroupTemplates", [{"name": f"g{i}", "policy": {"basic": {}}} for i in range(8)]
        ),
    ),
    Accepted("workload-without-controller-ref", "workload", del_("spec.controllerRef")),
    Accepted(
        "workload-4-claims",
        "workload",
        set_(
            "spec.podGroupTemplates[0].resourceClaims",
            [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(4)],
        ),
    ),
    Accepted("pod-group-minimal", "pod-group", set_("spec", {})),
    Accepted("pod-group-gang-policy", "pod-group", set_("spec.policy", {"gang": {"minCount": 3}})),
    Accepted(
        "pod-group-status-conditions",
        "pod-group-status",
        set_("status.conditions", [condition("PodGroupScheduled")]),
    ),
    Accepted("pool-cluster-wide", "pool", del_("spec.nodeName")),
    Accepted(
        "pool-with-conditions",
        "pool",
        set_(
            "status.conditions",
            [
                condition("Complete", reason="AllSlicesPresent"),
                condition("Valid", reason="ValidationPassed"),
            ],
        ),
    ),
]


def _errors(kind: str, mutate: Callable[[dict[str, Any]], None]) -> list[FieldError]:
    build, validate = KINDS[kind]
    obj = build()
    mutate(obj)
    return validate(obj)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_valid_starting_object_has_no_errors(kind: str) -> None:
    build, validate = KINDS[kind]
    assert [str(e) for e in validate(build())] == []


@pytest.mark.parametrize("case", REJECTED, ids=lambda c: c.id)
def test_rule_rejects_with_field_path_and_reason(case: Rejected) -> None:
    errs = _errors(case.kind, case.mutate)
    matching = [e for e in errs if e.field == case.field and e.reason == case.reason]
    assert matching, f"no {case.reason} at {case.field}; got {[str(e) for e in errs]}"
    assert any(case.detail in str(e) for e in matching), [str(e) for e in matching]


@pytest.mark.parametrize("case", ACCEPTED, ids=lambda c: c.id)
def test_valid_neighbour_is_accepted(case: Accepted) -> None:
    assert [str(e) for e in _errors(case.kind, case.mutate)] == []


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in REJECTED] + [c.id for c in ACCEPTED]
    assert len(ids) == len(set(ids))


def test_rejected_message_renders_like_upstream() -> None:
    errs = _errors("claim", set_(f"{REQ}.count", -1))
    assert (
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"
        in [str(e) for e in errs]
    )


def test_constraint_without_attribute_with_consumable_capacity_off() -> None:
    gates = {**GATES, "DRAConsumableCapacity": False}
    obj = claim()
    del obj["spec"]["devices"]["constraints"][0]["matchAttribute"]
    errs = dra.validate_resource_claim(obj, gates=gates)
    assert [str(e) for e in errs] == ["spec.devices.constraints[0].matchAttribute: Required value"]


def test_cel_allow_multiple_allocations_needs_consumable_capacity() -> None:
    obj = claim()
    obj["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [
        cel("device.allowMultipleAllocations")
    ]
    assert dra.validate_resource_claim(obj, gates=GATES) == []
    errs = dra.validate_resource_claim(obj, gates={**GATES, "DRAConsumableCapacity": False})
    assert "undefined field 'allowMultipleAllocations'" in str(errs[0])


def test_too_many_requests_stops_further_checks() -> None:
    obj = claim()
    obj["spec"]["devices"]["requests"] = [{"name": "BAD"}] * 33
    errs = dra.validate_resource_claim(obj, gates=GATES)
    assert [e.reason for e in errs if e.field.startswith("spec.devices.requests")] == [
        "FieldValueTooMany"
    ]


def test_fractional_range_is_checked_in_milli_units_only_with_gate() -> None:
    obj = shared_slice()
    obj["spec"]["devices"][0]["capacity"]["memory"] = {
        "value": "1",
        "requestPolicy": {"default": "600m", "validRange": {"min": "250m", "step": "250m"}},
    }
    # without DRAFractionalCapacityRange every bound is rounded up to a whole number, as upstream
    assert dra.validate_resource_slice(obj, gates=GATES) == []
    on = dra.validate_resource_slice(obj, gates={**GATES, "DRAFractionalCapacityRange": True})
    assert [str(e) for e in on] == [
        'spec.devices[0].capacity[memory].requestPolicy.validRange.step: Invalid value: "600m": '
        "value is not a multiple of a given step (250m) from (250m)"
    ]


def test_a_node_selector_found_valid_is_remembered_and_a_bad_one_reported_at_each_path() -> None:
    good = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-memo"]}]}]}
    assert validate_node_selector(good, Path("a")) == []
    assert validate_node_selector(copy.deepcopy(good), Path("b")) == []
    bad = copy.deepcopy(good)
    bad["nodeSelectorTerms"][0]["matchFields"][0]["key"] = "metadata.uid"
    for where in ("first.nodeSelector", "second.nodeSelector"):
        [error] = validate_node_selector(bad, Path(where))
        assert str(error.field) == f"{where}.nodeSelectorTerms[0].matchFields[0].key"
