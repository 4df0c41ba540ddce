"""Guard for fakeapi.rules.podrequests: a pod's requests as upstream's component-helpers reckon
them — containers summed, sidecars beside them, other init containers one at a time, pod-level
requests and overhead.

The tables come from component-helpers ``resource/helpers_test.go`` (TestPodResourceRequests
without the in-place resize rows, TestPodLevelResourceRequests); the rest are fakeapi's own.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.rules.podrequests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    pod_requests,
)

MI = 1024 * 1024


def container(name: str, *, sidecar: bool = False, **requests: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "image": "i"}
    if requests:
        out["resources"] = {"requests": {k.replace("_", "-"): v for k, v in requests.items()}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def test_containers_are_summed_and_an_init_container_needs_only_its_own_turn() -> None:
    spec = {
        "containers": [container("a", cpu="500m", memory="1Gi"), container("b", cpu="1")],
        "initContainers": [container("setup", cpu="2", memory="64Mi")],
    }
    requests, _ = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory, requests.pods) == (2000, 1024 * MI, 1)


def test_a_sidecar_is_added_to_the_containers_because_it_runs_beside_them() -> None:
    spec = {
        "containers": [container("app", cpu="1")],
        "initContainers": [container("proxy", sidecar=True, cpu="1500m")],
    }
    assert pod_requests(spec)[0].milli_cpu == 2500


def test_an_init_container_runs_beside_the_sidecars_started_before_it() -> None:
    after = {
        "containers": [container("app", cpu="500m")],
        "initContainers": [
            container("proxy", sidecar=True, cpu="1"),
            container("migrate", cpu="2"),
        ],
    }
    assert pod_requests(after)[0].milli_cpu == 3000  # migrate (2) beside proxy (1)
    before = {**after, "initContainers": list(reversed(after["initContainers"]))}
    assert pod_requests(before)[0].milli_cpu == 2000  # migrate alone; then app + proxy is 1.5


def test_pod_level_requests_replace_the_containers_cpu_and_memory() -> None:
    spec = {
        "resources": {"requests": {"cpu": "6"}},
        "containers": [container("app"), container("log", memory="100Mi")],
    }
    requests, non_zero = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory) == (6000, 100 * MI)
    # scoring: the pod-level cpu; memory as the containers ask, with no default added since
    # one of them asks for memory
    assert (non_zero.milli_cpu, non_zero.memory) == (6000, 100 * MI)


def test_scoring_counts_defaults_for_containers_and_init_containers_that_ask_for_nothing() -> None:
    spec = {
        "containers": [container("a"), container("b", cpu="50m", memory="10Mi")],
        "initContainers": [container("setup", memory="1Mi")],
    }
    requests, non_zero = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory) == (50, 10 * MI)
    assert non_zero.milli_cpu == DEFAULT_MILLI_CPU_REQUEST + 50
    assert non_zero.memory == DEFAULT_MEMORY_REQUEST + 10 * MI
    # an init container that asks for no cpu counts the default during its turn
    lean = {
        "containers": [container("a", cpu="10m", memory="10Mi")],
        "initContainers": [container("setup", memory="1Mi")],
    }
    assert pod_requests(lean)[1].milli_cpu == DEFAULT_MILLI_CPU_REQUEST


def test_overhead_ephemeral_storage_and_extended_resources_are_counted() -> None:
    spec = {
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "containers": [
            container("app", cpu="1", ephemeral_storage="2Gi", **{"example.com/fpga": "1"})
        ],
    }
    requests, non_zero = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory) == (1250, 120 * MI)
    assert requests.ephemeral_storage == 2 * 1024 * MI
    assert requests.scalar == {"example.com/fpga": 1}
    assert non_zero.milli_cpu == 1250


def _c(cpu: str = "", memory: str = "", *, sidecar: bool = False) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return container("c", sidecar=sidecar, **requests)


# TestPodResourceRequests: (description, init containers, containers, overhead, (milli cpu, mem))
UPSTREAM_REQUESTS = [
    ("larger init container", [_c("4")], [_c("1")], None, (4000, 0)),
    ("larger containers", [_c("2")], [_c("2"), _c("3")], None, (5000, 0)),
    ("pod overhead included", [_c("2")], [_c("2"), _c("3")], {"cpu": "1", "memory": "1Gi"},
     (6000, 1024 * MI)),
    ("restartable init container", [_c("1", sidecar=True)], [_c("1")], None, (2000, 0)),
    ("multiple restartable init containers",
     [_c("5"), _c("1", sidecar=True), _c("2", sidecar=True), _c("3", sidecar=True)], [_c("1")],
     None, (7000, 0)),
    ("multiple restartable and regular init containers",
     [_c("5"), _c("1", sidecar=True), _c("2", sidecar=True), _c("5"), _c("3", sidecar=True)],
     [_c("1")], None, (8000, 0)),
    ("restartable-init, init and regular", [_c("10", sidecar=True), _c("200")], [_c("100")], None,
     (210_000, 0)),
]


@pytest.mark.parametrize(
    ("description", "init", "containers", "overhead", "expected"), UPSTREAM_REQUESTS
)
def test_requests_follow_upstreams_table(
    description: str,
    init: list[dict[str, Any]],
    containers: list[dict[str, Any]],
    overhead: dict[str, str] | None,
    expected: tuple[int, int],
) -> None:
    spec: dict[str, Any] = {"initContainers": init, "containers": containers}
    if overhead:
        spec["overhead"] = overhead
    requests, _ = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory) == expected, description


# TestPodLevelResourceRequests: (description, pod-level requests, init, containers, (cpu, mem))
UPSTREAM_POD_LEVEL = [
    ("nil", None, [], [], (0, 0)),
    ("pod-level memory", {"memory": "2Mi"}, [], [], (0, 2 * MI)),
    ("pod-level memory, container cpu", {"memory": "2Mi"}, [], [_c("2m")], (2, 2 * MI)),
    ("only container-level", None, [], [_c("2m", "3Mi")], (2, 3 * MI)),
    ("pod-level wins over the containers", {"memory": "6Mi", "cpu": "8m"}, [],
     [_c("2m", "3Mi")], (8, 6 * MI)),
    ("containers and an init container", None, [_c("4m", "5Mi")], [_c("2m", "3Mi")],
     (4, 5 * MI)),
    ("containers and a sidecar", None, [_c("4m", "5Mi", sidecar=True)], [_c("2m", "3Mi")],
     (6, 8 * MI)),
    ("containers, a sidecar and an init container", None,
     [_c("4m", "5Mi", sidecar=True), _c("8m", "6Mi")], [_c("2m", "3Mi")], (12, 11 * MI)),
]


@pytest.mark.parametrize(
    ("description", "pod_level", "init", "containers", "expected"), UPSTREAM_POD_LEVEL
)
def test_pod_level_requests_follow_upstreams_table(
    description: str,
    pod_level: dict[str, str] | None,
    init: list[dict[str, Any]],
    containers: list[dict[str, Any]],
    expected: tuple[int, int],
) -> None:
    spec: dict[str, Any] = {"initContainers": init, "containers": containers}
    if pod_level:
        spec["resources"] = {"requests": pod_level}
    requests, _ = pod_requests(spec)
    assert (requests.milli_cpu, requests.memory) == expected, description
