"""Core kinds served by the API server: models, defaults, validation, printing and binding."""

from __future__ import annotations

import copy
import typing
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from fakeapi.errors import StatusError
from fakeapi.models import coordination, core, events, pod
from fakeapi.registry.kinds.configmap import ConfigMapStrategy
from fakeapi.registry.kinds.event import CoreEventStrategy, EventsEventStrategy
from fakeapi.registry.kinds.lease import LeaseStrategy
from fakeapi.registry.kinds.namespace import NamespaceStrategy
from fakeapi.registry.kinds.node import NodeStrategy
from fakeapi.registry.kinds.pod import PodStrategy, pod_qos_class
from fakeapi.registry.kinds.pod_binding import bind_pod
from fakeapi.registry.kinds.pod_printing import pod_status_reason
from fakeapi.registry.strategy import Strategy, WriteContext
from fakeapi.schema import prune_unknown_fields, schema_for
from fakeapi.timefmt import format_time

from .strategy_steps import prepare_new

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
CTX = WriteContext(now=NOW)
TOP_LEVEL: list[type[BaseModel]] = [
    pod.Pod,
    core.Namespace,
    core.Node,
    core.ConfigMap,
    core.Event,
    core.Binding,
    events.Event,
    coordination.Lease,
]


def ago(**delta: float) -> str:
    return format_time(NOW - timedelta(**delta))


def messages(errors: list[Any]) -> list[str]:
    return [str(e) for e in errors]


def cells(strategy: Strategy, obj: dict[str, Any]) -> dict[str, Any]:
    return {c.name: c.cell(obj, NOW) for c in strategy.columns}


REALISTIC_POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "serviceAccountName": "web",
        "securityContext": {
            "runAsNonRoot": True,
            "fsGroup": 2000,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "initContainers": [
            {"name": "init", "image": "busybox:1.36", "command": ["sh", "-c", "true"]}
        ],
        "containers": [
            {
                "name": "app",
                "image": "nginx:1.27",
                "args": ["--port", "8080"],
                "ports": [{"name": "http", "containerPort": 8080}],
                "env": [
                    {"name": "MODE", "value": "prod"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {
                        "name": "TOKEN",
                        "valueFrom": {
                            "secretKeyRef": {"name": "s", "key": "token", "optional": True}
                        },
                    },
                    {
                        "name": "CPU",
                        "valueFrom": {
                            "resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}
                        },
                    },
                ],
                "envFrom": [{"configMapRef": {"name": "cfg"}, "prefix": "CFG_"}],
                "resources": {
                    "requests": {"cpu": "250m", "memory": "64Mi"},
                    "limits": {"cpu": "1", "memory": "128Mi"},
                    "claims": [{"name": "gpu", "request": "r0"}],
                },
                "volumeMounts": [
                    {"name": "data", "mountPath": "/data"},
                    {"name": "config", "mountPath": "/etc/app", "readOnly": True},
                ],
                "livenessProbe": {
                    "httpGet": {
                        "path": "/healthz",
                        "port": "http",
                        "httpHeaders": [{"name": "X", "value": "1"}],
                    },
                    "initialDelaySeconds": 5,
                },
                "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 5},
                "startupProbe": {
                    "exec": {"command": ["cat", "/tmp/ready"]},
                    "failureThreshold": 30,
                },
                "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "capabilities": {"drop": ["ALL"]},
                    "readOnlyRootFilesystem": True,
                },
            }
        ],
        "volumes": [
            {"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
            {
                "name": "config",
                "configMap": {"name": "cfg", "items": [{"key": "a", "path": "a.conf"}]},
            },
            {"name": "secret", "secret": {"secretName": "s", "defaultMode": 256}},
            {"name": "claim", "persistentVolumeClaim": {"claimName": "pvc"}},
            {
                "name": "projected",
                "projected": {
                    "sources": [
                        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                        {
                            "downwardAPI": {
                                "items": [
                                    {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}
                                ]
                            }
                        },
                    ]
                },
            },
            {
                "name": "scratch",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "metadata": {"labels": {"t": "x"}},
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}},
                        },
                    }
                },
            },
            {"name": "legacy", "nfs": {"server": "nfs.example.com", "path": "/export"}},
        ],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["a", "b"]}
                            ]
                        }
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 10,
                        "preference": {"matchExpressions": [{"key": "ssd", "operator": "Exists"}]},
                    }
                ],
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"app": "web"}},
                            "topologyKey": "kubernetes.io/hostname",
                        },
                    }
                ]
            },
        },
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "priorityClassName": "high",
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
        "imagePullSecrets": [{"name": "registry"}],
        "dnsConfig": {"options": [{"name": "ndots", "value": "2"}]},
        "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db"]}],
    },
}


def new_pod(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "metadata": {"name": "p", "namespace": "default", "generation": 1},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
    }
    body["spec"].update(spec)
    return body


def created_pod(**spec: Any) -> dict[str, Any]:
    obj = new_pod(**spec)
    prepare_new(PodStrategy(), obj, CTX)
    return obj


# --- models -------------------------------------------------------------------------------------


class TestModels:
    @pytest.mark.parametrize("model", TOP_LEVEL, ids=lambda m: f"{m.__module__}.{m.__name__}")
    def test_every_model_compiles_with_type_meta_first(self, model: type[BaseModel]) -> None:
        node = schema_for(model)
        assert list(node.properties)[:3] == ["apiVersion", "kind", "metadata"]

    def test_a_realistic_pod_manifest_has_no_unknown_fields(self) -> None:
        pruned, unknown = prune_unknown_fields(schema_for(pod.Pod), REALISTIC_POD)
        assert unknown == []
        assert pruned is REALISTIC_POD
        pod.Pod.model_validate(REALISTIC_POD)

    def test_unknown_fields_are_found_deep_in_containers(self) -> None:
        body = copy.deepcopy(REALISTIC_POD)
        body["spec"]["containers"][0]["resources"]["bogus"] = 1
        _, unknown = prune_unknown_fields(schema_for(pod.Pod), body)
        assert unknown == ["spec.containers[0].resources.bogus"]

    def test_seed_fields_of_kep_5729_and_4680_are_declared(self) -> None:
        spec = schema_for(pod.Pod).properties["spec"]
        claim = spec.properties["resourceClaims"].item
        assert claim is not None and "podGroupResourceClaim" in claim.properties
        assert set(spec.properties["workloadRef"].properties) == {"name", "podGroupName"}
        status = schema_for(pod.Pod).properties["status"]
        assert status.properties["allocatedResourcesStatus"].merge_key == "name"

    @pytest.mark.parametrize(
        ("path", "list_type", "keys", "strategy"),
        [
            (("spec", "containers"), "map", ("name",), "merge"),
            (("spec", "volumes"), "map", ("name",), "merge,retainKeys"),
            (("spec", "resourceClaims"), "map", ("name",), "merge,retainKeys"),
            (("spec", "tolerations"), "atomic", (), None),
            (("status", "conditions"), "map", ("type",), "merge"),
            (("status", "containerStatuses"), "atomic", (), None),
        ],
    )
    def test_pod_lists_merge_as_upstream(
        self, path: tuple[str, ...], list_type: str, keys: tuple[str, ...], strategy: str | None
    ) -> None:
        node = schema_for(pod.Pod)
        for key in path:
            node = node.properties[key]
        assert node.list_meta is not None
        assert (node.list_meta.list_type, node.list_meta.map_keys) == (list_type, keys)
        assert node.list_meta.patch_strategy == strategy

    def test_container_ports_are_keyed_by_port_and_protocol(self) -> None:
        containers = schema_for(pod.Pod).properties["spec"].properties["containers"]
        assert containers.item is not None
        ports = containers.item.properties["ports"]
        assert ports.list_meta is not None
        assert ports.list_meta.map_keys == ("containerPort", "protocol")
        assert ports.merge_key == "containerPort"

    def test_models_declare_every_field_the_kubernetes_client_knows(self) -> None:
        kc = pytest.importorskip("kubernetes.client")
        renamed = {
            ("core", "Event"): "CoreV1Event",
            ("core", "EventSeries"): "CoreV1EventSeries",
            ("events", "Event"): "EventsV1Event",
            ("events", "EventSeries"): "EventsV1EventSeries",
            ("pod_container", "ResourceClaim"): "CoreV1ResourceClaim",
        }
        seen: set[type[BaseModel]] = set()
        missing: list[str] = []

        def walk(model: type[BaseModel]) -> None:
            if model in seen:
                return
            seen.add(model)
            module = model.__module__.rsplit(".", 1)[-1]
            client = getattr(kc, renamed.get((module, model.__name__), "V1" + model.__name__), None)
            if client is not None:
                declared = {info.alias or name for name, info in model.model_fields.items()}
                missing.extend(
                    f"{model.__name__}.{f}"
                    for f in client.attribute_map.values()
                    if f not in declared
                )
            for info in model.model_fields.values():
                for sub in _models_in(info.annotation):
                    walk(sub)

        for model in TOP_LEVEL:
            walk(model)
        assert missing == []
        assert len(seen) > 100


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.append(annotation)
    return found


# --- namespace ----------------------------------------------------------------------------------


class TestNamespace:
    def test_create_adds_the_kubernetes_finalizer_phase_and_name_label(self) -> None:
        obj: dict[str, Any] = {"metadata": {"name": "team-a"}, "status": {"phase": "Terminating"}}
        prepare_new(NamespaceStrategy(), obj, CTX)
        assert obj["spec"] == {"finalizers": ["kubernetes"]}
        assert obj["status"] == {"phase": "Active"}
        assert obj["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}

    def test_names_are_dns_labels(self) -> None:
        assert NamespaceStrategy.name_rule == "label"

    def test_main_updates_keep_the_spec_finalizers(self) -> None:
        old = {"metadata": {"name": "a"}, "spec": {"finalizers": ["kubernetes"]}}
        new = {"metadata": {"name": "a"}, "spec": {"finalizers": []}}
        NamespaceStrategy().prepare_for_update(new, old, CTX)
        assert new["spec"] == {"finalizers": ["kubernetes"]}

    def test_deletion_waits_for_spec_finalizers_and_shows_terminating(self) -> None:
        strategy = NamespaceStrategy()
        obj: dict[str, Any] = {"metadata": {"name": "a"}, "spec": {"finalizers": ["kubernetes"]}}
        assert strategy.deletion_blocked(obj)
        strategy.prepare_for_delete(obj, CTX)
        assert obj["status"]["phase"] == "Terminating"
        finalized = strategy.apply_subresource("finalize", obj, {"spec": {"finalizers": []}}, CTX)
        assert not strategy.deletion_blocked(finalized)

    def test_unknown_short_spec_finalizers_are_rejected(self) -> None:
        obj = {"metadata": {"name": "a"}, "spec": {"finalizers": ["kubernetes", "custom"]}}
        assert messages(NamespaceStrategy().validate(obj, CTX)) == [
            'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name '
            "nor is it fully qualified"
        ]

    def test_columns_and_field_labels(self) -> None:
        obj = {
            "metadata": {"name": "a", "creationTimestamp": ago(seconds=45)},
            "status": {"phase": "Active"},
        }
        assert cells(NamespaceStrategy(), obj) == {"Name": "a", "Status": "Active", "Age": "45s"}
        assert NamespaceStrategy().selectable_fields(obj) == {"status.phase": "Active"}


# --- node ---------------------------------------------------------------------------------------


def a_node(**changes: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "metadata": {
            "name": "n1",
            "creationTimestamp": ago(days=3),
            "labels": {
                "node-role.kubernetes.io/control-plane": "",
                "node-role.kubernetes.io/gpu": "",
            },
        },
        "spec": {},
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}],
            "nodeInfo": {
                "kubeletVersion": "v1.37.0",
                "osImage": "Debian GNU/Linux 12",
                "kernelVersion": "6.1.0",
                "containerRuntimeVersion": "containerd://2.1.0",
            },
        },
    }
    node.update(changes)
    return node


class TestNode:
    def test_columns_match_kubectl_get_nodes_wide(self) -> None:
        assert cells(NodeStrategy(), a_node()) == {
            "Name": "n1",
            "Status": "Ready",
            "Roles": "control-plane,gpu",
            "Age": "3d",
            "Version": "v1.37.0",
            "Internal-IP": "10.0.0.5",
            "External-IP": "<none>",
            "OS-Image": "Debian GNU/Linux 12",
            "Kernel-Version": "6.1.0",
            "Container-Runtime": "containerd://2.1.0",
        }
        assert [c.name for c in NodeStrategy.columns if c.priority == 0] == [
            "Name",
            "Status",
            "Roles",
            "Age",
            "Version",
        ]

    @pytest.mark.parametrize(
        ("conditions", "unschedulable", "expected"),
        [
            ([{"type": "Ready", "status": "True"}], True, "Ready,SchedulingDisabled"),
            ([{"type": "Ready", "status": "False"}], False, "NotReady"),
            ([{"type": "Ready", "status": "Unknown"}], False, "NotReady"),
            ([], False, "Unknown"),
            ([], True, "Unknown,SchedulingDisabled"),
        ],
    )
    def test_status_cell(self, conditions: list[Any], unschedulable: bool, expected: str) -> None:
        node = a_node(spec={"unschedulable": unschedulable})
        node["status"]["conditions"] = conditions
        assert cells(NodeStrategy(), node)["Status"] == expected

    def test_roles_are_none_without_role_labels(self) -> None:
        node = a_node()
        node["metadata"]["labels"] = {"kubernetes.io/role": "", "x": "y"}
        assert cells(NodeStrategy(), node)["Roles"] == "<none>"

    def test_status_is_kept_on_create_because_kubelets_register_with_it(self) -> None:
        node = a_node()
        prepare_new(NodeStrategy(), node, CTX)
        assert node["status"]["conditions"] == [{"type": "Ready", "status": "True"}]

    def test_unschedulable_is_selectable_as_a_string(self) -> None:
        assert NodeStrategy().selectable_fields(a_node()) == {"spec.unschedulable": "false"}
        cordoned = a_node(spec={"unschedulable": True})
        assert NodeStrategy().selectable_fields(cordoned) == {"spec.unschedulable": "true"}

    def test_taint_effects_are_checked(self) -> None:
        node = a_node(spec={"taints": [{"key": "gpu", "effect": "Sometimes"}]})
        assert messages(NodeStrategy().validate(node, CTX)) == [
            'spec.taints[0].effect: Unsupported value: "Sometimes": supported values: '
            '"NoSchedule", "PreferNoSchedule", "NoExecute"'
        ]


# --- config map and lease -----------------------------------------------------------------------


class TestConfigMap:
    def test_keys_must_be_file_names_and_not_repeat_across_data_and_binary_data(self) -> None:
        obj = {"data": {"a b": "x", "k": "v"}, "binaryData": {"k": "eA=="}}
        errors = messages(ConfigMapStrategy().validate(obj, CTX))
        assert errors[0].startswith(
            'data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric'
        )
        assert errors[1:] == [
            'data[k]: Invalid value: "k": duplicate of key present in binaryData',
            'binaryData[k]: Invalid value: "k": duplicate of key present in data',
        ]

    def test_immutable_config_maps_keep_their_data_and_flag(self) -> None:
        old = {"immutable": True, "data": {"a": "1"}}
        new = {"immutable": False, "data": {"a": "2"}}
        assert messages(ConfigMapStrategy().validate_update(new, old, CTX)) == [
            "immutable: Forbidden: field is immutable when `immutable` is set",
            "data: Forbidden: field is immutable when `immutable` is set",
        ]

    def test_mutable_config_maps_change_freely(self) -> None:
        assert (
            ConfigMapStrategy().validate_update({"data": {"a": "2"}}, {"data": {"a": "1"}}, CTX)
            == []
        )

    def test_data_column_counts_both_maps(self) -> None:
        obj = {"metadata": {"name": "c"}, "data": {"a": "1"}, "binaryData": {"b": "eA=="}}
        assert cells(ConfigMapStrategy(), obj)["Data"] == 2


class TestLease:
    def test_holder_column(self) -> None:
        obj = {"metadata": {"name": "n1"}, "spec": {"holderIdentity": "n1"}}
        assert cells(LeaseStrategy(), obj)["Holder"] == "n1"

    def test_duration_must_be_positive(self) -> None:
        obj = {"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1}}
        assert messages(LeaseStrategy().validate(obj, CTX)) == [
            "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
            "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
        ]


# --- events -------------------------------------------------------------------------------------


class TestEvents:
    EVENT: typing.ClassVar[dict[str, Any]] = {
        "metadata": {"name": "web.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default", "uid": "u1"},
        "reason": "Scheduled",
        "message": "Successfully assigned default/web to n1 ",
        "type": "Normal",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": ago(minutes=5),
        "lastTimestamp": ago(seconds=30),
        "count": 3,
    }

    def test_columns_match_kubectl_get_events(self) -> None:
        assert cells(CoreEventStrategy(), self.EVENT) == {
            "Last Seen": "30s",
            "Type": "Normal",
            "Reason": "Scheduled",
            "Object": "pod/web",
            "Subobject": "",
            "Source": "default-scheduler",
            "Message": "Successfully assigned default/web to n1",
            "First Seen": "5m",
            "Count": 3,
            "Name": "web.1",
        }

    def test_new_style_events_use_event_time_series_and_reporting_controller(self) -> None:
        event = {
            "metadata": {"name": "e"},
            "involvedObject": {"kind": "ResourceClaim", "name": "c"},
            "eventTime": format_time(NOW - timedelta(minutes=2)),
            "reportingComponent": "kubelet",
            "reportingInstance": "n1",
            "series": {"count": 7, "lastObservedTime": ago(seconds=10)},
        }
        row = cells(CoreEventStrategy(), event)
        assert (row["Last Seen"], row["First Seen"], row["Count"]) == ("10s", "2m", 7)
        assert row["Source"] == "kubelet, n1"
        assert row["Object"] == "resourceclaim/c"

    def test_describe_field_selectors_are_served(self) -> None:
        fields = CoreEventStrategy().selectable_fields(self.EVENT)
        assert set(CoreEventStrategy.field_labels) == set(fields)
        assert fields["involvedObject.uid"] == "u1"
        assert fields["involvedObject.kind"] == "Pod"
        assert fields["source"] == "default-scheduler"

    def test_involved_object_must_be_in_the_event_namespace(self) -> None:
        event = {**self.EVENT, "involvedObject": {"kind": "Pod", "name": "x", "namespace": "other"}}
        assert messages(CoreEventStrategy().validate(event, CTX)) == [
            'involvedObject.namespace: Invalid value: "other": does not match event.namespace'
        ]

    def test_cluster_scoped_objects_may_have_events_in_default(self) -> None:
        event = {**self.EVENT, "involvedObject": {"kind": "Node", "name": "n1"}}
        assert CoreEventStrategy().validate(event, CTX) == []

    def test_events_api_selects_by_regarding(self) -> None:
        event = {
            "regarding": {"kind": "Pod", "name": "p"},
            "reportingController": "k",
            "type": "Warning",
        }
        fields = EventsEventStrategy().selectable_fields(event)
        assert fields["regarding.name"] == "p"
        assert set(EventsEventStrategy.field_labels) == set(fields)


# --- pod: defaults, QoS, validation -------------------------------------------------------------


class TestPodCreate:
    def test_defaults_as_upstream(self) -> None:
        obj = created_pod()
        spec = obj["spec"]
        assert spec["restartPolicy"] == "Always"
        assert spec["dnsPolicy"] == "ClusterFirst"
        assert spec["schedulerName"] == "default-scheduler"
        assert spec["terminationGracePeriodSeconds"] == 30
        assert spec["enableServiceLinks"] is True
        container = spec["containers"][0]
        assert container["terminationMessagePath"] == "/dev/termination-log"
        assert container["terminationMessagePolicy"] == "File"
        assert container["imagePullPolicy"] == "IfNotPresent"
        assert obj["status"] == {"phase": "Pending", "qosClass": "BestEffort"}

    def test_client_written_status_is_dropped(self) -> None:
        obj = new_pod()
        obj["status"] = {"phase": "Running", "podIP": "1.2.3.4"}
        prepare_new(PodStrategy(), obj, CTX)
        assert obj["status"] == {"phase": "Pending", "qosClass": "BestEffort"}

    @pytest.mark.parametrize(
        ("image", "policy"),
        [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("registry:5000/nginx", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            ("nginx@sha256:abcd", "IfNotPresent"),
        ],
    )
    def test_image_pull_policy_follows_the_tag(self, image: str, policy: str) -> None:
        obj = created_pod(containers=[{"name": "c", "image": image}])
        assert obj["spec"]["containers"][0]["imagePullPolicy"] == policy

    def test_ports_default_to_tcp_and_requests_to_limits(self) -> None:
        container = {
            "name": "c",
            "image": "x:1",
            "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "1"}},
        }
        obj = created_pod(containers=[container])
        created = obj["spec"]["containers"][0]
        assert created["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
        assert created["resources"]["requests"] == {"cpu": "1"}

    @pytest.mark.parametrize(
        ("resources", "expected"),
        [
            ({}, "BestEffort"),
            ({"requests": {"cpu": "100m"}}, "Burstable"),
            ({"limits": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed"),
            (
                {
                    "requests": {"cpu": "1", "memory": "1Gi"},
                    "limits": {"cpu": "1", "memory": "1Gi"},
                },
                "Guaranteed",
            ),
            (
                {
                    "requests": {"cpu": "500m", "memory": "1Gi"},
                    "limits": {"cpu": "1", "memory": "1Gi"},
                },
                "Burstable",
            ),
            ({"limits": {"cpu": "1"}}, "Burstable"),
            ({"requests": {"example.com/gpu": "1"}}, "BestEffort"),
            ({"requests": {"cpu": "0"}}, "BestEffort"),
        ],
    )
    def test_qos_class(self, resources: dict[str, Any], expected: str) -> None:
        obj = created_pod(containers=[{"name": "c", "image": "x:1", "resources": resources}])
        assert obj["status"]["qosClass"] == expected
        assert pod_qos_class(obj) == expected

    def test_a_valid_pod_with_claims_passes(self) -> None:
        obj = created_pod(
            containers=[{"name": "c", "image": "x:1", "resources": {"claims": [{"name": "gpu"}]}}],
            resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "t"}],
        )
        assert PodStrategy().validate(obj, CTX) == []

    def test_realistic_pod_passes(self) -> None:
        obj = copy.deepcopy(REALISTIC_POD)
        prepare_new(PodStrategy(), obj, CTX)
        assert PodStrategy().validate(obj, CTX) == []
        assert obj["status"]["qosClass"] == "Burstable"

    @pytest.mark.parametrize(
        ("spec", "expected"),
        [
            ({"containers": []}, ["spec.containers: Required value"]),
            (
                {"containers": [{"name": "c", "image": "x"}, {"name": "c", "image": "y"}]},
                ['spec.containers[1].name: Duplicate value: "c"'],
            ),
            ({"containers": [{"name": "c"}]}, ["spec.containers[0].image: Required value"]),
            (
                {"containers": [{"name": "C", "image": "x"}]},
                ['spec.containers[0].name: Invalid value: "C": a lowercase RFC 1123 label'],
            ),
            (
                {"restartPolicy": "Sometimes"},
                [
                    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
                    '"Always", "OnFailure", "Never"'
                ],
            ),
            (
                {"resourceClaims": [{"name": "a"}]},
                [
                    'spec.resourceClaims[0]: Invalid value: {"name":"a"}: must specify one of: '
                    "`resourceClaimName`, `resourceClaimTemplateName`, `podGroupResourceClaim`"
                ],
            ),
            (
                {
                    "resourceClaims": [
                        {"name": "a", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}
                    ]
                },
                [
                    'spec.resourceClaims[0]: Invalid value: {"name":"a","resourceClaimName":"x",'
                    '"resourceClaimTemplateName":"y"}: at most one of `resourceClaimName` or '
                    "`resourceClaimTemplateName` may be specified"
                ],
            ),
            (
                {
                    "resourceClaims": [
                        {"name": "a", "resourceClaimName": "x", "podGroupResourceClaim": "g"}
                    ]
                },
                [
                    "at most one of `resourceClaimName`, `resourceClaimTemplateName` or "
                    "`podGroupResourceClaim`"
                ],
            ),
            (
                {
                    "resourceClaims": [
                        {"name": "a", "resourceClaimName": "x"},
                        {"name": "a", "resourceClaimName": "y"},
                    ]
                },
                ['spec.resourceClaims[1].name: Duplicate value: "a"'],
            ),
            (
                {
                    "containers": [
                        {"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}
                    ]
                },
                [
                    'spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the '
                    "names in pod.spec.resourceClaims which is empty"
                ],
            ),
            (
                {"workloadRef": {"podGroupName": "g"}},
                ["spec.workloadRef.name: Required value"],
            ),
            (
                {"nodeName": "n1", "schedulingGates": [{"name": "example.com/gate"}]},
                [
                    "spec.nodeName: Forbidden: cannot be set until all schedulingGates have "
                    "been cleared"
                ],
            ),
            (
                {"ephemeralContainers": [{"name": "dbg", "image": "x"}]},
                ["spec.ephemeralContainers: Forbidden: cannot be set on create"],
            ),
        ],
        ids=[
            "no-containers",
            "duplicate-container",
            "no-image",
            "bad-container-name",
            "restart-policy",
            "claim-without-source",
            "claim-with-two-sources",
            "claim-with-group-and-name",
            "duplicate-claim",
            "container-claim-not-in-pod",
            "workload-ref-without-name",
            "node-name-with-gates",
            "ephemeral-on-create",
        ],
    )
    def test_invalid_pods(self, spec: dict[str, Any], expected: list[str]) -> None:
        obj = new_pod(**spec)
        prepare_new(PodStrategy(), obj, CTX)
        errors = messages(PodStrategy().validate(obj, CTX))
        assert len(errors) == len(expected), errors
        for error, start in zip(errors, expected, strict=True):
            assert start in error

    def test_node_affinity_needs_a_term_and_weights_from_1_to_100(self) -> None:
        obj = new_pod(
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 0, "preference": {}}
                    ],
                }
            }
        )
        prepare_new(PodStrategy(), obj, CTX)
        assert messages(PodStrategy().validate(obj, CTX)) == [
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            ".nodeSelectorTerms: Required value: must have at least one node selector term",
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
            ".weight: Invalid value: 0: must be in the range 1-100",
        ]

    def test_match_label_keys_are_merged_into_the_selectors_at_create(self) -> None:
        term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}},
                "matchLabelKeys": ["rev"], "mismatchLabelKeys": ["tenant", "absent"]}
        obj = new_pod(
            affinity={"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [copy.deepcopy(term)],
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 10, "podAffinityTerm": copy.deepcopy(term)}],
            }},
            topologySpreadConstraints=[{
                "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["rev"]}],
        )
        obj["metadata"]["labels"] = {"app": "web", "rev": "7", "tenant": "a"}
        prepare_new(PodStrategy(), obj, CTX)
        merged = [
            {"key": "rev", "operator": "In", "values": ["7"]},
            {"key": "tenant", "operator": "NotIn", "values": ["a"]},
        ]
        anti = obj["spec"]["affinity"]["podAntiAffinity"]
        required = anti["requiredDuringSchedulingIgnoredDuringExecution"][0]
        preferred = anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
        assert required["labelSelector"]["matchExpressions"] == merged
        assert preferred["labelSelector"]["matchExpressions"] == merged
        [spread] = obj["spec"]["topologySpreadConstraints"]
        assert spread["labelSelector"]["matchExpressions"] == merged[:1]
        assert PodStrategy().validate(obj, CTX) == []

    def test_pod_group_claims_follow_the_seed_shape(self) -> None:
        obj = created_pod(
            workloadRef={"name": "w", "podGroupName": "pg-1"},
            resourceClaims=[{"name": "resource", "podGroupResourceClaim": "pg-claim"}],
            containers=[
                {"name": "c", "image": "x:1", "resources": {"claims": [{"name": "resource"}]}}
            ],
        )
        assert PodStrategy().validate(obj, CTX) == []


class TestPodUpdate:
    def update_errors(self, change: Any, **spec: Any) -> list[str]:
        old = created_pod(**spec)
        new = copy.deepcopy(old)
        change(new["spec"])
        PodStrategy().prepare_for_update(new, old, CTX)
        return messages(PodStrategy().validate_update(new, old, CTX))

    def test_images_may_change(self) -> None:
        assert self.update_errors(lambda s: s["containers"][0].update(image="busybox:1.37")) == []

    def test_tolerations_may_be_added(self) -> None:
        toleration = {"key": "k", "operator": "Exists", "effect": "NoSchedule"}
        assert (
            self.update_errors(lambda s: s.setdefault("tolerations", []).append(toleration)) == []
        )

    def test_scheduling_gates_may_be_removed_not_added(self) -> None:
        gates = [{"name": "example.com/a"}]
        assert self.update_errors(lambda s: s.pop("schedulingGates"), schedulingGates=gates) == []
        errors = self.update_errors(
            lambda s: s["schedulingGates"].append({"name": "example.com/b"}), schedulingGates=gates
        )
        assert errors == [
            "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new "
            "scheduling gate 'example.com/b'"
        ]

    def test_node_name_cannot_be_set_by_an_update(self) -> None:
        (error,) = self.update_errors(lambda s: s.update(nodeName="n1"))
        assert error.startswith(
            "spec: Forbidden: pod updates may not change fields other than "
            "`spec.containers[*].image`,`spec.initContainers[*].image`,"
            "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
            "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
            "previously negative)\n"
        )
        assert '+ \tnodeName: "n1",' in error

    def test_containers_cannot_be_added(self) -> None:
        errors = self.update_errors(lambda s: s["containers"].append({"name": "d", "image": "x"}))
        assert errors == [
            "spec.containers: Forbidden: pod updates may not add or remove containers"
        ]

    def test_active_deadline_may_only_shrink(self) -> None:
        errors = self.update_errors(
            lambda s: s.update(activeDeadlineSeconds=20), activeDeadlineSeconds=10
        )
        assert errors == [
            "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to "
            "previous value"
        ]
        assert (
            self.update_errors(
                lambda s: s.update(activeDeadlineSeconds=5), activeDeadlineSeconds=10
            )
            == []
        )


class TestPodStatus:
    def test_qos_is_backfilled_when_a_status_write_omits_it(self) -> None:
        old = created_pod()
        new = copy.deepcopy(old)
        new["status"] = {"phase": "Running"}
        PodStrategy().prepare_for_status_update(new, old, CTX)
        assert new["status"]["qosClass"] == "BestEffort"
        assert PodStrategy().validate_status_update(new, old, CTX) == []

    def test_a_status_write_that_clears_observed_generation_keeps_the_old_one(self) -> None:
        old = created_pod()
        old["status"]["observedGeneration"] = 3
        new = copy.deepcopy(old)
        new["status"]["observedGeneration"] = None
        PodStrategy().prepare_for_status_update(new, old, CTX)
        assert new["status"]["observedGeneration"] == 3

    def test_qos_cannot_change(self) -> None:
        old = created_pod()
        new = copy.deepcopy(old)
        new["status"]["qosClass"] = "Guaranteed"
        assert messages(PodStrategy().validate_status_update(new, old, CTX)) == [
            'status.qosClass: Invalid value: "Guaranteed": field is immutable'
        ]

    def test_a_nomination_names_a_node_and_only_an_unbound_pod_gets_one(self) -> None:
        old = created_pod()
        new = copy.deepcopy(old)
        new["status"]["nominatedNodeName"] = "Node_1"
        assert messages(PodStrategy().validate_status_update(new, old, CTX)) == [
            'status.nominatedNodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain '
            "must consist of lower case alphanumeric characters, '-' or '.', and must start and "
            "end with an alphanumeric character (e.g. 'example.com', regex used for validation "
            "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        ]
        bound = created_pod(nodeName="n1")
        renominated = copy.deepcopy(bound)
        renominated["status"]["nominatedNodeName"] = "n2"
        assert messages(PodStrategy().validate_status_update(renominated, bound, CTX)) == [
            "status.nominatedNodeName: Forbidden: may not be set on pods that are already bound "
            "to a node"
        ]
        new["status"]["nominatedNodeName"] = "n2"
        assert PodStrategy().validate_status_update(new, old, CTX) == []

    def test_claim_statuses_must_name_pod_claims(self) -> None:
        old = created_pod(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "t"}])
        new = copy.deepcopy(old)
        new["status"]["resourceClaimStatuses"] = [
            {"name": "gpu", "resourceClaimName": "p-gpu-x1"},
            {"name": "nic", "resourceClaimName": "p-nic-x2"},
        ]
        assert messages(PodStrategy().validate_status_update(new, old, CTX)) == [
            'status.resourceClaimStatuses[1].name: Invalid value: "nic": must match the name of '
            "an entry in `spec.resourceClaims`"
        ]

    @staticmethod
    def _with_health(
        container_health: list[dict[str, Any]], pod_health: list[dict[str, Any]] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A pod with claims ``gpu`` (whole, in container c) and ``nic`` (request ``r``) and
        a cpu request, and the same pod reporting the given device health."""
        container = {
            "name": "c",
            "image": "busybox:1.36",
            "resources": {
                "requests": {"cpu": "1"},
                "claims": [{"name": "gpu"}, {"name": "nic", "request": "r"}],
            },
        }
        old = created_pod(
            containers=[container],
            resourceClaims=[
                {"name": "gpu", "resourceClaimName": "g"},
                {"name": "nic", "resourceClaimName": "n"},
            ],
        )
        new = copy.deepcopy(old)
        new["status"]["containerStatuses"] = [
            {"name": "c", "ready": True, "restartCount": 0, "image": "busybox:1.36",
             "imageID": "", "allocatedResourcesStatus": container_health}
        ]
        if pod_health is not None:
            new["status"]["allocatedResourcesStatus"] = pod_health
        return new, old

    def test_device_health_names_the_containers_claims_and_requests(self) -> None:
        healthy = [{"resourceID": "d/p/x", "health": "Healthy"}]
        new, old = self._with_health(
            [
                {"name": "claim:gpu", "resources": healthy},
                {"name": "claim:nic/r", "resources": healthy},
                {"name": "cpu", "resources": healthy},
            ],
            [{"name": "claim:nic/r", "resources": healthy}],
        )
        assert PodStrategy().validate_status_update(new, old, CTX) == []

    def test_device_health_refuses_unknown_names_health_values_and_repeated_ids(self) -> None:
        new, old = self._with_health(
            [
                {"name": "claim:gpu/gpu", "resources": [
                    {"resourceID": "d/p/x", "health": "Healthy"},
                    {"resourceID": "d/p/x", "health": "Sick"},
                ]},
                {"name": "memory", "resources": []},
            ],
            [{"name": "claim:other/r", "resources": []}],
        )
        at = "status.containerStatuses[0].allocatedResourcesStatus"
        assert messages(PodStrategy().validate_status_update(new, old, CTX)) == [
            f'{at}[0].name: Invalid value: "claim:gpu/gpu": must match one of the container\'s '
            "resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' "
            "if request is empty",
            f'{at}[0].resources[1].health: Unsupported value: "Sick": supported values: '
            '"Healthy", "Unhealthy", "Unknown"',
            f'{at}[0].resources[1].resourceID: Duplicate value: "d/p/x"',
            f'{at}[1].name: Invalid value: "memory": must match one of the container\'s '
            "resource requests",
            'status.allocatedResourcesStatus[0].name: Invalid value: "claim:other/r": must '
            "match one of the pod's resource claims in a format 'claim:<claimName>/<request>'",
        ]

    def test_ephemeral_containers_report_no_device_health(self) -> None:
        old = created_pod()
        new = copy.deepcopy(old)
        new["status"]["ephemeralContainerStatuses"] = [
            {"name": "debug", "ready": False, "restartCount": 0, "image": "busybox:1.36",
             "imageID": "", "allocatedResourcesStatus": [{"name": "cpu", "resources": []}]}
        ]
        assert messages(PodStrategy().validate_status_update(new, old, CTX)) == [
            "status.ephemeralContainerStatuses[0].allocatedResourcesStatus: Forbidden: must not "
            "be specified in container status"
        ]

    def test_device_health_is_dropped_with_its_gate_off(self) -> None:
        healthy = [{"resourceID": "d/p/x", "health": "Healthy"}]
        new, old = self._with_health(
            [{"name": "claim:gpu", "resources": healthy}],
            [{"name": "claim:nic/r", "resources": healthy}],
        )
        off = WriteContext(now=NOW, feature_gates={"ResourceHealthStatus": False})
        PodStrategy().prepare_for_status_update(new, old, off)
        assert "allocatedResourcesStatus" not in new["status"]
        assert "allocatedResourcesStatus" not in new["status"]["containerStatuses"][0]

    def test_device_health_is_accepted_at_pod_and_container_level(self) -> None:
        status = {
            "allocatedResourcesStatus": [
                {
                    "name": "claim:nic/req-0",
                    "resources": [{"resourceID": "nic.example.com/n1/nic-3", "health": "Healthy"}],
                }
            ],
            "containerStatuses": [
                {
                    "name": "c",
                    "ready": True,
                    "restartCount": 0,
                    "image": "x",
                    "imageID": "x@sha256:1",
                    "allocatedResourcesStatus": [
                        {
                            "name": "claim:gpu/req-0",
                            "resources": [
                                {
                                    "resourceID": "g/n1/gpu-0",
                                    "health": "Unhealthy",
                                    "message": "ECC",
                                }
                            ],
                        }
                    ],
                }
            ],
        }
        _, unknown = prune_unknown_fields(schema_for(pod.Pod), {"status": status})
        assert unknown == []


class TestPodDeletion:
    @pytest.mark.parametrize(
        ("node", "phase", "configured", "requested", "expected"),
        [
            ("", "Pending", 30, None, 0),
            ("n1", "Running", None, None, 30),
            ("n1", "Running", 60, None, 60),
            ("n1", "Running", 60, 5, 5),
            ("n1", "Succeeded", 60, None, 0),
            ("n1", "Failed", 60, 10, 0),
            ("n1", "Running", -5, None, 1),
            ("n1", "Running", 30, 0, 0),
        ],
    )
    def test_grace_period(
        self, node: str, phase: str, configured: int | None, requested: int | None, expected: int
    ) -> None:
        spec: dict[str, Any] = {"nodeName": node}
        if configured is not None:
            spec["terminationGracePeriodSeconds"] = configured
        obj = {"spec": spec, "status": {"phase": phase}}
        assert PodStrategy().grace_period_seconds(obj, requested) == expected


class TestBinding:
    def test_binding_sets_the_node_and_the_scheduled_condition(self) -> None:
        pod_obj = created_pod()
        pod_obj["status"]["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}
        ]
        binding = {
            "metadata": {"name": "p", "annotations": {"example.com/by": "sched"}},
            "target": {"kind": "Node", "name": "n1"},
        }
        bound = bind_pod(pod_obj, binding, NOW)
        assert bound["spec"]["nodeName"] == "n1"
        assert bound["metadata"]["annotations"] == {"example.com/by": "sched"}
        assert bound["status"]["conditions"] == [
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": format_time(NOW),
                "observedGeneration": 1,
            }
        ]
        assert "nodeName" not in pod_obj["spec"]

    def test_binding_a_bound_pod_conflicts(self) -> None:
        pod_obj = created_pod(nodeName="n1")
        with pytest.raises(StatusError) as caught:
            bind_pod(pod_obj, {"target": {"name": "n2"}}, NOW)
        assert caught.value.code == 409
        assert caught.value.message == (
            'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to '
            'node "n1"'
        )

    def test_binding_without_a_target_is_invalid(self) -> None:
        with pytest.raises(StatusError) as caught:
            bind_pod(created_pod(), {"metadata": {"name": "p"}, "target": {}}, NOW)
        assert caught.value.code == 422
        assert caught.value.message == 'Binding "p" is invalid: target.name: Required value'

    def test_binding_a_gated_pod_conflicts(self) -> None:
        gated = created_pod(schedulingGates=[{"name": "example.com/g"}])
        with pytest.raises(StatusError) as caught:
            bind_pod(gated, {"target": {"name": "n1"}}, NOW)
        assert caught.value.code == 409



class TestPodPrinting:
    def running(self, **status: Any) -> dict[str, Any]:
        obj = created_pod(readinessGates=[{"conditionType": "example.com/ready"}])
        obj["metadata"]["creationTimestamp"] = ago(minutes=3)
        obj["spec"]["nodeName"] = "n1"
        obj["status"].update(
            {
                "phase": "Running",
                "podIP": "10.1.0.7",
                "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [
                    {
                        "name": "c",
                        "ready": True,
                        "restartCount": 2,
                        "image": "x",
                        "imageID": "",
                        "state": {"running": {"startedAt": ago(minutes=1)}},
                        "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(seconds=70)}},
                    }
                ],
            }
        )
        obj["status"].update(status)
        return obj

    def test_columns_match_kubectl_get_pods_wide(self) -> None:
        assert cells(PodStrategy(), self.running()) == {
            "Name": "p",
            "Ready": "1/1",
            "Status": "Running",
            "Restarts": "2 (70s ago)",
            "Age": "3m",
            "IP": "10.1.0.7",
            "Node": "n1",
            "Nominated Node": "<none>",
            "Readiness Gates": "0/1",
        }

    def test_pending_pod_cells(self) -> None:
        row = cells(PodStrategy(), created_pod())
        assert (row["Ready"], row["Status"], row["Restarts"], row["IP"], row["Node"]) == (
            "0/1",
            "Pending",
            "0",
            "<none>",
            "<none>",
        )

    @pytest.mark.parametrize(
        ("state", "expected"),
        [
            ({"waiting": {"reason": "ContainerCreating"}}, "ContainerCreating"),
            ({"waiting": {"reason": "CrashLoopBackOff"}}, "CrashLoopBackOff"),
            ({"terminated": {"exitCode": 0, "reason": "Completed"}}, "Completed"),
            ({"terminated": {"exitCode": 137}}, "ExitCode:137"),
            ({"terminated": {"exitCode": 0, "signal": 9}}, "Signal:9"),
        ],
    )
    def test_status_shows_a_container_reason(self, state: dict[str, Any], expected: str) -> None:
        obj = self.running()
        obj["status"]["containerStatuses"][0]["state"] = state
        assert pod_status_reason(obj) == expected

    def test_status_shows_init_progress(self) -> None:
        obj = created_pod(
            initContainers=[{"name": "i1", "image": "x"}, {"name": "i2", "image": "x"}]
        )
        obj["status"]["initContainerStatuses"] = [
            {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
            {"name": "i2", "state": {"running": {}}},
        ]
        assert pod_status_reason(obj) == "Init:1/2"

    def test_status_shows_terminating_and_gated(self) -> None:
        deleting = self.running()
        deleting["metadata"]["deletionTimestamp"] = ago(seconds=1)
        assert pod_status_reason(deleting) == "Terminating"
        gated = created_pod()
        gated["status"]["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}
        ]
        assert pod_status_reason(gated) == "SchedulingGated"

    def test_evicted_reason_wins_over_phase(self) -> None:
        assert (
            pod_status_reason(self.running(phase="Failed", reason="Evicted", containerStatuses=[]))
            == "Evicted"
        )

    def test_field_selectors(self) -> None:
        fields = PodStrategy().selectable_fields(self.running())
        assert set(PodStrategy.field_labels) == set(fields)
        assert fields["spec.nodeName"] == "n1"
        assert fields["status.phase"] == "Running"
        assert fields["spec.hostNetwork"] == "false"
        assert fields["status.podIP"] == "10.1.0.7"
        assert fields["spec.schedulerName"] == "default-scheduler"


# --- through the generic store ------------------------------------------------------------------


class TestThroughTheStore:
    @pytest.fixture
    def registry(self) -> Any:
        from fakeapi.clock import FakeClock
        from fakeapi.registry.store import GenericStore
        from fakeapi.resources import default_resources

        registry = GenericStore(resources=default_resources(), clock=FakeClock())
        namespaces = registry.resources.lookup("", "v1", "namespaces")
        assert namespaces is not None
        registry.create(namespaces, None, {"metadata": {"name": "default"}}, _write())
        return registry

    def test_a_strict_create_of_a_realistic_pod_succeeds(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        classes = registry.resources.lookup("scheduling.k8s.io", "v1", "priorityclasses")
        registry.create(classes, None, {"metadata": {"name": "high"}, "value": 1000}, _write())
        body = copy.deepcopy(REALISTIC_POD)
        result = registry.create(pods, "default", body, _write(field_validation="Strict"))
        assert result.obj["status"] == {"phase": "Pending", "qosClass": "Burstable"}
        assert result.obj["metadata"]["generation"] == 1

    def test_binding_sets_node_and_condition_but_updates_cannot(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        registry.create(pods, "default", new_pod(), _write())
        current = registry.get(pods, "default", "p").obj
        moved = copy.deepcopy(current)
        moved["spec"]["nodeName"] = "n2"
        with pytest.raises(StatusError) as caught:
            registry.update(pods, "default", "p", moved, _write())
        assert caught.value.code == 422
        bound = registry.post_subresource(
            pods, "default", "p", "binding", {"target": {"kind": "Node", "name": "n1"}}, _write()
        ).obj
        assert bound["spec"]["nodeName"] == "n1"
        assert [c["type"] for c in bound["status"]["conditions"]] == ["PodScheduled"]
        with pytest.raises(StatusError) as again:
            registry.post_subresource(
                pods, "default", "p", "binding", {"target": {"name": "n2"}}, _write()
            )
        assert again.value.code == 409

    def test_binding_clears_the_nomination_preemption_made(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        registry.create(pods, "default", new_pod(), _write())
        nominated = copy.deepcopy(registry.get(pods, "default", "p").obj)
        nominated["status"]["nominatedNodeName"] = "n1"
        registry.update(pods, "default", "p", nominated, _write(), subresource="status")
        assert registry.get(pods, "default", "p").obj["status"]["nominatedNodeName"] == "n1"
        bound = registry.post_subresource(
            pods, "default", "p", "binding", {"target": {"kind": "Node", "name": "n1"}}, _write()
        ).obj
        assert "nominatedNodeName" not in bound["status"]

    def test_binding_records_no_managed_fields_entry(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        registry.create(pods, "default", new_pod(), _write(field_manager="kubectl"))
        before = registry.get(pods, "default", "p").obj["metadata"]["managedFields"]
        registry.post_subresource(
            pods, "default", "p", "binding", {"target": {"name": "n1"}},
            _write(field_manager="default-scheduler"),
        )
        bound = registry.get(pods, "default", "p").obj
        assert bound["spec"]["nodeName"] == "n1"
        assert bound["metadata"]["managedFields"] == before

    def test_binding_checks_its_uid_and_resource_version_preconditions(
        self, registry: Any
    ) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        created = registry.create(pods, "default", new_pod(), _write()).obj
        for meta, detail in (
            ({"uid": "other"}, "Precondition failed: UID in precondition: other"),
            ({"resourceVersion": "1"}, "Precondition failed: ResourceVersion in precondition: 1"),
        ):
            with pytest.raises(StatusError) as caught:
                registry.post_subresource(
                    pods, "default", "p", "binding",
                    {"metadata": {"name": "p", **meta}, "target": {"name": "n1"}}, _write(),
                )
            assert caught.value.code == 409
            assert detail in caught.value.message
        meta = created["metadata"]
        registry.post_subresource(
            pods, "default", "p", "binding",
            {
                "metadata": {"name": "p", "uid": meta["uid"],
                             "resourceVersion": meta["resourceVersion"]},
                "target": {"name": "n1"},
            },
            _write(),
        )
        assert registry.get(pods, "default", "p").obj["spec"]["nodeName"] == "n1"

    def test_binding_to_a_malformed_node_name_is_invalid(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        registry.create(pods, "default", new_pod(), _write())
        with pytest.raises(StatusError) as caught:
            registry.post_subresource(
                pods, "default", "p", "binding", {"target": {"name": "Not_A_Node"}}, _write()
            )
        assert caught.value.code == 422
        assert caught.value.message.startswith('Pod "p" is invalid: spec.nodeName: Invalid value')
        assert "nodeName" not in registry.get(pods, "default", "p").obj["spec"]

    def test_a_dry_run_binding_changes_nothing(self, registry: Any) -> None:
        pods = registry.resources.lookup("", "v1", "pods")
        registry.create(pods, "default", new_pod(), _write())
        version = registry.resource_version
        result = registry.post_subresource(
            pods, "default", "p", "binding", {"target": {"name": "n1"}}, _write(dry_run=True)
        )
        assert result.obj["spec"]["nodeName"] == "n1"
        assert registry.resource_version == version
        assert "nodeName" not in registry.get(pods, "default", "p").obj["spec"]

    def test_namespace_gets_its_finalizer_and_label(self, registry: Any) -> None:
        namespaces = registry.resources.lookup("", "v1", "namespaces")
        stored = registry.get(namespaces, None, "default").obj
        assert stored["spec"] == {"finalizers": ["kubernetes"]}
        assert stored["status"] == {"phase": "Active"}
        assert stored["metadata"]["labels"] == {"kubernetes.io/metadata.name": "default"}


def _write(**options: Any) -> Any:
    from fakeapi.registry.options import WriteOptions

    return WriteOptions(**options)
