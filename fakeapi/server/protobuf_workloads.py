"""Decode the protobuf bodies of ``kubectl create deployment|job|cronjob|serviceaccount|secret|
role|clusterrole|rolebinding|clusterrolebinding|poddisruptionbudget``.

These generators create through the typed clientset, in protobuf only. Rather than a decoder
per message, the messages involved are described as a table — for each message, its fields by
number: the JSON name, the type, and whether it repeats or is a pointer — with the field numbers
of upstream's ``generated.proto``; :func:`decode_fields` walks any of them. What the table does
not describe and is set in the body is refused (:class:`ProtobufDecodeError`), never dropped.

Go's marshallers write every non-pointer field, empty or not: an empty string or a zero number
of a plain field is read as absent (``omitempty``), while a pointer field that is written was
set (``replicas: 0``, ``suspend: false``). Embedded structs are written as messages even when
empty, and JSON would carry them too (``resources: {}``), so they are kept.

Kinds: ``M`` a message of the table, ``meta`` ObjectMeta, ``str``, ``int32``, ``int64``,
``bool``, ``strmap`` (string to string), ``bytesmap`` (string to bytes, base64 in JSON),
``qtymap`` (string to Quantity), ``intstr`` (IntOrString), ``qty`` (Quantity), ``inline`` (a
message whose fields JSON puts into the parent, as a Volume's source), ``ignore`` (the status
a client sends: a create clears it).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fakeapi.server.protobuf_reader import (
    Field,
    FieldDecoder,
    ProtobufDecodeError,
    as_int32,
    as_int64,
    as_message,
    as_number,
    as_text,
    is_empty,
    read_fields,
    string_map_entry,
)

__all__ = ["MESSAGES", "decode_fields", "workload_decoder"]

#: (JSON name, kind, flags): ``r`` repeated, ``p`` pointer (a zero value is kept)
Spec = tuple[str, str, str]

_SELECTOR: dict[int, Spec] = {1: ("matchLabels", "strmap", ""),
                              2: ("matchExpressions", "LabelSelectorRequirement", "r")}

MESSAGES: dict[str, dict[int, Spec]] = {
    # --- meta and core helpers ----------------------------------------------------------------
    "LabelSelector": _SELECTOR,
    "LabelSelectorRequirement": {1: ("key", "str", ""), 2: ("operator", "str", ""),
                                 3: ("values", "str", "r")},
    "ObjectReference": {1: ("kind", "str", ""), 2: ("namespace", "str", ""),
                        3: ("name", "str", ""), 4: ("uid", "str", ""),
                        5: ("apiVersion", "str", ""), 6: ("resourceVersion", "str", ""),
                        7: ("fieldPath", "str", "")},
    "LocalObjectReference": {1: ("name", "str", "")},
    # --- pod templates ------------------------------------------------------------------------
    "PodTemplateSpec": {1: ("metadata", "meta", ""), 2: ("spec", "PodSpec", "")},
    "PodSpec": {
        1: ("volumes", "Volume", "r"), 2: ("containers", "Container", "r"),
        3: ("restartPolicy", "str", ""), 4: ("terminationGracePeriodSeconds", "int64", "p"),
        5: ("activeDeadlineSeconds", "int64", "p"), 6: ("dnsPolicy", "str", ""),
        7: ("nodeSelector", "strmap", ""), 8: ("serviceAccountName", "str", ""),
        9: ("serviceAccount", "str", ""), 10: ("nodeName", "str", ""),
        11: ("hostNetwork", "bool", ""), 12: ("hostPID", "bool", ""), 13: ("hostIPC", "bool", ""),
        14: ("securityContext", "PodSecurityContext", ""),
        15: ("imagePullSecrets", "LocalObjectReference", "r"), 16: ("hostname", "str", ""),
        17: ("subdomain", "str", ""), 19: ("schedulerName", "str", ""),
        20: ("initContainers", "Container", "r"),
        21: ("automountServiceAccountToken", "bool", "p"),
        22: ("tolerations", "Toleration", "r"), 24: ("priorityClassName", "str", ""),
        25: ("priority", "int32", "p"), 29: ("runtimeClassName", "str", "p"),
        30: ("enableServiceLinks", "bool", "p"), 31: ("preemptionPolicy", "str", "p"),
        38: ("schedulingGates", "PodSchedulingGate", "r"),
        39: ("resourceClaims", "PodResourceClaim", "r"),
        40: ("resources", "ResourceRequirements", ""), 43: ("schedulingGroup",
                                                           "PodSchedulingGroup", ""),
    },
    "PodSecurityContext": {2: ("runAsUser", "int64", "p"), 3: ("runAsNonRoot", "bool", "p"),
                           5: ("fsGroup", "int64", "p"), 6: ("runAsGroup", "int64", "p")},
    "Container": {
        1: ("name", "str", ""), 2: ("image", "str", ""), 3: ("command", "str", "r"),
        4: ("args", "str", "r"), 5: ("workingDir", "str", ""),
        6: ("ports", "ContainerPort", "r"), 7: ("env", "EnvVar", "r"),
        8: ("resources", "ResourceRequirements", ""), 9: ("volumeMounts", "VolumeMount", "r"),
        13: ("terminationMessagePath", "str", ""), 14: ("imagePullPolicy", "str", ""),
        16: ("stdin", "bool", ""), 17: ("stdinOnce", "bool", ""), 18: ("tty", "bool", ""),
        20: ("terminationMessagePolicy", "str", ""), 24: ("restartPolicy", "str", "p"),
    },
    "ContainerPort": {1: ("name", "str", ""), 2: ("hostPort", "int32", ""),
                      3: ("containerPort", "int32", ""), 4: ("protocol", "str", ""),
                      5: ("hostIP", "str", "")},
    "EnvVar": {1: ("name", "str", ""), 2: ("value", "str", ""),
               3: ("valueFrom", "EnvVarSource", "")},
    "EnvVarSource": {1: ("fieldRef", "ObjectFieldSelector", "")},
    "ObjectFieldSelector": {1: ("apiVersion", "str", ""), 2: ("fieldPath", "str", "")},
    "ResourceRequirements": {1: ("limits", "qtymap", ""), 2: ("requests", "qtymap", ""),
                             3: ("claims", "ResourceClaim", "r")},
    "ResourceClaim": {1: ("name", "str", ""), 2: ("request", "str", "")},
    "VolumeMount": {1: ("name", "str", ""), 2: ("readOnly", "bool", ""),
                    3: ("mountPath", "str", ""), 4: ("subPath", "str", "")},
    "Volume": {1: ("name", "str", ""), 2: ("", "inline:VolumeSource", "")},
    "VolumeSource": {1: ("hostPath", "HostPathVolumeSource", ""),
                     2: ("emptyDir", "EmptyDirVolumeSource", ""),
                     6: ("secret", "SecretVolumeSource", ""),
                     19: ("configMap", "ConfigMapVolumeSource", "")},
    "HostPathVolumeSource": {1: ("path", "str", ""), 2: ("type", "str", "p")},
    "EmptyDirVolumeSource": {1: ("medium", "str", ""), 2: ("sizeLimit", "qty", "")},
    "SecretVolumeSource": {1: ("secretName", "str", ""), 3: ("defaultMode", "int32", "p"),
                           4: ("optional", "bool", "p")},
    "ConfigMapVolumeSource": {1: ("", "inline:LocalObjectReference", ""),
                              3: ("defaultMode", "int32", "p"), 4: ("optional", "bool", "p")},
    "Toleration": {1: ("key", "str", ""), 2: ("operator", "str", ""), 3: ("value", "str", ""),
                   4: ("effect", "str", ""), 5: ("tolerationSeconds", "int64", "p")},
    "PodSchedulingGate": {1: ("name", "str", "")},
    "PodResourceClaim": {1: ("name", "str", ""), 3: ("resourceClaimName", "str", "p"),
                         4: ("resourceClaimTemplateName", "str", "p")},
    "PodSchedulingGroup": {1: ("podGroupName", "str", "p")},
    # --- apps/v1 --------------------------------------------------------------------------------
    "Deployment": {2: ("spec", "DeploymentSpec", ""), 3: ("status", "ignore", "")},
    "DeploymentSpec": {1: ("replicas", "int32", "p"), 2: ("selector", "LabelSelector", ""),
                       3: ("template", "PodTemplateSpec", ""),
                       4: ("strategy", "DeploymentStrategy", ""),
                       5: ("minReadySeconds", "int32", ""),
                       6: ("revisionHistoryLimit", "int32", "p"), 7: ("paused", "bool", ""),
                       9: ("progressDeadlineSeconds", "int32", "p")},
    "DeploymentStrategy": {1: ("type", "str", ""),
                           2: ("rollingUpdate", "RollingUpdateDeployment", "")},
    "RollingUpdateDeployment": {1: ("maxUnavailable", "intstr", ""),
                                2: ("maxSurge", "intstr", "")},
    # --- batch/v1 -------------------------------------------------------------------------------
    "Job": {2: ("spec", "JobSpec", ""), 3: ("status", "ignore", "")},
    "JobSpec": {
        1: ("parallelism", "int32", "p"), 2: ("completions", "int32", "p"),
        3: ("activeDeadlineSeconds", "int64", "p"), 4: ("selector", "LabelSelector", ""),
        5: ("manualSelector", "bool", "p"), 6: ("template", "PodTemplateSpec", ""),
        7: ("backoffLimit", "int32", "p"), 8: ("ttlSecondsAfterFinished", "int32", "p"),
        9: ("completionMode", "str", "p"), 10: ("suspend", "bool", "p"),
        12: ("backoffLimitPerIndex", "int32", "p"), 13: ("maxFailedIndexes", "int32", "p"),
        14: ("podReplacementPolicy", "str", "p"), 15: ("managedBy", "str", "p"),
    },
    "CronJob": {2: ("spec", "CronJobSpec", ""), 3: ("status", "ignore", "")},
    "CronJobSpec": {1: ("schedule", "str", ""), 2: ("startingDeadlineSeconds", "int64", "p"),
                    3: ("concurrencyPolicy", "str", ""), 4: ("suspend", "bool", "p"),
                    5: ("jobTemplate", "JobTemplateSpec", ""),
                    6: ("successfulJobsHistoryLimit", "int32", "p"),
                    7: ("failedJobsHistoryLimit", "int32", "p"), 8: ("timeZone", "str", "p")},
    "JobTemplateSpec": {1: ("metadata", "meta", ""), 2: ("spec", "JobSpec", "")},
    # --- core/v1 identities ---------------------------------------------------------------------
    "ServiceAccount": {2: ("secrets", "ObjectReference", "r"),
                       3: ("imagePullSecrets", "LocalObjectReference", "r"),
                       4: ("automountServiceAccountToken", "bool", "p")},
    "Secret": {2: ("data", "bytesmap", ""), 3: ("type", "str", ""),
               4: ("stringData", "strmap", ""), 5: ("immutable", "bool", "p")},
    # --- policy/v1 ------------------------------------------------------------------------------
    "PodDisruptionBudget": {2: ("spec", "PodDisruptionBudgetSpec", ""),
                            3: ("status", "ignore", "")},
    "PodDisruptionBudgetSpec": {1: ("minAvailable", "intstr", "p"),
                                2: ("selector", "LabelSelector", "p"),
                                3: ("maxUnavailable", "intstr", "p"),
                                4: ("unhealthyPodEvictionPolicy", "str", "p")},
    # --- rbac.authorization.k8s.io/v1 -----------------------------------------------------------
    "Role": {2: ("rules", "PolicyRule", "r")},
    "ClusterRole": {2: ("rules", "PolicyRule", "r"),
                    3: ("aggregationRule", "AggregationRule", "")},
    "PolicyRule": {1: ("verbs", "str", "r"), 2: ("apiGroups", "str", "r"),
                   3: ("resources", "str", "r"), 4: ("resourceNames", "str", "r"),
                   5: ("nonResourceURLs", "str", "r")},
    "AggregationRule": {1: ("clusterRoleSelectors", "LabelSelector", "r")},
    "RoleBinding": {2: ("subjects", "Subject", "r"), 3: ("roleRef", "RoleRef", "")},
    "ClusterRoleBinding": {2: ("subjects", "Subject", "r"), 3: ("roleRef", "RoleRef", "")},
    "Subject": {1: ("kind", "str", ""), 2: ("apiGroup", "str", ""), 3: ("name", "str", ""),
                4: ("namespace", "str", "")},
    "RoleRef": {1: ("apiGroup", "str", ""), 2: ("kind", "str", ""), 3: ("name", "str", "")},
}

#: (group, kind) -> top-level message; the body's fields other than metadata (field 1)
_KINDS = {
    ("apps", "Deployment"): "Deployment",
    ("batch", "Job"): "Job",
    ("batch", "CronJob"): "CronJob",
    ("", "ServiceAccount"): "ServiceAccount",
    ("", "Secret"): "Secret",
    ("policy", "PodDisruptionBudget"): "PodDisruptionBudget",
    ("rbac.authorization.k8s.io", "Role"): "Role",
    ("rbac.authorization.k8s.io", "ClusterRole"): "ClusterRole",
    ("rbac.authorization.k8s.io", "RoleBinding"): "RoleBinding",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "ClusterRoleBinding",
}


def _int_or_string(data: bytes) -> int | str:
    fields = {number: value for number, _, value in read_fields(data)}
    if as_number(fields.get(1, 0)) == 1:
        return as_text(fields.get(3, b""))
    return as_int32(fields.get(2, 0))


def _quantity(data: bytes) -> str:
    for number, _, value in read_fields(data):
        if number == 1:
            return as_text(value)
    return "0"


def _map_entry(data: bytes, value_of: Callable[[bytes], Any]) -> tuple[str, Any]:
    key, raw = "", b""
    for number, _, value in read_fields(data):
        if number == 1:
            key = as_text(value)
        elif number == 2:
            raw = as_message(value)
    return key, value_of(raw)


_SCALARS: dict[str, Callable[[int | bytes], Any]] = {
    "str": as_text,
    "int32": as_int32,
    "int64": as_int64,
    "bool": lambda value: bool(as_number(value)),
}


def decode_fields(
    message: str, fields: list[Field], obj: dict[str, Any], meta: Callable[[bytes], Any]
) -> None:
    """Fill ``obj`` (JSON-shaped) from the ``fields`` of a ``message`` of the table;
    ``meta`` decodes an ObjectMeta."""
    table = MESSAGES[message]
    for number, wire, value in fields:
        spec = table.get(number)
        if spec is None:
            if not is_empty(wire, value):
                raise ProtobufDecodeError(
                    f"{message} field {number} in protobuf is not supported"
                )
            continue
        name, kind, flags = spec
        if kind == "ignore":  # the status a client sends: a create clears it anyway
            continue
        if kind.startswith("inline:"):
            decode_fields(kind[7:], list(read_fields(as_message(value))), obj, meta)
            continue
        decoded = _decode_value(kind, value, meta)
        if "r" in flags:
            obj.setdefault(name, []).append(decoded)
        elif kind in ("strmap", "bytesmap", "qtymap"):
            key, entry = decoded
            obj.setdefault(name, {})[key] = entry
        elif kind in _SCALARS and not decoded and "p" not in flags:
            continue  # a plain field's zero value: absent, as JSON's omitempty
        else:
            obj[name] = decoded


def _decode_value(kind: str, value: int | bytes, meta: Callable[[bytes], Any]) -> Any:
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return scalar(value)
    data = as_message(value)
    if kind == "meta":
        return meta(data)
    if kind == "strmap":
        return string_map_entry(data)
    if kind == "bytesmap":
        return _map_entry(data, lambda raw: base64.b64encode(raw).decode())
    if kind == "qtymap":
        return _map_entry(data, _quantity)
    if kind == "intstr":
        return _int_or_string(data)
    if kind == "qty":
        return _quantity(data)
    out: dict[str, Any] = {}
    decode_fields(kind, list(read_fields(data)), out, meta)
    return out


def workload_decoder(group: str, kind: str, meta: Callable[[bytes], Any]) -> FieldDecoder | None:
    """The decoder of a kind's top-level fields (after metadata), or None for other kinds."""
    message = _KINDS.get((group, kind))
    if message is None:
        return None
    top = message

    def decode(fields: list[Field], obj: dict[str, Any]) -> None:
        decode_fields(top, fields, obj, meta)

    return decode
