"""Over HTTP with real kubectl: cascading deletes and namespace deletion complete, /metrics serves.

The assembler's API server and controller manager run in the test's event loop (the controllers
over the in-process client, kubectl over HTTP), on the real clock; kubectl runs as a subprocess
without blocking the loop, with a private kubeconfig and discovery cache.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


@dataclass
class Live:
    url: str
    kubeconfig: Path
    cache_dir: Path
    workdir: Path

    async def kubectl(self, *args: str, stdin: str | None = None, timeout: float = 30) -> str:
        assert KUBECTL is not None
        proc = await asyncio.create_subprocess_exec(
            KUBECTL,
            "--kubeconfig",
            str(self.kubeconfig),
            "--cache-dir",
            str(self.cache_dir),
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.workdir,
        )
        out, err = await asyncio.wait_for(
            proc.communicate(stdin.encode() if stdin else None), timeout
        )
        if proc.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} exited {proc.returncode}\n{out.decode()}\n{err.decode()}"
            )
        return out.decode()

    async def apply(self, *docs: dict[str, Any]) -> None:
        await self.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(docs))

    async def uid(self, kind: str, name: str, namespace: str) -> str:
        return await self.kubectl(
            "get", kind, name, "-n", namespace, "-o", "jsonpath={.metadata.uid}"
        )

    async def names(self, kind: str, namespace: str) -> list[str]:
        out = await self.kubectl("get", kind, "-n", namespace, "-o", "json")
        return sorted(item["metadata"]["name"] for item in json.loads(out)["items"])


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async with Cluster(
        components=("controllers",), profiles=(), clock="real", http=True,
        kubeconfig=tmp_path / "kubeconfig",
    ) as cluster:
        yield Live(
            url=cluster.url, kubeconfig=cluster.kubeconfig, cache_dir=tmp_path / "cache",
            workdir=tmp_path,
        )


def _cm(
    name: str, namespace: str, owner: tuple[str, str] | None = None, block: bool = False
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if owner is not None:
        ref: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": owner[0],
            "uid": owner[1],
        }
        if block:
            ref["blockOwnerDeletion"] = True
        meta["ownerReferences"] = [ref]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


async def test_kubectl_cascading_deletes_in_all_three_modes(live):
    ns = "cascade"
    await live.kubectl("create", "namespace", ns)
    for mode in ("foreground", "orphan", "background"):
        await live.apply(_cm(f"{mode}-owner", ns))
        uid = await live.uid("configmap", f"{mode}-owner", ns)
        await live.apply(_cm(f"{mode}-child", ns, owner=(f"{mode}-owner", uid), block=True))

    # foreground: kubectl waits until the owner is gone, and the owner waits for the child
    await live.kubectl("delete", "configmap", "foreground-owner", "-n", ns, "--cascade=foreground")
    names = await live.names("configmaps", ns)
    assert "foreground-owner" not in names and "foreground-child" not in names

    await live.kubectl("delete", "configmap", "orphan-owner", "-n", ns, "--cascade=orphan")
    child = json.loads(
        await live.kubectl("get", "configmap", "orphan-child", "-n", ns, "-o", "json")
    )
    assert not child["metadata"].get("ownerReferences")

    await live.kubectl("delete", "configmap", "background-owner", "-n", ns)

    async def background_child_gone() -> bool:
        return "background-child" not in await live.names("configmaps", ns)

    await eventually(background_child_gone, timeout=15)
    assert "orphan-child" in await live.names("configmaps", ns)


async def test_kubectl_delete_namespace_completes(live):
    await live.kubectl("create", "namespace", "doomed")
    await live.apply(_cm("settings", "doomed"))
    await live.kubectl("run", "web", "--image=busybox", "-n", "doomed")
    await live.kubectl("delete", "namespace", "doomed", timeout=60)
    out = await live.kubectl("get", "namespaces", "-o", "name")
    assert "namespace/doomed" not in out.split()


async def test_metrics_are_served_with_work_queue_figures(live):
    await live.kubectl("create", "namespace", "counted")
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{live.url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert 'workqueue_adds_total{name="garbage_collector_attempt_to_delete"}' in response.text
    assert "dynamic_resource_allocation_resource_claims" in response.text
