"""Who owns which fields after a write (``metadata.managedFields``), as upstream records it.

The writer owns what it sent and the defaults the server filled in, but not what admission or the
strategy set afterwards (a pod's default tolerations and priority, its initial status, a
namespace's ``kubernetes`` finalizer). A kind with a status subresource resets fields by endpoint:
a write through the main resource never owns ``status``, a status write never owns ``spec``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import NAMESPACES, PODS, Client
from fakeapi.clock import FakeClock
from fakeapi.patch.fieldset import FieldSet
from fakeapi.server.inprocess import InProcessTransport


@pytest.fixture
def client() -> Client:
    registry = new_registry(clock=FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    return Client(InProcessTransport(registry), field_manager="creator")


def owned(obj: dict[str, Any], manager: str, subresource: str = "") -> FieldSet:
    """The fields ``manager``'s one Update entry (through ``subresource``) owns."""
    entries = [
        entry
        for entry in obj["metadata"].get("managedFields") or []
        if entry["manager"] == manager and entry.get("subresource", "") == subresource
    ]
    assert len(entries) == 1, obj["metadata"].get("managedFields")
    return FieldSet.from_fields_v1(entries[0]["fieldsV1"])


def pod(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "pause:3.10"}]},
        **extra,
    }


async def test_a_pod_creator_owns_what_it_sent_and_the_defaults_not_admission_or_status(
    client: Client,
) -> None:
    created = await client.create(PODS, body=pod("p", status={"phase": "Running"}))
    assert created["spec"]["tolerations"] and created["spec"]["priority"] == 0
    assert created["status"]["phase"] == "Pending"
    fields = owned(created, "creator")
    assert fields.has(("f:spec", "f:containers", 'k:{"name":"c"}', "f:image"))
    assert fields.has(("f:spec", "f:dnsPolicy"))  # a default
    assert fields.has(("f:spec", "f:containers", 'k:{"name":"c"}', "f:imagePullPolicy"))
    for admitted in ("f:tolerations", "f:priority", "f:preemptionPolicy"):
        assert not fields.has(("f:spec", admitted))
    assert not fields.has(("f:status",))
    assert not fields.has(("f:status", "f:phase"))


async def test_a_status_writer_owns_status_only_whatever_else_its_body_changes(
    client: Client,
) -> None:
    created = await client.create(PODS, body=pod("p"))
    body = {
        **created,
        "spec": {**created["spec"], "activeDeadlineSeconds": 30},
        "status": {**created["status"], "message": "hello"},
    }
    written = await client.update_status(PODS, body=body, field_manager="kubelet")
    assert "activeDeadlineSeconds" not in written["spec"]
    fields = owned(written, "kubelet", "status")
    assert fields.has(("f:status", "f:message"))
    assert not fields.has(("f:spec",))
    assert not fields.has(("f:spec", "f:activeDeadlineSeconds"))


async def test_an_apply_through_the_main_resource_never_owns_status(client: Client) -> None:
    body = {"apiVersion": "v1", "kind": "Pod", **pod("p", status={"message": "mine"})}
    applied = await client.apply(PODS, body=body, field_manager="applier")
    assert "message" not in applied["status"]
    entries = [e for e in applied["metadata"]["managedFields"] if e["manager"] == "applier"]
    fields = FieldSet.from_fields_v1(entries[0]["fieldsV1"])
    assert fields.has(("f:spec", "f:containers", 'k:{"name":"c"}', "f:image"))
    assert not fields.has(("f:status", "f:message"))


async def test_a_namespace_creator_owns_the_name_label_not_the_kubernetes_finalizer(
    client: Client,
) -> None:
    created = await client.create(NAMESPACES, body={"metadata": {"name": "team-a"}})
    assert created["spec"]["finalizers"] == ["kubernetes"]
    fields = owned(created, "creator")
    assert fields.has(("f:metadata", "f:labels", "f:kubernetes.io/metadata.name"))
    assert not fields.has(("f:spec", "f:finalizers"))
    assert not fields.has(("f:status", "f:phase"))
