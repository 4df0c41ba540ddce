"""Bad input never crashes the registry and never changes what is stored.

Every kind's sample object is mutated systematically — each field replaced by values of every
other JSON type, each field removed, junk at the top level — and sent through create, update
(main and status) and the three patch types. Each request must either succeed or fail with a
``StatusError`` carrying a client-error code; a rejected request must leave the storage exactly
as it was (same resourceVersion, same object).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType, default_resources
from fakeapi.server.patching import apply_patch_request
from fakeapi.server.routing import Target

from ..support.samples import SAMPLE_FIELD_MANAGERS, sample

KINDS = list(default_resources())
JUNK: tuple[Any, ...] = (None, 0, -1, 1.5, "", "x" * 300, True, [], [None], {}, {"$patch": "x"})
CLIENT_ERRORS = {400, 403, 404, 409, 413, 415, 422}
NS = "default"


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _paths(sub, (*path, i))


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(obj)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


def _remove(obj: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(obj)
    target = out
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return out


def mutations(base: dict[str, Any]) -> Iterator[Any]:
    """Every field replaced by every junk value, every field removed, and non-objects."""
    for path in _paths(base):
        if not path or path[:2] in (("metadata", "name"),) or path == ("kind",):
            continue
        for junk in JUNK:
            yield _set(base, path, junk)
        yield _remove(base, path)
    yield from (None, [], "x", 1, {"metadata": "x"}, {"metadata": {"name": 5}})


def _options(rt: ResourceType, **kw: Any) -> WriteOptions:
    manager = SAMPLE_FIELD_MANAGERS.get((rt.api_version, rt.kind), "fuzz")
    return WriteOptions(field_manager=manager, **kw)


def _snapshot(registry: GenericStore, rt: ResourceType) -> tuple[int, list[bytes]]:
    table = registry.storage.resource(rt.key)
    return registry.resource_version, [s.raw for s in table.scan("", None, None)]


def _attempt(
    registry: GenericStore, rt: ResourceType, call: Any, *args: Any, **kwargs: Any
) -> None:
    """Run ``call(*args, **kwargs)``: success, or a client error that left storage untouched.

    Callers pass bodies they do not reuse, so a call may consume (or change) what it is given.
    """
    before = _snapshot(registry, rt)
    try:
        call(*args, **kwargs)
    except StatusError as exc:
        assert exc.code in CLIENT_ERRORS, f"{rt.kind}: {exc!r}"
        assert _snapshot(registry, rt) == before, f"{rt.kind}: rejected write changed storage"


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.qualified_plural)
def test_mutated_objects_are_accepted_or_rejected_cleanly(rt: ResourceType) -> None:
    registry = new_registry(clock=FakeClock())
    ns = NS if rt.namespaced else None
    base = sample(rt.api_version, rt.kind)
    if rt.strategy.create_only:  # a review: answered or refused, never stored
        for i, bad in enumerate(mutations(base)):
            mode = ("Strict", "Warn", "Ignore")[i % 3]
            _attempt(registry, rt, registry.create, rt, ns, copy.deepcopy(bad),
                     _options(rt, field_validation=mode))
        assert _snapshot(registry, rt) == _snapshot(new_registry(clock=FakeClock()), rt)
        return
    stored = registry.create(rt, ns, copy.deepcopy(base), _options(rt)).obj
    name = stored["metadata"]["name"]
    target = Target(rt, ns, name, "")
    live = orjson.loads(orjson.dumps(stored))
    for i, bad in enumerate(mutations(base)):
        created = copy.deepcopy(bad)
        if isinstance(created, dict) and isinstance(created.get("metadata"), dict):
            created["metadata"]["name"] = f"fuzz-{i}"
        mode = ("Strict", "Warn", "Ignore")[i % 3]
        _attempt(
            registry, rt, registry.create, rt, ns, created, _options(rt, field_validation=mode)
        )
        current = registry.get(rt, ns, name).obj
        replacement = copy.deepcopy(bad)
        if isinstance(replacement, dict) and isinstance(replacement.get("metadata"), dict):
            replacement["metadata"]["name"] = name
            replacement["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        _attempt(
            registry, rt, registry.update, rt, ns, name, copy.deepcopy(replacement), _options(rt)
        )
        if "status" in rt.subresources:
            _attempt(
                registry,
                rt,
                registry.update,
                rt,
                ns,
                name,
                replacement,
                _options(rt),
                subresource="status",
            )
        for content_type in (
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
        ):
            _attempt(
                registry,
                rt,
                apply_patch_request,
                registry,
                target,
                content_type=content_type,
                patch=copy.deepcopy(bad),
                options=_options(rt),
            )
    json_patches: list[Any] = [
        [{"op": "replace", "path": "/metadata", "value": 1}],
        [{"op": "add", "path": "/spec/nope/deeper", "value": 1}],
        [{"op": "remove", "path": "/metadata/name"}],
        [{"op": "bogus"}],
        {"op": "add"},
        [{"op": "replace", "path": "/kind", "value": "Other"}],
    ]
    for patch in json_patches:
        _attempt(
            registry,
            rt,
            apply_patch_request,
            registry,
            target,
            content_type="application/json-patch+json",
            patch=patch,
            options=_options(rt),
        )
    assert registry.get(rt, ns, name).obj["metadata"]["uid"] == live["metadata"]["uid"]
