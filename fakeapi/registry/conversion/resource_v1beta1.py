"""resource.k8s.io v1beta1 <-> v1 (the storage version), as upstream's v1beta1 conversion does.

Two shapes differ (``fakeapi.models.resource_v1beta1``):

- Requests. v1beta1 writes one exact request's fields inline; v1 nests them under ``exactly``.
  Going to v1, a request with any of those fields set gets an ``exactly`` holding them (an
  invalid mix with ``firstAvailable`` is left for validation to report); coming back, the fields
  of ``exactly`` are written inline.
- Devices. v1beta1 keeps a device's fields under ``basic``; v1 has them on the device. Coming
  back every device gets a ``basic``, as upstream's conversion always sets it.

ResourceSlice's ``spec.nodeName`` and ``spec.allNodes`` are plain values in v1beta1 and optional
in v1: an empty name and ``false`` are "unset" there, as upstream converts them. DeviceClass has
the same fields at both versions. Every function here builds new dicts along the changed path and
shares the rest with its argument, which it never modifies.
"""

from __future__ import annotations

from typing import Any

from fakeapi.registry.conversion import ApiVersionConversion, ConversionChain
from fakeapi.registry.strategy import Obj

__all__ = [
    "DEVICE_CLASS",
    "RESOURCE_CLAIM",
    "RESOURCE_CLAIM_TEMPLATE",
    "RESOURCE_SLICE",
    "EXACT_REQUEST_FIELDS",
]

_STORED = "resource.k8s.io/v1"
_SERVED = "resource.k8s.io/v1beta1"

#: the fields of a v1 ``exactly`` that v1beta1 writes inline, in v1beta1's field order
EXACT_REQUEST_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)
_EXACT = frozenset(EXACT_REQUEST_FIELDS)


def _request_to_v1(request: Any) -> Any:
    if not isinstance(request, dict) or not _EXACT.intersection(request):
        return request
    out: dict[str, Any] = {}
    exactly: dict[str, Any] = {}
    for key, value in request.items():
        if key in _EXACT:
            exactly[key] = value
        else:
            out[key] = value
    out["exactly"] = exactly
    return out


def _request_from_v1(request: Any) -> Any:
    if not isinstance(request, dict) or "exactly" not in request:
        return request
    exactly = request.get("exactly")
    out: dict[str, Any] = {}
    if "name" in request:
        out["name"] = request["name"]
    if isinstance(exactly, dict):
        for key in EXACT_REQUEST_FIELDS:
            if key in exactly:
                out[key] = exactly[key]
        for key, value in exactly.items():  # fields v1beta1 does not know stay visible
            if key not in _EXACT:
                out[key] = value
    for key, value in request.items():
        if key not in ("name", "exactly"):
            out[key] = value
    return out


def _with_requests(claim_spec: Any, convert: Any) -> Any:
    """``claim_spec`` (a ResourceClaimSpec) with every ``devices.requests`` entry converted."""
    if not isinstance(claim_spec, dict):
        return claim_spec
    devices = claim_spec.get("devices")
    if not isinstance(devices, dict):
        return claim_spec
    requests = devices.get("requests")
    if not isinstance(requests, list):
        return claim_spec
    return {**claim_spec, "devices": {**devices, "requests": [convert(r) for r in requests]}}


def _claim(convert: Any) -> Any:
    def step(obj: Obj) -> Obj:
        if "spec" not in obj:
            return obj
        return {**obj, "spec": _with_requests(obj["spec"], convert)}

    return step


def _template(convert: Any) -> Any:
    def step(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if not isinstance(spec, dict) or "spec" not in spec:
            return obj
        return {**obj, "spec": {**spec, "spec": _with_requests(spec["spec"], convert)}}

    return step


def _device_to_v1(device: Any) -> Any:
    if not isinstance(device, dict) or "basic" not in device:
        return device
    out = {key: value for key, value in device.items() if key != "basic"}
    basic = device.get("basic")
    if isinstance(basic, dict):
        out.update(basic)
    return out


def _device_from_v1(device: Any) -> Any:
    if not isinstance(device, dict):
        return device
    out: dict[str, Any] = {}
    basic: dict[str, Any] = {}
    for key, value in device.items():
        if key == "name":
            out[key] = value
        else:
            basic[key] = value
    out["basic"] = basic
    return out


def _slice(convert_device: Any, *, to_v1: bool) -> Any:
    def step(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        out = dict(spec)
        devices = spec.get("devices")
        if isinstance(devices, list):
            out["devices"] = [convert_device(d) for d in devices]
        if to_v1:  # a plain value's zero is "unset" in v1's optional fields
            if out.get("nodeName") == "":
                del out["nodeName"]
            if out.get("allNodes") is False:
                del out["allNodes"]
        return {**obj, "spec": out}

    return step


DEVICE_CLASS = ApiVersionConversion(stored=_STORED, served=_SERVED)
RESOURCE_CLAIM = ConversionChain(
    stored=_STORED,
    served=_SERVED,
    inward=(_claim(_request_to_v1),),
    outward=(_claim(_request_from_v1),),
)
RESOURCE_CLAIM_TEMPLATE = ConversionChain(
    stored=_STORED,
    served=_SERVED,
    inward=(_template(_request_to_v1),),
    outward=(_template(_request_from_v1),),
)
RESOURCE_SLICE = ConversionChain(
    stored=_STORED,
    served=_SERVED,
    inward=(_slice(_device_to_v1, to_v1=True),),
    outward=(_slice(_device_from_v1, to_v1=False),),
)
