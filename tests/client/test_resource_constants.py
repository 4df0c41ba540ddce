"""The client's resource constants and the server's table of served kinds match, both ways.

The constants in :mod:`fakeapi.client.resource` are written by hand (the client may not import
the server's table), so this is what keeps them honest: a kind served without a constant, or a
constant nothing serves, or one whose kind or scope disagrees, fails here.
"""

from __future__ import annotations

from fakeapi.client import resource as constants
from fakeapi.client.resource import Resource
from fakeapi.resources import default_resources

CONSTANTS = {name: value for name, value in vars(constants).items() if isinstance(value, Resource)}


def _address(r: Resource) -> tuple[str, str, str]:
    return (r.group, r.version, r.plural)


def test_every_constant_is_exported() -> None:
    assert set(CONSTANTS) <= set(constants.__all__)


def test_every_served_kind_has_a_client_constant() -> None:
    """At its storage version: the other versions of a kind are the same objects, converted."""
    have = {_address(r) for r in CONSTANTS.values()}
    missing = [
        rt.api_version + "/" + rt.plural
        for rt in default_resources()
        if rt.converter is None and (rt.group, rt.version, rt.plural) not in have
    ]
    assert missing == []


def test_every_constant_names_a_served_kind_with_the_same_kind_and_scope() -> None:
    table = default_resources()
    for name, constant in CONSTANTS.items():
        served = table.lookup(constant.group, constant.version, constant.plural)
        assert served is not None, f"{name} is not served"
        assert (served.kind, served.namespaced, served.api_version) == (
            constant.kind,
            constant.namespaced,
            constant.api_version,
        ), name


def test_constants_are_distinct() -> None:
    addresses = [_address(r) for r in CONSTANTS.values()]
    assert len(addresses) == len(set(addresses))


def test_all_resources_names_every_constant_once_but_the_aliases_and_reviews() -> None:
    # and the kinds one release does not serve: a component listing them would never sync
    aliases = {
        constants.EVENTS_K8S_IO,
        constants.DEVICE_TAINT_RULES_V1BETA2,
        constants.COMPOSITE_POD_GROUPS,
    }
    reviews = {r for r in CONSTANTS.values() if r.plural.endswith("reviews")}
    assert len(reviews) == 5
    assert len(set(constants.ALL_RESOURCES)) == len(constants.ALL_RESOURCES)
    assert set(constants.ALL_RESOURCES) == set(CONSTANTS.values()) - aliases - reviews
