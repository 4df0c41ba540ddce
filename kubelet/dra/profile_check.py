"""The shape of a driver profile, checked before it is parsed: every field where it can go wrong.

A profile is often a user's own file (``fakeapi sandbox --profile ./nic.yaml``), so a mistake
must be reported at once and where it is — not as a Python exception from deep in the parser,
nor as ResourceSlices the API server refuses after the nodes never became ready. This module
walks the mapping and raises :class:`ProfileError` (also :mod:`.profiles`' error) with the
field's path and what was expected:

    pools[0].devices[0].attributes.speed: must be a mapping with one of int, bool, string,
    version, got 10

It checks names of fields (a typo is an unknown field, with the known ones listed), the types of
values, the four attribute kinds of the ResourceSlice API, capacities as ``{value: quantity}``,
device taints' effects, and the placeholders of templates (``{node}``, ``{index}``,
``{partition}``, ``{group}``, ``{uuid}``). What a field means (cluster pools need a node
selector, ``count`` expands...) stays with the parser in :mod:`.profiles`.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

__all__ = ["ProfileError", "check_profile"]


class ProfileError(ValueError):
    """A profile mapping that cannot be used (with the path of the offending field)."""

_TOP = ("name", "description", "driver", "scope", "command", "cdi", "health", "attach",
        "nodeLabels", "behavior", "pools")
_POOL = ("name", "nodeSelector", "allNodes", "devices", "sharedCounters")
_DEVICE = ("name", "count", "partitions", "groupSize", "attributes", "capacity",
           "consumesCounters", "allowMultipleAllocations", "taints", "bindsToNode",
           "bindingConditions", "bindingFailureConditions")
_ATTRIBUTE_TYPES = ("int", "bool", "string", "version")
_TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
_DEVICE_VARIABLES = frozenset({"node", "index", "partition", "group", "uuid"})
_COUNTER_VARIABLES = frozenset({"node", "index", "partition", "group"})
_POOL_VARIABLES = frozenset({"node"})


def _fail(path: str, expected: str, value: Any) -> ProfileError:
    return ProfileError(f"{path}: must be {expected}, got {value!r}")


def _mapping(value: Any, path: str, known: tuple[str, ...] | None = None) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(path, "a mapping", value)
    if known is not None:
        unknown = sorted(str(k) for k in value if k not in known)
        if unknown:
            where = f"{path}.{unknown[0]}" if path else unknown[0]
            raise ProfileError(f"{where}: unknown field; known: {', '.join(known)}")
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _template(value: Any, path: str, variables: frozenset[str]) -> None:
    """A string whose ``{placeholders}`` are all known."""
    if not isinstance(value, str):
        raise _fail(path, "a string", value)
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(value) if name is not None]
    except ValueError as exc:
        raise ProfileError(f"{path}: {exc} in template {value!r}") from None
    for name in fields:
        if name not in variables:
            raise ProfileError(
                f"{path}: unknown placeholder {{{name}}} in {value!r}; known: "
                + ", ".join(f"{{{v}}}" for v in sorted(variables))
            )


def _number(mapping: Mapping[str, Any], key: str, path: str, *, minimum: float,
            integer: bool = False) -> None:
    if key not in mapping:
        return
    value = mapping[key]
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < minimum:
        what = "an integer" if integer else "a number"
        raise _fail(_join(path, key), f"{what} >= {minimum:g}", value)


def _strings(value: Any, path: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(path, "a list of strings", value)


def _attribute(value: Any, path: str) -> None:
    kinds = ", ".join(_ATTRIBUTE_TYPES)
    if not isinstance(value, Mapping) or len(value) != 1 or next(iter(value)) not in (
            _ATTRIBUTE_TYPES):
        raise _fail(path, f"a mapping with one of {kinds}", value)
    kind, inner = next(iter(value.items()))
    where = f"{path}.{kind}"
    if kind == "int":
        if isinstance(inner, str):
            _template(inner, where, _DEVICE_VARIABLES)
            if "{" not in inner and not inner.lstrip("-").isdigit():
                raise _fail(where, "an integer (or a template of one)", inner)
        elif isinstance(inner, bool) or not isinstance(inner, int):
            raise _fail(where, "an integer (or a template of one)", inner)
    elif kind == "bool":
        if not isinstance(inner, bool) and inner not in ("true", "false"):
            raise _fail(where, "true or false", inner)
    else:
        _template(inner, where, _DEVICE_VARIABLES)


def _quantity(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _fail(path, "a quantity (64Gi, 100)", value)
    if isinstance(value, str):
        _template(value, path, _DEVICE_VARIABLES)


def _capacity(value: Any, path: str) -> None:
    entry = _mapping(value, path, ("value", "requestPolicy"))
    if "value" not in entry:
        raise ProfileError(f"{path}.value: required (a quantity: {{value: 64Gi}})")
    _quantity(entry["value"], f"{path}.value")
    if "requestPolicy" in entry:
        _mapping(entry["requestPolicy"], f"{path}.requestPolicy")


def _counters(value: Any, path: str) -> None:
    for name, entry in _mapping(value, path).items():
        where = f"{path}.{name}"
        counter = _mapping(entry, where, ("value",))
        if "value" not in counter:
            raise ProfileError(f"{where}.value: required (a quantity: {{value: 40Gi}})")
        _quantity(counter["value"], f"{where}.value")


def _device(value: Any, path: str) -> None:
    device = _mapping(value, path, _DEVICE)
    if "name" not in device:
        raise ProfileError(f"{path}.name: required (a template such as \"gpu-{{index}}\")")
    _template(device["name"], f"{path}.name", _DEVICE_VARIABLES)
    for key in ("count", "partitions", "groupSize"):
        _number(device, key, path, minimum=1, integer=True)
    for name, attribute in _mapping(device.get("attributes", {}),
                                    f"{path}.attributes").items():
        _attribute(attribute, f"{path}.attributes.{name}")
    for name, capacity in _mapping(device.get("capacity", {}), f"{path}.capacity").items():
        _capacity(capacity, f"{path}.capacity.{name}")
    for key in ("allowMultipleAllocations", "bindsToNode"):
        if key in device and not isinstance(device[key], bool):
            raise _fail(f"{path}.{key}", "true or false", device[key])
    for key in ("bindingConditions", "bindingFailureConditions"):
        if key in device:
            _strings(device[key], f"{path}.{key}")
    taints = device.get("taints", [])
    if not isinstance(taints, list):
        raise _fail(f"{path}.taints", "a list", taints)
    for i, taint in enumerate(taints):
        where = f"{path}.taints[{i}]"
        entry = _mapping(taint, where, ("key", "value", "effect", "timeAdded"))
        if not isinstance(entry.get("key"), str) or not entry["key"]:
            raise _fail(f"{where}.key", "a taint key", entry.get("key"))
        if entry.get("effect") not in _TAINT_EFFECTS:
            raise _fail(f"{where}.effect", f"one of {', '.join(_TAINT_EFFECTS)}",
                        entry.get("effect"))
    consumes = device.get("consumesCounters", [])
    if not isinstance(consumes, list):
        raise _fail(f"{path}.consumesCounters", "a list", consumes)
    for i, consumption in enumerate(consumes):
        where = f"{path}.consumesCounters[{i}]"
        entry = _mapping(consumption, where, ("counterSet", "counters"))
        _template(entry.get("counterSet"), f"{where}.counterSet", _DEVICE_VARIABLES)
        _counters(entry.get("counters"), f"{where}.counters")


def _pool(value: Any, path: str) -> None:
    pool = _mapping(value, path, _POOL)
    if "name" in pool:
        _template(pool["name"], f"{path}.name", _POOL_VARIABLES)
    if "nodeSelector" in pool:
        _mapping(pool["nodeSelector"], f"{path}.nodeSelector")
    if "allNodes" in pool and not isinstance(pool["allNodes"], bool):
        raise _fail(f"{path}.allNodes", "true or false", pool["allNodes"])
    devices = pool.get("devices", [])
    if not isinstance(devices, list):
        raise _fail(f"{path}.devices", "a list of device templates", devices)
    for i, device in enumerate(devices):
        _device(device, f"{path}.devices[{i}]")
    counter_sets = pool.get("sharedCounters", [])
    if not isinstance(counter_sets, list):
        raise _fail(f"{path}.sharedCounters", "a list", counter_sets)
    for i, counter_set in enumerate(counter_sets):
        where = f"{path}.sharedCounters[{i}]"
        entry = _mapping(counter_set, where, ("name", "count", "counters"))
        _template(entry.get("name"), f"{where}.name", _COUNTER_VARIABLES)
        _number(entry, "count", where, minimum=1, integer=True)
        _counters(entry.get("counters"), f"{where}.counters")


def check_profile(data: Any) -> None:
    """Raise ProfileError for the first field of ``data`` that is not what a profile holds."""
    profile = _mapping(data, "", _TOP) if isinstance(data, Mapping) else None
    if profile is None:
        raise ProfileError(f"a driver profile must be a mapping, got {data!r}")
    if "driver" not in profile:
        raise ProfileError("driver: required (the DRA driver's name, e.g. nic.example.com)")
    for key in ("name", "description", "driver"):
        if key in profile and (not isinstance(profile[key], str) or not profile[key]):
            raise _fail(key, "a non-empty string", profile[key])
    if "cdi" in profile:
        cdi = _mapping(profile["cdi"], "cdi", ("vendor", "class"))
        for key in ("vendor", "class"):
            if key in cdi and (not isinstance(cdi[key], str) or not cdi[key]):
                raise _fail(f"cdi.{key}", "a non-empty string", cdi[key])
    if "health" in profile:
        health = _mapping(profile["health"], "health",
                          ("intervalSeconds", "timeoutSeconds", "enabled"))
        _number(health, "intervalSeconds", "health", minimum=0.001)
        _number(health, "timeoutSeconds", "health", minimum=1, integer=True)
        if "enabled" in health and not isinstance(health["enabled"], bool):
            raise _fail("health.enabled", "true or false", health["enabled"])
    if "attach" in profile:
        _mapping(profile["attach"], "attach", ("delaySeconds",))
    if "command" in profile:
        return  # a real driver publishes its own devices: the parser checks what it may say
    pools = profile.get("pools")
    if not isinstance(pools, list) or not pools:
        raise _fail("pools", "a list of at least one pool", pools)
    for i, pool in enumerate(pools):
        _pool(pool, f"pools[{i}]")
