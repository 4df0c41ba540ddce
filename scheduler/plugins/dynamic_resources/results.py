"""Turning a found solution into ``status.allocation`` dicts, as the API serves them.

Shapes and ordering follow upstream: results in allocation order; class configs first (each class
once, listing every request that used it), then claim configs for chosen requests; a config that
covers every request loses its ``requests`` list; a node selector pinned to the node as soon as
one device is node-local, otherwise the union of the slices' (or devices') selector terms.
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import Obj
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import Node
from fakeapi.scheduler.plugins.dynamic_resources.requests import PreparedClaim
from fakeapi.scheduler.plugins.dynamic_resources.search import DeviceResult

__all__ = ["build_allocation"]



def _result(item: DeviceResult, features: AllocatorFeatures) -> dict[str, Any]:
    spec, device = item.spec, item.device
    out: dict[str, Any] = {
        "request": spec.full_name,
        "driver": device.driver,
        "pool": device.pool,
        "device": device.name,
    }
    if spec.admin:
        out["adminAccess"] = True
    if spec.tolerations:
        out["tolerations"] = [dict(t) for t in spec.tolerations]
    if features.device_binding_and_status:
        if device.binding_conditions:
            out["bindingConditions"] = list(device.binding_conditions)
        if device.binding_failure_conditions:
            out["bindingFailureConditions"] = list(device.binding_failure_conditions)
    if item.share_id is not None:
        out["shareID"] = item.share_id
    if item.consumed:
        out["consumedCapacity"] = {name: str(qty) for name, qty in item.consumed.items()}
    return out


def _configs(claim: PreparedClaim, selected: list[int]) -> list[dict[str, Any]]:
    if not claim.has_config:
        return []
    chosen = [
        request.specs[selected[ri] if request.has_subrequests else 0]
        for ri, request in enumerate(claim.requests)
    ]
    configs: list[dict[str, Any]] = []
    class_ranges: dict[str, tuple[int, int]] = {}
    for spec in chosen:
        device_class = spec.device_class
        if device_class is None:
            continue
        existing = class_ranges.get(device_class.name)
        if existing is not None:
            for i in range(*existing):
                configs[i]["requests"].append(spec.full_name)
            continue
        start = len(configs)
        for config in device_class.config:
            configs.append(
                {"source": "FromClass", "requests": [spec.full_name], **_configuration(config)}
            )
        class_ranges[device_class.name] = (start, len(configs))

    names = {spec.base_name for spec in chosen}
    chosen_subs = {spec.full_name for spec in chosen if spec.parent}
    devices = (claim.raw.get("spec") or {}).get("devices") or {}
    for config in devices.get("config") or ():
        requests = list(config.get("requests") or [])
        if not requests:
            configs.append({"source": "FromClaim", **_configuration(config)})
        elif any(r in names or r in chosen_subs for r in requests):
            configs.append({"source": "FromClaim", "requests": requests, **_configuration(config)})

    for entry in configs:
        listed = entry.get("requests")
        if listed and all(spec.base_name in listed or spec.full_name in listed for spec in chosen):
            del entry["requests"]
    return configs


def _configuration(config: Obj) -> dict[str, Any]:
    """The DeviceConfiguration members (``opaque``) of a class or claim config entry."""
    return {key: value for key, value in config.items() if key not in ("requests", "source")}


def _requirement_key(req: Obj) -> tuple[object, object, frozenset[str]]:
    return (req.get("key"), req.get("operator"), frozenset(req.get("values") or ()))


def _node_selector(results: list[DeviceResult], node: Node) -> dict[str, Any] | None:
    fields: list[Obj] = []
    expressions: list[Obj] = []
    seen_fields: set[tuple[object, object, frozenset[str]]] = set()
    seen_expressions: set[tuple[object, object, frozenset[str]]] = set()
    for item in results:
        device = item.device
        slice_entry = device.slice
        if slice_entry.per_device:
            node_name, selector = device.node_name, device.node_selector
        else:
            node_name, selector = slice_entry.node_name, slice_entry.node_selector
        if node_name or device.binds_to_node:
            return {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": [node.name]}
                        ]
                    }
                ]
            }
        terms = (selector or {}).get("nodeSelectorTerms") or []
        if len(terms) == 1:
            term = terms[0]
            for req in term.get("matchFields") or ():
                key = _requirement_key(req)
                if key not in seen_fields:
                    seen_fields.add(key)
                    fields.append(dict(req))
            for req in term.get("matchExpressions") or ():
                key = _requirement_key(req)
                if key not in seen_expressions:
                    seen_expressions.add(key)
                    expressions.append(dict(req))
    if not fields and not expressions:
        return None
    union: dict[str, Any] = {}
    if expressions:
        union["matchExpressions"] = expressions
    if fields:
        union["matchFields"] = fields
    return {"nodeSelectorTerms": [union]}


def build_allocation(
    *,
    claim: PreparedClaim,
    results: list[DeviceResult],
    selected: list[int],
    node: Node,
    features: AllocatorFeatures,
) -> dict[str, Any]:
    """One claim's ``status.allocation`` (without ``allocationTimestamp``)."""
    allocation: dict[str, Any] = {
        "devices": {
            "results": [_result(item, features) for item in results],
        }
    }
    configs = _configs(claim, selected)
    if configs:
        allocation["devices"]["config"] = configs
    node_selector = _node_selector(results, node)
    if node_selector is not None:
        allocation["nodeSelector"] = node_selector
    return allocation
