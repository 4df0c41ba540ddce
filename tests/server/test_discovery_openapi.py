"""Discovery and OpenAPI documents: their shapes, and real kubectl reading them.

The kubectl tests serve only these documents (plus ``/version``) from a tiny aiohttp server over a
small table of test kinds, so they check exactly what kubectl needs from discovery and OpenAPI:
``api-resources``, ``api-versions``, ``explain`` and client-side ``create --dry-run=client``.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
import pytest
from aiohttp import web
from pydantic import create_model

from fakeapi.models.base import IntOrString, K8sModel, Quantity, RawJSON, Time, map_list, set_list
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.models.pod import Pod
from fakeapi.models.resource_claim import ResourceClaim
from fakeapi.registry.strategy import Strategy
from fakeapi.resources import ResourceTable, ResourceType
from fakeapi.schema import prune_unknown_fields
from fakeapi.server import discovery, openapi

GROUP = "example.fakeapi.dev"
PREFIX = "dev.fakeapi.example.v1"
REF = "#/components/schemas/"


# --- a small table of test kinds ---------------------------------------------------------------


class WidgetPart(K8sModel):
    """One part a widget is built from."""

    name: str
    """Name of the part, unique within the widget."""
    size: Quantity | None = None
    """How much material the part takes."""
    count: int | None = 1
    """How many copies of the part the widget holds."""


class WidgetSpec(K8sModel):
    """The desired shape of a widget."""

    color: Literal["red", "green", "blue"] | None = None
    """Paint colour of the widget."""
    parts: Annotated[list[WidgetPart] | None, map_list("name")] = None
    """The parts the widget is assembled from."""
    tags: Annotated[list[str] | None, set_list()] = None
    """Free-form tags."""
    limits: dict[str, Quantity] | None = None
    """Upper bounds per resource name."""
    port: IntOrString | None = None
    """A port number or name."""
    deadline: Time | None = None
    """When the widget must be finished."""
    extra: RawJSON = None
    """Anything else, kept as sent."""


class WidgetStatus(K8sModel):
    """What is known about a widget."""

    ready: bool | None = None
    """The widget is assembled."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Observations of the widget's state."""


class Widget(K8sModel):
    """A widget: a namespaced kind made for tests."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: WidgetSpec
    """The desired widget."""
    status: WidgetStatus | None = None
    """The observed widget."""


#: a second model named WidgetSpec, from another module: its schema name must not clash
OtherWidgetSpec = create_model(
    "WidgetSpec",
    __base__=K8sModel,
    __module__="elsewhere.models",
    size=(int | None, None),
)


class Gadget(K8sModel):
    """A gadget: a cluster-scoped kind made for tests."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: OtherWidgetSpec | None = None
    """The desired gadget."""


def _table() -> ResourceTable:
    strategy = Strategy()
    return ResourceTable(
        [
            ResourceType(
                group=GROUP,
                version="v1",
                kind="Widget",
                plural="widgets",
                namespaced=True,
                model=Widget,
                strategy=strategy,
                subresources=("status",),
                short_names=("wg",),
                categories=("all",),
                delete_returns_object=True,
            ),
            ResourceType(
                group=GROUP,
                version="v1",
                kind="Gadget",
                plural="gadgets",
                namespaced=False,
                model=Gadget,
                strategy=strategy,
            ),
            ResourceType(
                group=GROUP,
                version="v1alpha1",
                kind="Gizmo",
                plural="gizmos",
                namespaced=True,
                model=Gadget,
                strategy=strategy,
            ),
            ResourceType(
                group="",
                version="v1",
                kind="Pod",
                plural="pods",
                namespaced=True,
                model=Pod,
                strategy=strategy,
                subresources=("status", "binding"),
                short_names=("po",),
                categories=("all",),
                openapi_prefix="io.k8s.api.core.v1",
                delete_returns_object=True,
            ),
            ResourceType(
                group="resource.k8s.io",
                version="v1",
                kind="ResourceClaim",
                plural="resourceclaims",
                namespaced=True,
                model=ResourceClaim,
                strategy=strategy,
                subresources=("status",),
                openapi_prefix="io.k8s.api.resource.v1",
                delete_returns_object=True,
            ),
        ]
    )


TABLE = _table()


# --- discovery shapes --------------------------------------------------------------------------


def test_aggregated_core_has_no_group_name_and_lists_subresources() -> None:
    doc = discovery.aggregated_discovery(TABLE, core=True)
    assert doc["kind"] == "APIGroupDiscoveryList"
    assert doc["apiVersion"] == "apidiscovery.k8s.io/v2"
    (item,) = doc["items"]
    assert "name" not in item["metadata"]
    (version,) = item["versions"]
    (pods,) = version["resources"]
    assert pods["resource"] == "pods"
    assert pods["scope"] == "Namespaced"
    assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert pods["shortNames"] == ["po"]
    subresources = {s["subresource"]: s for s in pods["subresources"]}
    assert subresources["binding"]["verbs"] == ["create"]
    assert subresources["binding"]["responseKind"]["kind"] == "Binding"
    assert subresources["status"]["verbs"] == ["get", "patch", "update"]


def test_aggregated_groups_list_the_preferred_version_first() -> None:
    doc = discovery.aggregated_discovery(TABLE, core=False)
    assert [item["metadata"]["name"] for item in doc["items"]] == [GROUP, "resource.k8s.io"]
    item = doc["items"][0]
    assert [v["version"] for v in item["versions"]] == ["v1", "v1alpha1"]
    v1 = item["versions"][0]
    assert v1["freshness"] == "Current"
    resources = {r["resource"]: r for r in v1["resources"]}
    assert resources["gadgets"]["scope"] == "Cluster"
    assert "subresources" not in resources["gadgets"]
    widgets = resources["widgets"]
    assert widgets["singularResource"] == "widget"
    assert widgets["verbs"] == list(discovery.RESOURCE_VERBS)
    assert widgets["categories"] == ["all"]


def test_version_priority_orders_like_kubernetes() -> None:
    versions = ["v1alpha1", "v1beta1", "foo", "v1", "v2beta1", "v1beta2", "v2"]
    assert sorted(versions, key=discovery.version_priority) == [
        "v2",
        "v1",
        "v2beta1",
        "v1beta2",
        "v1beta1",
        "v1alpha1",
        "foo",
    ]


def test_legacy_documents() -> None:
    assert discovery.legacy_api_versions("127.0.0.1:1234") == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:1234"}
        ],
    }
    group = {
        "name": GROUP,
        "versions": [
            {"groupVersion": f"{GROUP}/v1", "version": "v1"},
            {"groupVersion": f"{GROUP}/v1alpha1", "version": "v1alpha1"},
        ],
        "preferredVersion": {"groupVersion": f"{GROUP}/v1", "version": "v1"},
    }
    groups = discovery.legacy_group_list(TABLE)
    assert groups["kind"] == "APIGroupList"
    assert groups["apiVersion"] == "v1"
    assert groups["groups"][0] == group
    assert [g["name"] for g in groups["groups"]] == [GROUP, "resource.k8s.io"]
    assert discovery.legacy_group(TABLE, GROUP) == {"kind": "APIGroup", "apiVersion": "v1", **group}
    assert discovery.legacy_group(TABLE, "nope.example") is None
    assert discovery.legacy_group(TABLE, "") is None


def test_legacy_resource_lists() -> None:
    core = discovery.legacy_resource_list(TABLE, "", "v1")
    assert core is not None
    assert core["groupVersion"] == "v1"
    names = {r["name"]: r for r in core["resources"]}
    assert list(names) == ["pods", "pods/binding", "pods/status"]
    assert names["pods/binding"] == {
        "name": "pods/binding",
        "singularName": "",
        "namespaced": True,
        "kind": "Binding",
        "verbs": ["create"],
    }
    # upstream's value for core/v1 Pod
    assert names["pods"]["storageVersionHash"] == "xPOwRZ+Yhw8="
    named = discovery.legacy_resource_list(TABLE, GROUP, "v1")
    assert named is not None
    assert named["groupVersion"] == f"{GROUP}/v1"
    assert [r["name"] for r in named["resources"]] == ["gadgets", "widgets", "widgets/status"]
    assert named["resources"][1]["shortNames"] == ["wg"]
    assert discovery.legacy_resource_list(TABLE, GROUP, "v9") is None


# --- OpenAPI shapes ----------------------------------------------------------------------------


def _doc(group: str = GROUP, version: str = "v1") -> dict[str, Any]:
    doc = openapi.openapi_document(TABLE, group, version)
    assert doc is not None
    return doc


def test_index_hashes_each_document() -> None:
    index = openapi.openapi_index(TABLE)
    assert list(index["paths"]) == [
        "apis/example.fakeapi.dev/v1",
        "apis/example.fakeapi.dev/v1alpha1",
        "api/v1",
        "apis/resource.k8s.io/v1",
    ]
    url = index["paths"]["api/v1"]["serverRelativeURL"]
    digest = hashlib.sha512(openapi.document_bytes(_doc("", "v1"))).hexdigest().upper()
    assert url == f"/openapi/v3/api/v1?hash={digest}"
    assert openapi.openapi_index(_table()) == index
    assert openapi.openapi_document(TABLE, GROUP, "v9") is None


def test_top_level_schema_is_tagged_and_references_nested_types() -> None:
    schemas = _doc()["components"]["schemas"]
    widget = schemas[f"{PREFIX}.Widget"]
    assert widget["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "Widget", "version": "v1"}
    ]
    assert widget["required"] == ["spec"]
    assert widget["description"] == "A widget: a namespaced kind made for tests."
    assert widget["properties"]["spec"] == {
        "allOf": [{"$ref": f"{REF}{PREFIX}.WidgetSpec"}],
        "description": "The desired widget.",
    }
    assert widget["properties"]["metadata"]["allOf"] == [
        {"$ref": f"{REF}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    ]
    listed = schemas[f"{PREFIX}.WidgetList"]
    assert listed["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "WidgetList", "version": "v1"}
    ]
    assert listed["properties"]["items"]["items"]["allOf"] == [{"$ref": f"{REF}{PREFIX}.Widget"}]
    for name in ("Status", "DeleteOptions", "Patch", "WatchEvent", "ListMeta", "Time"):
        assert f"io.k8s.apimachinery.pkg.apis.meta.v1.{name}" in schemas


def test_field_schemas_carry_list_map_and_scalar_semantics() -> None:
    schemas = _doc()["components"]["schemas"]
    spec = schemas[f"{PREFIX}.WidgetSpec"]["properties"]
    assert spec["parts"] == {
        "type": "array",
        "items": {"allOf": [{"$ref": f"{REF}{PREFIX}.WidgetPart"}], "default": {}},
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-patch-strategy": "merge",
        "description": "The parts the widget is assembled from.",
    }
    assert spec["tags"]["x-kubernetes-list-type"] == "set"
    assert spec["color"]["enum"] == ["red", "green", "blue"]
    assert spec["limits"]["additionalProperties"] == {
        "allOf": [{"$ref": f"{REF}io.k8s.apimachinery.pkg.api.resource.Quantity"}]
    }
    assert spec["port"]["allOf"] == [
        {"$ref": f"{REF}io.k8s.apimachinery.pkg.util.intstr.IntOrString"}
    ]
    assert spec["deadline"]["allOf"] == [
        {"$ref": f"{REF}io.k8s.apimachinery.pkg.apis.meta.v1.Time"}
    ]
    assert spec["extra"]["x-kubernetes-preserve-unknown-fields"] is True
    part = schemas[f"{PREFIX}.WidgetPart"]
    assert part["required"] == ["name"]
    assert part["properties"]["count"] == {
        "type": "integer",
        "format": "int64",
        "default": 1,
        "description": "How many copies of the part the widget holds.",
    }
    assert schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["x-kubernetes-int-or-string"]


def test_clashing_model_names_are_told_apart() -> None:
    schemas = _doc()["components"]["schemas"]
    gadget_spec = schemas[f"{PREFIX}.Gadget"]["properties"]["spec"]["allOf"][0]["$ref"]
    assert gadget_spec == f"{REF}{PREFIX}.models.WidgetSpec"
    assert "size" in schemas[f"{PREFIX}.models.WidgetSpec"]["properties"]
    assert "parts" in schemas[f"{PREFIX}.WidgetSpec"]["properties"]


def test_paths_follow_upstream_layout() -> None:
    paths = _doc()["paths"]
    root = f"/apis/{GROUP}/v1"
    assert set(paths) == {
        f"{root}/namespaces/{{namespace}}/widgets",
        f"{root}/namespaces/{{namespace}}/widgets/{{name}}",
        f"{root}/namespaces/{{namespace}}/widgets/{{name}}/status",
        f"{root}/widgets",
        f"{root}/gadgets",
        f"{root}/gadgets/{{name}}",
    }
    item = paths[f"{root}/namespaces/{{namespace}}/widgets/{{name}}"]
    patch = item["patch"]
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": GROUP,
        "kind": "Widget",
        "version": "v1",
    }
    assert {p["name"] for p in patch["parameters"]} >= {"fieldValidation", "dryRun", "fieldManager"}
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"]
    assert patch["operationId"] == "patchExampleFakeapiDevV1NamespacedWidget"
    assert item["delete"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": f"{REF}{PREFIX}.Widget"
    }
    gadget_delete = paths[f"{root}/gadgets/{{name}}"]["delete"]
    assert gadget_delete["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": f"{REF}io.k8s.apimachinery.pkg.apis.meta.v1.Status"
    }
    collection = paths[f"{root}/namespaces/{{namespace}}/widgets"]
    actions = {m: op["x-kubernetes-action"] for m, op in collection.items() if m != "parameters"}
    assert actions == {"get": "list", "post": "post", "delete": "deletecollection"}
    assert {p["name"] for p in collection["get"]["parameters"]} >= {
        "labelSelector",
        "fieldSelector",
        "limit",
        "continue",
        "watch",
        "resourceVersion",
    }
    status = paths[f"{root}/namespaces/{{namespace}}/widgets/{{name}}/status"]
    assert sorted(m for m in status if m != "parameters") == ["get", "patch", "put"]


def test_core_document_uses_the_kind_prefix_and_serves_binding() -> None:
    doc = _doc("", "v1")
    schemas = doc["components"]["schemas"]
    assert "io.k8s.api.core.v1.Pod" in schemas
    assert "io.k8s.api.core.v1.PodList" in schemas
    assert schemas["io.k8s.api.core.v1.Binding"]["properties"]["target"]["allOf"] == [
        {"$ref": f"{REF}io.k8s.api.core.v1.ObjectReference"}
    ]
    binding = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/binding"]["post"]
    assert binding["x-kubernetes-group-version-kind"] == {
        "group": "",
        "kind": "Binding",
        "version": "v1",
    }
    assert binding["operationId"] == "createCoreV1NamespacedPodBinding"


def test_real_models_get_upstream_names() -> None:
    schemas = _doc("resource.k8s.io", "v1")["components"]["schemas"]
    for name in ("ResourceClaim", "ResourceClaimSpec", "DeviceRequest", "ResourceClaimList"):
        assert f"io.k8s.api.resource.v1.{name}" in schemas
    core = _doc("", "v1")["components"]["schemas"]
    for name in ("Pod", "PodSpec", "Container", "ResourceRequirements", "NodeSelector"):
        assert f"io.k8s.api.core.v1.{name}" in core


def test_every_reference_resolves() -> None:
    for group, version in TABLE.group_versions():
        doc = _doc(group, version)
        schemas = doc["components"]["schemas"]
        refs: list[str] = []

        def walk(value: Any, refs: list[str] = refs) -> None:
            if isinstance(value, dict):
                for key, sub in value.items():
                    if key == "$ref":
                        refs.append(sub)
                    else:
                        walk(sub)
            elif isinstance(value, list):
                for sub in value:
                    walk(sub)

        walk(doc)
        assert refs
        for ref in refs:
            assert ref.removeprefix(REF) in schemas, ref
        assert all(schemas.values())


# --- real kubectl ------------------------------------------------------------------------------

AGGREGATED_ACCEPT = "as=APIGroupDiscoveryList"
VERSION = {"major": "1", "minor": "37", "gitVersion": "v1.37.0-fake", "platform": "linux/amd64"}


def _json(value: Any, *, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(value), status=status, content_type="application/json")


def _app(resources: ResourceTable) -> web.Application:
    def discovery_root(*, core: bool) -> Any:
        async def handler(request: web.Request) -> web.Response:
            if AGGREGATED_ACCEPT in request.headers.get("Accept", ""):
                body = orjson.dumps(discovery.aggregated_discovery(resources, core=core))
                response = web.Response(body=body)
                response.headers["Content-Type"] = discovery.AGGREGATED_CONTENT_TYPE
                return response
            if core:
                return _json(discovery.legacy_api_versions(request.host))
            return _json(discovery.legacy_group_list(resources))

        return handler

    def found(doc: Any) -> web.Response:
        if doc is None:
            return _json({"kind": "Status", "code": 404}, status=404)
        return _json(doc)

    async def core_v1(_: web.Request) -> web.Response:
        return found(discovery.legacy_resource_list(resources, "", "v1"))

    async def group(request: web.Request) -> web.Response:
        return found(discovery.legacy_group(resources, request.match_info["group"]))

    async def group_version(request: web.Request) -> web.Response:
        info = request.match_info
        return found(discovery.legacy_resource_list(resources, info["group"], info["version"]))

    async def openapi_index(_: web.Request) -> web.Response:
        return _json(openapi.openapi_index(resources))

    async def openapi_doc(request: web.Request) -> web.Response:
        parts = request.match_info["path"].split("/")
        doc = None
        if parts == ["api", "v1"]:
            doc = openapi.openapi_document(resources, "", "v1")
        elif len(parts) == 3 and parts[0] == "apis":
            doc = openapi.openapi_document(resources, parts[1], parts[2])
        if doc is None:
            return found(None)
        return web.Response(body=openapi.document_bytes(doc), content_type="application/json")

    async def create(request: web.Request) -> web.Response:
        """Just enough of a create to show which validation kubectl asked the server for."""
        info = request.match_info
        rt = resources.lookup(info["group"], info["version"], info["plural"])
        assert rt is not None
        body = await request.json()
        _, unknown = prune_unknown_fields(rt.schema, body)
        if unknown and request.query.get("fieldValidation") == "Strict":
            fields = ", ".join(f'unknown field "{path}"' for path in unknown)
            message = (
                f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                f"strict decoding error: {fields}"
            )
            status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
            return _json(
                {**status, "message": message, "reason": "BadRequest", "code": 400}, status=400
            )
        return _json(body, status=201)

    async def not_found(_: web.Request) -> web.Response:
        return found(None)

    async def version(_: web.Request) -> web.Response:
        return _json(VERSION)

    app = web.Application()
    for path in ("/api", "/api/"):
        app.router.add_get(path, discovery_root(core=True))
    for path in ("/apis", "/apis/"):
        app.router.add_get(path, discovery_root(core=False))
    app.router.add_get("/api/v1", core_v1)
    app.router.add_get("/apis/{group}", group)
    app.router.add_get("/apis/{group}/{version}", group_version)
    app.router.add_post("/apis/{group}/{version}/namespaces/{namespace}/{plural}", create)
    app.router.add_get("/openapi/v3", openapi_index)
    app.router.add_get("/openapi/v3/{path:.+}", openapi_doc)
    app.router.add_get("/openapi/v2", not_found)
    app.router.add_get("/version", version)
    return app


@pytest.fixture(scope="module")
def server_port() -> Iterator[int]:
    """A document-only server on 127.0.0.1, run on its own event loop in a thread."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(_app(TABLE))
    started = threading.Event()
    ports: list[int] = []

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        ports.append(runner.addresses[0][1])
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)
    started.wait(10)
    try:
        yield ports[0]
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@pytest.fixture
def kubectl(server_port: int, tmp_path: Path) -> Any:
    """Runs real kubectl against the document server with a fresh cache directory."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters: [{{name: fake, cluster: {{server: 'http://127.0.0.1:{server_port}'}}}}]\n"
        "users: [{name: fake, user: {}}]\n"
        "contexts: [{name: fake, context: {cluster: fake, user: fake}}]\n"
        "current-context: fake\n"
    )
    cache = tmp_path / "cache"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["kubectl", "--kubeconfig", str(kubeconfig), "--cache-dir", str(cache), *args],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )

    return run


def test_kubectl_api_resources(kubectl: Any) -> None:
    result = kubectl("api-resources")
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert lines[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    rows = {line[0]: line[1:] for line in lines[1:]}
    assert rows["pods"] == ["po", "v1", "true", "Pod"]
    assert rows["widgets"] == ["wg", f"{GROUP}/v1", "true", "Widget"]
    assert rows["gadgets"] == [f"{GROUP}/v1", "false", "Gadget"]
    assert rows["gizmos"] == [f"{GROUP}/v1alpha1", "true", "Gizmo"]


def test_kubectl_api_versions(kubectl: Any) -> None:
    result = kubectl("api-versions")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"{GROUP}/v1", f"{GROUP}/v1alpha1", "resource.k8s.io/v1", "v1"]


def test_kubectl_explain_kind(kubectl: Any) -> None:
    result = kubectl("explain", "widgets")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "GROUP:      example.fakeapi.dev" in out
    assert "KIND:       Widget" in out
    assert "VERSION:    v1" in out
    assert "A widget: a namespaced kind made for tests." in out
    assert "spec\t<WidgetSpec> -required-" in out
    assert "metadata\t<ObjectMeta>" in out
    assert "status\t<WidgetStatus>" in out


def test_kubectl_explain_nested_fields(kubectl: Any) -> None:
    result = kubectl("explain", "widgets.spec")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "parts\t<[]WidgetPart>" in out
    assert "limits\t<map[string]Quantity>" in out
    assert "port\t<IntOrString>" in out
    assert "deadline\t<string>" in out
    assert "extra\t<Object>" in out
    assert "tags\t<[]string>" in out
    assert "color\t<string>\n  enum: red, green, blue" in out

    result = kubectl("explain", "widgets.spec.parts")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "FIELD: parts <[]WidgetPart>" in out
    assert "The parts the widget is assembled from." in out
    assert "name\t<string> -required-" in out
    assert "size\t<Quantity>" in out
    assert "count\t<integer>" in out


def test_kubectl_explain_cluster_scoped_and_core(kubectl: Any) -> None:
    result = kubectl("explain", "gadgets.spec")
    assert result.returncode == 0, result.stderr
    assert "size\t<integer>" in result.stdout
    result = kubectl("explain", "pods")
    assert result.returncode == 0, result.stderr
    assert "KIND:       Pod" in result.stdout
    assert "GROUP:" not in result.stdout
    assert "spec\t<PodSpec>" in result.stdout


def test_kubectl_explain_real_models(kubectl: Any) -> None:
    result = kubectl("explain", "resourceclaims.spec.devices")
    assert result.returncode == 0, result.stderr
    assert "GROUP:      resource.k8s.io" in result.stdout
    assert "FIELD: devices <DeviceClaim>" in result.stdout
    assert "requests\t<[]DeviceRequest>" in result.stdout
    result = kubectl("explain", "pods.spec.containers.resources")
    assert result.returncode == 0, result.stderr
    assert "limits\t<map[string]Quantity>" in result.stdout


def _widget(tmp_path: Path, name: str, spec: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"apiVersion: {GROUP}/v1\nkind: Widget\nmetadata: {{name: {name}, namespace: default}}\n"
        f"spec:\n{spec}"
    )
    return str(path)


VALID_SPEC = (
    "  color: red\n  parts:\n  - {name: bolt, size: 1Gi, count: 2}\n"
    "  port: http\n  limits: {cpu: 500m}\n  extra: {anything: [1, 2]}\n"
)
UNKNOWN_SPEC = "  parts:\n  - {name: bolt, bogus: 1}\n"


def test_kubectl_client_side_create_trusts_server_side_field_validation(
    kubectl: Any, tmp_path: Path
) -> None:
    """kubectl finds the PATCH operation with ``fieldValidation`` and leaves checks to the server.

    It then skips client-side schema validation (which would need ``/openapi/v2``) and never asks
    for ``/openapi/v2``: a client-side dry run accepts a valid manifest and, as against a real
    cluster, an unknown field too.
    """
    valid = _widget(tmp_path, "w1", VALID_SPEC)
    result = kubectl("create", "--dry-run=client", "--validate=strict", "-f", valid, "-v=6")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "widget.example.fakeapi.dev/w1 created (dry run)"
    assert "/openapi/v3/apis/example.fakeapi.dev/v1?hash=" in result.stderr
    assert "/openapi/v2" not in result.stderr

    unknown = _widget(tmp_path, "w2", UNKNOWN_SPEC)
    result = kubectl("create", "--dry-run=client", "--validate=strict", "-f", unknown)
    assert result.returncode == 0, result.stderr


def test_kubectl_create_asks_the_server_for_strict_validation(kubectl: Any, tmp_path: Path) -> None:
    """A real create sends ``fieldValidation=Strict``; the server's refusal names the field."""
    result = kubectl("create", "--validate=strict", "-f", _widget(tmp_path, "w1", VALID_SPEC))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "widget.example.fakeapi.dev/w1 created"

    result = kubectl("create", "--validate=strict", "-f", _widget(tmp_path, "w2", UNKNOWN_SPEC))
    assert result.returncode == 1
    assert 'unknown field "spec.parts[0].bogus"' in result.stderr
    assert result.stderr.startswith("Error from server (BadRequest): error when creating")
