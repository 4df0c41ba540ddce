"""Fixtures for the client tests: a tiny served kind, a registry, and a client per transport.

``Widget`` and ``Gadget`` (``fixtures.testkinds``) exercise everything the client does without
depending on the real kinds' strategies. Test modules describe them on the client side
with their own ``Resource`` values (pytest's importlib mode keeps conftest unimportable). The
``client`` fixture is parametrized over both transports, so a test that uses it pins behaviour
that must be identical in-process and over HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import fakeapi.cluster
from fakeapi.client import Client, HttpTransport, SessionTransport
from fakeapi.clock import FakeClock
from fakeapi.registry.store import GenericStore
from fakeapi.server.handlers import WatchSettings
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.runner import ApiServer
from fakeapi.storage.memory import MemoryStorage

from ..support.testkinds import widget_table


def _make_registry(*, history_size: int = 1000, watch_queue: int = 1000) -> GenericStore:
    return GenericStore(
        resources=widget_table(),
        storage=MemoryStorage(history_size=history_size, watch_queue=watch_queue),
        clock=FakeClock(),
    )


@pytest.fixture
def make_registry() -> Callable[..., GenericStore]:
    """A registry over the widget table; ``history_size``/``watch_queue`` shrink the storage."""
    return _make_registry


@pytest.fixture
def eventually() -> Callable[..., Any]:
    """``await eventually(lambda: ...)``: run the loop until the condition holds
    (:func:`fakeapi.cluster.eventually`)."""
    return fakeapi.cluster.eventually


@pytest.fixture
def registry() -> GenericStore:
    return _make_registry()


@pytest.fixture
async def server(registry: GenericStore) -> AsyncIterator[ApiServer]:
    async with ApiServer(
        registry=registry, watch=WatchSettings(min_timeout=30.0, bookmark_interval=30.0)
    ) as running:
        yield running


@pytest.fixture
def inprocess_client(registry: GenericStore) -> Client:
    return Client(InProcessTransport(registry), field_manager="test-client")


@pytest.fixture(params=["http", "session"])
async def http_client(request: pytest.FixtureRequest, server: ApiServer) -> AsyncIterator[Client]:
    """A client over each HTTP transport in turn (httpx's, aiohttp's)."""
    transport = HttpTransport if request.param == "http" else SessionTransport
    async with Client(transport(server.url), field_manager="test-client") as client:
        yield client


@pytest.fixture(params=["inprocess", "http", "session"])
async def client(request: pytest.FixtureRequest, registry: GenericStore) -> AsyncIterator[Client]:
    """A client over each transport in turn, against the same kind of registry."""
    if request.param == "inprocess":
        yield Client(InProcessTransport(registry), field_manager="test-client")
        return
    transport = HttpTransport if request.param == "http" else SessionTransport
    async with ApiServer(
        registry=registry, watch=WatchSettings(min_timeout=30.0, bookmark_interval=30.0)
    ) as running, Client(transport(running.url), field_manager="test-client") as remote:
        yield remote
