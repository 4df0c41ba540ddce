"""managedFields of a kind served at several versions, as upstream's field manager keeps them:
each entry has the apiVersion it was written at and paths of that version's shape, and a write
through another version takes from it exactly what it changed, compared in the entry's shape."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.registry.options import WriteOptions

SLICE_V1BETA1 = {
    "metadata": {"name": "s"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "node-1",
        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "a"}}}}],
    },
}


def _entries(obj: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    return {
        e["manager"]: (e["apiVersion"], e["fieldsV1"]) for e in obj["metadata"]["managedFields"]
    }


def test_each_manager_keeps_its_version_and_loses_only_what_another_version_changed() -> None:
    registry = new_registry(clock=FakeClock())
    v1beta1 = registry.resources.lookup("resource.k8s.io", "v1beta1", "resourceslices")
    v1 = registry.resources.lookup("resource.k8s.io", "v1", "resourceslices")
    assert v1beta1 is not None and v1 is not None
    registry.create(v1beta1, None, SLICE_V1BETA1, WriteOptions(field_manager="driver"))
    current = orjson.loads(registry.get(v1, None, "s").raw)
    current["spec"]["devices"][0]["attributes"]["model"] = {"string": "b"}
    current["metadata"]["labels"] = {"owner": "ops"}
    written = registry.update(v1, None, "s", current, WriteOptions(field_manager="ops")).obj

    entries = _entries(written)
    driver_version, driver_fields = entries["driver"]
    ops_version, ops_fields = entries["ops"]
    assert driver_version == "resource.k8s.io/v1beta1"
    assert ops_version == "resource.k8s.io/v1"
    # the devices list (atomic) changed: it moved to ops; the driver keeps the rest of its spec
    assert "f:devices" not in driver_fields["f:spec"]
    assert {"f:driver", "f:nodeName", "f:pool"} <= set(driver_fields["f:spec"])
    assert set(ops_fields["f:spec"]) == {"f:devices"}
    assert ops_fields["f:metadata"] == {"f:labels": {".": {}, "f:owner": {}}}
    # read at either version, the entries are the same
    assert _entries(registry.get(v1beta1, None, "s").obj) == entries
