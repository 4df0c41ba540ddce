"""Who holds a device and how it is doing: a claim's consumers, and device health from pods.

Two things ``kubectl dra pool`` shows beside a device's state come from other objects than its
slice and the claims' allocations:

- **Who holds it** — a claim's ``status.reservedFor``: the pods using it, or (KEP-5194) the
  workload it is reserved for (``jobsets.example.com/train``), or (KEP-5729) the PodGroup. A claim
  reserved for a workload stays allocated after its pods are gone until that workload's
  controller takes the reservation out; this names the workload to look at.
- **Health** (KEP-4680) — the kubelet reports the health of the devices a pod uses in the pod's
  status (``allocatedResourcesStatus`` of each container, and of the pod): entries named
  ``claim:<pod claim>/<request>`` listing ``{resourceID, health, message}``. A ``resourceID`` is
  the device's first CDI device ID (``<driver>/<pool>/<device>`` when it has none). To find the
  device: the pod claim names the ResourceClaim (``status.resourceClaimStatuses`` or
  ``spec.resourceClaims``), its allocation results for the request are the candidates, and the
  ID matches one as ``<driver>/<pool>/<device>``, by the CDI name after ``=`` being the device
  name, or by being the request's only device. Health is only reported for devices in use: a
  free device has none (``<none>``); when several pods report on one device, Unhealthy wins over
  Unknown over Healthy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list, meta, text

__all__ = ["DeviceHealth", "DeviceKey", "claim_consumers", "device_health"]

#: (driver, pool, device)
DeviceKey = tuple[str, str, str]
_RANK = {"Unhealthy": 2, "Unknown": 1, "Healthy": 0}


@dataclass(frozen=True, slots=True)
class DeviceHealth:
    """A device's health as the pods using it report it."""

    health: str
    message: str = ""


def claim_consumers(claim: Mapping[str, Any]) -> list[str]:
    """``status.reservedFor`` as kubectl names objects: ``pod/web``, ``podgroups.scheduling
    .k8s.io/gang``, ``jobsets.example.com/train`` (the group is left out for core kinds)."""
    out = []
    for ref in (as_dict(r) for r in as_list(as_dict(claim.get("status")).get("reservedFor"))):
        resource, group = text(ref.get("resource")), text(ref.get("apiGroup"))
        if resource == "pods" and not group:
            out.append(f"pod/{text(ref.get('name'))}")
        else:
            out.append(f"{resource}{'.' + group if group else ''}/{text(ref.get('name'))}")
    return out


def _claim_names(pod: Obj) -> dict[str, str]:
    """Pod claim name → ResourceClaim name."""
    names = {
        text(entry.get("name")): text(entry.get("resourceClaimName"))
        for entry in (as_dict(e) for e in as_list(as_dict(pod.get("spec")).get("resourceClaims")))
        if text(entry.get("resourceClaimName"))
    }
    for entry in (as_dict(e) for e in as_list(
            as_dict(pod.get("status")).get("resourceClaimStatuses"))):
        if text(entry.get("resourceClaimName")):
            names[text(entry.get("name"))] = text(entry.get("resourceClaimName"))
    extended = as_dict(as_dict(pod.get("status")).get("extendedResourceClaimStatus"))
    if text(extended.get("resourceClaimName")):
        names[""] = text(extended.get("resourceClaimName"))
    return names


def _reports(pod: Obj) -> Iterable[tuple[str, Obj]]:
    """(entry name, resource health) of every ``allocatedResourcesStatus`` of the pod."""
    status = as_dict(pod.get("status"))
    lists = [as_list(status.get("allocatedResourcesStatus"))]
    for key in ("initContainerStatuses", "containerStatuses"):
        lists += [as_list(as_dict(c).get("allocatedResourcesStatus"))
                  for c in as_list(status.get(key))]
    for entries in lists:
        for entry in (as_dict(e) for e in entries):
            for health in (as_dict(r) for r in as_list(entry.get("resources"))):
                yield text(entry.get("name")), health


def _match(resource_id: str, results: list[Obj]) -> Obj | None:
    for result in results:
        key = f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}"
        if resource_id == key or resource_id.rpartition("=")[2] == result.get("device"):
            return result
    return results[0] if len(results) == 1 else None


def device_health(
    *, pods: Iterable[Obj], claims: Iterable[Obj]
) -> dict[DeviceKey, DeviceHealth]:
    """The health each device's users report (see the module docstring for the matching)."""
    by_name = {(text(meta(c).get("namespace")), text(meta(c).get("name"))): c for c in claims}
    found: dict[DeviceKey, DeviceHealth] = {}
    for pod in pods:
        namespace = text(meta(pod).get("namespace"))
        claim_names = _claim_names(pod)
        for entry_name, report in _reports(pod):
            if entry_name.startswith("claim:"):
                pod_claim, _, request = entry_name.removeprefix("claim:").partition("/")
                claim_name = claim_names.get(pod_claim)
            else:  # an extended resource's entry is named after the resource
                request, claim_name = "", claim_names.get("")
            claim = by_name.get((namespace, claim_name or ""))
            if claim is None:
                continue
            results = [
                as_dict(r) for r in as_list(as_dict(as_dict(as_dict(
                    claim.get("status")).get("allocation")).get("devices")).get("results"))
                if not request or text(as_dict(r).get("request")).partition("/")[0] == request
            ]
            result = _match(text(report.get("resourceID")), results)
            if result is None:
                continue
            key = (text(result.get("driver")), text(result.get("pool")),
                   text(result.get("device")))
            health = DeviceHealth(text(report.get("health")) or "Unknown",
                                  text(report.get("message")))
            current = found.get(key)
            if current is None or _RANK.get(health.health, 1) > _RANK.get(current.health, 1):
                found[key] = health
    return found
