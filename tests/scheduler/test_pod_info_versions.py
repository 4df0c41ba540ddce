"""A pod's PodInfo carried over to its later versions: what is derived from the spec is reused only
while the spec is the same, so the cache's sums always follow the version it holds."""

from __future__ import annotations

from typing import Any

from fakeapi.scheduler.cache import Cache
from fakeapi.scheduler.framework.types import PodInfo


def node(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}


def pod(cpu: str, *, node_name: str = "", rv: str = "1") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "metadata": {"name": "p", "namespace": "default", "uid": "u1", "resourceVersion": rv},
        "spec": spec,
    }


def test_a_later_version_with_the_same_spec_keeps_the_requests() -> None:
    first = PodInfo(pod("1"))
    later = pod("1", rv="2")
    info = first.for_version(later, spec=later["spec"])
    assert info.pod is later
    assert info.requests is first.requests
    assert (info.uid, info.key) == ("u1", "default/p")


def test_a_later_version_with_another_spec_reads_the_requests_again() -> None:
    first = PodInfo(pod("1"))
    later = pod("2", rv="2")
    info = first.for_version(later, spec=later["spec"])
    assert info.requests.milli_cpu == 2000
    assert info.requests is not first.requests


def test_the_bound_pod_replaces_the_assumed_one_in_the_cache() -> None:
    cache = Cache()
    cache.add_node(node("n1"))
    assumed = PodInfo(pod("1"))
    cache.assume_pod(assumed, "n1")
    bound = pod("1", node_name="n1", rv="2")
    cache.add_pod(bound)
    n1 = cache.node("n1")
    assert n1 is not None
    held = n1.pods["u1"]
    assert held.pod is bound
    assert held.requests is assumed.requests
    assert not cache.is_assumed("u1")


def test_a_pod_bound_with_another_spec_than_assumed_counts_its_own_requests() -> None:
    cache = Cache()
    cache.add_node(node("n1"))
    cache.assume_pod(PodInfo(pod("1")), "n1")
    cache.add_pod(pod("3", node_name="n1", rv="2"))
    info = cache.node("n1")
    assert info is not None
    assert info.requested.milli_cpu == 3000


def test_a_pod_bound_elsewhere_than_assumed_moves_to_its_node() -> None:
    cache = Cache()
    cache.add_node(node("n1"))
    cache.add_node(node("n2"))
    cache.assume_pod(PodInfo(pod("1")), "n1")
    cache.add_pod(pod("1", node_name="n2", rv="2"))
    n1, n2 = cache.node("n1"), cache.node("n2")
    assert n1 is not None and n2 is not None
    assert "u1" not in n1.pods
    assert n2.pods["u1"].pod["spec"]["nodeName"] == "n2"


def test_a_relabelled_version_reads_its_match_label_keys_terms_again() -> None:
    """``matchLabelKeys`` takes the values of the pod's own labels into the term's selector, so a
    version with other labels but the same spec has other affinity terms."""

    def labelled(app: str, rv: str) -> dict[str, Any]:
        version = pod("1", rv=rv)
        version["metadata"]["labels"] = {"app": app}
        version["spec"]["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"tier": "backend"}},
                        "topologyKey": "kubernetes.io/hostname",
                        "matchLabelKeys": ["app"],
                    }
                ]
            }
        }
        return version

    first = PodInfo(labelled("web", "1"))
    relabelled = labelled("db", "2")
    same_labels = labelled("web", "3")
    carried = first.for_version(relabelled, spec=relabelled["spec"])
    assert carried.affinity == PodInfo(relabelled).affinity
    assert carried.affinity != first.affinity
    assert first.for_version(same_labels, spec=same_labels["spec"]).affinity is first.affinity
