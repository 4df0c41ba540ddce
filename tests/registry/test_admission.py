"""Mutating admission as kube-apiserver runs it on pods: Priority, then DefaultTolerationSeconds."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.admission import (
    DefaultTolerationSeconds,
    PodGroupProtection,
    Priority,
    ServiceAllocation,
)
from fakeapi.registry.options import WriteOptions
from fakeapi.resources import default_resources

KINDS = {(rt.api_version, rt.kind): rt for rt in default_resources()}
POD = KINDS[("v1", "Pod")]
PRIORITY_CLASS = KINDS[("scheduling.k8s.io/v1", "PriorityClass")]
NS = "default"
NOT_READY = {
    "key": "node.kubernetes.io/not-ready",
    "operator": "Exists",
    "effect": "NoExecute",
    "tolerationSeconds": 300,
}
UNREACHABLE = {**NOT_READY, "key": "node.kubernetes.io/unreachable"}


@pytest.fixture
def registry() -> Any:
    return new_registry(clock=FakeClock())


def _opts() -> WriteOptions:
    return WriteOptions(field_manager="tests")


def _pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}], **spec},
    }


def _class(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "value": value, **extra}


def _create_pod(registry: Any, body: dict[str, Any]) -> dict[str, Any]:
    created: dict[str, Any] = registry.create(POD, NS, body, _opts()).obj
    return created


def _forbidden(registry: Any, body: dict[str, Any]) -> StatusError:
    rv = registry.storage.rv
    with pytest.raises(StatusError) as caught:
        registry.create(POD, NS, body, _opts())
    assert caught.value.code == 403 and caught.value.reason == "Forbidden"
    assert registry.storage.rv == rv, "a refused pod must not be stored"
    return caught.value


def test_the_chain_runs_priority_before_default_toleration_seconds(registry: Any) -> None:
    kinds = [type(plugin) for plugin in registry.admission.plugins]
    assert kinds == [Priority, DefaultTolerationSeconds, PodGroupProtection, ServiceAllocation]


def test_a_pod_group_is_created_with_the_protection_finalizer_and_keeps_others(
    registry: Any,
) -> None:
    rt = KINDS[("scheduling.k8s.io/v1alpha1", "PodGroup")]
    body = {
        "metadata": {"name": "trainers", "finalizers": ["example.com/keep"]},
        "spec": {"workloadRef": {"name": "training"}, "policy": {"basic": {}}},
    }
    created = registry.create(rt, NS, body, _opts()).obj
    assert created["metadata"]["finalizers"] == [
        "example.com/keep",
        "scheduling.k8s.io/podgroup-protection",
    ]
    # an update that drops it is kept as written: only creates are admitted this way
    created["metadata"]["finalizers"] = []
    updated = registry.update(rt, NS, "trainers", created, _opts()).obj
    assert not updated["metadata"].get("finalizers")


class TestPriority:
    def test_a_pod_without_a_class_and_no_default_gets_priority_zero(self, registry: Any) -> None:
        spec = _create_pod(registry, _pod())["spec"]
        assert spec["priority"] == 0
        assert spec["preemptionPolicy"] == "PreemptLowerPriority"
        assert "priorityClassName" not in spec

    def test_a_named_class_gives_its_value_and_preemption_policy(self, registry: Any) -> None:
        registry.create(
            PRIORITY_CLASS, None, _class("batch", 500, preemptionPolicy="Never"), _opts()
        )
        spec = _create_pod(registry, _pod(priorityClassName="batch"))["spec"]
        assert (spec["priority"], spec["preemptionPolicy"]) == (500, "Never")

    def test_the_global_default_class_is_used_when_none_is_named(self, registry: Any) -> None:
        registry.create(PRIORITY_CLASS, None, _class("normal", 100, globalDefault=True), _opts())
        spec = _create_pod(registry, _pod())["spec"]
        assert spec["priorityClassName"] == "normal"
        assert (spec["priority"], spec["preemptionPolicy"]) == (100, "PreemptLowerPriority")

    def test_an_unknown_class_is_forbidden(self, registry: Any) -> None:
        err = _forbidden(registry, _pod(priorityClassName="nope"))
        assert err.message == 'pods "p" is forbidden: no PriorityClass with name nope was found'

    def test_a_generated_name_is_reported_by_its_prefix(self, registry: Any) -> None:
        body = _pod(priorityClassName="nope")
        body["metadata"] = {"generateName": "worker-"}
        err = _forbidden(registry, body)
        assert err.message.startswith('pods "worker-" is forbidden: ')

    def test_a_pod_that_sets_another_priority_is_forbidden(self, registry: Any) -> None:
        registry.create(PRIORITY_CLASS, None, _class("batch", 500), _opts())
        err = _forbidden(registry, _pod(priorityClassName="batch", priority=7))
        assert err.message == (
            'pods "p" is forbidden: the integer value of priority (7) must not be provided in '
            "pod spec; priority admission controller computed 500 from the given PriorityClass "
            "name"
        )

    def test_a_pod_may_repeat_the_computed_priority(self, registry: Any) -> None:
        registry.create(PRIORITY_CLASS, None, _class("batch", 500), _opts())
        spec = _create_pod(registry, _pod(priorityClassName="batch", priority=500))["spec"]
        assert spec["priority"] == 500

    def test_a_pod_that_sets_another_preemption_policy_is_forbidden(self, registry: Any) -> None:
        registry.create(
            PRIORITY_CLASS, None, _class("batch", 500, preemptionPolicy="Never"), _opts()
        )
        body = _pod(priorityClassName="batch", preemptionPolicy="PreemptLowerPriority")
        err = _forbidden(registry, body)
        assert err.message == (
            'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) '
            "must not be provided in pod spec; priority admission controller computed Never "
            "from the given PriorityClass name"
        )

    def test_an_update_without_priority_keeps_the_stored_one(self, registry: Any) -> None:
        registry.create(PRIORITY_CLASS, None, _class("batch", 500), _opts())
        created = _create_pod(registry, _pod(priorityClassName="batch"))
        replacement = _pod(priorityClassName="batch")
        replacement["spec"] = {**created["spec"], "activeDeadlineSeconds": 60}
        del replacement["spec"]["priority"], replacement["spec"]["preemptionPolicy"]
        replacement["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
        updated = registry.update(POD, NS, "p", replacement, _opts()).obj
        assert updated["spec"]["priority"] == 500
        assert updated["spec"]["activeDeadlineSeconds"] == 60

    def test_only_one_priority_class_may_be_the_global_default(self, registry: Any) -> None:
        registry.create(PRIORITY_CLASS, None, _class("first", 1, globalDefault=True), _opts())
        with pytest.raises(StatusError) as caught:
            registry.create(PRIORITY_CLASS, None, _class("second", 2, globalDefault=True), _opts())
        assert caught.value.code == 403
        assert caught.value.message == (
            'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is '
            "marked as default. Only one default can exist"
        )


class TestDefaultTolerationSeconds:
    def test_a_pod_gets_the_not_ready_and_unreachable_tolerations(self, registry: Any) -> None:
        spec = _create_pod(registry, _pod())["spec"]
        assert spec["tolerations"] == [NOT_READY, UNREACHABLE]

    def test_existing_tolerations_come_first(self, registry: Any) -> None:
        gpu = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
        spec = _create_pod(registry, _pod(tolerations=[gpu]))["spec"]
        assert spec["tolerations"] == [gpu, NOT_READY, UNREACHABLE]

    def test_a_pod_that_tolerates_not_ready_only_gets_unreachable(self, registry: Any) -> None:
        own = {**NOT_READY, "tolerationSeconds": 10}
        spec = _create_pod(registry, _pod(tolerations=[own]))["spec"]
        assert spec["tolerations"] == [own, UNREACHABLE]

    def test_a_pod_that_tolerates_everything_gets_nothing(self, registry: Any) -> None:
        everything = {"operator": "Exists"}
        spec = _create_pod(registry, _pod(tolerations=[everything]))["spec"]
        assert spec["tolerations"] == [everything]
