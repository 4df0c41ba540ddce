"""``POST pods/{name}/binding``: how the scheduler assigns a pod to a node.

As kube-apiserver's binding REST (``BindingREST`` in ``pkg/registry/core/pod/storage``) does it,
the binding is checked on its own and the pod is then written *straight to storage*: the pod's
update admission, strategy and validation do not run, and no ``managedFields`` entry is
recorded, so a bound pod's managedFields name no scheduler. The write:

- refuses a binding named for another pod (400 ``name in URL does not match name in Binding
  object``), a target that is not a Node or has no name (422 ``Binding "p" is invalid``);
- honours the binding's ``metadata.uid`` and ``metadata.resourceVersion`` as preconditions on
  the pod (409);
- refuses a pod that is already bound, being deleted or still gated (409 on ``pods/binding``);
- sets ``spec.nodeName``, merges the binding's annotations and marks ``PodScheduled=True``;
  with ``ClearingNominatedNodeNameAfterBinding`` (on) it clears ``status.nominatedNodeName``,
  the node preemption had cleared for the pod, now stale.

fakeapi also refuses a node name that is not a DNS subdomain (422 on ``spec.nodeName``), which
upstream would store as given.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from fakeapi import errors
from fakeapi.features import enabled
from fakeapi.objects import as_dict, as_list, dig, object_key, text
from fakeapi.registry.deletion import check_preconditions
from fakeapi.registry.options import Preconditions, WriteOptions
from fakeapi.registry.strategy import Obj
from fakeapi.timefmt import format_time
from fakeapi.validation.field import Path
from fakeapi.validation.pod import validate_binding_target, validate_pod_node_name

if TYPE_CHECKING:
    from fakeapi.registry.resource_table import ResourceType
    from fakeapi.registry.results import WriteResult
    from fakeapi.registry.store import GenericStore

__all__ = ["bind_pod", "mark_scheduled", "write_binding"]


def write_binding(
    registry: GenericStore,
    rt: ResourceType,
    namespace: str | None,
    name: str,
    body: dict[str, Any],
    options: WriteOptions,
) -> WriteResult:
    """Bind the pod ``name`` as ``body`` says; returns the bound pod."""
    current = registry.get(rt, namespace, name)
    meta = as_dict(body.get("metadata"))
    uid, version = text(meta.get("uid")), text(meta.get("resourceVersion"))
    if uid or version:
        check_preconditions(
            rt,
            current.obj["metadata"],
            Preconditions(uid=uid or None, resource_version=version or None),
            rt.store(registry.storage).check_version,
            object_key(current.obj),
        )
    bound = bind_pod(current.obj, body, registry.clock.now())
    if enabled(registry.feature_gates, "ClearingNominatedNodeNameAfterBinding"):
        bound["status"].pop("nominatedNodeName", None)
    errs = validate_pod_node_name(bound["spec"], path=Path("spec"))
    if errs:
        raise errors.invalid(
            kind=rt.kind, group=rt.group, name=name, causes=[e.cause() for e in errs]
        )
    return registry.write_to_storage(rt, current, bound, options)


def bind_pod(pod: Obj, binding: Obj, now: datetime) -> Obj:
    """The pod after ``binding``: a new dict sharing the parts it leaves alone with ``pod``,
    which is not modified.

    Sets ``spec.nodeName``, copies the binding's annotations and marks ``PodScheduled=True``.
    Raises 409 Conflict when the pod is already bound, is being deleted or still has scheduling
    gates, 422 when the binding names no node, and 400 when it names another pod.
    """
    name = text(dig(pod, "metadata", "name"))
    binding_name = text(dig(binding, "metadata", "name"))
    if binding_name and binding_name != name:
        raise errors.bad_request("name in URL does not match name in Binding object")
    target = as_dict(binding.get("target"))
    causes = validate_binding_target(target)
    if causes:
        raise errors.invalid(
            kind="Binding", group="", name=binding_name or name, causes=[c.cause() for c in causes]
        )
    node = text(dig(pod, "spec", "nodeName"))
    if node:
        raise _conflict(name, f'pod {name} is already assigned to node "{node}"')
    if dig(pod, "metadata", "deletionTimestamp"):
        raise _conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
    if as_list(dig(pod, "spec", "schedulingGates")):
        raise _conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
    meta = dict(as_dict(pod.get("metadata")))
    annotations = as_dict(dig(binding, "metadata", "annotations"))
    if annotations:
        meta["annotations"] = {**as_dict(meta.get("annotations")), **annotations}
    new = {
        **pod,
        "metadata": meta,
        "spec": {**as_dict(pod.get("spec")), "nodeName": text(target.get("name"))},
        "status": dict(as_dict(pod.get("status"))),
    }
    mark_scheduled(new, now)
    return new


def mark_scheduled(pod: Obj, now: datetime) -> None:
    """Replace any ``PodScheduled`` condition of ``pod`` with ``status: "True"`` at ``now``
    (``pod["status"]`` gets a new conditions list; the old one is not modified)."""
    status = pod.get("status")
    if not isinstance(status, dict):
        status = pod["status"] = {}
    conditions = [
        c for c in as_list(status.get("conditions")) if as_dict(c).get("type") != "PodScheduled"
    ]
    scheduled: dict[str, Any] = {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": format_time(now),
    }
    generation = dig(pod, "metadata", "generation")
    if isinstance(generation, int):
        scheduled["observedGeneration"] = generation
    status["conditions"] = [*conditions, scheduled]


def _conflict(name: str, detail: str) -> errors.StatusError:
    return errors.conflict(resource="pods/binding", group="", name=name, detail=detail)
