"""The node lifecycle controller: silent nodes go Unknown and get tainted; pods are evicted."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fakeapi.client import EVENTS, LEASES, NODES, PODS
from fakeapi.timefmt import format_time

UNREACHABLE = "node.kubernetes.io/unreachable"


async def _node(cluster, *, ready: str = "True") -> dict[str, Any]:
    now = format_time(cluster.clock.now())
    return await cluster.user.create(
        NODES,
        body={
            "metadata": {"name": "node-1"},
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": ready,
                        "reason": "KubeletReady",
                        "lastHeartbeatTime": now,
                        "lastTransitionTime": now,
                    }
                ]
            },
        },
    )


async def _renew(cluster) -> str:
    """What a kubelet does every 10 s; returns the renewTime as stored."""
    now = cluster.clock.now().isoformat(timespec="microseconds").replace("+00:00", "Z")
    try:
        lease = await cluster.user.get(LEASES, namespace="kube-node-lease", name="node-1")
    except Exception:
        lease = {
            "metadata": {"name": "node-1", "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40, "renewTime": now},
        }
        created = await cluster.user.create(LEASES, body=lease)
        return str(created["spec"]["renewTime"])
    lease["spec"]["renewTime"] = now
    updated = await cluster.user.update(LEASES, body=lease)
    return str(updated["spec"]["renewTime"])


def _taints(node: dict[str, Any]) -> set[tuple[str, str]]:
    return {(t["key"], t["effect"]) for t in (node.get("spec") or {}).get("taints") or []}


async def test_a_node_whose_lease_expires_goes_unknown_and_is_tainted(cluster):
    await _node(cluster)
    await _renew(cluster)
    await cluster.start(["node-lifecycle-controller"])
    await cluster.advance(30)
    renewed = await _renew(cluster)
    leases = cluster.manager.controllers["node-lifecycle-controller"].leases

    def seen() -> bool:  # over HTTP the renewal reaches the controller a little later
        lease = leases.get("kube-node-lease/node-1") or {}
        return bool(lease.get("spec", {}).get("renewTime") == renewed)

    await cluster.eventually(seen)
    await cluster.advance(30)
    await cluster.settle()
    node = await cluster.user.get(NODES, name="node-1")
    assert node["status"]["conditions"][0]["status"] == "True"  # renewed 30 s ago: alive

    async def unknown() -> bool:
        cluster.clock.advance(5)
        current = await cluster.user.get(NODES, name="node-1")
        return current["status"]["conditions"][0]["status"] == "Unknown"

    await cluster.eventually(unknown)
    node = await cluster.user.get(NODES, name="node-1")
    ready = node["status"]["conditions"][0]
    assert (ready["reason"], ready["message"]) == (
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
    )

    async def tainted() -> bool:
        current = await cluster.user.get(NODES, name="node-1")
        return _taints(current) == {(UNREACHABLE, "NoExecute"), (UNREACHABLE, "NoSchedule")}

    await cluster.eventually(tainted)

    # the kubelet comes back
    await _renew(cluster)
    node = await cluster.user.get(NODES, name="node-1")
    node["status"]["conditions"][0].update(
        status="True",
        reason="KubeletReady",
        message="",
        lastHeartbeatTime=format_time(cluster.clock.now()),
    )
    await cluster.user.update_status(NODES, body=node)

    async def untainted() -> bool:
        return not _taints(await cluster.user.get(NODES, name="node-1"))

    await cluster.eventually(untainted)


async def test_pods_on_an_unreachable_node_go_after_their_toleration(cluster):
    await _node(cluster)
    await cluster.start(["node-lifecycle-controller"])
    # the DefaultTolerationSeconds admission gives every pod 300 s for not-ready/unreachable
    tolerant = await cluster.user.create(PODS, body=cluster.pod("tolerant", node="node-1"))
    assert {
        "key": UNREACHABLE,
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    } in tolerant["spec"]["tolerations"]
    intolerant = cluster.pod("intolerant", node="node-1")
    intolerant["spec"]["tolerations"] = [
        {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}
    ]
    await cluster.user.create(PODS, body=intolerant)

    async def deleting(name: str) -> bool:
        pod = await cluster.user.get(PODS, namespace="default", name=name)
        return bool(pod["metadata"].get("deletionTimestamp"))

    async def tainted() -> bool:
        node = await cluster.user.get(NODES, name="node-1")
        if (UNREACHABLE, "NoExecute") in _taints(node):
            return True
        cluster.clock.advance(5)
        return False

    await cluster.eventually(tainted)
    node = await cluster.user.get(NODES, name="node-1")
    added = _parse(
        next(t["timeAdded"] for t in node["spec"]["taints"] if t["effect"] == "NoExecute")
    )
    await cluster.eventually(lambda: deleting("intolerant"))
    pod = await cluster.user.get(PODS, namespace="default", name="intolerant")
    condition = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert condition["reason"] == "DeletionByTaintManager"

    async def marked() -> bool:
        listed = await cluster.user.list(EVENTS, namespace="default")
        return ("taint-eviction-controller", "TaintManagerEviction",
                "Marking for deletion Pod default/intolerant") in {
            (e["source"]["component"], e["reason"], e["message"]) for e in listed.items
        }

    await cluster.eventually(marked)
    await cluster.settle()
    assert not await deleting("tolerant")

    await cluster.advance((added + timedelta(seconds=299) - cluster.clock.now()).total_seconds())
    assert not await deleting("tolerant")
    await cluster.advance(2)
    await cluster.eventually(lambda: deleting("tolerant"))
    pod = await cluster.user.get(PODS, namespace="default", name="tolerant")
    condition = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert _parse(condition["lastTransitionTime"]) >= added + timedelta(seconds=300)


def _parse(value: str):
    from fakeapi.timefmt import parse_time

    return parse_time(value)


async def test_pods_on_a_silent_node_are_marked_not_ready_with_events(cluster):
    await _node(cluster)
    await cluster.start(["node-lifecycle-controller"])
    body = cluster.pod("web", node="node-1")
    pod = await cluster.user.create(PODS, body=body)
    pod["status"] = {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled",
                                                              "status": "True"}],
    }
    await cluster.user.update_status(PODS, body=pod)

    async def not_ready() -> bool:
        cluster.clock.advance(5)
        current = await cluster.user.get(PODS, namespace="default", name="web")
        conditions = {c["type"]: c["status"] for c in current["status"]["conditions"]}
        return conditions == {"Ready": "False", "PodScheduled": "True"}

    await cluster.eventually(not_ready)

    async def recorded() -> list[tuple[str, str, str]]:
        listed = await cluster.user.list(EVENTS, namespace="default")
        return sorted(
            (e["involvedObject"]["kind"], e["reason"], e["message"]) for e in listed.items
        )

    async def both_events() -> bool:
        return len(await recorded()) == 2

    await cluster.eventually(both_events)
    assert await recorded() == [
        ("Node", "NodeNotReady", "Node node-1 status is now: NodeNotReady"),
        ("Pod", "NodeNotReady", "Node is not ready"),
    ]
    listed = await cluster.user.list(EVENTS, namespace="default")
    assert {e["source"]["component"] for e in listed.items} == {"node-controller"}


async def _patient_pod_on_a_node_tainted_for_maintenance(cluster) -> None:
    """A pod that tolerates ``maintenance:NoExecute`` for 30 s, then that taint put on its node
    as ``kubectl taint`` writes it (no ``timeAdded``)."""
    await _node(cluster)
    await cluster.start(["node-lifecycle-controller"])
    pod = cluster.pod("patient", node="node-1")
    pod["spec"]["tolerations"] = [
        {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}
    ]
    await cluster.user.create(PODS, body=pod)
    node = await cluster.user.get(NODES, name="node-1")
    node.setdefault("spec", {})["taints"] = [
        {"key": "maintenance", "value": "1", "effect": "NoExecute"}
    ]
    await cluster.user.update(NODES, body=node)


async def test_a_taint_written_without_time_added_evicts_after_the_toleration(cluster):
    """``kubectl taint`` writes no ``timeAdded``: the toleration runs from when the controller
    first saw the taint, not from every re-check (which would never come due)."""
    await _patient_pod_on_a_node_tainted_for_maintenance(cluster)
    nodes = cluster.informers.informer(NODES)  # the controller's: it has seen the taint
    await cluster.eventually(lambda: (nodes.get("node-1") or {}).get("spec", {}).get("taints"))

    async def deleting() -> bool:
        got = await cluster.user.get(PODS, namespace="default", name="patient")
        return bool(got["metadata"].get("deletionTimestamp"))

    for _ in range(5):  # renewals and re-checks within the toleration do not restart it
        await _renew(cluster)
        await cluster.advance(5)
    assert not await deleting()
    await _renew(cluster)
    await cluster.advance(6)
    await cluster.eventually(deleting)


async def test_a_cordoned_node_and_a_pressured_one_get_their_no_schedule_taints(cluster):
    await _node(cluster)
    await cluster.start(["node-lifecycle-controller"])
    await _renew(cluster)
    node = await cluster.user.get(NODES, name="node-1")
    node.setdefault("spec", {})["unschedulable"] = True
    await cluster.user.update(NODES, body=node)

    async def taints() -> set[tuple[str, str]]:
        return _taints(await cluster.user.get(NODES, name="node-1"))

    async def cordoned() -> bool:
        return ("node.kubernetes.io/unschedulable", "NoSchedule") in await taints()

    await cluster.eventually(cordoned)
    stamped = await cluster.user.get(NODES, name="node-1")
    assert all(t.get("timeAdded") for t in stamped["spec"]["taints"])

    node = await cluster.user.get(NODES, name="node-1")
    node["status"]["conditions"].append(
        {"type": "DiskPressure", "status": "True", "reason": "KubeletHasDiskPressure"}
    )
    await cluster.user.update_status(NODES, body=node)
    node = await cluster.user.get(NODES, name="node-1")
    node["spec"]["unschedulable"] = False  # uncordoned: that taint goes, the pressure one comes
    await cluster.user.update(NODES, body=node)

    async def pressured() -> bool:
        return await taints() == {("node.kubernetes.io/disk-pressure", "NoSchedule")}

    await cluster.eventually(pressured)


async def test_a_pending_taint_eviction_is_cancelled_with_an_event_when_the_taint_goes(cluster):
    await _patient_pod_on_a_node_tainted_for_maintenance(cluster)
    await _renew(cluster)
    await cluster.advance(10)
    node = await cluster.user.get(NODES, name="node-1")
    node["spec"]["taints"] = []
    await cluster.user.update(NODES, body=node)

    async def cancelled() -> bool:
        events = await cluster.user.list(EVENTS, namespace="default")
        return ("TaintManagerEviction", "Cancelling deletion of Pod default/patient") in {
            (e["reason"], e["message"]) for e in events.items
        }

    await cluster.eventually(cancelled)
