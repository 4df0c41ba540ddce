"""Kubelet stages of your own, as a user's suite would keep them: a directory of stage files next to
the tests, given to the ``fakeapi`` marker as ``stages``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fakeapi.cluster import Cluster, eventually

STAGES = Path(__file__).parent / "stages"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "app", "image": "registry.example/web:1.0"}]},
}


@pytest.mark.fakeapi(nodes=1, stages=STAGES)
async def test_pods_follow_the_stages_of_a_directory(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(POD)

    await fakeapi_cluster.wait_for("pods", "web", jsonpath="{.status.phase}=Running")

    async def warmed() -> list[str]:
        return [e["message"] for e in await fakeapi_cluster.recent_events()
                if e["reason"] == "WarmedUp"]

    assert await eventually(warmed) == ["web warmed up on node-1"]
    await fakeapi_cluster.client.delete("pods", name="web")
    await fakeapi_cluster.wait_for("pods", "web", deleted=True)


@pytest.mark.fakeapi(nodes=1, stages=str(STAGES / "10-warm-up.yaml"))
async def test_one_stage_file_is_the_whole_lifecycle(fakeapi_cluster: Any) -> None:
    await fakeapi_cluster.apply_yaml(POD)

    await fakeapi_cluster.wait_for("pods", "web", jsonpath="{.status.phase}=Running")


def test_a_stage_path_that_does_not_exist_is_an_error_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"stages: no stage file or directory {tmp_path}/gone"):
        Cluster(nodes=1, stages=tmp_path / "gone")
