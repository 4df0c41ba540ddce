"""Manifests with a kind the server does not serve: the rest is applied and each object left out
is named by file and line (``apply_yaml``, ``Cluster(load=...)``); ``strict`` refuses the whole
source before anything is applied."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from fakeapi.client import CONFIGMAPS
from fakeapi.cluster import UnservedKindsError, UnservedKindWarning
from fakeapi.cluster.assembler import Cluster
from fakeapi.cluster.manifests import read_manifests
from fakeapi.registry.options import ListOptions

MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
# a kind of another project
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: shop}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: listed}}
- apiVersion: example.com/v1
  kind: Gadget
  metadata: {name: g1}
"""


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "app.yaml"
    path.write_text(MANIFESTS)
    return path


def test_each_object_knows_the_line_of_its_document_or_list_item(tmp_path: Path) -> None:
    path = _write(tmp_path)
    assert [(m.where, m.obj["kind"]) for m in read_manifests(path)] == [
        (f"{path}:1", "ConfigMap"), (f"{path}:6", "Widget"), (f"{path}:13", "ConfigMap"),
        (f"{path}:14", "Gadget"),
    ]


async def _configmaps(cluster: Cluster) -> list[str]:
    listed = await cluster.client.list(CONFIGMAPS, namespace="default")
    return sorted(c["metadata"]["name"] for c in listed.items)


async def test_apply_yaml_applies_the_rest_and_warns_naming_file_and_line(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path)
    async with Cluster(components=()) as cluster:
        with pytest.warns(UnservedKindWarning) as caught:
            applied = await cluster.apply_yaml(path)
        assert [o["metadata"]["name"] for o in applied] == ["settings", "listed"]
        assert await _configmaps(cluster) == ["listed", "settings"]
    [warning] = caught
    assert str(warning.message) == (
        "2 objects not applied, the server does not serve their kind; the rest was applied:\n"
        f'  {path}:6: Widget "shop/w1": no matches for kind "Widget" in version '
        '"example.com/v1"\n'
        f'  {path}:14: Gadget "g1": no matches for kind "Gadget" in version "example.com/v1"'
    )


async def test_strict_applies_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path)
    async with Cluster(components=()) as cluster:
        with pytest.raises(UnservedKindsError) as failure:
            await cluster.apply_yaml(path, strict=True)
        assert await _configmaps(cluster) == []
    assert str(failure.value).startswith(
        "2 objects not applied, the server does not serve their kind; nothing was applied "
        "(strict):\n")


async def test_a_load_keeps_what_it_left_out_and_warns(tmp_path: Path) -> None:
    path = _write(tmp_path)
    cluster = Cluster(components=(), load=[path])
    with pytest.warns(UnservedKindWarning, match="2 objects not applied"):
        await cluster.start()
    try:
        assert [(u.where, u.kind) for u in cluster.load_unserved] == [
            (f"{path}:6", "Widget"), (f"{path}:14", "Gadget")]
        assert await _configmaps(cluster) == ["listed", "settings"]
    finally:
        await cluster.stop()


async def test_a_strict_load_refuses_every_source_before_applying_any(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    first.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n")
    path = _write(tmp_path)
    cluster = Cluster(components=(), load=[first, path], load_strict=True)
    with warnings.catch_warnings(), pytest.raises(UnservedKindsError, match="Widget"):
        warnings.simplefilter("error")
        await cluster.start()
    assert not cluster.started
    # the stopped cluster's storage still says what was written: nothing of the load
    configmaps = cluster.registry.resources.lookup("", "v1", "configmaps")
    assert configmaps is not None
    assert cluster.registry.list(configmaps, "default", ListOptions()).items == []
