"""Driver behaviour of your own, as a user's suite would write it: a Python class named by a driver
profile decides that prepare fails, and what the devices' health is.

Only the documented surface: ``fakeapi.kubelet.DriverBehavior`` (with ``PrepareError`` and
``DeviceHealthReport``), ``fakeapi.cluster.load_profile``, and the ``fakeapi`` marker's
``profiles``, which take parsed profiles and profile files beside the shipped names.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from fakeapi.cluster import load_profile
from fakeapi.kubelet import DeviceHealthReport, DriverBehavior, PreparedClaim, PrepareError

POD = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: app
    image: registry.example/train:1.0
    resources: {claims: [{name: gpu}]}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
"""


class StillResetting(DriverBehavior):
    """Every NodePrepareResources fails: the devices are still resetting."""

    async def prepare(self, claim: dict[str, Any], prepared: PreparedClaim) -> PreparedClaim:
        driver = self.driver
        raise PrepareError(f"{driver.name}: device reset in progress on {driver.node_name}")


class FirstDeviceFailing(DriverBehavior):
    """Prepares as usual, and reports the first device Unhealthy."""

    def health(self, reports: list[DeviceHealthReport]) -> Sequence[DeviceHealthReport]:
        first = reports[0]
        unhealthy = dataclasses.replace(first, health="Unhealthy", message="XID 79")
        return [unhealthy, *reports[1:]]


async def _failed_prepares(cluster: Any) -> list[str]:
    return [e["message"] for e in await cluster.recent_events()
            if e["reason"] == "FailedPrepareDynamicResources"]


@pytest.mark.fakeapi(
    nodes=1, profiles=[dataclasses.replace(load_profile("gpu"), behavior=StillResetting)]
)
async def test_a_driver_class_that_fails_prepare_keeps_the_pod_creating(
    fakeapi_cluster: Any,
) -> None:
    from fakeapi.cluster import eventually

    await fakeapi_cluster.apply_yaml(POD)

    [message, *_] = await eventually(lambda: _failed_prepares(fakeapi_cluster))
    assert re.fullmatch(
        "Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources "
        "failed for ResourceClaim trainer-gpu-[a-z0-9]{5}: gpu.example.com: device reset in "
        "progress on node-1", message), message
    pod = await fakeapi_cluster.client.get("pods", name="trainer")
    assert pod["status"]["phase"] == "Pending"
    [container] = pod["status"]["containerStatuses"]
    assert container["state"]["waiting"]["reason"] == "ContainerCreating"


@pytest.mark.fakeapi(
    nodes=1, profiles=[dataclasses.replace(load_profile("gpu"), behavior=FirstDeviceFailing)]
)
async def test_a_driver_class_decides_the_health_the_pod_reports(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(POD.replace("gpu.example.com}", "gpu.example.com, "
                                                 "selectors: [{cel: {expression: "
                                                 "'device.attributes[\"gpu.example.com\"].index "
                                                 "== 0'}}]}"))

    pod = await fakeapi_cluster.wait_for("pods", "trainer", condition=_reports_unhealthy)
    [container] = pod["status"]["containerStatuses"]
    [entry] = container["allocatedResourcesStatus"]
    assert [r["health"] for r in entry["resources"]] == ["Unhealthy"]


def _reports_unhealthy(pod: dict[str, Any]) -> bool:
    statuses = pod["status"].get("containerStatuses") or []
    return any(r.get("health") == "Unhealthy"
               for c in statuses for e in c.get("allocatedResourcesStatus") or ()
               for r in e["resources"])


MODULE = '''
from fakeapi.kubelet import DriverBehavior, PrepareError


class Unplugged(DriverBehavior):
    async def prepare(self, claim, prepared):
        raise PrepareError("the card is unplugged")
'''


@pytest.fixture
def profile_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A driver profile YAML naming a class in the user's own module."""
    (tmp_path / "my_drivers.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    source = load_profile("gpu").source
    text = textwrap.dedent(f"""
        name: unplugged-gpu
        driver: {source["driver"]}
        behavior: my_drivers:Unplugged
    """)
    import yaml

    path = tmp_path / "unplugged.yaml"
    path.write_text(text + yaml.safe_dump({"pools": source["pools"]}))
    return path


async def test_a_profile_file_names_the_class_by_module_and_name(
    fakeapi_cluster_factory: Any, profile_file: Path
) -> None:
    from fakeapi.cluster import eventually

    cluster = await fakeapi_cluster_factory(nodes=1, profiles=[profile_file])
    await cluster.apply_yaml(POD)

    [message, *_] = await eventually(lambda: _failed_prepares(cluster))
    assert message.endswith(": the card is unplugged")
    assert message.startswith("Failed to prepare dynamic resources: prepare dynamic resources: "
                              "NodePrepareResources failed for ResourceClaim trainer-gpu-")


async def test_a_class_that_cannot_be_imported_is_an_error_before_the_nodes_start(
    fakeapi_cluster_factory: Any, profile_file: Path
) -> None:
    profile_file.write_text(profile_file.read_text().replace("Unplugged", "Missing"))

    with pytest.raises(ValueError, match=r"driver profile unplugged-gpu: behavior "
                                         r"'my_drivers:Missing': .*Missing"):
        await fakeapi_cluster_factory(nodes=1, profiles=[profile_file])
