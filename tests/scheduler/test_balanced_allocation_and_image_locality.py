"""The two default score plugins that weigh a node's load and its images:
NodeResourcesBalancedAllocation and ImageLocality, scored as upstream's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fakeapi.client import PODS
from fakeapi.scheduler.framework import CycleState, NodeInfo, PodInfo
from fakeapi.scheduler.framework.status import Code
from fakeapi.scheduler.plugins.image_locality import ImageLocality, normalized_image_name
from fakeapi.scheduler.plugins.node_resources_balanced_allocation import (
    NodeResourcesBalancedAllocation,
)

from .conftest import Cluster

Eventually = Callable[..., Any]
MB = 1024 * 1024


def node(name: str, *, images: Sequence[tuple[str, int]] = (), **used: str) -> NodeInfo:
    info = NodeInfo({
        "metadata": {"name": name},
        "status": {
            "allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"},
            "images": [{"names": [image], "sizeBytes": size} for image, size in images],
        },
    })
    if used:
        info.add_pod(PodInfo(pod(f"{name}-load", **used)))
    return info


def pod(name: str = "p", image: str = "registry.example/app:1", **requests: str) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": image}
    if requests:
        container["resources"] = {"requests": requests}
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"containers": [container]}}


def test_balanced_allocation_prefers_the_node_used_evenly() -> None:
    plugin = NodeResourcesBalancedAllocation()
    even = node("even", cpu="2", memory="2Gi")  # with the pod: 3/4 cpu, 3/4 memory
    lopsided = node("lopsided", cpu="1", memory="3Gi")  # 2/4 cpu, 4/4 memory
    wanted = pod(cpu="1", memory="1Gi")
    state = CycleState()
    assert plugin.pre_score(state, wanted, [even, lopsided]) is None
    assert plugin.score_nodes(state, wanted, [even, lopsided]) == ([100, 75], None)


def test_balanced_allocation_skips_a_pod_that_requests_no_cpu_or_memory() -> None:
    status = NodeResourcesBalancedAllocation().pre_score(CycleState(), pod(), [node("n")])
    assert status is not None and status.code is Code.SKIP


def test_image_locality_scores_an_image_by_its_size_and_how_rare_it_is() -> None:
    image = "registry.example/trainer:2"
    holder = node("holder", images=[(image, 900 * MB)])
    bare = node("bare")
    plugin = ImageLocality()
    state = CycleState()
    wanted = pod(image=image)
    assert plugin.pre_score(state, wanted, [holder, bare]) is None
    # 900 MiB held by one node of two: 450 MiB counts, (450 - 23) / (1000 - 23) of 100
    assert [plugin.score(state, wanted, n)[0] for n in (holder, bare)] == [43, 0]


def test_image_locality_skips_when_no_node_reports_images() -> None:
    status = ImageLocality().pre_score(CycleState(), pod(), [node("a"), node("b")])
    assert status is not None and status.code is Code.SKIP


def test_an_image_without_a_tag_is_the_latest() -> None:
    assert normalized_image_name("nginx") == "nginx:latest"
    assert normalized_image_name("localhost:5000/app") == "localhost:5000/app:latest"
    assert normalized_image_name("nginx:1.25") == "nginx:1.25"


async def test_the_scheduler_picks_the_evenly_used_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("even", cpu="4", memory="4Gi")
    await cluster.node("lopsided", cpu="4", memory="4Gi")
    for name, where, cpu, memory in (("even-load", "even", "2", "2Gi"),
                                     ("lopsided-load", "lopsided", "500m", "3Gi"),
                                     ("web", None, "1", "1Gi")):
        body = pod(name, cpu=cpu, memory=memory)
        del body["metadata"]["uid"]
        if where:
            body["spec"]["nodeName"] = where
        await cluster.client.create(PODS, body=body)
        if where is None:
            break
    await cluster.start_scheduler()
    # LeastAllocated prefers the lopsided node (31 against 25: more cpu free), balance outweighs
    # it (68 against 100)
    assert await eventually(lambda: cluster.node_of("web")) == "even"
