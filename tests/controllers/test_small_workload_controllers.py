"""The smaller controllers: default ServiceAccounts, ClusterRole aggregation, disruption budgets,
CronJobs.

From upstream's ``serviceaccounts_controller_test`` (every new namespace gets ``default``),
``clusterroleaggregation_controller_test`` (rules gathered from the selected roles, each once),
``disruption_test`` (desired and current healthy, disruptions allowed, the DisruptionAllowed
condition) and ``cronjob_controllerv2_test`` (a Job per scheduled time, named by its minute).
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import (
    CLUSTER_ROLES,
    CRON_JOBS,
    JOBS,
    NAMESPACES,
    POD_DISRUPTION_BUDGETS,
    PODS,
    SERVICE_ACCOUNTS,
)

from ..support.workloads import make_ready


async def test_every_namespace_gets_a_default_service_account(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["serviceaccount-controller"])
        await cluster.user.create(NAMESPACES, body={"metadata": {"name": "team-a"}})

        async def created() -> bool:
            accounts = (await cluster.user.list(SERVICE_ACCOUNTS, namespace="team-a")).items
            return [a["metadata"]["name"] for a in accounts] == ["default"]

        await cluster.eventually(created)
        await cluster.user.delete(SERVICE_ACCOUNTS, name="default", namespace="team-a")
        await cluster.eventually(created)
    finally:
        await cluster.close()


async def test_an_aggregated_cluster_role_gathers_the_selected_rules(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["clusterrole-aggregation-controller"])
        read = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
        write = {"apiGroups": [""], "resources": ["pods"], "verbs": ["create"]}
        await cluster.user.create(CLUSTER_ROLES, body={
            "metadata": {"name": "monitoring", "labels": {"aggregate": "yes"}}, "rules": [read]})
        await cluster.user.create(CLUSTER_ROLES, body={
            "metadata": {"name": "reader", "labels": {"aggregate": "yes"}},
            "rules": [read, write]})
        await cluster.user.create(CLUSTER_ROLES, body={
            "metadata": {"name": "aggregate"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"aggregate": "yes"}}]},
        })

        async def gathered() -> list[Any] | None:
            role = await cluster.user.get(CLUSTER_ROLES, name="aggregate")
            rules = role.get("rules") or []
            return rules if len(rules) == 2 else None

        assert await cluster.eventually(gathered) == [read, write]
    finally:
        await cluster.close()


async def test_a_budget_counts_healthy_pods_and_allows_the_rest(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["disruption-controller"])
        for i in range(3):
            pod = await cluster.user.create(PODS, body={
                "metadata": {"name": f"web-{i}", "namespace": "default",
                             "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "registry.example/app:1.0"}]}})
            if i < 2:
                await make_ready(cluster.user, pod)
        await cluster.user.create(POD_DISRUPTION_BUDGETS, body={
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})

        async def computed() -> dict[str, Any] | None:
            got = await cluster.user.get(POD_DISRUPTION_BUDGETS, name="web", namespace="default")
            return got.get("status") or None

        status = await cluster.eventually(computed)
        assert {k: status[k] for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy",
                                       "expectedPods", "observedGeneration")} == {
            "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
            "expectedPods": 3, "observedGeneration": 1}
        condition = status["conditions"][0]
        assert (condition["type"], condition["status"], condition["reason"]) == (
            "DisruptionAllowed", "True", "SufficientPods")
    finally:
        await cluster.close()


async def test_a_cron_job_starts_a_job_at_its_scheduled_time(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["cronjob-controller"])
        await cluster.user.create(CRON_JOBS, body={
            "metadata": {"name": "tick", "namespace": "default"},
            "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "registry.example/c:1"}]}}}}}})
        await cluster.settle()
        assert (await cluster.user.list(JOBS, namespace="default")).items == []
        await cluster.advance(5 * 60 + 1)  # the controller wakes just after the minute

        async def started() -> list[dict[str, Any]] | None:
            return (await cluster.user.list(JOBS, namespace="default")).items or None

        (job,) = await cluster.eventually(started)
        scheduled = job["metadata"]["annotations"][
            "batch.kubernetes.io/cronjob-scheduled-timestamp"]
        assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
        assert job["metadata"]["name"].startswith("tick-")

        async def recorded() -> dict[str, Any] | None:
            got = await cluster.user.get(CRON_JOBS, name="tick", namespace="default")
            return got["status"] if got.get("status", {}).get("active") else None

        status = await cluster.eventually(recorded)
        assert status["lastScheduleTime"] == scheduled
        assert status["active"][0]["name"] == job["metadata"]["name"]
    finally:
        await cluster.close()
