"""Fixtures for the client tests: a tiny served kind, a registry, and a client per transport.

``Widget`` (namespaced, status subresource, a ``paint`` POST subresource, a field label and a
validation rule) and ``Gadget`` (cluster-scoped, no status) exercise everything the client does
without depending on the real kinds' strategies. Test modules describe them on the client side
with their own ``Resource`` values (pytest's importlib mode keeps conftest unimportable). The
``client`` fixture is parametrized over both transports, so a test that uses it pins behaviour
that must be identical in-process and over HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from fakeapi.client import Client, HttpTransport
from fakeapi.client.inprocess import InProcessTransport
from fakeapi.clock import FakeClock
from fakeapi.models.base import K8sModel
from fakeapi.models.meta import ObjectMeta
from fakeapi.registry.store import Registry
from fakeapi.registry.strategy import Strategy, WriteContext
from fakeapi.resources import ResourceTable, ResourceType
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.runner import ApiServer
from fakeapi.storage.memory import Storage
from fakeapi.validation import field as fe

GROUP = "example.fakeapi.dev"


class WidgetSpec(K8sModel):
    size: int | None = None
    """How big the widget is."""
    color: str | None = None
    """The widget's colour."""


class WidgetStatus(K8sModel):
    phase: str | None = None
    """Where the widget is in its life."""


class Widget(K8sModel):
    api_version: str | None = None
    """API version."""
    kind: str | None = None
    """Kind."""
    metadata: ObjectMeta | None = None
    """Standard metadata."""
    spec: WidgetSpec | None = None
    """What the widget should be."""
    status: WidgetStatus | None = None
    """What the widget is."""


class WidgetStrategy(Strategy):
    status_subresource = True
    tracks_generation = True
    field_labels = ("spec.color",)

    def validate(self, obj: dict[str, Any], ctx: WriteContext) -> list[fe.FieldError]:
        size = (obj.get("spec") or {}).get("size")
        if size is not None and size < 0:
            return [fe.invalid("spec.size", size, "must be greater than or equal to 0")]
        return []

    def selectable_fields(self, obj: dict[str, Any]) -> dict[str, str]:
        return {"spec.color": (obj.get("spec") or {}).get("color") or ""}

    def apply_subresource(
        self, name: str, current: dict[str, Any], body: dict[str, Any], ctx: WriteContext
    ) -> dict[str, Any]:
        current.setdefault("spec", {})["color"] = body["color"]
        return current


class GadgetSpec(K8sModel):
    note: str | None = None
    """Free text."""


class Gadget(K8sModel):
    api_version: str | None = None
    """API version."""
    kind: str | None = None
    """Kind."""
    metadata: ObjectMeta | None = None
    """Standard metadata."""
    spec: GadgetSpec | None = None
    """Free text."""


def widget_table() -> ResourceTable:
    return ResourceTable([
        ResourceType(GROUP, "v1", "Widget", "widgets", True, Widget, WidgetStrategy(),
                     ("status", "paint")),
        ResourceType(GROUP, "v1", "Gadget", "gadgets", False, Gadget, Strategy()),
    ])


def _make_registry(*, history_size: int = 1000, watch_queue: int = 1000) -> Registry:
    return Registry(
        resources=widget_table(),
        storage=Storage(history_size=history_size, watch_queue=watch_queue),
        clock=FakeClock(),
    )


async def _eventually(check: Callable[[], bool], *, timeout: float = 5.0) -> None:
    """Let the loop run until ``check()`` holds (a guard against hanging, not a delay)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.001)


@pytest.fixture
def make_registry() -> Callable[..., Registry]:
    """A registry over the widget table; ``history_size``/``watch_queue`` shrink the storage."""
    return _make_registry


@pytest.fixture
def eventually() -> Callable[..., Any]:
    """``await eventually(lambda: ...)``: run the loop until the condition holds."""
    return _eventually


@pytest.fixture
def registry() -> Registry:
    return _make_registry()


@pytest.fixture
async def server(registry: Registry) -> AsyncIterator[ApiServer]:
    async with ApiServer(
        registry=registry, watch=WatchSettings(min_timeout=30.0, bookmark_interval=30.0)
    ) as running:
        yield running


@pytest.fixture
def inprocess_client(registry: Registry) -> Client:
    return Client(InProcessTransport(registry), field_manager="test-client")


@pytest.fixture
async def http_client(server: ApiServer) -> AsyncIterator[Client]:
    async with Client(HttpTransport(server.url), field_manager="test-client") as client:
        yield client


@pytest.fixture(params=["inprocess", "http"])
async def client(request: pytest.FixtureRequest, registry: Registry) -> AsyncIterator[Client]:
    """A client over each transport in turn, against the same kind of registry."""
    if request.param == "inprocess":
        yield Client(InProcessTransport(registry), field_manager="test-client")
        return
    async with ApiServer(
        registry=registry, watch=WatchSettings(min_timeout=30.0, bookmark_interval=30.0)
    ) as running, Client(HttpTransport(running.url), field_manager="test-client") as remote:
        yield remote
