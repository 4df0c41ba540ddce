"""``GET pods/{name}/log``: what ``kubectl logs`` reads.

Upstream the API server picks the container and the pod's node (``LogLocation`` in
``pkg/registry/core/pod/strategy.go``) and streams the log from that node's kubelet. fakeapi
answers as both would, from the pod alone:

- a pod with several containers needs ``container`` (400 ``a container name must be specified for
  pod p, choose one of: [a b]``), a name the pod lacks is refused (400 ``container x is not valid
  for pod p``), and a pod on no node has an empty log;
- as its node's kubelet would: a container that has not started refuses (400 ``container "c" in
  pod "p" is waiting to start: ContainerCreating``), and so does ``previous`` for a container that
  never restarted (400 ``previous terminated container "c" in pod "p" not found``);
- otherwise the log itself, which is empty: simulated containers print nothing.

The options that limit the log (``tailLines``, ``limitBytes``, ``sinceSeconds``, ``sinceTime``)
are validated as upstream's ``ValidatePodLogOptions`` (422 ``PodLogOptions "p" is invalid``).

With ``follow`` (``kubectl logs -f``) the read stays open while the container runs, as the
kubelet's stream does, and ends when it stops or the pod goes (:func:`log_follows`).
"""

from __future__ import annotations

from collections.abc import Mapping

from fakeapi import errors
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.registry.options import ReadOptions
from fakeapi.registry.strategy import Obj
from fakeapi.validation import field as fe
from fakeapi.validation.pod import validate_pod_log_options

__all__ = ["log_follows", "read_log"]

#: the pod's container lists: where a name is looked up, its statuses, how the choice names it
_CONTAINER_LISTS = {
    "containers": ("containerStatuses", ""),
    "initContainers": ("initContainerStatuses", " or one of the init containers: "),
    "ephemeralContainers": ("ephemeralContainerStatuses", " or one of the ephemeral containers: "),
}


def read_log(pod: Obj, options: ReadOptions) -> tuple[str, bytes]:
    """The content type and body of the log ``options`` ask for; StatusError 400 as upstream."""
    name = text(dig(pod, "metadata", "name"))
    errs = validate_pod_log_options(
        tail_lines=options.tail_lines,
        limit_bytes=options.limit_bytes,
        since_seconds=options.since_seconds,
        since_time=options.since_time,
    )
    if errs:
        raise errors.invalid(kind="PodLogOptions", group="", name=name, causes=fe.causes(errs))
    spec = as_dict(pod.get("spec"))
    names = {
        key: [text(as_dict(c).get("name")) for c in as_list(spec.get(key))]
        for key in _CONTAINER_LISTS
    }
    container = options.container
    if not container:
        if len(names["containers"]) != 1:
            raise errors.bad_request(_choose_one(name, names))
        container = names["containers"][0]
    where = next((key for key, listed in names.items() if container in listed), None)
    if where is None:
        raise errors.bad_request(f"container {container} is not valid for pod {name}")
    if text(spec.get("nodeName")):  # on no node, no kubelet to ask: an empty log, as upstream
        _check_kubelet_has_log(pod, where, container, previous=options.previous)
    return "text/plain", b""


def log_follows(pod: Obj, options: ReadOptions) -> bool:
    """Whether a followed log read of this version of the pod stays open: the container (named,
    or the only one) runs on a node. A previous instance's log is complete."""
    if options.previous or not text(dig(pod, "spec", "nodeName")):
        return False
    container = options.container or next(
        (text(as_dict(c).get("name")) for c in as_list(dig(pod, "spec", "containers"))), ""
    )
    return any(
        as_dict(s).get("name") == container and dig(s, "state", "running") is not None
        for key in _CONTAINER_LISTS.values()
        for s in as_list(dig(pod, "status", key[0]))
    )


def _check_kubelet_has_log(pod: Obj, where: str, container: str, *, previous: bool) -> None:
    """Refuse as the node's kubelet refuses a log it does not have."""
    name = text(dig(pod, "metadata", "name"))
    status = next(
        (
            as_dict(s)
            for s in as_list(dig(pod, "status", _CONTAINER_LISTS[where][0]))
            if as_dict(s).get("name") == container
        ),
        {},
    )
    if previous:
        if dig(status, "lastState", "terminated") is None:
            raise errors.bad_request(
                f'previous terminated container "{container}" in pod "{name}" not found'
            )
    elif dig(status, "state", "running") is None and dig(status, "state", "terminated") is None:
        reason = text(dig(status, "state", "waiting", "reason")) or "ContainerCreating"
        raise errors.bad_request(
            f'container "{container}" in pod "{name}" is waiting to start: {reason}'
        )


def _choose_one(name: str, names: Mapping[str, list[str]]) -> str:
    message = f"a container name must be specified for pod {name}"
    if not names["containers"]:
        return message
    return (
        message
        + ", choose one of: "
        + "".join(
            f"{lead}[{' '.join(names[key])}]"
            for key, (_, lead) in _CONTAINER_LISTS.items()
            if names[key]
        )
    )
