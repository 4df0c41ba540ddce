"""Parts of an update sent back unchanged are not decoded again, with no change in outcome.

A status write sends the whole object, spec included; a top-level part whose JSON is byte for
byte the stored version's is copied instead of walked. These tests pin the cases where "equal"
must not mean "skipped": a value Python considers equal but JSON does not (``true`` for ``1``), an
unknown field next to known ones, and a result that must never share dicts with the old version.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable
from fakeapi.server.patching import MERGE_PATCH, apply_patch_request
from fakeapi.server.routing import Target
from fakeapi.storage.memory import MemoryStorage

from ..support.testkinds import WIDGETS

W = WriteOptions()


@pytest.fixture
def registry() -> GenericStore:
    return GenericStore(
        resources=ResourceTable([WIDGETS]), storage=MemoryStorage(), clock=FakeClock()
    )


def stored_widget(registry: GenericStore) -> dict[str, Any]:
    body = {"metadata": {"name": "a"}, "spec": {"size": 1, "color": "red"}}
    return registry.create(WIDGETS, "ns", body, W).obj


def test_a_status_write_with_the_spec_sent_back_keeps_the_spec(registry: GenericStore) -> None:
    current = stored_widget(registry)
    body = {**current, "status": {"phase": "Ready"}}
    written = registry.update(WIDGETS, "ns", "a", body, W, subresource="status").obj
    assert written["status"] == {"phase": "Ready"}
    assert written["spec"] == current["spec"]
    assert written["spec"] is not current["spec"]  # a new version never shares the old one's


def test_true_for_an_integer_is_a_decoding_error_even_though_python_calls_it_equal(
    registry: GenericStore,
) -> None:
    stored_widget(registry)
    current = registry.get(WIDGETS, "ns", "a").obj
    body = {**current, "spec": {"size": True, "color": "red"}}
    assert body["spec"] == current["spec"]  # what a Python equality test would skip
    with pytest.raises(StatusError) as err:
        registry.update(WIDGETS, "ns", "a", body, W)
    assert err.value.code == 400
    assert "cannot unmarshal bool" in err.value.message


def test_an_unknown_field_beside_unchanged_ones_is_still_reported(registry: GenericStore) -> None:
    current = stored_widget(registry)
    body = {**current, "spec": {**current["spec"], "shape": "round"}}
    result = registry.update(WIDGETS, "ns", "a", body, WriteOptions(field_validation="Warn"))
    assert result.warnings == ['unknown field "spec.shape"']
    assert result.obj["spec"] == {"size": 1, "color": "red"}


def test_a_status_merge_patch_that_also_breaks_the_spec_is_refused(
    registry: GenericStore,
) -> None:
    stored_widget(registry)
    with pytest.raises(StatusError) as err:
        apply_patch_request(
            registry, Target(WIDGETS, "ns", "a", "status"), content_type=MERGE_PATCH,
            patch={"spec": {"size": "big"}, "status": {"phase": "Ready"}}, options=W,
        )
    assert err.value.code == 422


@pytest.mark.parametrize("version", ["v1", "v1beta2"])
def test_a_required_spec_sent_back_unchanged_survives_a_metadata_update(version: str) -> None:
    from fakeapi.bootstrap import new_registry

    from ..support.samples import sample

    registry = new_registry(clock=FakeClock())
    rt = registry.resources.lookup("resource.k8s.io", version, "devicetaintrules")
    assert rt is not None
    created = registry.create(rt, None, sample(f"resource.k8s.io/{version}", "DeviceTaintRule"),
                              W).obj
    body = {**created, "metadata": {**created["metadata"], "labels": {"team": "infra"}}}
    updated = registry.update(rt, None, created["metadata"]["name"], body, W).obj
    assert updated["metadata"]["labels"] == {"team": "infra"}
    assert updated["spec"] == created["spec"]
