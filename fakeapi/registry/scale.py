"""The ``/scale`` subresource: an autoscaling/v1 Scale view of a scalable object.

Upstream serves ``deployments/scale``, ``replicasets/scale``, ``statefulsets/scale`` and
``replicationcontrollers/scale`` from the object itself: a GET builds a Scale from the object's
desired replicas, observed replicas and pod selector, and a write of the Scale changes only the
desired replicas, through the kind's ordinary update (its validation, its generation bump; the
managedFields entry names the ``scale`` subresource). A kind opts in with a
:class:`ScaleSubresource` on its strategy (``Strategy.scale``) saying where those three values
live, so custom resources with a scale subresource can describe theirs the same way.

A Scale's ``metadata.resourceVersion`` is the object's, and a write that carries one is
conditional on it (``kubectl scale --resource-version``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from fakeapi import errors
from fakeapi.objects import as_dict, dig
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.results import WriteResult
from fakeapi.selectors import SelectorError, label_selector_from_api
from fakeapi.validation import field as fe

if TYPE_CHECKING:
    from fakeapi.registry.resource_table import ResourceType
    from fakeapi.registry.store import GenericStore

__all__ = [
    "SCALE_API_VERSION",
    "ScaleSubresource",
    "label_selector_string",
    "map_selector_string",
    "read_scale",
    "write_scale",
]

SCALE_API_VERSION = "autoscaling/v1"


def label_selector_string(obj: dict[str, Any]) -> str:
    """``spec.selector`` (a ``metav1.LabelSelector``) in label selector syntax."""
    selector = dig(obj, "spec", "selector")
    if not isinstance(selector, dict):
        return ""
    try:
        return str(label_selector_from_api(selector))
    except (SelectorError, ValueError):
        return ""


def map_selector_string(obj: dict[str, Any]) -> str:
    """``spec.selector`` as a ReplicationController has it (a label map), in selector syntax."""
    selector = as_dict(dig(obj, "spec", "selector"))
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))


@dataclass(frozen=True, slots=True)
class ScaleSubresource:
    """Where a scalable kind keeps what its Scale shows: desired replicas (written by scale
    writes), observed replicas, and the pod selector as a string."""

    spec_replicas: tuple[str, ...] = ("spec", "replicas")
    status_replicas: tuple[str, ...] = ("status", "replicas")
    selector: Callable[[dict[str, Any]], str] = label_selector_string


def _scale_of(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    scale = _paths(rt)
    meta = obj["metadata"]
    scale_meta = {
        key: meta[key]
        for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if key in meta
    }
    status: dict[str, Any] = {"replicas": _int(dig(obj, *scale.status_replicas))}
    selector = scale.selector(obj)
    if selector:
        status["selector"] = selector
    spec_replicas = _int(dig(obj, *scale.spec_replicas))
    return {
        "kind": "Scale",
        "apiVersion": SCALE_API_VERSION,
        "metadata": scale_meta,
        "spec": {"replicas": spec_replicas} if spec_replicas else {},
        "status": status,
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _paths(rt: ResourceType) -> ScaleSubresource:
    scale = rt.strategy.scale
    if scale is None:
        raise errors.not_found(resource=f"{rt.plural}/scale", group=rt.group, name="")
    return scale


def read_scale(
    registry: GenericStore, rt: ResourceType, namespace: str | None, name: str
) -> dict[str, Any]:
    """GET ``.../scale``: the object's Scale (404 when the object does not exist)."""
    return _scale_of(rt, registry.get(rt, namespace, name).obj)


def _check_scale(scale: Any, name: str) -> int:
    """The replicas a Scale body asks for; 400/422 as upstream's scale REST answers."""
    if not isinstance(scale, dict):
        raise errors.bad_request("the body of the request must be an object")
    kind, api_version = scale.get("kind"), scale.get("apiVersion")
    if (kind and kind != "Scale") or (api_version and api_version != SCALE_API_VERSION):
        raise errors.bad_request(
            f"the body of a scale subresource must be an {SCALE_API_VERSION} Scale, not "
            f"{api_version} {kind}"
        )
    body_name = as_dict(scale.get("metadata")).get("name")
    if body_name and body_name != name:
        raise errors.bad_request(
            f"the name of the object ({body_name}) does not match the name on the URL ({name})"
        )
    replicas = as_dict(scale.get("spec")).get("replicas", 0)
    if replicas is None:
        replicas = 0
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        raise errors.bad_request(
            "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal "
            f"{type(replicas).__name__} into Go struct field ScaleSpec.spec.replicas of type int32"
        )
    if replicas < 0:
        raise errors.invalid(
            kind="Scale", group="autoscaling", name=name,
            causes=fe.causes([fe.invalid("spec.replicas", replicas,
                                         "must be greater than or equal to 0")]),
        )
    return replicas


def write_scale(
    registry: GenericStore,
    rt: ResourceType,
    namespace: str | None,
    name: str,
    scale: Any,
    options: WriteOptions,
    *,
    mutate: Callable[[dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    """PUT (``scale``) or PATCH (``mutate`` turns the current Scale into the new one) of
    ``.../scale``: writes the desired replicas into the object; returns the new Scale."""
    paths = _paths(rt)
    current = registry.get(rt, namespace, name)
    if mutate is not None:
        scale = mutate(_scale_of(rt, current.obj))
    replicas = _check_scale(scale, name)
    precondition = as_dict(as_dict(scale).get("metadata")).get("resourceVersion") or None
    new: dict[str, Any] = orjson.loads(current.raw)
    target = new
    for key in paths.spec_replicas[:-1]:
        target = target.setdefault(key, {})
    target[paths.spec_replicas[-1]] = replicas
    result: WriteResult = registry.write_update(
        rt, current, new, options, subresource="scale", precondition=precondition, warnings=[]
    )
    return _scale_of(rt, result.obj)
