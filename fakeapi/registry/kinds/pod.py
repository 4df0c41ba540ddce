"""Pod: defaults, QoS class, the Pending phase, binding, graceful deletion and ``kubectl get``.

What the API server itself does to a pod, as upstream's defaulting and pod strategy do it:
defaults the spec (restart and DNS policy, scheduler, grace period, container pull policy,
termination message, port protocol, requests from limits), computes ``status.qosClass`` once, and
starts the pod ``Pending``. Priority and the default tolerations are added before these hooks
run, by the registry's admission chain (``fakeapi.registry.admission``); service accounts are
not modelled. ``spec.nodeName`` is set only by a binding (``POST pods/{name}/binding``, see
:mod:`~fakeapi.registry.kinds.pod_binding`); a scheduled pod lingers
``terminationGracePeriodSeconds`` after deletion until its kubelet confirms, an unscheduled or
finished one goes at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, ClassVar

import orjson

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.quantity import QuantityError
from fakeapi.registry.kinds.common import quantity
from fakeapi.registry.kinds.pod_binding import write_binding
from fakeapi.registry.kinds.pod_eviction import evict_pod
from fakeapi.registry.kinds.pod_log import log_follows, read_log
from fakeapi.registry.kinds.pod_printing import POD_COLUMNS
from fakeapi.registry.strategy import (
    Column,
    Obj,
    Strategy,
    SubresourceFollow,
    SubresourceRead,
    WriteContext,
)
from fakeapi.timefmt import format_time
from fakeapi.validation.field import FieldError, Path
from fakeapi.validation.pod import validate_pod_spec
from fakeapi.validation.pod_update import validate_pod_status_update, validate_pod_update
from fakeapi.validation.remembered import ValidByContent

__all__ = [
    "DEFAULT_GRACE_PERIOD_SECONDS",
    "PodStrategy",
    "default_pod",
    "pod_qos_class",
]

DEFAULT_GRACE_PERIOD_SECONDS = 30
_QOS_RESOURCES = ("cpu", "memory")
#: device health (KEP-4680) exists in pod status only with its gate on
_STATUS_GATED_FIELDS = (
    GatedFields(
        ("ResourceHealthStatus",),
        (
            "status.containerStatuses[*].allocatedResourcesStatus",
            "status.initContainerStatuses[*].allocatedResourcesStatus",
            "status.ephemeralContainerStatuses[*].allocatedResourcesStatus",
            "status.allocatedResourcesStatus",
        ),
    ),
)
_TERMINAL = ("Succeeded", "Failed")


# --- defaults -----------------------------------------------------------------------------------


def default_pod(pod: Obj) -> None:
    """Apply upstream's pod defaulting to ``pod`` in place."""
    spec = pod.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", DEFAULT_GRACE_PERIOD_SECONDS)
    spec.setdefault("securityContext", {})
    spec.setdefault("enableServiceLinks", True)
    host_network = spec.get("hostNetwork") is True
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in as_list(spec.get(key)):
            if isinstance(container, dict):
                _default_container(
                    container, host_network=host_network, requests=key != "ephemeralContainers"
                )
    pod_resources = spec.get("resources")
    if isinstance(pod_resources, dict):
        _requests_from_limits(pod_resources)
    for volume in as_list(spec.get("volumes")):
        if isinstance(volume, dict):
            _default_volume(volume)


def _default_container(container: dict[str, Any], *, host_network: bool, requests: bool) -> None:
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("imagePullPolicy", _pull_policy(text(container.get("image"))))
    resources = container.setdefault("resources", {})
    if requests and isinstance(resources, dict):
        _requests_from_limits(resources)
    for port in as_list(container.get("ports")):
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            if host_network and "containerPort" in port:
                port.setdefault("hostPort", port["containerPort"])
    for probe_key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(probe_key)
        if isinstance(probe, dict):
            probe.setdefault("timeoutSeconds", 1)
            probe.setdefault("periodSeconds", 10)
            probe.setdefault("successThreshold", 1)
            probe.setdefault("failureThreshold", 3)
            http = probe.get("httpGet")
            if isinstance(http, dict):
                http.setdefault("path", "/")
                http.setdefault("scheme", "HTTP")
    for env in as_list(container.get("env")):
        field_ref = dig(env, "valueFrom", "fieldRef")
        if isinstance(field_ref, dict):
            field_ref.setdefault("apiVersion", "v1")


def _pull_policy(image: str) -> str:
    """``Always`` for ``:latest`` or untagged images, else ``IfNotPresent`` (digests included)."""
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    if ":" not in last or last.rsplit(":", 1)[1] == "latest":
        return "Always"
    return "IfNotPresent"


def _requests_from_limits(resources: dict[str, Any]) -> None:
    limits = resources.get("limits")
    if not isinstance(limits, dict) or not limits:
        return
    requests = resources.get("requests")
    requests = dict(requests) if isinstance(requests, dict) else {}
    for name, value in limits.items():
        requests.setdefault(name, value)
    resources["requests"] = requests


def _default_volume(volume: dict[str, Any]) -> None:
    for key in ("secret", "configMap", "downwardAPI", "projected"):
        source = volume.get(key)
        if isinstance(source, dict):
            source.setdefault("defaultMode", 0o644)
    projected = volume.get("projected")
    for source in as_list(dig(projected, "sources")):
        token = dig(source, "serviceAccountToken")
        if isinstance(token, dict):
            token.setdefault("expirationSeconds", 3600)
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict):
        host_path.setdefault("type", "")
    claim_template = dig(volume, "ephemeral", "volumeClaimTemplate", "spec")
    if isinstance(claim_template, dict):
        claim_template.setdefault("volumeMode", "Filesystem")


# --- QoS ----------------------------------------------------------------------------------------


def pod_qos_class(pod: Obj) -> str:
    """Guaranteed, Burstable or BestEffort from cpu/memory requests and limits, as upstream."""
    spec = as_dict(pod.get("spec"))
    pod_level = as_dict(spec.get("resources"))
    if _has_qos_resources(pod_level):
        sources = [pod_level]
    else:
        sources = [
            as_dict(as_dict(c).get("resources"))
            for key in ("initContainers", "containers")
            for c in as_list(spec.get(key))
        ]
    # pods made from one template repeat their resources: the class is remembered by their JSON
    try:
        content = orjson.dumps(sources)
    except TypeError:  # not JSON (an integer beyond 64 bits): worked out, not remembered
        return _qos_class(sources)
    found = _qos_by_resources.get(content)
    if found is None:
        if len(_qos_by_resources) >= _QOS_BY_RESOURCES_SIZE:
            _qos_by_resources.clear()
        found = _qos_by_resources[content] = _qos_class(sources)
    return found


_QOS_BY_RESOURCES_SIZE = 1024
_qos_by_resources: dict[bytes, str] = {}


def _qos_class(sources: list[dict[str, Any]]) -> str:
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for resources in sources:
        for name, amount in _positive(resources.get("requests")).items():
            requests[name] = requests.get(name, Fraction(0)) + amount
        found = _positive(resources.get("limits"))
        for name, amount in found.items():
            limits[name] = limits.get(name, Fraction(0)) + amount
        if not all(name in found for name in _QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    matching = all(limits.get(name) == amount for name, amount in requests.items())
    if guaranteed and matching and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _has_qos_resources(resources: dict[str, Any]) -> bool:
    return any(
        name in _QOS_RESOURCES
        for key in ("requests", "limits")
        for name in as_dict(resources.get(key))
    )


def _positive(values: Any) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for name, raw in as_dict(values).items():
        if name not in _QOS_RESOURCES:
            continue
        try:
            amount = quantity(str(raw)).value
        except (QuantityError, ValueError):
            continue
        if amount > 0:
            out[name] = amount
    return out


#: specs that passed the create rules: pods made from one template repeat theirs
_valid_new_specs = ValidByContent(1024)


def _validate_new_spec(spec: Obj) -> list[FieldError]:
    """``validate_pod_spec(spec, creating=True)``, remembering the specs that passed (the rules
    read nothing but the spec)."""
    return _valid_new_specs.errors(
        spec, lambda s: validate_pod_spec(s, path=Path("spec"), creating=True)
    )


# --- strategy -----------------------------------------------------------------------------------


class PodStrategy(Strategy):
    """Namespaced; status and binding subresources; spec mostly immutable."""

    status_subresource = True
    # upstream's pod status strategy resets only spec, deletionTimestamp and ownerReferences
    status_writes_metadata = ("labels", "annotations", "finalizers")
    tracks_generation = True
    field_labels = (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    )
    columns: ClassVar[tuple[Column, ...]] = POD_COLUMNS
    subresource_actions: ClassVar[Mapping[str, Callable[..., Any]]] = {
        "binding": write_binding,
        "eviction": evict_pod,
    }
    subresource_reads: ClassVar[Mapping[str, SubresourceRead]] = {"log": read_log}
    subresource_follows: ClassVar[Mapping[str, SubresourceFollow]] = {"log": log_follows}

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        default_pod(obj)

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        _merge_label_keys(obj)
        status: Obj = {"phase": "Pending", "qosClass": pod_qos_class(obj)}
        if as_dict(obj.get("spec")).get("schedulingGates"):
            # as upstream's API server, so that kubectl shows SchedulingGated at once
            status["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "lastTransitionTime": format_time(ctx.now),
                    "reason": "SchedulingGated",
                    "message": "Scheduling is blocked due to non-empty scheduling gates",
                }
            ]
        obj["status"] = status

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return _validate_new_spec(as_dict(obj.get("spec")))

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_pod_update(new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        status = new.get("status")
        if not isinstance(status, dict):
            status = new["status"] = {}
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_STATUS_GATED_FIELDS)
        old_qos = dig(old, "status", "qosClass")
        if not status.get("qosClass") and old_qos:
            status["qosClass"] = old_qos
        # upstream's preserveOldObservedGeneration: a writer that does not know the field (or
        # clears it) does not take it away
        old_observed = dig(old, "status", "observedGeneration")
        if status.get("observedGeneration") is None and old_observed is not None:
            status["observedGeneration"] = old_observed
        meta = new.get("metadata")
        old_owners = dig(old, "metadata", "ownerReferences")
        if isinstance(meta, dict):
            if old_owners is None:
                meta.pop("ownerReferences", None)
            else:
                meta["ownerReferences"] = old_owners

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_pod_status_update(new, old)

    def grace_period_seconds(self, obj: Obj, requested: int | None) -> int:
        if requested is not None:
            period = requested
        else:
            configured = dig(obj, "spec", "terminationGracePeriodSeconds")
            period = configured if isinstance(configured, int) else DEFAULT_GRACE_PERIOD_SECONDS
        if not text(dig(obj, "spec", "nodeName")):
            period = 0
        if dig(obj, "status", "phase") in _TERMINAL:
            period = 0
        return 1 if period < 0 else period

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        spec = as_dict(obj.get("spec"))
        status = as_dict(obj.get("status"))
        pod_ip = text(status.get("podIP"))
        if not pod_ip:
            ips = as_list(status.get("podIPs"))
            pod_ip = text(as_dict(ips[0]).get("ip")) if ips else ""
        return {
            "spec.nodeName": text(spec.get("nodeName")),
            "spec.restartPolicy": text(spec.get("restartPolicy")),
            "spec.schedulerName": text(spec.get("schedulerName")),
            "spec.serviceAccountName": text(spec.get("serviceAccountName")),
            "spec.hostNetwork": "true" if spec.get("hostNetwork") is True else "false",
            "status.phase": text(status.get("phase")),
            "status.podIP": pod_ip,
            "status.nominatedNodeName": text(status.get("nominatedNodeName")),
        }


def _merge_label_keys(pod: Obj) -> None:
    """Fold ``matchLabelKeys``/``mismatchLabelKeys`` into the selectors they refine, as upstream's
    API server does when a pod is created (KEP-3633 for pod (anti-)affinity, KEP-3243's selector
    merge for topology spread): ``key In [the pod's value]`` (``NotIn`` for mismatch) for each key
    the pod's labels have; a term without a ``labelSelector`` selects nothing and stays so."""
    labels = as_dict(dig(pod, "metadata", "labels"))
    spec = as_dict(pod.get("spec"))
    if not labels or not spec:
        return
    terms: list[Any] = []
    affinity = as_dict(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        section = as_dict(affinity.get(kind))
        terms += as_list(section.get("requiredDuringSchedulingIgnoredDuringExecution"))
        terms += [
            as_dict(weighted).get("podAffinityTerm")
            for weighted in as_list(section.get("preferredDuringSchedulingIgnoredDuringExecution"))
        ]
    terms += as_list(spec.get("topologySpreadConstraints"))
    for term in terms:
        if not isinstance(term, dict) or not isinstance(term.get("labelSelector"), dict):
            continue
        added = [
            {"key": key, "operator": operator, "values": [labels[key]]}
            for field, operator in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn"))
            for key in as_list(term.get(field))
            if isinstance(key, str) and isinstance(labels.get(key), str)
        ]
        if added:
            selector = term["labelSelector"]
            selector["matchExpressions"] = as_list(selector.get("matchExpressions")) + added
