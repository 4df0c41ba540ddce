"""The Job controller runs pods to completion and records the outcome as upstream does.

Behaviours from upstream's ``pkg/controller/job`` tests: pods carry the tracking finalizer until
counted; success is SuccessCriteriaMet then Complete (reason CompletionsReached) with a
completion time; too many failures is FailureTarget then Failed (BackoffLimitExceeded); a pod
failure policy's FailJob names the container and rule; Indexed Jobs give each pod its index
(annotation, label, JOB_COMPLETION_INDEX, host name) and record completed indexes; a suspended
Job has no pods; a finished Job with a TTL goes after it.
"""

from __future__ import annotations

from typing import Any

from fakeapi.client import EVENTS, JOBS

from ..support.workloads import finish, job, owned_pods

FINALIZER = "batch.kubernetes.io/job-tracking"


async def _job(client: Any, name: str) -> dict[str, Any]:
    return await client.get(JOBS, name=name, namespace="default")


def _conditions(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["type"], c["status"], c.get("reason", ""))
            for c in obj.get("status", {}).get("conditions", [])]


async def _pods(client: Any, uid: str, count: int) -> list[dict[str, Any]] | None:
    pods = [p for p in await owned_pods(client, uid)
            if p.get("status", {}).get("phase") not in ("Succeeded", "Failed")]
    return pods if len(pods) == count else None


async def test_a_job_completes_once_its_pods_succeeded(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["job-controller"])
        created = await cluster.user.create(JOBS, body=job("work", completions=2,
                                                           parallelism=2))
        uid = created["metadata"]["uid"]
        pods = await cluster.eventually(lambda: _pods(cluster.user, uid, 2))
        for pod in pods:
            assert pod["metadata"]["finalizers"] == [FINALIZER]
            assert pod["metadata"]["generateName"] == "work-"
            await finish(cluster.user, pod, phase="Succeeded")

        async def complete() -> dict[str, Any] | None:
            got = await _job(cluster.user, "work")
            return got if ("Complete", "True", "CompletionsReached") in _conditions(got) else None

        got = await cluster.eventually(complete)
        assert _conditions(got) == [("SuccessCriteriaMet", "True", "CompletionsReached"),
                                    ("Complete", "True", "CompletionsReached")]
        status = got["status"]
        assert (status["succeeded"], status["uncountedTerminatedPods"]) == (2, {})
        assert status["completionTime"] and status["startTime"]
        for pod in await owned_pods(cluster.user, uid):
            assert not pod["metadata"].get("finalizers")
        events = (await cluster.user.list(EVENTS, namespace="default")).items
        assert any(e["reason"] == "Completed" and e["message"] == "Job completed"
                   for e in events)
    finally:
        await cluster.close()


async def test_more_failures_than_the_backoff_limit_fail_the_job(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["job-controller"])
        created = await cluster.user.create(JOBS, body=job("flaky", backoffLimit=0))
        uid = created["metadata"]["uid"]
        (pod,) = await cluster.eventually(lambda: _pods(cluster.user, uid, 1))
        await finish(cluster.user, pod, phase="Failed", exit_code=1)

        async def failed() -> dict[str, Any] | None:
            got = await _job(cluster.user, "flaky")
            return got if ("Failed", "True", "BackoffLimitExceeded") in _conditions(got) else None

        got = await cluster.eventually(failed)
        assert _conditions(got) == [("FailureTarget", "True", "BackoffLimitExceeded"),
                                    ("Failed", "True", "BackoffLimitExceeded")]
        assert got["status"]["failed"] == 1
        message = next(c["message"] for c in got["status"]["conditions"])
        assert message == "Job has reached the specified backoff limit"
        assert "completionTime" not in got["status"]
    finally:
        await cluster.close()


async def test_a_fail_job_rule_names_the_container_and_the_rule(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["job-controller"])
        created = await cluster.user.create(JOBS, body=job("strict", podFailurePolicy={
            "rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}))
        (pod,) = await cluster.eventually(lambda: _pods(cluster.user, created["metadata"]["uid"],
                                                        1))
        await finish(cluster.user, pod, phase="Failed", exit_code=42)

        async def failed() -> dict[str, Any] | None:
            got = await _job(cluster.user, "strict")
            return got if ("Failed", "True", "PodFailurePolicy") in _conditions(got) else None

        got = await cluster.eventually(failed)
        message = got["status"]["conditions"][-1]["message"]
        assert message == (f"Container work for pod default/{pod['metadata']['name']} failed "
                           "with exit code 42 matching FailJob rule at index 0")
    finally:
        await cluster.close()


async def test_an_indexed_job_gives_each_pod_its_index(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["job-controller"])
        created = await cluster.user.create(JOBS, body=job(
            "idx", completions=3, parallelism=3, completionMode="Indexed"))
        pods = await cluster.eventually(lambda: _pods(cluster.user, created["metadata"]["uid"],
                                                      3))
        by_index = {p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]: p
                    for p in pods}
        assert sorted(by_index) == ["0", "1", "2"]
        one = by_index["1"]
        assert one["metadata"]["generateName"] == "idx-1-"
        assert one["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == "1"
        assert one["spec"]["hostname"] == "idx-1"
        assert {"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
            "apiVersion": "v1",
            "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']",
        }}} in one["spec"]["containers"][0]["env"]
        for index in ("0", "2"):
            await finish(cluster.user, by_index[index], phase="Succeeded")

        async def recorded() -> dict[str, Any] | None:
            got = await _job(cluster.user, "idx")
            status = got.get("status", {})
            return got if status.get("succeeded") == 2 else None

        got = await cluster.eventually(recorded)
        assert got["status"]["completedIndexes"] == "0,2"
    finally:
        await cluster.close()


async def test_a_suspended_job_has_no_pods(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        await cluster.start(["job-controller"])
        created = await cluster.user.create(JOBS, body=job("later", suspend=True))
        uid = created["metadata"]["uid"]

        async def suspended() -> dict[str, Any] | None:
            got = await _job(cluster.user, "later")
            return got if ("Suspended", "True", "JobSuspended") in _conditions(got) else None

        await cluster.eventually(suspended)
        assert await owned_pods(cluster.user, uid) == []
        await cluster.user.patch(JOBS, name="later", namespace="default",
                                 patch={"spec": {"suspend": False}})
        await cluster.eventually(lambda: _pods(cluster.user, uid, 1))

        async def resumed() -> bool:
            got = await _job(cluster.user, "later")
            return ("Suspended", "False", "JobResumed") in _conditions(got)

        await cluster.eventually(resumed)
    finally:
        await cluster.close()


async def test_a_finished_job_with_a_ttl_is_deleted_when_it_expires(make_cluster) -> None:
    cluster = await make_cluster().open()
    try:
        # the TTL deletes in the foreground: the garbage collector takes the pods first
        await cluster.start(["job-controller", "ttl-after-finished-controller",
                             "garbage-collector-controller"])
        created = await cluster.user.create(JOBS, body=job("brief", ttlSecondsAfterFinished=60))
        (pod,) = await cluster.eventually(lambda: _pods(cluster.user, created["metadata"]["uid"],
                                                        1))
        await finish(cluster.user, pod, phase="Succeeded")

        async def complete() -> bool:
            return ("Complete", "True", "CompletionsReached") in _conditions(
                await _job(cluster.user, "brief"))

        await cluster.eventually(complete)
        await cluster.settle()
        assert (await cluster.user.list(JOBS, namespace="default")).items
        await cluster.advance(61)

        async def gone() -> bool:
            return not (await cluster.user.list(JOBS, namespace="default")).items

        await cluster.eventually(gone)
    finally:
        await cluster.close()
