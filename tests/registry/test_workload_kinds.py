"""The workload, identity, policy and RBAC kinds as the API server stores them.

Defaults and validation messages follow upstream's ``pkg/apis/{apps,batch,policy,rbac,core}``
(defaults.go and validation.go, with cases taken from their tests); the scale subresource and the
eviction's disruption budget check follow ``pkg/registry/apps/deployment/storage`` and
``pkg/registry/core/pod/storage/eviction.go``.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.scale import read_scale, write_scale
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType, default_resources

from ..support.samples import sample

RESOURCES = default_resources()
NS = "default"


def _rt(api_version: str, kind: str) -> ResourceType:
    found = RESOURCES.by_kind(api_version, kind)
    assert found is not None
    return found


@pytest.fixture
def registry() -> GenericStore:
    store = GenericStore(resources=RESOURCES, clock=FakeClock())
    store.create(_rt("v1", "Namespace"), None, {"metadata": {"name": NS}}, WriteOptions())
    return store


def _create(registry: GenericStore, body: dict[str, Any]) -> dict[str, Any]:
    """Create ``body``; a private copy of what was stored (stored objects are never changed)."""
    rt = _rt(body["apiVersion"], body["kind"])
    stored = registry.create(rt, NS if rt.namespaced else None, body, WriteOptions()).obj
    return copy.deepcopy(stored)


def _causes(registry: GenericStore, body: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(StatusError) as failure:
        _create(registry, body)
    assert failure.value.code == 422, failure.value.message
    details = failure.value.details or {}
    return [(c.get("field", ""), c["message"]) for c in details.get("causes", [])]


# --- defaults ------------------------------------------------------------------------------------


def test_a_deployment_gets_upstreams_defaults(registry: GenericStore) -> None:
    spec = _create(registry, sample("apps/v1", "Deployment"))["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate",
                                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    pod_spec = spec["template"]["spec"]
    assert (pod_spec["restartPolicy"], pod_spec["dnsPolicy"]) == ("Always", "ClusterFirst")
    assert pod_spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_a_job_gets_a_generated_selector_and_labels(registry: GenericStore) -> None:
    job = _create(registry, sample("batch/v1", "Job"))
    uid, spec = job["metadata"]["uid"], job["spec"]
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"] == {
        "controller-uid": uid, "job-name": "sample",
        "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "sample",
    }
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert (spec["completionMode"], spec["suspend"]) == ("NonIndexed", False)
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"


def test_a_stateful_set_and_a_daemon_set_get_their_strategies(registry: GenericStore) -> None:
    sts = _create(registry, sample("apps/v1", "StatefulSet"))["spec"]
    assert sts["podManagementPolicy"] == "OrderedReady"
    assert sts["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert sts["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain",
                                                            "whenScaled": "Retain"}
    ds = _create(registry, sample("apps/v1", "DaemonSet"))
    assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                            "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert ds["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}


def test_a_daemon_sets_template_generation_moves_with_its_template(
    registry: GenericStore,
) -> None:
    rt = _rt("apps/v1", "DaemonSet")
    ds = _create(registry, sample("apps/v1", "DaemonSet"))
    ds["metadata"]["labels"] = {"team": "a"}
    kept = copy.deepcopy(registry.update(rt, NS, "sample", ds, WriteOptions()).obj)
    assert kept["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
    kept["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example/app:2.0"
    bumped = registry.update(rt, NS, "sample", kept, WriteOptions()).obj
    assert bumped["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"


def test_a_secrets_string_data_is_stored_as_data(registry: GenericStore) -> None:
    secret = _create(registry, sample("v1", "Secret"))
    assert "stringData" not in secret
    assert secret["type"] == "Opaque"
    assert base64.b64decode(secret["data"]["password"]) == b"s3cret"


def test_a_replication_controller_selects_its_templates_labels(registry: GenericStore) -> None:
    body = sample("v1", "ReplicationController")
    del body["spec"]["selector"]
    rc = _create(registry, body)
    assert rc["spec"]["selector"] == {"app": "sample"}
    assert rc["metadata"]["labels"] == {"app": "sample"}


def test_rbac_groups_default_and_a_role_ref_never_changes(registry: GenericStore) -> None:
    body = sample("rbac.authorization.k8s.io/v1", "RoleBinding")
    body["subjects"].append({"kind": "User", "name": "alice"})
    binding = _create(registry, body)
    assert binding["subjects"][0].get("apiGroup") is None
    assert binding["subjects"][1]["apiGroup"] == "rbac.authorization.k8s.io"
    binding["roleRef"]["name"] = "other"
    with pytest.raises(StatusError) as failure:
        registry.update(_rt("rbac.authorization.k8s.io/v1", "RoleBinding"), NS, "sample",
                        binding, WriteOptions())
    assert "roleRef: Invalid value" in failure.value.message
    assert "cannot change roleRef" in failure.value.message


# --- validation ----------------------------------------------------------------------------------


def _with(api_version: str, kind: str, path: str, value: Any) -> dict[str, Any]:
    body = sample(api_version, kind)
    target: Any = body
    keys = path.split(".")
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    if value is _DELETE:
        target.pop(keys[-1], None)
    else:
        target[keys[-1]] = copy.deepcopy(value)
    return body


_DELETE = object()
_APPS, _BATCH, _RBAC = "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1"

# (description, body, field, message)
INVALID = [
    ("negative replicas", _with(_APPS, "Deployment", "spec.replicas", -1), "spec.replicas",
     "Invalid value: -1: must be greater than or equal to 0"),
    ("an empty selector", _with(_APPS, "Deployment", "spec.selector", {}), "spec.selector",
     "Invalid value: {}: empty selector is invalid for deployment"),
    ("labels the selector does not match",
     _with(_APPS, "Deployment", "spec.selector", {"matchLabels": {"app": "other"}}),
     "spec.template.metadata.labels",
     'Invalid value: {"app":"sample"}: `selector` does not match template `labels`'),
    ("a restart policy other than Always",
     _with(_APPS, "ReplicaSet", "spec.template.spec.restartPolicy", "Never"),
     "spec.template.spec.restartPolicy", 'Unsupported value: "Never": supported values: '
     '"Always"'),
    ("both surge and unavailability zero",
     _with(_APPS, "Deployment", "spec.strategy",
           {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}),
     "spec.strategy.rollingUpdate.maxUnavailable",
     "Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    ("a bad percentage",
     _with(_APPS, "Deployment", "spec.strategy",
           {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25", "maxUnavailable": 1}}),
     "spec.strategy.rollingUpdate.maxSurge",
     "Invalid value: \"25\": a valid percent string must be a numeric string followed by an "
     "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    ("recreate with rolling parameters",
     _with(_APPS, "Deployment", "spec.strategy",
           {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
     "spec.strategy.rollingUpdate",
     "Forbidden: may not be specified when strategy `type` is 'Recreate'"),
    ("a deadline not above minReadySeconds",
     _with(_APPS, "Deployment", "spec.minReadySeconds", 700), "spec.progressDeadlineSeconds",
     "Invalid value: 600: must be greater than minReadySeconds"),
    ("a bad pod management policy",
     _with(_APPS, "StatefulSet", "spec.podManagementPolicy", "Random"),
     "spec.podManagementPolicy", "Invalid value: \"Random\": must be 'OrderedReady' or "
     "'Parallel'"),
    ("an active deadline on a daemon",
     _with(_APPS, "DaemonSet", "spec.template.spec.activeDeadlineSeconds", 5),
     "spec.template.spec.activeDeadlineSeconds",
     "Forbidden: activeDeadlineSeconds in DaemonSet is not Supported"),
    ("a Job whose pods restart Always",
     _with(_BATCH, "Job", "spec.template.spec.restartPolicy", _DELETE),
     "spec.template.spec.restartPolicy", 'Required value: valid values: "OnFailure", "Never"'),
    ("Indexed without completions",
     _with(_BATCH, "Job", "spec", {"completionMode": "Indexed", "parallelism": 2,
                                   "template": sample(_BATCH, "Job")["spec"]["template"]}),
     "spec.completions", "Required value: when completion mode is Indexed"),
    ("per-index backoff of a NonIndexed Job",
     _with(_BATCH, "Job", "spec.backoffLimitPerIndex", 1), "spec.backoffLimitPerIndex",
     "Invalid value: 1: requires indexed completion mode"),
    ("a pod failure policy rule matching nothing",
     _with(_BATCH, "Job", "spec.podFailurePolicy", {"rules": [{"action": "FailJob"}]}),
     "spec.podFailurePolicy.rules[0]",
     "Invalid value: null: specifying one of OnExitCodes and OnPodConditions is required"),
    ("a cron schedule that does not parse",
     _with(_BATCH, "CronJob", "spec.schedule", "61 * * * *"), "spec.schedule",
     'Invalid value: "61 * * * *": end of range (61) above maximum (59): 61'),
    ("a job template with a selector",
     _with(_BATCH, "CronJob", "spec.jobTemplate.spec.selector", {"matchLabels": {"a": "b"}}),
     "spec.jobTemplate.spec.selector",
     'Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated'),
    ("both bounds of a budget",
     _with("policy/v1", "PodDisruptionBudget", "spec.maxUnavailable", 1), "spec",
     'Invalid value: {"maxUnavailable":1,"minAvailable":1,"selector":{"matchLabels":'
     '{"app":"sample"}}}: minAvailable and maxUnavailable cannot be both set'),
    ("a rule without verbs",
     _with(_RBAC, "Role", "rules", [{"apiGroups": [""], "resources": ["pods"]}]),
     "rules[0].verbs", "Required value: verbs must contain at least one value"),
    ("a namespaced rule on URLs",
     _with(_RBAC, "Role", "rules", [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]),
     "rules[0].nonResourceURLs",
     'Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs'),
    ("a cluster binding to a Role",
     _with(_RBAC, "ClusterRoleBinding", "roleRef.kind", "Role"), "roleRef.kind",
     'Unsupported value: "Role": supported values: "ClusterRole"'),
    ("a service account subject of a cluster binding without namespace",
     _with(_RBAC, "ClusterRoleBinding", "subjects", [{"kind": "ServiceAccount", "name": "x"}]),
     "subjects[0].namespace", "Required value"),
    ("a TLS secret without its key",
     _with("v1", "Secret", "type", "kubernetes.io/tls"), "data[tls.key]", "Required value"),
]


@pytest.mark.parametrize(("description", "body", "field", "message"), INVALID,
                         ids=[case[0] for case in INVALID])
def test_invalid_objects_are_refused_with_upstreams_messages(
    registry: GenericStore, description: str, body: dict[str, Any], field: str, message: str
) -> None:
    causes = _causes(registry, body)
    assert (field, message) in causes, causes


def test_a_role_name_may_be_anything_but_a_path(registry: GenericStore) -> None:
    role = _with(_RBAC, "ClusterRole", "metadata.name", "system:controller:x")
    assert _create(registry, role)["metadata"]["name"] == "system:controller:x"
    bad = _with(_RBAC, "ClusterRole", "metadata.name", "a/b")
    assert ("metadata.name", "Invalid value: \"a/b\": may not contain '/'") in _causes(
        registry, bad
    )


def test_a_jobs_template_and_completions_are_immutable(registry: GenericStore) -> None:
    rt = _rt(_BATCH, "Job")
    job = _create(registry, sample(_BATCH, "Job"))
    job["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example/work:2.0"
    job["spec"]["completions"] = 3
    with pytest.raises(StatusError) as failure:
        registry.update(rt, NS, "sample", job, WriteOptions())
    assert "spec.template: Invalid value" in failure.value.message
    assert "spec.completions: Invalid value: 3: field is immutable" in failure.value.message


# --- scale -------------------------------------------------------------------------------------


def test_the_scale_subresource_reads_and_writes_replicas(registry: GenericStore) -> None:
    rt = _rt(_APPS, "Deployment")
    _create(registry, sample(_APPS, "Deployment"))
    scale = read_scale(registry, rt, NS, "sample")
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 1}
    assert scale["status"] == {"replicas": 0, "selector": "app=sample"}
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 4}}
    written = write_scale(registry, rt, NS, "sample", body, WriteOptions())
    assert written["spec"] == {"replicas": 4}
    stored = registry.get(rt, NS, "sample").obj
    assert (stored["spec"]["replicas"], stored["metadata"]["generation"]) == (4, 2)
    with pytest.raises(StatusError) as failure:
        write_scale(registry, rt, NS, "sample", {"spec": {"replicas": -1}}, WriteOptions())
    assert failure.value.code == 422
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in (
        failure.value.message
    )


def test_a_stale_scale_is_a_conflict(registry: GenericStore) -> None:
    rt = _rt(_APPS, "StatefulSet")
    _create(registry, sample(_APPS, "StatefulSet"))
    stale = read_scale(registry, rt, NS, "sample")
    write_scale(registry, rt, NS, "sample", {"spec": {"replicas": 2}}, WriteOptions())
    stale["spec"]["replicas"] = 3
    with pytest.raises(StatusError) as failure:
        write_scale(registry, rt, NS, "sample", stale, WriteOptions())
    assert failure.value.code == 409


# --- evictions and disruption budgets ----------------------------------------------------------


def _running_pod(registry: GenericStore, name: str, *, ready: bool = True) -> None:
    pods = _rt("v1", "Pod")
    body = sample("v1", "Pod")
    body["metadata"] = {"name": name, "labels": {"app": "sample"}}
    registry.create(pods, NS, body, WriteOptions())

    def running(pod: dict[str, Any]) -> dict[str, Any]:
        pod["status"] = {"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True" if ready else "False",
             "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
        return pod

    registry.guaranteed_update(pods, NS, name, running, WriteOptions(), subresource="status")


def _budget(registry: GenericStore, *, allowed: int, current: int = 2, desired: int = 1,
            policy: str | None = None) -> None:
    rt = _rt("policy/v1", "PodDisruptionBudget")
    body = sample("policy/v1", "PodDisruptionBudget")
    if policy:
        body["spec"]["unhealthyPodEvictionPolicy"] = policy
    _create(registry, body)

    def status(obj: dict[str, Any]) -> dict[str, Any]:
        obj["status"] = {"observedGeneration": 1, "disruptionsAllowed": allowed,
                         "currentHealthy": current, "desiredHealthy": desired,
                         "expectedPods": current}
        return obj

    registry.guaranteed_update(rt, NS, "sample", status, WriteOptions(), subresource="status")


def _evict(registry: GenericStore, name: str) -> None:
    registry.post_subresource(
        _rt("v1", "Pod"), NS, name, "eviction",
        {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}},
        WriteOptions(),
    )


def test_an_eviction_the_budget_allows_takes_one_disruption(registry: GenericStore) -> None:
    _running_pod(registry, "web-1")
    _budget(registry, allowed=1)
    _evict(registry, "web-1")
    status = registry.get(_rt("policy/v1", "PodDisruptionBudget"), NS, "sample").obj["status"]
    assert status["disruptionsAllowed"] == 0
    assert list(status["disruptedPods"]) == ["web-1"]
    assert status["conditions"][0]["reason"] == "InsufficientPods"
    assert registry.find(_rt("v1", "Pod"), NS, "web-1") is None  # unscheduled: gone at once


def test_an_eviction_the_budget_does_not_allow_is_429(registry: GenericStore) -> None:
    _running_pod(registry, "web-1")
    _budget(registry, allowed=0, current=1, desired=1)
    with pytest.raises(StatusError) as failure:
        _evict(registry, "web-1")
    assert (failure.value.code, failure.value.reason) == (429, "TooManyRequests")
    assert failure.value.message == (
        "Cannot evict pod as it would violate the pod's disruption budget."
    )
    assert failure.value.details == {"causes": [{
        "reason": "DisruptionBudget",
        "message": "The disruption budget sample needs 1 healthy pods and has 1 currently",
    }]}
    assert registry.find(_rt("v1", "Pod"), NS, "web-1") is not None


def test_an_unready_pod_may_go_when_the_budget_is_healthy(registry: GenericStore) -> None:
    _running_pod(registry, "web-1", ready=False)
    _budget(registry, allowed=0, current=2, desired=1)
    _evict(registry, "web-1")
    status = registry.get(_rt("policy/v1", "PodDisruptionBudget"), NS, "sample").obj["status"]
    assert status["disruptionsAllowed"] == 0 and "disruptedPods" not in status


def test_a_pod_of_two_budgets_cannot_be_evicted(registry: GenericStore) -> None:
    _running_pod(registry, "web-1")
    _budget(registry, allowed=1)
    second = sample("policy/v1", "PodDisruptionBudget")
    second["metadata"]["name"] = "second"
    _create(registry, second)
    with pytest.raises(StatusError) as failure:
        _evict(registry, "web-1")
    assert failure.value.code == 500
    assert failure.value.message == (
        "Internal error occurred: This pod has more than one PodDisruptionBudget, which the "
        "eviction subresource does not support."
    )


def test_deleting_a_deployment_is_answered_with_a_status(registry: GenericStore) -> None:
    _create(registry, sample(_APPS, "Deployment"))
    result = registry.delete(_rt(_APPS, "Deployment"), NS, "sample", DeleteOptions())
    assert result.deleted
