"""Read-your-writes with many selective informers: a write reaches exactly the matching caches.

The factory files informers whose field selector pins a field to a value (every kubelet's
``spec.nodeName=<node>``) under that value; these tests pin that filing changes nothing about
which caches a write lands in, before any watch event could have delivered it.
"""

from __future__ import annotations

from typing import Any

from fakeapi.bootstrap import new_registry
from fakeapi.client import PODS, Client, InformerFactory
from fakeapi.clock import FakeClock
from fakeapi.server.inprocess import InProcessTransport


def pod(name: str, *, node: str = "", labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": spec}


async def test_writes_reach_the_informers_of_their_node_and_the_unpinned_ones() -> None:
    clock = FakeClock()
    client = Client(InProcessTransport(new_registry(clock=clock)), field_manager="routing-test")
    factory = InformerFactory(client, clock=clock)
    per_node = {node: factory.informer(PODS, field_selector=f"spec.nodeName={node}")
                for node in ("a", "b", "c")}
    web_on_b = factory.informer(PODS, field_selector="spec.nodeName=b", label_selector="app=web")
    not_on_a = factory.informer(PODS, field_selector="spec.nodeName!=a")
    named = factory.informer(PODS, field_selector="metadata.name=p2,spec.nodeName=b")
    factory.start()
    await factory.wait_for_sync(timeout=5)

    await client.create(PODS, body=pod("p1", node="a"), namespace="default")
    await client.create(PODS, body=pod("p2", node="b", labels={"app": "web"}), namespace="default")
    await client.create(PODS, body=pod("p3", node="b"), namespace="default")
    await client.create(PODS, body=pod("p4"), namespace="default")
    # no await since the last write returned: only the factory's own writes can be cached
    assert per_node["a"].keys() == ["default/p1"]
    assert per_node["b"].keys() == ["default/p2", "default/p3"]
    assert per_node["c"].keys() == []
    assert web_on_b.keys() == ["default/p2"]
    assert not_on_a.keys() == ["default/p2", "default/p3", "default/p4"]
    assert named.keys() == ["default/p2"]

    await client.delete(PODS, name="p3", namespace="default", grace_period_seconds=0)
    assert per_node["b"].keys() == ["default/p2"]
    assert not_on_a.keys() == ["default/p2", "default/p4"]
    await factory.stop()
