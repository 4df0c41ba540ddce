"""A kopf operator inside the cluster, as a user's suite would run it: it greets each ConfigMap
labelled ``app: greeter`` (a patch and an Event, both through kopf's own API client), and a
handler that fails reaches the test's failure report.

fakeapi serves no CRDs yet, so the operator watches a built-in kind; ``kopf_operator`` runs it
standalone and without scanning, on the test's loop, against the cluster's HTTP endpoint. Only
the documented surface: ``fakeapi.cluster.kopf_operator`` and the marker's ``extra_components``.
"""

from __future__ import annotations

from typing import Any

import kopf
import pytest

from fakeapi.cluster import eventually, kopf_operator

greeter = kopf.OperatorRegistry()


@kopf.on.create("v1", "configmaps", labels={"app": "greeter"}, registry=greeter)
def greet(body: Any, patch: Any, **_: Any) -> None:
    who = body["data"]["name"]
    if who == "nobody":
        raise kopf.PermanentError("nobody to greet")
    patch["data"] = {"greeting": f"hello, {who}"}
    kopf.info(body, reason="Greeted", message=f"greeted {who}")


def hello(name: str, who: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "greeter"}},
        "data": {"name": who},
    }


def greeted(configmap: dict[str, Any]) -> bool:
    return "greeting" in (configmap.get("data") or {})


@pytest.mark.fakeapi(extra_components=[kopf_operator(registry=greeter)])
async def test_the_operator_greets_a_configmap(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(hello("alice", "Alice"))

    configmap = await fakeapi_cluster.wait_for("configmaps", "alice", condition=greeted)

    assert configmap["data"]["greeting"] == "hello, Alice"

    async def greetings() -> list[str]:
        return [e["message"] for e in await fakeapi_cluster.recent_events()
                if e["reason"] == "Greeted"]

    assert await eventually(greetings) == ["greeted Alice"]


@pytest.mark.fakeapi(extra_components=[kopf_operator(registry=greeter)])
async def test_an_unlabelled_configmap_is_left_alone(fakeapi_cluster: Any) -> None:
    plain = hello("plain", "Bob")
    del plain["metadata"]["labels"]
    await fakeapi_cluster.apply_yaml([plain, hello("marker", "Carol")])

    await fakeapi_cluster.wait_for("configmaps", "marker", condition=greeted)
    assert not greeted(await fakeapi_cluster.client.get("configmaps", name="plain"))


@pytest.mark.fakeapi(extra_components=[kopf_operator(registry=greeter)])
async def test_a_failing_handler_is_in_the_failure_report(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(hello("nobody", "nobody"))

    await eventually(lambda: "nobody to greet" in fakeapi_cluster.failure_report())
    report = fakeapi_cluster.failure_report()
    assert "kopf-operator: kopf: Handler 'greet' failed permanently: nobody to greet" in report


@pytest.mark.fakeapi(extra_components=[kopf_operator(registry=greeter)])
def test_a_sync_test_runs_the_operator_too(fakeapi_cluster: Any) -> None:
    fakeapi_cluster.apply_yaml(hello("dave", "Dave"))

    configmap = fakeapi_cluster.wait_for("configmaps", "dave", condition=greeted)
    assert configmap["data"]["greeting"] == "hello, Dave"
