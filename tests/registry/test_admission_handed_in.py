"""The store runs the admission chain it is given, where kube-apiserver runs mutating admission.

``new_registry`` builds upstream's default chain and hands it to the store; the store looks up
none of its own. A write sees the chain on create and on an update of the resource itself (a
custom subresource that builds the whole object included), never on a status write.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.clock import FakeClock
from fakeapi.registry.admission import AdmissionChain, Attributes
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable, default_resources

from ..support.testkinds import WIDGETS

W = WriteOptions()


class Recorder:
    """Notes every write it sees and labels the object it admitted."""

    name = "Recorder"

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def handles(self, attrs: Attributes) -> bool:
        return True

    def admit(self, attrs: Attributes) -> None:
        self.seen.append((attrs.operation, attrs.subresource))
        attrs.obj["metadata"].setdefault("labels", {})["admitted"] = attrs.operation.lower()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def registry(recorder: Recorder) -> GenericStore:
    return GenericStore(
        resources=ResourceTable([WIDGETS]), clock=FakeClock(), admission=AdmissionChain([recorder])
    )


def _widget(registry: GenericStore) -> dict[str, Any]:
    body = {"metadata": {"name": "a"}, "spec": {"size": 1}}
    return registry.create(WIDGETS, "ns", body, W).obj


def test_a_create_is_admitted_by_the_chain_the_store_was_given(
    registry: GenericStore, recorder: Recorder
) -> None:
    created = _widget(registry)
    assert recorder.seen == [("CREATE", "")]
    assert created["metadata"]["labels"] == {"admitted": "create"}


def test_an_update_of_the_resource_is_admitted(registry: GenericStore, recorder: Recorder) -> None:
    current = _widget(registry)
    body = {**current, "spec": {"size": 2}}
    updated = registry.update(WIDGETS, "ns", "a", body, W).obj
    assert recorder.seen == [("CREATE", ""), ("UPDATE", "")]
    assert updated["metadata"]["labels"] == {"admitted": "update"}


def test_a_custom_subresource_that_builds_the_object_is_admitted_as_its_update(
    registry: GenericStore, recorder: Recorder
) -> None:
    _widget(registry)
    painted = registry.post_subresource(WIDGETS, "ns", "a", "paint", {"color": "blue"}, W).obj
    assert recorder.seen == [("CREATE", ""), ("UPDATE", "paint")]
    assert painted["spec"]["color"] == "blue"


def test_a_status_write_is_not_admitted(registry: GenericStore, recorder: Recorder) -> None:
    current = _widget(registry)
    body = {**current, "status": {"phase": "Ready"}}
    written = registry.update(WIDGETS, "ns", "a", body, W, subresource="status").obj
    assert recorder.seen == [("CREATE", "")]
    assert written["status"] == {"phase": "Ready"}


def test_a_store_given_no_chain_admits_a_pod_unchanged() -> None:
    registry = GenericStore(resources=default_resources(), clock=FakeClock())
    assert registry.admission.plugins == ()
    namespaces = registry.resources.lookup("", "v1", "namespaces")
    pods = registry.resources.lookup("", "v1", "pods")
    assert namespaces is not None and pods is not None
    registry.create(namespaces, None, {"metadata": {"name": "default"}}, W)
    body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    spec = registry.create(pods, "default", body, W).obj["spec"]
    # Priority and DefaultTolerationSeconds, run by new_registry's chain, would set these
    assert "priority" not in spec and "tolerations" not in spec


class WidgetsElsewhere(Recorder):
    """A recorder that names the resources it may handle: widgets of another group only."""

    resources = frozenset({("elsewhere.example.com", "widgets")})


def test_a_plugin_that_names_its_resources_is_not_asked_about_others() -> None:
    elsewhere, everywhere = WidgetsElsewhere(), Recorder()
    registry = GenericStore(
        resources=ResourceTable([WIDGETS]), clock=FakeClock(),
        admission=AdmissionChain([elsewhere, everywhere]),
    )
    current = _widget(registry)
    registry.update(WIDGETS, "ns", "a", {**current, "spec": {"size": 2}}, W)
    assert elsewhere.seen == []
    assert everywhere.seen == [("CREATE", ""), ("UPDATE", "")]


def test_a_plugin_is_asked_about_the_resources_it_names() -> None:
    mine = WidgetsElsewhere()
    mine.resources = frozenset({(WIDGETS.group, WIDGETS.plural)})
    registry = GenericStore(
        resources=ResourceTable([WIDGETS]), clock=FakeClock(), admission=AdmissionChain([mine])
    )
    _widget(registry)
    assert mine.seen == [("CREATE", "")]
